package workload

import (
	"bytes"
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// richAgent sets most fields the builders read, so determinism is checked
// over maps (labels, annotations, node selector, providers) and every list.
func richAgent() *v1alpha1.AgentRuntime {
	return agent(func(ar *v1alpha1.AgentRuntime) {
		ar.Annotations = map[string]string{"omnia.altairalabs.ai/idle-timeout": "2h"}
		ar.Spec.Facades = []v1alpha1.AgentRuntimeFacade{
			{Type: v1alpha1.AgentRuntimeFacadeTypeA2A, A2A: &v1alpha1.AgentRuntimeFacadeA2A{TaskStore: &v1alpha1.AgentRuntimeA2ATaskStore{Type: "redis", RedisSecretRef: &v1alpha1.LocalObjectReference{Name: "tasks"}}}},
			{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, ExtraEnv: []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "debug"}, {Name: "OMNIA_PACK_MODE", Value: "compile"}}},
		}
		ar.Spec.Providers = v1alpha1.AgentRuntimeProviders{
			{Name: "judge", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "haiku"}},
			{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "sonnet"}},
			{Name: "embed-small", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "embed"}},
		}
		ar.Spec.Sandbox = &v1alpha1.AgentRuntimeSandbox{Enabled: true}
		ar.Spec.Media = &v1alpha1.AgentRuntimeMedia{Storage: &v1alpha1.AgentRuntimeMediaStorage{Type: "s3", S3: &v1alpha1.AgentRuntimeMediaS3{Bucket: "b", Region: "r"}, SecretRef: &v1alpha1.LocalObjectReference{Name: "s3"}}}
		ar.Spec.ExtraPodAnnotations = map[string]string{"a": "1", "b": "2", "c": "3"}
		ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{
			Replicas:     ptr.To[int32](2),
			NodeSelector: map[string]string{"x": "1", "y": "2"},
			ExtraEnv:     []corev1.EnvVar{{Name: "Z", Value: "1"}, {Name: "A", Value: "2"}},
		}
		ar.Spec.PodOverrides = &v1alpha1.PodOverrides{
			Labels:       map[string]string{"team": "a", "cost": "b"},
			Annotations:  map[string]string{"d": "4"},
			NodeSelector: map[string]string{"z": "3"},
			ExtraEnv:     []corev1.EnvVar{{Name: "M", Value: "3"}},
			ExtraVolumes: []runtime.RawExtension{{Raw: []byte(`{"name":"extra","emptyDir":{}}`)}},
		}
	})
}

func richResolved() Resolved {
	r := resolved()
	r.PromptPack = &ResolvedPromptPack{PackName: "p", Version: "1.0.0", ConfigMapName: "p-cm"}
	r.SandboxAPIURL = "http://omnia-operator.omnia-system.svc:8443"
	r.ToolRegistryName = "tools"
	r.Providers = map[string]ResolvedProvider{
		"judge":       {Provider: provider("haiku", "h"), SecretKey: "api-key"},
		"default":     {Provider: provider("sonnet", "s"), SecretKey: "ANTHROPIC_API_KEY"},
		"embed-small": {Provider: provider("embed", "e"), SecretKey: "api-key"},
	}
	return r
}

// buildAll serialises every object built for the agent.
func buildAll(t *testing.T, ar *v1alpha1.AgentRuntime, r Resolved) []byte {
	t.Helper()
	d, _, err := Deployment(ar, r)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, o := range []any{d, Service(ar), ServiceAccount(ar), Role(ar), RoleBinding(ar, r)} {
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// Building twice gives byte-identical objects: the controller compares
// what it would apply with what it applied and skips an unchanged write.
// Go randomises map iteration, so a builder that ranged over a map without
// sorting fails this within a few rounds.
func TestBuildersAreDeterministic(t *testing.T) {
	ar, r := richAgent(), richResolved()
	first := buildAll(t, ar, r)
	for i := 0; i < 50; i++ {
		if again := buildAll(t, ar, r); !bytes.Equal(first, again) {
			t.Fatalf("build %d differs from the first:\n%s\n---\n%s", i, first, again)
		}
	}
}

// Reordering spec.facades and spec.providers (lists whose order has no
// meaning for the pod) does not change what is applied.
func TestBuildersIgnoreFacadeAndProviderOrder(t *testing.T) {
	ar, r := richAgent(), richResolved()
	want := buildAll(t, ar, r)
	re := ar.DeepCopy()
	re.Spec.Facades[0], re.Spec.Facades[1] = re.Spec.Facades[1], re.Spec.Facades[0]
	re.Spec.Providers[0], re.Spec.Providers[2] = re.Spec.Providers[2], re.Spec.Providers[0]
	if got := buildAll(t, re, r); !bytes.Equal(want, got) {
		t.Fatalf("reordered facades/providers changed the objects:\n%s\n---\n%s", want, got)
	}
}

// The Deployment's selector depends on the agent's name only: it is
// immutable, so a spec change that moved it would make every later apply fail.
func TestSelectorStableAcrossSpecChanges(t *testing.T) {
	plain, _, err := Deployment(agent(), resolved())
	if err != nil {
		t.Fatal(err)
	}
	rich, _, err := Deployment(richAgent(), richResolved())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(plain.Spec.Selector)
	b, _ := json.Marshal(rich.Spec.Selector)
	if !bytes.Equal(a, b) {
		t.Fatalf("selector moved with the spec: %s vs %s", a, b)
	}
	for k, v := range rich.Spec.Selector.MatchLabels {
		if rich.Spec.Template.Labels[k] != v {
			t.Errorf("pod label %s = %q, selector wants %q", k, rich.Spec.Template.Labels[k], v)
		}
	}
	svc := Service(richAgent())
	c, _ := json.Marshal(svc.Spec.Selector)
	if !bytes.Equal(c, mustJSON(t, plain.Spec.Selector.MatchLabels)) {
		t.Errorf("Service selector %s differs from the Deployment's %s", c, a)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
