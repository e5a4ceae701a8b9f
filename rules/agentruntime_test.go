package rules

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

const agentRuntimeTestNamespace = "agents"

// agentRuntimeTestFacts answers Provider and PromptPack lookups from maps
// keyed "namespace/name" and grants the listed licence features.
type agentRuntimeTestFacts struct {
	NoFacts
	providers map[string]*v1alpha1.Provider
	packs     map[string][]v1alpha1.PromptPack
	features  map[string]bool
	// registries and agents: the ToolRegistries and AgentRuntimes (A2A
	// targets) that exist, by "namespace/name".
	registries map[string]bool
	agents     map[string]*v1alpha1.AgentRuntime
	// observed: the facts carry live status (StatusObserved).
	observed bool
}

func (f agentRuntimeTestFacts) ToolRegistry(namespace, name string) (*v1alpha1.ToolRegistry, bool) {
	if !f.registries[namespace+"/"+name] {
		return nil, false
	}
	return &v1alpha1.ToolRegistry{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}, true
}

func (f agentRuntimeTestFacts) AgentRuntime(namespace, name string) (*v1alpha1.AgentRuntime, bool) {
	a, ok := f.agents[namespace+"/"+name]
	return a, ok
}

func (f agentRuntimeTestFacts) StatusObserved() bool { return f.observed }

func (f agentRuntimeTestFacts) Provider(namespace, name string) (*v1alpha1.Provider, bool) {
	p, ok := f.providers[namespace+"/"+name]
	return p, ok
}

func (f agentRuntimeTestFacts) PromptPacks(namespace, packName string) []v1alpha1.PromptPack {
	return f.packs[namespace+"/"+packName]
}

func (f agentRuntimeTestFacts) License() License { return License{Features: f.features} }

func agentRuntimeTestProvider(name string, role v1alpha1.ProviderRole, caps ...v1alpha1.ProviderCapability) *v1alpha1.Provider {
	return &v1alpha1.Provider{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: agentRuntimeTestNamespace},
		Spec:       v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeClaude, Role: role, Model: "m", Capabilities: caps},
	}
}

func agentRuntimeTestPack(packName, version string, live bool) v1alpha1.PromptPack {
	p := v1alpha1.PromptPack{
		ObjectMeta: metav1.ObjectMeta{Name: packName + "-" + version, Namespace: agentRuntimeTestNamespace,
			Labels: map[string]string{PromptPackLabel: packName}},
		Spec: v1alpha1.PromptPackSpec{PackName: packName, Version: version},
	}
	if live {
		p.Name = packName + "-live"
		p.Spec.Source.Live = &v1alpha1.PromptPackLiveSource{ProjectRef: v1alpha1.LocalObjectReference{Name: "proj"}}
	} else {
		p.Spec.Source.ConfigMapRef = &v1alpha1.LocalObjectReference{Name: p.Name}
	}
	return p
}

// agentRuntimeBaseFacts knows the base agent's Provider and pack.
func agentRuntimeBaseFacts() agentRuntimeTestFacts {
	return agentRuntimeTestFacts{
		providers: map[string]*v1alpha1.Provider{
			agentRuntimeTestNamespace + "/claude": agentRuntimeTestProvider("claude", "",
				v1alpha1.ProviderCapabilityText, v1alpha1.ProviderCapabilityStreaming, v1alpha1.ProviderCapabilityTools),
		},
		packs: map[string][]v1alpha1.PromptPack{
			agentRuntimeTestNamespace + "/support": {
				agentRuntimeTestPack("support", "1.0.0", false),
				agentRuntimeTestPack("support", "1.1.0-rc.1", false),
			},
			agentRuntimeTestNamespace + "/edge": {agentRuntimeTestPack("edge", "2.0.0-beta.1", false)},
			agentRuntimeTestNamespace + "/dev":  {agentRuntimeTestPack("dev", "", true)},
			agentRuntimeTestNamespace + "/mixed": {
				agentRuntimeTestPack("mixed", "", true),
				agentRuntimeTestPack("mixed", "1.0.0", false),
			},
		},
		registries: map[string]bool{agentRuntimeTestNamespace + "/tools": true},
		agents: map[string]*v1alpha1.AgentRuntime{
			agentRuntimeTestNamespace + "/billing-agent": {
				ObjectMeta: metav1.ObjectMeta{Name: "billing-agent", Namespace: agentRuntimeTestNamespace},
				Spec:       v1alpha1.AgentRuntimeSpec{Facades: []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeA2A}}},
			},
		},
	}
}

// agentRuntimeBase is a valid agent-mode AgentRuntime with one websocket
// facade, a resolvable pack and an existing default Provider.
func agentRuntimeBase() *v1alpha1.AgentRuntime {
	return &v1alpha1.AgentRuntime{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: kindAgentRuntime},
		ObjectMeta: metav1.ObjectMeta{Name: "support-agent", Namespace: agentRuntimeTestNamespace},
		Spec: v1alpha1.AgentRuntimeSpec{
			PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "support"},
			Providers: v1alpha1.AgentRuntimeProviders{
				{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "claude"}},
			},
			Facades: []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}},
		},
	}
}

func agentRuntimeRaw(s string) *runtime.RawExtension { return &runtime.RawExtension{Raw: []byte(s)} }

// agentRuntimeFunction turns the base into a function with one rest facade.
func agentRuntimeFunction(ar *v1alpha1.AgentRuntime) {
	ar.Spec.Mode = v1alpha1.AgentRuntimeModeFunction
	ar.Spec.Facades = []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeREST}}
	ar.Spec.InputSchema = agentRuntimeRaw(`{"type":"object","required":["text"],"properties":{"text":{"type":"string"}}}`)
	ar.Spec.OutputSchema = agentRuntimeRaw(`{"type":"object","properties":{"summary":{"type":"string"}}}`)
}

func agentRuntimeEnv(kv ...string) []corev1.EnvVar {
	var env []corev1.EnvVar
	for i := 0; i+1 < len(kv); i += 2 {
		env = append(env, corev1.EnvVar{Name: kv[i], Value: kv[i+1]})
	}
	return env
}

func agentRuntimeFacadeEnv(kv ...string) func(*v1alpha1.AgentRuntime) {
	return func(ar *v1alpha1.AgentRuntime) { ar.Spec.Facades[0].ExtraEnv = agentRuntimeEnv(kv...) }
}

func agentRuntimeRuntimeEnv(kv ...string) func(*v1alpha1.AgentRuntime) {
	return func(ar *v1alpha1.AgentRuntime) {
		ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{ExtraEnv: agentRuntimeEnv(kv...)}
	}
}

