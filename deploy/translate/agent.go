package translate

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/deploy/merge"
)

// DefaultProviderRole is a provider binding's role when the intent gives none.
const DefaultProviderRole = "llm"

// The CRD's default runtime resources (requests 100m CPU, 256Mi memory): an
// intent that sets only one of cpu and memory keeps the other's default, as
// setting runtime.resources replaces the default wholesale.
var (
	defaultCPU    = resource.MustParse("100m")
	defaultMemory = resource.MustParse("256Mi")
)

// agent is the desired AgentRuntime of one intent agent: what the intent
// expresses, for merge.Merge to lay over the live agent. Intent labels are
// set on it; Merge uses them on create only.
func agent(in *intent.DeployIntent, a intent.Agent, namespace, version, registry string) Agent {
	out := Agent{
		Name:    a.Name,
		Options: merge.OptionsFor(a),
		Create:  a.Create != nil && *a.Create,
	}
	rt, err := runtimeOf(a.Runtime)
	if err != nil {
		out.Err = fmt.Errorf("agent %s: %w", a.Name, err)
		return out
	}
	spec := v1alpha1.AgentRuntimeSpec{
		PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: in.Pack.Name, Version: version},
		Providers:     providers(a.Providers),
		Runtime:       rt,
		Facades:       facades(a.Facades),
		ExternalAuth:  externalAuth(a.ExternalAuth),
		Memory:        memory(a.Memory),
		Evals:         evals(a.Evals),
		Rollout:       rollout(a.Rollout),
	}
	if a.UseTools != nil && *a.UseTools && registry != "" {
		spec.ToolRegistryRef = &v1alpha1.NamespacedObjectReference{Name: registry}
	}
	m := meta(a.Name, namespace, labels(in.Labels, nil))
	out.Desired = &v1alpha1.AgentRuntime{TypeMeta: typeMeta(KindAgentRuntime), ObjectMeta: m, Spec: spec}
	return out
}

func providers(in []intent.AgentProvider) v1alpha1.AgentRuntimeProviders {
	if len(in) == 0 {
		return nil
	}
	out := make(v1alpha1.AgentRuntimeProviders, 0, len(in))
	for _, p := range in {
		role := p.Role
		if role == "" {
			role = DefaultProviderRole
		}
		out = append(out, v1alpha1.AgentRuntimeProvider{
			Name:        p.Name,
			ProviderRef: v1alpha1.NamespacedObjectReference{Name: p.Ref},
			Role:        v1alpha1.AgentRuntimeProviderRole(role),
		})
	}
	return out
}

// runtimeOf maps runtime {replicas, cpu, memory}. cpu and memory are the
// runtime container's requests; memory is also its limit (memory is not
// compressible: a pod above its request is the first evicted, so the
// intent's figure is what it may use), cpu has no limit (a CPU limit only
// throttles). One of the two unset keeps the CRD default request for it.
func runtimeOf(in *intent.Runtime) (*v1alpha1.AgentRuntimeRuntime, error) {
	if in == nil {
		return nil, nil
	}
	out := &v1alpha1.AgentRuntimeRuntime{Replicas: in.Replicas}
	if in.CPU == "" && in.Memory == "" {
		return out, nil
	}
	cpu, mem := defaultCPU.DeepCopy(), defaultMemory.DeepCopy()
	var err error
	if in.CPU != "" {
		if cpu, err = resource.ParseQuantity(in.CPU); err != nil {
			return nil, fmt.Errorf("runtime.cpu %q: %v", in.CPU, err)
		}
	}
	if in.Memory != "" {
		if mem, err = resource.ParseQuantity(in.Memory); err != nil {
			return nil, fmt.Errorf("runtime.memory %q: %v", in.Memory, err)
		}
	}
	out.Resources = &corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem},
	}
	if in.Memory != "" {
		out.Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: mem.DeepCopy()}
	}
	return out, nil
}

// facades: empty is one websocket facade; the handler is always runtime.
func facades(in []intent.Facade) []v1alpha1.AgentRuntimeFacade {
	if len(in) == 0 {
		return []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, Handler: merge.FacadeHandler}}
	}
	out := make([]v1alpha1.AgentRuntimeFacade, 0, len(in))
	for _, f := range in {
		out = append(out, v1alpha1.AgentRuntimeFacade{
			Type:            v1alpha1.AgentRuntimeFacadeType(f.Type),
			Handler:         merge.FacadeHandler,
			ManagementPlane: f.ManagementPlane,
			DataPlane:       f.DataPlane,
		})
	}
	return out
}

