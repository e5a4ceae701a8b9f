package agentruntime

import (
	"context"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	psapi "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/rules"
)

// hostPathRoot is the attack: the node's root
// filesystem in the agent's pod.
const hostPathRoot = `{"name":"root","hostPath":{"path":"/"}}`

func withExtraVolumes(vols ...string) func(*v1alpha1.AgentRuntime) {
	return func(ar *v1alpha1.AgentRuntime) {
		if ar.Spec.PodOverrides == nil {
			ar.Spec.PodOverrides = &v1alpha1.PodOverrides{}
		}
		for _, v := range vols {
			ar.Spec.PodOverrides.ExtraVolumes = append(ar.Spec.PodOverrides.ExtraVolumes, runtime.RawExtension{Raw: []byte(v)})
		}
	}
}

// pssRelevant is what the Pod Security checks read of a pod (every
// k8s.io/pod-security-admission/policy check reads only these): the
// annotations, host namespaces, the pod's and each container's security
// context, host ports, probe and lifecycle hosts, the volumes and the OS.
// The operator's own hash annotations and omnia-* volumes are left out:
// they are not in the rule's view (rules.AgentRuntimePodSecurityView), and
// TestPodSecurityViewMatchesBuilder checks their verdict separately.
type pssRelevant struct {
	Annotations                   map[string]string
	HostNetwork, HostPID, HostIPC bool
	HostUsers                     *bool
	SecurityContext               *corev1.PodSecurityContext
	Containers                    map[string]pssContainer
	InitContainers, Ephemeral     int
	Volumes                       []corev1.Volume
	OS                            *corev1.PodOS
}

type pssContainer struct {
	SecurityContext *corev1.SecurityContext
	HostPorts       []int32
	ProbeHosts      []string
}

func pssProjection(m *metav1.ObjectMeta, s *corev1.PodSpec) pssRelevant {
	out := pssRelevant{
		Annotations: maps.Clone(m.Annotations), HostNetwork: s.HostNetwork, HostPID: s.HostPID, HostIPC: s.HostIPC, HostUsers: s.HostUsers,
		SecurityContext: s.SecurityContext, Containers: map[string]pssContainer{}, InitContainers: len(s.InitContainers),
		Ephemeral: len(s.EphemeralContainers), OS: s.OS,
	}
	delete(out.Annotations, workload.ConfigHashAnnotation)
	delete(out.Annotations, workload.AsyncQueueHashAnnotation)
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	for _, v := range s.Volumes {
		if !strings.HasPrefix(v.Name, "omnia-") {
			out.Volumes = append(out.Volumes, v)
		}
	}
	for _, c := range s.Containers {
		pc := pssContainer{SecurityContext: c.SecurityContext}
		for _, p := range c.Ports {
			if p.HostPort != 0 {
				pc.HostPorts = append(pc.HostPorts, p.HostPort)
			}
		}
		for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
			if p != nil && p.HTTPGet != nil && p.HTTPGet.Host != "" {
				pc.ProbeHosts = append(pc.ProbeHosts, p.HTTPGet.Host)
			}
			if p != nil && p.TCPSocket != nil && p.TCPSocket.Host != "" {
				pc.ProbeHosts = append(pc.ProbeHosts, p.TCPSocket.Host)
			}
		}
		if c.Lifecycle != nil {
			pc.ProbeHosts = append(pc.ProbeHosts, "lifecycle")
		}
		out.Containers[c.Name] = pc
	}
	return out
}

// podSecurityExamples are the agents the view is checked on: the spec's
// complete example, every AgentRuntime the schema table accepts, and the
// rule table's attacks.
func podSecurityExamples(t *testing.T) map[string]*v1alpha1.AgentRuntime {
	t.Helper()
	out := map[string]*v1alpha1.AgentRuntime{"production-agent.yaml": loadExample(t, "production-agent.yaml")}
	data, err := os.ReadFile("../../api/v1alpha1/testdata/schema/agentruntime.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Name   string         `json:"name"`
		Expect string         `json:"expect"`
		Object map[string]any `json:"object"`
	}
	if err := yaml.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if row.Expect != "accept" {
			continue
		}
		ar := &v1alpha1.AgentRuntime{}
		if runtime.DefaultUnstructuredConverter.FromUnstructured(row.Object, ar) != nil {
			continue // a row about a field the typed object cannot hold
		}
		ar.Namespace = "team-a"
		out["schema: "+row.Name] = ar
	}
	for name, mut := range map[string]func(*v1alpha1.AgentRuntime){
		"hostPath /":          withExtraVolumes(hostPathRoot),
		"HostPath spelled so": withExtraVolumes(`{"name":"root","HostPath":{"path":"/"}}`),
		"nfs and emptyDir":    withExtraVolumes(`{"name":"s","nfs":{"server":"n","path":"/"}}`, `{"name":"e","emptyDir":{}}`),
		"runtime.volumes": func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Volumes: []corev1.Volume{{Name: "h", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var"}}}}}
		},
		"AppArmor unconfined": func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.ExtraPodAnnotations = map[string]string{"container.apparmor.security.beta.kubernetes.io/runtime": "unconfined"}
		},
		"override wins": func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.ExtraPodAnnotations = map[string]string{"a": "1"}
			ar.Spec.PodOverrides = &v1alpha1.PodOverrides{Annotations: map[string]string{"a": "2"}}
		},
		"custom facade's image": func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Facades = []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeCustom, Image: "me/facade:1"}}
		},
		"runtime class and pods": func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.PodOverrides = &v1alpha1.PodOverrides{RuntimeClassName: "gvisor", ServiceAccountName: "sa"}
		},
	} {
		out[name] = agent(mut)
	}
	return out
}