func agentRuntimePodEnv(kv ...string) func(*v1alpha1.AgentRuntime) {
	return func(ar *v1alpha1.AgentRuntime) {
		ar.Spec.PodOverrides = &v1alpha1.PodOverrides{ExtraEnv: agentRuntimeEnv(kv...)}
	}
}

func agentRuntimeFunctionEnv(kv ...string) func(*v1alpha1.AgentRuntime) {
	return func(ar *v1alpha1.AgentRuntime) {
		agentRuntimeFunction(ar)
		ar.Spec.Facades[0].ExtraEnv = agentRuntimeEnv(kv...)
	}
}

func agentRuntimeSchemas(in, out string) func(*v1alpha1.AgentRuntime) {
	return func(ar *v1alpha1.AgentRuntime) {
		agentRuntimeFunction(ar)
		ar.Spec.InputSchema, ar.Spec.OutputSchema = agentRuntimeRaw(in), agentRuntimeRaw(out)
	}
}

func agentRuntimeIdle(v string) func(*v1alpha1.AgentRuntime) {
	return func(ar *v1alpha1.AgentRuntime) {
		ar.Annotations = map[string]string{AgentRuntimeIdleTimeoutAnnotation: v}
	}
}

func agentRuntimePackRef(ref v1alpha1.AgentRuntimePromptPackRef) func(*v1alpha1.AgentRuntime) {
	return func(ar *v1alpha1.AgentRuntime) { ar.Spec.PromptPackRef = &ref }
}

// agentRuntimeRollout adds a rollout with one step and the given candidate pack.
func agentRuntimeRollout(candidate *v1alpha1.AgentRuntimePromptPackRef) func(*v1alpha1.AgentRuntime) {
	return func(ar *v1alpha1.AgentRuntime) {
		ar.Spec.Rollout = &v1alpha1.AgentRuntimeRollout{
			Steps: []v1alpha1.AgentRuntimeRolloutStep{{SetWeight: agentRuntimeInt32(10)}},
		}
		if candidate != nil {
			ar.Spec.Rollout.Candidate = &v1alpha1.AgentRuntimeRolloutCandidate{PromptPackRef: candidate}
		}
	}
}

func agentRuntimeInt32(v int32) *int32 { return &v }

func agentRuntimeA2AFacade(clients ...v1alpha1.AgentRuntimeA2AClient) func(*v1alpha1.AgentRuntime) {
	return func(ar *v1alpha1.AgentRuntime) {
		ar.Spec.Facades = append(ar.Spec.Facades, v1alpha1.AgentRuntimeFacade{
			Type: v1alpha1.AgentRuntimeFacadeTypeA2A,
			A2A:  &v1alpha1.AgentRuntimeFacadeA2A{Clients: clients},
		})
	}
}

func agentRuntimeCustomFacade(ar *v1alpha1.AgentRuntime) {
	ar.Spec.Facades = []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeCustom, Image: "registry.example/facade:1"}}
}

func agentRuntimeFacts(mut func(*agentRuntimeTestFacts)) Facts {
	f := agentRuntimeBaseFacts()
	mut(&f)
	return f
}

func agentRuntimeWithProvider(p *v1alpha1.Provider) Facts {
	return agentRuntimeFacts(func(f *agentRuntimeTestFacts) {
		f.providers = map[string]*v1alpha1.Provider{agentRuntimeTestNamespace + "/claude": p}
	})
}

func agentRuntimeAll(muts ...func(*v1alpha1.AgentRuntime)) func(*v1alpha1.AgentRuntime) {
	return func(ar *v1alpha1.AgentRuntime) {
		for _, m := range muts {
			m(ar)
		}
	}
}

type agentRuntimeWant = ruleWant

