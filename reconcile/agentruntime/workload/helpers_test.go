package workload

import (
	"encoding/json"
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// agent is a minimal valid agent: one websocket facade, no other field.
func agent(mut ...func(*v1alpha1.AgentRuntime)) *v1alpha1.AgentRuntime {
	ar := &v1alpha1.AgentRuntime{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "AgentRuntime"},
		ObjectMeta: metav1.ObjectMeta{Name: "support", Namespace: "team-a", UID: types.UID("uid-1")},
		Spec: v1alpha1.AgentRuntimeSpec{
			Facades: []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}},
		},
	}
	for _, m := range mut {
		m(ar)
	}
	return ar
}

func resolved() Resolved {
	return Resolved{
		RuntimeImage:      "registry.example/runtime:1",
		FacadeImage:       "registry.example/facade:1",
		PolicyBrokerImage: "registry.example/broker:1",
	}
}

// loadExample decodes one of the spec's complete examples.
func loadExample(t *testing.T, file string) *v1alpha1.AgentRuntime {
	t.Helper()
	b, err := os.ReadFile("../../../config/samples/agentruntime/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var ar v1alpha1.AgentRuntime
	if err := yaml.UnmarshalStrict(b, &ar); err != nil {
		t.Fatal(err)
	}
	ar.UID = "uid-example"
	return &ar
}

// mustDeployment builds and fails the test on error.
func mustDeployment(t *testing.T, ar *v1alpha1.AgentRuntime, r Resolved) (*corev1.PodSpec, []DroppedEnv) {
	t.Helper()
	d, dropped, err := Deployment(ar, r)
	if err != nil {
		t.Fatalf("Deployment: %v", err)
	}
	return &d.Spec.Template.Spec, dropped
}

func container(t *testing.T, pod *corev1.PodSpec, name string) *corev1.Container {
	t.Helper()
	for i := range pod.Containers {
		if pod.Containers[i].Name == name {
			return &pod.Containers[i]
		}
	}
	t.Fatalf("no container %q", name)
	return nil
}

// env returns the container's entry for name, or nil.
func env(c *corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

// literal returns the literal value of name and whether it is set as a literal.
func literal(c *corev1.Container, name string) (string, bool) {
	e := env(c, name)
	if e == nil || e.ValueFrom != nil {
		return "", false
	}
	return e.Value, true
}

// secretRef returns "secret/key" for a variable set from a Secret, or "".
func secretRef(c *corev1.Container, name string) string {
	e := env(c, name)
	if e == nil || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
		return ""
	}
	return e.ValueFrom.SecretKeyRef.Name + "/" + e.ValueFrom.SecretKeyRef.Key
}

func portNames(ports []FacadePort) []string {
	var out []string
	for _, p := range ports {
		out = append(out, p.Name+":"+itoa(p.Port))
	}
	return out
}

// sameJSON fails the test when got and want differ in their JSON form.
func sameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	if !equalYAML(t, got, want) {
		t.Errorf("%s differs", what)
	}
}

// equalYAML compares two values by their JSON form (a typed value against
// the API server's, or unstructured), logging both when they differ.
func equalYAML(t *testing.T, got, want any) bool {
	t.Helper()
	norm := func(v any) string {
		var out any
		if err := json.Unmarshal(mustJSON(t, v), &out); err != nil {
			t.Fatal(err)
		}
		return string(mustJSON(t, out))
	}
	if g, w := norm(got), norm(want); g != w {
		t.Logf("got:  %s\nwant: %s", g, w)
		return false
	}
	return true
}