func externalAuth(in *intent.ExternalAuth) *v1alpha1.AgentRuntimeExternalAuth {
	if in == nil {
		return nil
	}
	out := &v1alpha1.AgentRuntimeExternalAuth{}
	if ck := in.ClientKeys; ck != nil {
		out.ClientKeys = &v1alpha1.AgentRuntimeClientKeys{
			DefaultRole:        ck.DefaultRole,
			TrustEndUserHeader: ck.TrustEndUserHeader != nil && *ck.TrustEndUserHeader,
		}
	}
	if o := in.OIDC; o != nil {
		out.OIDC = &v1alpha1.AgentRuntimeOIDC{Issuer: o.Issuer, Audience: o.Audience}
		if cm := o.ClaimMapping; cm != nil {
			out.OIDC.ClaimMapping = &v1alpha1.AgentRuntimeOIDCClaimMapping{Subject: cm.Subject, EndUser: cm.EndUser}
		}
	}
	if e := in.EdgeTrust; e != nil {
		out.EdgeTrust = &v1alpha1.AgentRuntimeEdgeTrust{ClaimsFromHeaders: e.ClaimsFromHeaders}
		if hm := e.HeaderMapping; hm != nil {
			out.EdgeTrust.HeaderMapping = &v1alpha1.AgentRuntimeEdgeTrustHeaderMapping{
				Subject: hm.Subject, EndUser: hm.EndUser, Email: hm.Email,
			}
		}
	}
	return out
}

func memory(in *intent.Memory) *v1alpha1.AgentRuntimeMemory {
	if in == nil {
		return nil
	}
	out := &v1alpha1.AgentRuntimeMemory{Enabled: in.Enabled != nil && *in.Enabled}
	if r := in.Retrieval; r != nil {
		out.Retrieval = &v1alpha1.AgentRuntimeMemoryRetrieval{
			Enabled:  r.Enabled,
			Strategy: v1alpha1.AgentRuntimeMemoryStrategy(r.Strategy),
			Limit:    r.Limit,
		}
		if r.DenyCEL != "" {
			out.Retrieval.AccessFilter = &v1alpha1.AgentRuntimeMemoryAccessFilter{DenyCEL: r.DenyCEL}
		}
	}
	if t := in.Tools; t != nil {
		out.Tools = &v1alpha1.AgentRuntimeMemoryTools{Enabled: t.Enabled}
	}
	return out
}

func evals(in *intent.Evals) *v1alpha1.AgentRuntimeEvals {
	if in == nil {
		return nil
	}
	out := &v1alpha1.AgentRuntimeEvals{Enabled: in.Enabled != nil && *in.Enabled}
	if len(in.InlineGroups) > 0 {
		out.Inline = &v1alpha1.AgentRuntimeEvalsInline{Groups: in.InlineGroups}
	}
	if len(in.WorkerGroups) > 0 {
		out.Worker = &v1alpha1.AgentRuntimeEvalsWorker{Groups: in.WorkerGroups}
	}
	return out
}

// rollout maps {trigger, steps}: a step's setWeight, or its pauseDuration
// as a timed pause. A step with neither is passed on empty, for the CRD's
// one-of rule to refuse.
func rollout(in *intent.Rollout) *v1alpha1.AgentRuntimeRollout {
	if in == nil {
		return nil
	}
	out := &v1alpha1.AgentRuntimeRollout{}
	if in.Trigger != nil {
		out.Trigger = &v1alpha1.AgentRuntimeRolloutTrigger{
			PromptPackChannel: v1alpha1.AgentRuntimePromptPackTrack(in.Trigger.PromptPackChannel),
		}
	}
	for _, s := range in.Steps {
		step := v1alpha1.AgentRuntimeRolloutStep{SetWeight: s.SetWeight}
		if s.PauseDuration != "" {
			step.Pause = &v1alpha1.AgentRuntimeRolloutPause{Duration: s.PauseDuration}
		}
		out.Steps = append(out.Steps, step)
	}
	return out
}