func TestAgentRuntimeRules(t *testing.T) {
	billing := v1alpha1.AgentRuntimeA2AClient{Name: "billing", AgentRuntimeRef: &v1alpha1.NamespacedObjectReference{Name: "billing-agent"}}
	foreign := v1alpha1.AgentRuntimeA2AClient{Name: "billing", AgentRuntimeRef: &v1alpha1.NamespacedObjectReference{Name: "billing-agent", Namespace: "finance"}}

	cases := []ruleCase[*v1alpha1.AgentRuntime]{
		{name: "base: websocket agent on a published pack"},
		{name: "base function", mutate: agentRuntimeFunction},

		// agentruntime/operator-volume-mount
		{name: "user volumes and mounts with their own names", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Volumes: []corev1.Volume{{Name: "cache"}},
				VolumeMounts: []corev1.VolumeMount{{Name: "cache", MountPath: "/cache"}}}
			ar.Spec.PodOverrides = &v1alpha1.PodOverrides{ExtraVolumeMounts: []corev1.VolumeMount{{Name: "cache", MountPath: "/c"}}}
		}},
		{name: "a runtime mount of the facade's token volume", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{
				VolumeMounts: []corev1.VolumeMount{{Name: "cache", MountPath: "/cache"}, {Name: "omnia-facade-token", MountPath: "/t"}}}
		}, want: []agentRuntimeWant{{"agentruntime/operator-volume-mount", "spec.runtime.volumeMounts[1].name"}}},
		{name: "an extraVolumeMount and a volume with the operator's prefix", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Volumes: []corev1.Volume{{Name: "omnia-mine"}}}
			ar.Spec.PodOverrides = &v1alpha1.PodOverrides{ExtraVolumeMounts: []corev1.VolumeMount{{Name: "omnia-promptpack", MountPath: "/p"}}}
		}, want: []agentRuntimeWant{
			{"agentruntime/operator-volume-mount", "spec.runtime.volumes[0].name"},
			{"agentruntime/operator-volume-mount", "spec.podOverrides.extraVolumeMounts[0].name"},
		}},
		{name: "update keeping an operator-prefixed mount already in the same list", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.PodOverrides = &v1alpha1.PodOverrides{ExtraVolumeMounts: []corev1.VolumeMount{{Name: "omnia-tmp", MountPath: "/x"}}}
		}, old: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.PodOverrides = &v1alpha1.PodOverrides{ExtraVolumeMounts: []corev1.VolumeMount{{Name: "omnia-tmp", MountPath: "/y"}}}
		}},

		// agentruntime/extra-volume-valid
		{name: "an extra volume that is a Volume with one source", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Volumes: []corev1.Volume{{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}}
			ar.Spec.PodOverrides = &v1alpha1.PodOverrides{ExtraVolumes: []runtime.RawExtension{{Raw: []byte(`{"name":"certs","secret":{"secretName":"certs"}}`)}}}
		}},
		{name: "extra volumes the API server would refuse in the pod", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Volumes: []corev1.Volume{{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}}
			ar.Spec.PodOverrides = &v1alpha1.PodOverrides{ExtraVolumes: []runtime.RawExtension{
				{Raw: []byte(`{"name":"nosource"}`)},
				{Raw: []byte(`{"name":"cache","emptyDir":{}}`)},
				{Raw: []byte(`{"name":"Bad_Name","emptyDir":{}}`)},
				{Raw: []byte(`{"name":"two","emptyDir":{},"secret":{"secretName":"s"}}`)},
				{Raw: []byte(`{"name":5}`)},
			}}
		}, want: []agentRuntimeWant{
			{"agentruntime/extra-volume-valid", "spec.podOverrides.extraVolumes[0]"},
			{"agentruntime/extra-volume-valid", "spec.podOverrides.extraVolumes[1].name"},
			{"agentruntime/extra-volume-valid", "spec.podOverrides.extraVolumes[2].name"},
			{"agentruntime/extra-volume-valid", "spec.podOverrides.extraVolumes[3]"},
			{"agentruntime/extra-volume-valid", "spec.podOverrides.extraVolumes[4]"},
		}},

		// agentruntime/reserved-env-key
		{name: "ordinary env in every list", mutate: agentRuntimeAll(
			agentRuntimeFacadeEnv("LOG_LEVEL", "debug"), agentRuntimeRuntimeEnv("LOG_SAMPLING", "off"), agentRuntimePodEnv("TZ", "UTC"))},
		{name: "reserved key in facade extraEnv", mutate: agentRuntimeFacadeEnv("LOG_LEVEL", "debug", "OMNIA_PACK_MODE", "compile"),
			want: []agentRuntimeWant{{"agentruntime/reserved-env-key", "spec.facades[0].extraEnv[1].name"}}},
		{name: "reserved key in runtime extraEnv", mutate: agentRuntimeRuntimeEnv("OMNIA_IDLE_TIMEOUT", "1h"),
			want: []agentRuntimeWant{{"agentruntime/reserved-env-key", "spec.runtime.extraEnv[0].name"}}},
		{name: "reserved keys in podOverrides extraEnv", mutate: agentRuntimePodEnv("OMNIA_SESSION_TAGS", "a", "OMNIA_SESSION_PACK_NAME", "b"),
			want: []agentRuntimeWant{
				{"agentruntime/reserved-env-key", "spec.podOverrides.extraEnv[0].name"},
				{"agentruntime/reserved-env-key", "spec.podOverrides.extraEnv[1].name"},
			}},
		{name: "reserved key valueFrom is still a reserved key", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{ExtraEnv: []corev1.EnvVar{{Name: "OMNIA_PACK_OUT_DIR", ValueFrom: &corev1.EnvVarSource{
				FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}}
		}, want: []agentRuntimeWant{{"agentruntime/reserved-env-key", "spec.runtime.extraEnv[0].name"}}},
		{name: "update keeping a reserved key already in the same list",
			mutate: agentRuntimeRuntimeEnv("LOG_LEVEL", "debug", "OMNIA_PACK_MODE", "compile"),
			old:    agentRuntimeRuntimeEnv("OMNIA_PACK_MODE", "compile")},
		{name: "update keeping a facade's reserved key after reordering facades",
			mutate: agentRuntimeAll(agentRuntimeA2AFacade(), func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.Facades[0].ExtraEnv = agentRuntimeEnv("OMNIA_PACK_CONFIG_FILE", "/x")
				ar.Spec.Facades[0], ar.Spec.Facades[1] = ar.Spec.Facades[1], ar.Spec.Facades[0]
			}),
			old: agentRuntimeFacadeEnv("OMNIA_PACK_CONFIG_FILE", "/x")},
		{name: "update adding a reserved key next to one already there",
			mutate: agentRuntimeRuntimeEnv("OMNIA_PACK_MODE", "compile", "OMNIA_PACK_OUT_DIR", "/out"),
			old:    agentRuntimeRuntimeEnv("OMNIA_PACK_MODE", "compile"),
			want:   []agentRuntimeWant{{"agentruntime/reserved-env-key", "spec.runtime.extraEnv[1].name"}}},
		{name: "update moving a reserved key to another list",
			mutate: agentRuntimeRuntimeEnv("OMNIA_PACK_SOURCE_DIR", "/src"),
			old:    agentRuntimePodEnv("OMNIA_PACK_SOURCE_DIR", "/src"),
			want:   []agentRuntimeWant{{"agentruntime/reserved-env-key", "spec.runtime.extraEnv[0].name"}}},

		// agentruntime/stream-inactivity-timeout
		{name: "stream inactivity timeout 5m", mutate: agentRuntimeFacadeEnv("OMNIA_RUNTIME_STREAM_INACTIVITY_TIMEOUT", "5m")},
		{name: "stream inactivity timeout exactly 120s", mutate: agentRuntimeFacadeEnv("OMNIA_RUNTIME_STREAM_INACTIVITY_TIMEOUT", "120s")},
		{name: "stream inactivity timeout below 120s", mutate: agentRuntimeFacadeEnv("OMNIA_RUNTIME_STREAM_INACTIVITY_TIMEOUT", "60s"),
			want: []agentRuntimeWant{{"agentruntime/stream-inactivity-timeout", "spec.facades[0].extraEnv[0].value"}}},
		{name: "stream inactivity timeout not a duration", mutate: agentRuntimeFacadeEnv("LOG_LEVEL", "info", "OMNIA_RUNTIME_STREAM_INACTIVITY_TIMEOUT", "300"),
			want: []agentRuntimeWant{{"agentruntime/stream-inactivity-timeout", "spec.facades[0].extraEnv[1].value"}}},
		{name: "stream inactivity timeout from valueFrom is not checked", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Facades[0].ExtraEnv = []corev1.EnvVar{{Name: "OMNIA_RUNTIME_STREAM_INACTIVITY_TIMEOUT", ValueFrom: &corev1.EnvVarSource{
				ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}, Key: "k"}}}}
		}},
		{name: "stream inactivity timeout on an a2a-only agent (a2a is primary)", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Facades = []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeA2A,
				ExtraEnv: agentRuntimeEnv("OMNIA_RUNTIME_STREAM_INACTIVITY_TIMEOUT", "10s")}}
		}, want: []agentRuntimeWant{{"agentruntime/stream-inactivity-timeout", "spec.facades[0].extraEnv[0].value"}}},
		{name: "stream inactivity timeout on the websocket listed after a2a", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Facades = []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeA2A},
				{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, ExtraEnv: agentRuntimeEnv("OMNIA_RUNTIME_STREAM_INACTIVITY_TIMEOUT", "1s")}}
		}, want: []agentRuntimeWant{{"agentruntime/stream-inactivity-timeout", "spec.facades[1].extraEnv[0].value"}}},

		// agentruntime/function-stream-max-duration
		{name: "function stream max duration 270s", mutate: agentRuntimeFunctionEnv("OMNIA_FUNCTION_STREAM_MAX_DURATION", "270s")},
		{name: "function stream max duration exactly 290s", mutate: agentRuntimeFunctionEnv("OMNIA_FUNCTION_STREAM_MAX_DURATION", "4m50s")},
		{name: "function stream max duration over 290s", mutate: agentRuntimeFunctionEnv("OMNIA_FUNCTION_STREAM_MAX_DURATION", "300s"),
			want: []agentRuntimeWant{{"agentruntime/function-stream-max-duration", "spec.facades[0].extraEnv[0].value"}}},
		{name: "function stream max duration zero", mutate: agentRuntimeFunctionEnv("OMNIA_FUNCTION_STREAM_MAX_DURATION", "0s"),
			want: []agentRuntimeWant{{"agentruntime/function-stream-max-duration", "spec.facades[0].extraEnv[0].value"}}},
		{name: "function stream max duration not a duration", mutate: agentRuntimeFunctionEnv("OMNIA_FUNCTION_STREAM_MAX_DURATION", "long"),
			want: []agentRuntimeWant{{"agentruntime/function-stream-max-duration", "spec.facades[0].extraEnv[0].value"}}},
		{name: "function stream max duration on rest listed after mcp", mutate: func(ar *v1alpha1.AgentRuntime) {
			agentRuntimeFunction(ar)
			ar.Spec.Facades = []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeMCP},
				{Type: v1alpha1.AgentRuntimeFacadeTypeREST, ExtraEnv: agentRuntimeEnv("OMNIA_FUNCTION_STREAM_MAX_DURATION", "-1s")}}
		}, want: []agentRuntimeWant{{"agentruntime/function-stream-max-duration", "spec.facades[1].extraEnv[0].value"}}},
		{name: "function stream bounds are not read in agent mode",
			mutate: agentRuntimeFacadeEnv("OMNIA_FUNCTION_STREAM_MAX_DURATION", "1h", "OMNIA_FUNCTION_STREAM_MAX_CONCURRENT", "0")},

		// agentruntime/function-stream-max-concurrent
		{name: "function stream max concurrent 32", mutate: agentRuntimeFunctionEnv("OMNIA_FUNCTION_STREAM_MAX_CONCURRENT", "32")},
		{name: "function stream max concurrent zero", mutate: agentRuntimeFunctionEnv("OMNIA_FUNCTION_STREAM_MAX_CONCURRENT", "0"),
			want: []agentRuntimeWant{{"agentruntime/function-stream-max-concurrent", "spec.facades[0].extraEnv[0].value"}}},
		{name: "function stream max concurrent not an integer", mutate: agentRuntimeFunctionEnv("OMNIA_FUNCTION_STREAM_MAX_CONCURRENT", "ten"),
			want: []agentRuntimeWant{{"agentruntime/function-stream-max-concurrent", "spec.facades[0].extraEnv[0].value"}}},

		// agentruntime/function-schema-compiles
		{name: "schemas with internal $ref and a draft-07 $schema", mutate: agentRuntimeSchemas(
			`{"$defs":{"t":{"type":"string"}},"type":"object","properties":{"text":{"$ref":"#/$defs/t"}}}`,
			`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"s":{"type":"string"}},"properties":{"summary":{"$ref":"#/definitions/s"}}}`)},
		{name: "inputSchema with a non-string type", mutate: agentRuntimeSchemas(`{"type":5}`, `{"type":"object"}`),
			want: []agentRuntimeWant{{"agentruntime/function-schema-compiles", "spec.inputSchema"}}},
		{name: "outputSchema with an invalid pattern", mutate: agentRuntimeSchemas(`{"type":"object"}`, `{"type":"string","pattern":"(["}`),
			want: []agentRuntimeWant{{"agentruntime/function-schema-compiles", "spec.outputSchema"}}},
		{name: "schemas with remote and relative refs", mutate: agentRuntimeSchemas(
			`{"$ref":"https://example.com/schemas/input.json"}`, `{"properties":{"a":{"$ref":"other.json"}}}`),
			want: []agentRuntimeWant{
				{"agentruntime/function-schema-compiles", "spec.inputSchema"},
				{"agentruntime/function-schema-compiles", "spec.outputSchema"},
			}},
		{name: "inputSchema with a dangling internal $ref", mutate: agentRuntimeSchemas(`{"$ref":"#/$defs/missing"}`, `{}`),
			want: []agentRuntimeWant{{"agentruntime/function-schema-compiles", "spec.inputSchema"}}},

		// agentruntime/idle-timeout-annotation
		{name: "idle timeout 2h", mutate: agentRuntimeIdle("2h")},
		{name: "idle timeout not a duration", mutate: agentRuntimeIdle("two hours"),
			want: []agentRuntimeWant{{"agentruntime/idle-timeout-annotation", "metadata.annotations[omnia.altairalabs.ai/idle-timeout]"}}},
		{name: "idle timeout zero", mutate: agentRuntimeIdle("0s"),
			want: []agentRuntimeWant{{"agentruntime/idle-timeout-annotation", "metadata.annotations[omnia.altairalabs.ai/idle-timeout]"}}},
		{name: "idle timeout negative", mutate: agentRuntimeIdle("-30m"),
			want: []agentRuntimeWant{{"agentruntime/idle-timeout-annotation", "metadata.annotations[omnia.altairalabs.ai/idle-timeout]"}}},

		// agentruntime/provider-cross-namespace
		{name: "providerRef namespace equal to own", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Providers[0].ProviderRef.Namespace = agentRuntimeTestNamespace
		}},
		{name: "providerRef in another namespace", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Providers[0].ProviderRef.Namespace = "shared"
		}, want: []agentRuntimeWant{{"agentruntime/provider-cross-namespace", "spec.providers[0].providerRef.namespace"}}},
		{name: "rollout candidate providerRef in another namespace", mutate: agentRuntimeAll(agentRuntimeRollout(nil), func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Rollout.Candidate = &v1alpha1.AgentRuntimeRolloutCandidate{ProviderRefs: v1alpha1.AgentRuntimeProviders{
				{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "claude", Namespace: "shared"}}}}
		}), want: []agentRuntimeWant{{"agentruntime/provider-cross-namespace", "spec.rollout.candidate.providerRefs[0].providerRef.namespace"}}},

		// agentruntime/a2a-client-cross-namespace
		{name: "a2a client in own namespace", mutate: func(ar *v1alpha1.AgentRuntime) {
			c := billing
			c.AgentRuntimeRef = &v1alpha1.NamespacedObjectReference{Name: "billing-agent", Namespace: agentRuntimeTestNamespace}
			ar.Spec.A2AClients = []v1alpha1.AgentRuntimeA2AClient{c, {Name: "ext", URL: "https://agents.example.com"}}
		}},
		{name: "a2a client in another namespace", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.A2AClients = []v1alpha1.AgentRuntimeA2AClient{foreign}
		}, want: []agentRuntimeWant{{"agentruntime/a2a-client-cross-namespace", "spec.a2aClients[0].agentRuntimeRef.namespace"}}},
		{name: "deprecated a2a client in another namespace", mutate: agentRuntimeA2AFacade(foreign),
			want: []agentRuntimeWant{
				{"agentruntime/a2a-client-cross-namespace", "spec.facades[1].a2a.clients[0].agentRuntimeRef.namespace"},
				{"agentruntime/deprecated-a2a-clients", "spec.facades[1].a2a.clients"},
			}},

		// agentruntime/tool-registry-cross-namespace
		{name: "toolRegistryRef without namespace", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.ToolRegistryRef = &v1alpha1.NamespacedObjectReference{Name: "tools"}
		}},
		{name: "toolRegistryRef in another namespace", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.ToolRegistryRef = &v1alpha1.NamespacedObjectReference{Name: "tools", Namespace: "platform"}
		}, want: []agentRuntimeWant{{"agentruntime/tool-registry-cross-namespace", "spec.toolRegistryRef.namespace"}}},
		{name: "rollout candidate toolRegistryRef in another namespace", mutate: agentRuntimeAll(agentRuntimeRollout(nil), func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Rollout.Candidate = &v1alpha1.AgentRuntimeRolloutCandidate{
				ToolRegistryRef: &v1alpha1.NamespacedObjectReference{Name: "tools", Namespace: "platform"}}
		}), want: []agentRuntimeWant{{"agentruntime/tool-registry-cross-namespace", "spec.rollout.candidate.toolRegistryRef.namespace"}}},

		// agentruntime/a2a-clients-exclusive and agentruntime/deprecated-a2a-clients
		{name: "a2aClients alone", mutate: agentRuntimeAll(agentRuntimeA2AFacade(), func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.A2AClients = []v1alpha1.AgentRuntimeA2AClient{billing}
		})},
		{name: "deprecated facades[].a2a.clients alone", mutate: agentRuntimeA2AFacade(billing),
			want: []agentRuntimeWant{{"agentruntime/deprecated-a2a-clients", "spec.facades[1].a2a.clients"}}},
		{name: "a2aClients and the deprecated list", mutate: agentRuntimeAll(agentRuntimeA2AFacade(billing), func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.A2AClients = []v1alpha1.AgentRuntimeA2AClient{{Name: "ext", URL: "https://agents.example.com"}}
		}), want: []agentRuntimeWant{{"agentruntime/a2a-clients-exclusive", "spec.facades[1].a2a.clients"}}},

		// agentruntime/custom-facade-license
		{name: "custom facade with the licence", mutate: agentRuntimeCustomFacade,
			facts: agentRuntimeFacts(func(f *agentRuntimeTestFacts) { f.features = map[string]bool{FeatureCustomFacade: true} })},
		{name: "custom facade without the licence", mutate: agentRuntimeCustomFacade,
			want: []agentRuntimeWant{{"agentruntime/custom-facade-license", "spec.facades[0].type"}}},
		{name: "update of an agent that already had a custom facade", mutate: agentRuntimeAll(agentRuntimeCustomFacade, func(ar *v1alpha1.AgentRuntime) {
			ar.Labels = map[string]string{"team": "a"}
		}), old: agentRuntimeCustomFacade},
		{name: "update switching to a custom facade without the licence", mutate: agentRuntimeCustomFacade, old: func(*v1alpha1.AgentRuntime) {},
			want: []agentRuntimeWant{{"agentruntime/custom-facade-license", "spec.facades[0].type"}}},

		// agentruntime/duration-format
		{name: "every duration valid", mutate: agentRuntimeAll(agentRuntimeA2AFacade(), agentRuntimeRollout(nil), func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Facades[0].DrainTimeout, ar.Spec.Facades[0].ClientToolTimeout = "45s", "2m"
			ar.Spec.Facades[1].A2A.TaskTTL, ar.Spec.Facades[1].A2A.ConversationTTL = "1h", "30m"
			ar.Spec.A2AClients = []v1alpha1.AgentRuntimeA2AClient{{Name: "ext", URL: "https://agents.example.com", Timeout: "2m"}}
			ar.Spec.Context = &v1alpha1.AgentRuntimeContext{TTL: "24h"}
			ar.Spec.Sandbox = &v1alpha1.AgentRuntimeSandbox{IdleTimeout: "30m", ReleaseGrace: "2m", MountReleaseGrace: "5m"}
			ar.Spec.Media = &v1alpha1.AgentRuntimeMedia{Storage: &v1alpha1.AgentRuntimeMediaStorage{
				DefaultTTL: "24h", UploadURLTTL: "15m", DownloadURLTTL: "1h"}}
			ar.Spec.Rollout.Steps = append(ar.Spec.Rollout.Steps, v1alpha1.AgentRuntimeRolloutStep{
				Pause: &v1alpha1.AgentRuntimeRolloutPause{Duration: "5m"}})
		})},
		{name: "every duration malformed", mutate: agentRuntimeAll(agentRuntimeA2AFacade(), agentRuntimeRollout(nil), func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Facades[0].DrainTimeout, ar.Spec.Facades[0].ClientToolTimeout = "30", "1 minute"
			ar.Spec.Facades[1].A2A.TaskTTL, ar.Spec.Facades[1].A2A.ConversationTTL = "1d", "half an hour"
			ar.Spec.Facades[1].A2A.Clients = []v1alpha1.AgentRuntimeA2AClient{{Name: "old", URL: "https://a.example.com", Timeout: "10"}}
			ar.Spec.Context = &v1alpha1.AgentRuntimeContext{TTL: "24"}
			ar.Spec.Sandbox = &v1alpha1.AgentRuntimeSandbox{IdleTimeout: "30min", ReleaseGrace: "2 m", MountReleaseGrace: "m5"}
			ar.Spec.Media = &v1alpha1.AgentRuntimeMedia{Storage: &v1alpha1.AgentRuntimeMediaStorage{
				DefaultTTL: "1w", UploadURLTTL: "15", DownloadURLTTL: "hour"}}
			ar.Spec.Rollout.Steps = append(ar.Spec.Rollout.Steps, v1alpha1.AgentRuntimeRolloutStep{
				Pause: &v1alpha1.AgentRuntimeRolloutPause{Duration: "5 minutes"}})
		}), want: []agentRuntimeWant{
			{"agentruntime/deprecated-a2a-clients", "spec.facades[1].a2a.clients"},
			{"agentruntime/duration-format", "spec.facades[0].drainTimeout"},
			{"agentruntime/duration-format", "spec.facades[0].clientToolTimeout"},
			{"agentruntime/duration-format", "spec.facades[1].a2a.taskTTL"},
			{"agentruntime/conversation-ttl-format", "spec.facades[1].a2a.conversationTTL"},
			{"agentruntime/duration-format", "spec.facades[1].a2a.clients[0].timeout"},
			{"agentruntime/duration-format", "spec.context.ttl"},
			{"agentruntime/duration-format", "spec.sandbox.idleTimeout"},
			{"agentruntime/duration-format", "spec.sandbox.releaseGrace"},
			{"agentruntime/duration-format", "spec.sandbox.mountReleaseGrace"},
			{"agentruntime/duration-format", "spec.media.storage.defaultTTL"},
			{"agentruntime/duration-format", "spec.media.storage.uploadURLTTL"},
			{"agentruntime/duration-format", "spec.media.storage.downloadURLTTL"},
			{"agentruntime/duration-format", "spec.rollout.steps[1].pause.duration"},
		}},
		{name: "a2aClients timeout malformed", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.A2AClients = []v1alpha1.AgentRuntimeA2AClient{{Name: "ext", URL: "https://agents.example.com", Timeout: "2mins"}}
		}, want: []agentRuntimeWant{{"agentruntime/duration-format", "spec.a2aClients[0].timeout"}}},

		// agentruntime/conversation-ttl-format (a warning: the field is
		// deprecated and ignored)
		{name: "conversationTTL a duration", mutate: agentRuntimeAll(agentRuntimeA2AFacade(), func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Facades[1].A2A.ConversationTTL = "30m"
		})},
		{name: "conversationTTL malformed", mutate: agentRuntimeAll(agentRuntimeA2AFacade(), func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Facades[1].A2A.ConversationTTL = "forever"
		}), want: []agentRuntimeWant{{"agentruntime/conversation-ttl-format", "spec.facades[1].a2a.conversationTTL"}}},

		// agentruntime/drain-timeout-range
		{name: "drainTimeout 600s", mutate: func(ar *v1alpha1.AgentRuntime) { ar.Spec.Facades[0].DrainTimeout = "10m" }},
		{name: "drainTimeout over 600s", mutate: func(ar *v1alpha1.AgentRuntime) { ar.Spec.Facades[0].DrainTimeout = "601s" },
			want: []agentRuntimeWant{{"agentruntime/drain-timeout-range", "spec.facades[0].drainTimeout"}}},
		{name: "drainTimeout negative", mutate: func(ar *v1alpha1.AgentRuntime) { ar.Spec.Facades[0].DrainTimeout = "-1s" },
			want: []agentRuntimeWant{{"agentruntime/drain-timeout-range", "spec.facades[0].drainTimeout"}}},

		// agentruntime/sandbox-release-grace-positive
		{name: "release graces positive", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Sandbox = &v1alpha1.AgentRuntimeSandbox{Enabled: true, ReleaseGrace: "1s", MountReleaseGrace: "10m"}
		}},
		{name: "release graces zero and negative", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Sandbox = &v1alpha1.AgentRuntimeSandbox{Enabled: true, ReleaseGrace: "0s", MountReleaseGrace: "-5m"}
		}, want: []agentRuntimeWant{
			{"agentruntime/sandbox-release-grace-positive", "spec.sandbox.releaseGrace"},
			{"agentruntime/sandbox-release-grace-positive", "spec.sandbox.mountReleaseGrace"},
		}},

		// agentruntime/provider-exists
		{name: "provider missing", facts: agentRuntimeFacts(func(f *agentRuntimeTestFacts) { f.providers = nil }),
			want: []agentRuntimeWant{{"agentruntime/provider-exists", "spec.providers[0].providerRef.name"}}},
		{name: "second provider missing", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Providers = append(ar.Spec.Providers, v1alpha1.AgentRuntimeProvider{
				Name: "judge", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "haiku"}})
		}, want: []agentRuntimeWant{{"agentruntime/provider-exists", "spec.providers[1].providerRef.name"}}},

		// agentruntime/provider-role
		{name: "embedding entry on an embedding provider", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Providers[0].Role = "embedding"
		}, facts: agentRuntimeWithProvider(agentRuntimeTestProvider("claude", v1alpha1.ProviderRoleEmbedding))},
		{name: "llm entry on an embedding provider",
			facts: agentRuntimeWithProvider(agentRuntimeTestProvider("claude", v1alpha1.ProviderRoleEmbedding)),
			want:  []agentRuntimeWant{{"agentruntime/provider-role", "spec.providers[0].role"}}},
		{name: "tts entry on a default-role provider", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Providers[0].Role = "tts"
		}, want: []agentRuntimeWant{{"agentruntime/provider-role", "spec.providers[0].role"}}},

		// agentruntime/provider-capabilities
		{name: "required capabilities advertised", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Providers[0].RequiredCapabilities = []v1alpha1.AgentRuntimeProviderCapability{"text", "tools"}
		}},
		{name: "required capability missing", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Providers[0].RequiredCapabilities = []v1alpha1.AgentRuntimeProviderCapability{"text", "vision", "audio"}
		}, want: []agentRuntimeWant{{"agentruntime/provider-capabilities", "spec.providers[0].requiredCapabilities"}}},

		// agentruntime/promptpack-resolves
		{name: "pinned version exists", mutate: agentRuntimePackRef(v1alpha1.AgentRuntimePromptPackRef{Name: "support", Version: "1.1.0-rc.1"})},
		{name: "prerelease track with only prereleases", mutate: agentRuntimePackRef(v1alpha1.AgentRuntimePromptPackRef{Name: "edge", Track: "prerelease"})},
		{name: "no pack with the name", mutate: agentRuntimePackRef(v1alpha1.AgentRuntimePromptPackRef{Name: "nothing"}),
			want: []agentRuntimeWant{{"agentruntime/promptpack-resolves", "spec.promptPackRef.name"}}},
		{name: "pinned version missing", mutate: agentRuntimePackRef(v1alpha1.AgentRuntimePromptPackRef{Name: "support", Version: "2.0.0"}),
			want: []agentRuntimeWant{{"agentruntime/promptpack-resolves", "spec.promptPackRef.version"}}},
		{name: "pinned version without the build metadata", facts: agentRuntimeFacts(func(f *agentRuntimeTestFacts) {
			f.packs[agentRuntimeTestNamespace+"/support"] = []v1alpha1.PromptPack{agentRuntimeTestPack("support", "1.0.0+gAAAA", false)}
		}), mutate: agentRuntimePackRef(v1alpha1.AgentRuntimePromptPackRef{Name: "support", Version: "1.0.0"}),
			want: []agentRuntimeWant{{"agentruntime/promptpack-resolves", "spec.promptPackRef.version"}}},
		{name: "implicit stable track with only prereleases", mutate: agentRuntimePackRef(v1alpha1.AgentRuntimePromptPackRef{Name: "edge"}),
			want: []agentRuntimeWant{{"agentruntime/promptpack-resolves", "spec.promptPackRef.name"}}},
		{name: "stable track with only prereleases", mutate: agentRuntimePackRef(v1alpha1.AgentRuntimePromptPackRef{Name: "edge", Track: "stable"}),
			want: []agentRuntimeWant{{"agentruntime/promptpack-resolves", "spec.promptPackRef.track"}}},

		// agentruntime/promptpack-name-conflict
		{name: "pack name with a live pack and published versions", mutate: agentRuntimePackRef(v1alpha1.AgentRuntimePromptPackRef{Name: "mixed"}),
			want: []agentRuntimeWant{{"agentruntime/promptpack-name-conflict", "spec.promptPackRef.name"}}},
		{name: "rollout candidate on a conflicting pack name",
			mutate: agentRuntimeRollout(&v1alpha1.AgentRuntimePromptPackRef{Name: "mixed", Version: "1.0.0"}),
			want:   []agentRuntimeWant{{"agentruntime/promptpack-name-conflict", "spec.rollout.candidate.promptPackRef.name"}}},

		// agentruntime/promptpack-live-ref
		{name: "bare ref to a live pack", mutate: agentRuntimePackRef(v1alpha1.AgentRuntimePromptPackRef{Name: "dev"})},
		{name: "version on a live pack ref", mutate: agentRuntimePackRef(v1alpha1.AgentRuntimePromptPackRef{Name: "dev", Version: "1.0.0"}),
			want: []agentRuntimeWant{{"agentruntime/promptpack-live-ref", "spec.promptPackRef.version"}}},
		{name: "track on a live pack ref", mutate: agentRuntimePackRef(v1alpha1.AgentRuntimePromptPackRef{Name: "dev", Track: "stable"}),
			want: []agentRuntimeWant{{"agentruntime/promptpack-live-ref", "spec.promptPackRef.track"}}},
		{name: "rollout over a live stable pack", mutate: agentRuntimeAll(
			agentRuntimePackRef(v1alpha1.AgentRuntimePromptPackRef{Name: "dev"}),
			agentRuntimeRollout(&v1alpha1.AgentRuntimePromptPackRef{Name: "support", Version: "1.0.0"})),
			want: []agentRuntimeWant{{"agentruntime/promptpack-live-ref", "spec.rollout"}}},
		{name: "rollout to a live candidate", mutate: agentRuntimeRollout(&v1alpha1.AgentRuntimePromptPackRef{Name: "dev"}),
			want: []agentRuntimeWant{{"agentruntime/promptpack-live-ref", "spec.rollout.candidate.promptPackRef"}}},
		{name: "rollout between published packs", mutate: agentRuntimeRollout(&v1alpha1.AgentRuntimePromptPackRef{Name: "support", Version: "1.1.0-rc.1"})},
	}

	ruleTable[*v1alpha1.AgentRuntime]{kind: kindAgentRuntime, prefix: "agentruntime/", base: agentRuntimeBase, facts: func() Facts { return agentRuntimeBaseFacts() }}.run(t, cases)
}