// TestPodSecurityViewMatchesBuilder: the pod the agentruntime/pod-security
// rule judges (rules.AgentRuntimePodSecurityView) equals the pod Deployment
// builds on every field a Pod Security check reads, for every example;
// and, with the operator's own volumes in (a resolved pack, the JWKS
// Secret, a media claim), Kubernetes' checks give both pods the same
// verdict at baseline and restricted, so the volumes the view leaves out
// never change the answer.
func TestPodSecurityViewMatchesBuilder(t *testing.T) {
	eval, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := resolved()
	r.PromptPack = &workload.ResolvedPromptPack{PackName: "p", Version: "1", ConfigMapName: "p-1"}
	r.OIDCJWKSSecret = "jwks"
	examples := podSecurityExamples(t)
	if len(examples) < 20 {
		t.Fatalf("only %d examples: the schema table did not load", len(examples))
	}
	for name, ar := range examples {
		t.Run(name, func(t *testing.T) {
			d, _, err := workload.Deployment(ar, r)
			if err != nil {
				// No pod is built; the rule leaves such a volume to this
				// error, so both must see it.
				if _, verr := rules.AgentRuntimeExtraVolumes(ar); verr == nil {
					t.Fatalf("Deployment: %v, but the rule's decoding accepts the volumes", err)
				}
				return
			}
			built := &d.Spec.Template
			vm, vs := rules.AgentRuntimePodSecurityView(ar)
			if got, want := pssProjection(vm, vs), pssProjection(&built.ObjectMeta, &built.Spec); !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("the rule's pod differs from the builder's:\n rule:    %+v\n builder: %+v", got, want)
			}
			for _, level := range []psapi.Level{psapi.LevelBaseline, psapi.LevelRestricted} {
				lv := psapi.LevelVersion{Level: level, Version: psapi.LatestVersion()}
				if got, want := eval.EvaluatePod(lv, vm, vs), eval.EvaluatePod(lv, &built.ObjectMeta, &built.Spec); !slices.Equal(got, want) {
					t.Errorf("%s: the rule's pod is judged %+v, the builder's %+v", level, got, want)
				}
			}
		})
	}
}

// podSecurityAgent creates a resolvable agent (a Ready pack, no Provider)
// with mut applied, in a fresh namespace with labels.
func podSecurityAgent(t *testing.T, ns string, labels map[string]string, mut func(*v1alpha1.AgentRuntime)) client.ObjectKey {
	t.Helper()
	ctx := context.Background()
	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: labels}}); err != nil {
		t.Fatal(err)
	}
	pack := &v1alpha1.PromptPack{ObjectMeta: metav1.ObjectMeta{Name: "prompts-1", Namespace: ns, Labels: map[string]string{rules.PromptPackLabel: "prompts"}}}
	pack.Spec.PackName, pack.Spec.Version = "prompts", "1.0.0"
	pack.Spec.Source.ConfigMapRef = &v1alpha1.LocalObjectReference{Name: "prompts"}
	if err := k8s.Create(ctx, pack); err != nil {
		t.Fatal(err)
	}
	setPackPhase(t, pack, v1alpha1.PromptPackPhaseReady)
	ar := agent(func(a *v1alpha1.AgentRuntime) {
		a.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts"}
		if mut != nil {
			mut(a)
		}
	})
	ar.Namespace, ar.UID = ns, ""
	if err := k8s.Create(ctx, ar); err != nil {
		t.Fatalf("create AgentRuntime: %v", err)
	}
	return client.ObjectKeyFromObject(ar)
}

// wantPodRefused asserts DeploymentReady False with reason and a message
// naming the rule at field, and Ready False.
func wantPodRefused(t *testing.T, ar *v1alpha1.AgentRuntime, reason, ruleAtField string) {
	t.Helper()
	c := meta.FindStatusCondition(ar.Status.Conditions, v1alpha1.AgentRuntimeConditionDeploymentReady)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != reason || !strings.Contains(c.Message, ruleAtField) {
		t.Errorf("DeploymentReady %+v, want False/%s naming %q", c, reason, ruleAtField)
	}
	if c := meta.FindStatusCondition(ar.Status.Conditions, v1alpha1.AgentRuntimeConditionReady); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("Ready %+v, want False", c)
	}
	if ar.Status.Phase != v1alpha1.AgentRuntimePhasePending {
		t.Errorf("phase %q, want Pending", ar.Status.Phase)
	}
}