// TestAgentRuntimeRuleMetadata pins what each Go rule reports and when it runs.
func TestAgentRuntimeRuleMetadata(t *testing.T) {
	type meta struct {
		stage     Stage
		severity  Severity
		condition string
		reason    string
	}
	want := map[string]meta{
		"agentruntime/reserved-env-key":                     {StageAdmission, SeverityDeny, "ReservedEnvClean", "ReservedEnvKey"},
		"agentruntime/stream-inactivity-timeout":            {StageAdmission, SeverityDeny, "", ""},
		"agentruntime/operator-volume-mount":                {StageAdmission, SeverityDeny, "", ""},
		"agentruntime/extra-volume-valid":                   {StageAdmission, SeverityDeny, "", ""},
		"agentruntime/function-stream-max-duration":         {StageAdmission, SeverityDeny, "", ""},
		"agentruntime/function-stream-max-concurrent":       {StageAdmission, SeverityDeny, "", ""},
		"agentruntime/function-schema-compiles":             {StageAdmission, SeverityDeny, "", ""},
		"agentruntime/idle-timeout-annotation":              {StageAdmission, SeverityWarn, "IdleTimeoutValid", "InvalidIdleTimeout"},
		"agentruntime/facade-accepts-callers":               {StageAdmission, SeverityWarn, "ExternalAuth", "NoCallersAccepted"},
		"agentruntime/provider-cross-namespace":             {StageAdmission, SeverityDeny, "ProviderReady", "ProviderCrossNamespace"},
		"agentruntime/a2a-client-cross-namespace":           {StageAdmission, SeverityDeny, "A2AClientsResolved", "CrossNamespaceRef"},
		"agentruntime/tool-registry-cross-namespace":        {StageAdmission, SeverityWarn, "ToolRegistryReady", "ToolRegistryCrossNamespace"},
		"agentruntime/a2a-clients-exclusive":                {StageAdmission, SeverityDeny, "", ""},
		"agentruntime/deprecated-a2a-clients":               {StageAdmission, SeverityWarn, "", ""},
		"agentruntime/facade-block-type":                    {StageAdmission, SeverityWarn, "", ""},
		"agentruntime/custom-facade-license":                {StageAdmission, SeverityDeny, "", ""},
		"agentruntime/rollout-analysis-license":             {StageAdmission, SeverityDeny, "", ""},
		"agentruntime/duration-format":                      {StageAdmission, SeverityDeny, "", ""},
		"agentruntime/drain-timeout-range":                  {StageAdmission, SeverityWarn, "", ""},
		"agentruntime/conversation-ttl-format":              {StageAdmission, SeverityWarn, "", ""},
		"agentruntime/sandbox-release-grace-positive":       {StageAdmission, SeverityDeny, "", ""},
		"agentruntime/expose-host-unique":                   {StageAdmission, SeverityDeny, "Exposed", "ExposeHostConflict"},
		"agentruntime/expose-host-wildcard":                 {StageAdmission, SeverityDeny, "Exposed", "ExposeHostWildcard"},
		"agentruntime/expose-host-outside-namespace-domain": {StageReconcile, SeverityDeny, "Exposed", "ExposeHostNotAllowed"},
		"agentruntime/provider-exists":                      {StageReconcile, SeverityWarn, "ProviderReady", "ProviderNotFound"},
		"agentruntime/provider-role":                        {StageReconcile, SeverityWarn, "ProviderReady", "RoleMismatch"},
		"agentruntime/provider-capabilities":                {StageReconcile, SeverityWarn, "ProviderReady", "CapabilityMismatch"},
		"agentruntime/promptpack-resolves":                  {StageReconcile, SeverityWarn, "PromptPackReady", "PromptPackNotFound"},
		"agentruntime/promptpack-name-conflict":             {StageReconcile, SeverityWarn, "PromptPackReady", "PromptPackNameConflict"},
		"agentruntime/promptpack-live-ref":                  {StageReconcile, SeverityDeny, "PromptPackReady", "InvalidPromptPackRef"},
		"agentruntime/runtime-capabilities-satisfied":       {StageReconcile, SeverityWarn, "CapabilitiesSatisfied", "RuntimeCapabilitiesMissing"},
		"agentruntime/provider-ready":                       {StageReconcile, SeverityWarn, "ProviderReady", "ProviderNotReady"},
		"agentruntime/promptpack-valid":                     {StageReconcile, SeverityWarn, "PromptPackReady", "PromptPackInvalid"},
		"agentruntime/promptpack-validated":                 {StageReconcile, SeverityWarn, "PromptPackReady", "PromptPackNotValidated"},
		"agentruntime/tool-registry-exists":                 {StageReconcile, SeverityWarn, "ToolRegistryReady", "ToolRegistryNotFound"},
		"agentruntime/a2a-client-resolves":                  {StageReconcile, SeverityWarn, "A2AClientsResolved", "Unresolved"},
		"agentruntime/tool-credential-secret-found":         {StageReconcile, SeverityWarn, "ToolCredentialsReady", "ToolCredentialSecretNotFound"},
		"agentruntime/tool-credential-opted-in":             {StageReconcile, SeverityWarn, "ToolCredentialsReady", "ToolCredentialSecretNotOptedIn"},
		"agentruntime/tool-credential-key-found":            {StageReconcile, SeverityWarn, "ToolCredentialsReady", "ToolCredentialKeyMissing"},
		"agentruntime/volume-claims-exist":                  {StageReconcile, SeverityWarn, "Volumes", "PersistentVolumeClaimNotFound"},
		"agentruntime/pod-security":                         {StageAdmission, SeverityDeny, "DeploymentReady", "PodSecurityViolation"},
		"agentruntime/runtime-class-allowed":                {StageReconcile, SeverityDeny, "DeploymentReady", "RuntimeClassNotAllowed"},
	}
	for id, w := range want {
		r, ok := Default.Lookup(id)
		if !ok {
			t.Errorf("%s not registered", id)
			continue
		}
		got := meta{r.Stage, r.Severity, r.Condition, r.Reason}
		if r.Source != SourceGo || got != w || !slices.Equal(r.Kinds, []string{kindAgentRuntime}) {
			t.Errorf("%s = %s %+v %v, want go %+v [AgentRuntime]", id, r.Source, got, r.Kinds, w)
		}
	}
	for _, r := range Default.Rules() {
		if strings.HasPrefix(r.ID, "agentruntime/") && r.Source == SourceGo {
			if _, ok := want[r.ID]; !ok {
				t.Errorf("Go rule %s has no metadata expectation here", r.ID)
			}
		}
	}

	// Findings carry the rule's severity, condition and reason; reconcile
	// rules run only when asked for.
	ar := agentRuntimeBase()
	ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{ExtraEnv: agentRuntimeEnv("OMNIA_PACK_MODE", "compile")}
	found := Default.Evaluate(kindAgentRuntime, Input{Object: ar}, Options{Stages: []Stage{StageAdmission}})
	if len(found) != 1 || found[0].Condition != "ReservedEnvClean" || found[0].Reason != "ReservedEnvKey" ||
		found[0].Severity != SeverityDeny || !strings.Contains(found[0].Message, "OMNIA_PACK_MODE") {
		t.Errorf("reserved env findings = %+v", found)
	}
	// With no facts the Provider and pack are unknown: nothing at admission,
	// ProviderNotFound and PromptPackNotFound at reconcile.
	if got := Default.Evaluate(kindAgentRuntime, Input{Object: agentRuntimeBase()}, Options{Stages: []Stage{StageAdmission}}); len(got) != 0 {
		t.Errorf("admission-only evaluation with no facts = %v, want none", got)
	}
	var ids []string
	for _, f := range Default.Evaluate(kindAgentRuntime, Input{Object: agentRuntimeBase()}, Options{Stages: []Stage{StageReconcile}}) {
		ids = append(ids, f.RuleID+"/"+f.Reason)
	}
	if want := []string{"agentruntime/promptpack-resolves/PromptPackNotFound", "agentruntime/provider-exists/ProviderNotFound"}; !slices.Equal(ids, want) {
		t.Errorf("reconcile evaluation with no facts = %v, want %v", ids, want)
	}
}

// TestAgentRuntimeA2AClientsExclusiveMessage: the refusal carries the
// spec's exact message.
func TestAgentRuntimeA2AClientsExclusiveMessage(t *testing.T) {
	ar := agentRuntimeBase()
	agentRuntimeA2AFacade(v1alpha1.AgentRuntimeA2AClient{Name: "a", URL: "https://a.example.com"})(ar)
	ar.Spec.A2AClients = []v1alpha1.AgentRuntimeA2AClient{{Name: "b", URL: "https://b.example.com"}}
	for _, f := range Default.Evaluate(kindAgentRuntime, Input{Object: ar}, Options{Stages: []Stage{StageAdmission}}) {
		if f.RuleID != "agentruntime/a2a-clients-exclusive" {
			continue
		}
		if f.Message != "spec.a2aClients and the deprecated spec.facades[].a2a.clients are mutually exclusive" {
			t.Errorf("message = %q", f.Message)
		}
		return
	}
	t.Error("agentruntime/a2a-clients-exclusive did not fire")
}

// TestAgentRuntimeFunctionSchemaOffline: a remote $ref is refused without
// touching the network, and the message says how to fix it.
func TestAgentRuntimeFunctionSchemaOffline(t *testing.T) {
	err := agentRuntimeCompileSchema("inputSchema", agentRuntimeRaw(`{"$ref":"https://example.com/s.json"}`))
	if err == nil || !strings.Contains(err.Error(), "$defs") {
		t.Errorf("remote $ref: err = %v, want a refusal naming $defs", err)
	}
	if err := agentRuntimeCompileSchema("inputSchema", agentRuntimeRaw(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`)); err != nil {
		t.Errorf("2020-12 $schema: %v", err)
	}
	if err := agentRuntimeCompileSchema("inputSchema", &runtime.RawExtension{}); err != nil {
		t.Errorf("empty: %v", err)
	}
}