// TestReconcileRefusesPodBelowPodSecurity: an agent the webhook never saw
// (this suite runs no webhook) asking for hostPath / gets no Deployment,
// and DeploymentReady False PodSecurityViolation with the rule's finding,
// the same rule ID and field the webhook and omniactl refuse it with. An
// agent that already runs and is then changed to ask for it keeps its
// earlier, allowed Deployment untouched.
func TestReconcileRefusesPodBelowPodSecurity(t *testing.T) {
	ctx := context.Background()
	const finding = "[agentruntime/pod-security] spec.podOverrides.extraVolumes[0]"
	r, _ := newCountingReconciler(t)

	t.Run("created with hostPath /", func(t *testing.T) {
		key := podSecurityAgent(t, "ar-pss-created", nil, withExtraVolumes(hostPathRoot))
		wantPodRefused(t, reconcileAgent(t, r, key), v1alpha1.AgentRuntimeReasonPodSecurityViolation, finding)
		if err := k8s.Get(ctx, key, &appsv1.Deployment{}); err == nil {
			t.Errorf("a Deployment was applied for a pod mounting the node's root")
		}
	})

	t.Run("updated to hostPath /", func(t *testing.T) {
		key := podSecurityAgent(t, "ar-pss-updated", nil, nil)
		reconcileAgent(t, r, key)
		before := &appsv1.Deployment{}
		if err := k8s.Get(ctx, key, before); err != nil {
			t.Fatalf("the allowed agent has no Deployment: %v", err)
		}
		ar := &v1alpha1.AgentRuntime{}
		if err := k8s.Get(ctx, key, ar); err != nil {
			t.Fatal(err)
		}
		withExtraVolumes(hostPathRoot)(ar)
		if err := k8s.Update(ctx, ar); err != nil {
			t.Fatal(err)
		}
		wantPodRefused(t, reconcileAgent(t, r, key), v1alpha1.AgentRuntimeReasonPodSecurityViolation, finding)
		after := &appsv1.Deployment{}
		if err := k8s.Get(ctx, key, after); err != nil {
			t.Fatal(err)
		}
		if after.ResourceVersion != before.ResourceVersion {
			t.Errorf("the Deployment was rewritten (resourceVersion %s -> %s)", before.ResourceVersion, after.ResourceVersion)
		}
		for _, v := range after.Spec.Template.Spec.Volumes {
			if v.HostPath != nil {
				t.Errorf("the Deployment mounts hostPath %s", v.HostPath.Path)
			}
		}
	})

	nfs := withExtraVolumes(`{"name":"share","nfs":{"server":"nfs.example.com","path":"/exports"}}`)
	t.Run("nfs where the namespace enforces restricted", func(t *testing.T) {
		key := podSecurityAgent(t, "ar-pss-ns-restricted", map[string]string{psapi.EnforceLevelLabel: "restricted"}, nfs)
		wantPodRefused(t, reconcileAgent(t, r, key), v1alpha1.AgentRuntimeReasonPodSecurityViolation, finding)
	})

	t.Run("nfs under a restricted floor", func(t *testing.T) {
		key := podSecurityAgent(t, "ar-pss-floor-restricted", map[string]string{psapi.EnforceLevelLabel: "baseline"}, nfs)
		strict, _ := newCountingReconciler(t)
		strict.opts.PodSecurity = rules.PodSecuritySettings{Level: "restricted"}
		wantPodRefused(t, reconcileAgent(t, strict, key), v1alpha1.AgentRuntimeReasonPodSecurityViolation, finding)
		// The default floor (baseline) admits nfs: the same agent runs.
		got := reconcileAgent(t, r, key)
		if c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.AgentRuntimeConditionDeploymentReady); c == nil || c.Reason == v1alpha1.AgentRuntimeReasonPodSecurityViolation {
			t.Errorf("DeploymentReady %+v under the baseline floor", c)
		}
		if err := k8s.Get(ctx, key, &appsv1.Deployment{}); err != nil {
			t.Errorf("no Deployment under the baseline floor: %v", err)
		}
	})

	t.Run("a RuntimeClass the operator does not list", func(t *testing.T) {
		key := podSecurityAgent(t, "ar-pss-runtimeclass", nil, func(a *v1alpha1.AgentRuntime) {
			a.Spec.PodOverrides = &v1alpha1.PodOverrides{RuntimeClassName: "runc"}
		})
		listed, _ := newCountingReconciler(t)
		listed.opts.PodSecurity = rules.PodSecuritySettings{RuntimeClasses: []string{"gvisor"}}
		wantPodRefused(t, reconcileAgent(t, listed, key), v1alpha1.AgentRuntimeReasonRuntimeClassNotAllowed,
			"[agentruntime/runtime-class-allowed] spec.podOverrides.runtimeClassName")
		if err := k8s.Get(ctx, key, &appsv1.Deployment{}); err == nil {
			t.Errorf("a Deployment was applied under an unlisted RuntimeClass")
		}
	})
}
