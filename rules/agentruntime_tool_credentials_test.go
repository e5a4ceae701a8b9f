package rules

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// toolCredentialFacts knows one ToolRegistry and Secrets by name, with
// their keys and labels.
type toolCredentialFacts struct {
	NoFacts
	registry *v1alpha1.ToolRegistry
	keys     map[string][]string
	labels   map[string]map[string]string
}

func (f toolCredentialFacts) ToolRegistry(namespace, name string) (*v1alpha1.ToolRegistry, bool) {
	if f.registry == nil || f.registry.Namespace != namespace || f.registry.Name != name {
		return nil, false
	}
	return f.registry, true
}

func (f toolCredentialFacts) SecretKeys(_, name string) ([]string, bool) {
	k, ok := f.keys[name]
	return k, ok
}

func (f toolCredentialFacts) SecretLabels(_, name string) (map[string]string, bool) {
	_, ok := f.keys[name]
	return f.labels[name], ok
}

var optedIn = map[string]string{v1alpha1.ToolCredentialsLabel: v1alpha1.ToolCredentialsValue}

// toolCredentialRegistry has a bearer handler, a legacy basic handler, a
// header from a Secret, a serviceAccount handler and a platform handler.
func toolCredentialRegistry() *v1alpha1.ToolRegistry {
	return &v1alpha1.ToolRegistry{
		ObjectMeta: metav1.ObjectMeta{Name: "tools", Namespace: "agents"},
		Spec: v1alpha1.ToolRegistrySpec{Handlers: []v1alpha1.ToolRegistryHandler{
			{Name: "bearer-api", Type: v1alpha1.ToolRegistryHandlerTypeHTTP,
				HTTPConfig: &v1alpha1.ToolRegistryHTTPConfig{Endpoint: "https://api.example.com",
					HeadersFromSecret: map[string]v1alpha1.ToolRegistrySecretKeyRef{"X-Api-Key": {Name: "api", Key: "key"}, "X-Sign": {Name: "api", Key: "sign"}}},
				Auth: &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeBearer, SecretRef: &v1alpha1.ToolRegistrySecretKeyRef{Name: "api", Key: "token"}}},
			{Name: "legacy", Type: v1alpha1.ToolRegistryHandlerTypeHTTP,
				HTTPConfig: &v1alpha1.ToolRegistryHTTPConfig{Endpoint: "https://legacy.example.com", AuthType: v1alpha1.ToolRegistryLegacyAuthTypeBasic,
					AuthSecretRef: &v1alpha1.ToolRegistrySecretKeyRef{Name: "legacy", Key: "userpass"}}},
			{Name: "sa", Type: v1alpha1.ToolRegistryHandlerTypeHTTP, HTTPConfig: &v1alpha1.ToolRegistryHTTPConfig{Endpoint: "http://svc.tools"},
				Auth: &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeServiceAccount, ServiceAccount: &v1alpha1.ToolRegistryServiceAccountAuth{Audience: "tools"}}},
			{Name: "catalog", Type: v1alpha1.ToolRegistryHandlerTypePlatform},
		}},
	}
}

func TestToolCredentials(t *testing.T) {
	got := ToolCredentials(toolCredentialRegistry())
	var keys []string
	for _, c := range got {
		keys = append(keys, c.Key+"<-"+c.SecretName+"/"+c.SecretKey)
	}
	want := []string{"bearer-api.auth<-api/token", "bearer-api.header.X-Api-Key<-api/key", "bearer-api.header.X-Sign<-api/sign", "legacy.auth<-legacy/userpass"}
	if !slices.Equal(keys, want) {
		t.Fatalf("ToolCredentials = %v, want %v", keys, want)
	}
	if got[0].Path.String() != "spec.handlers[0].auth.secretRef" || got[3].Path.String() != "spec.handlers[1].httpConfig.authSecretRef" {
		t.Errorf("paths = %s, %s", got[0].Path, got[3].Path)
	}
	// A header name that is not a valid Secret key gets an index instead.
	tr := toolCredentialRegistry()
	tr.Spec.Handlers[0].HTTPConfig.HeadersFromSecret = map[string]v1alpha1.ToolRegistrySecretKeyRef{"X!Odd": {Name: "api", Key: "k"}}
	if c := ToolCredentials(tr); c[1].Key != "bearer-api.header-0" || c[1].Header != "X!Odd" {
		t.Errorf("odd header = %+v", c[1])
	}
}

func TestAgentRuntimeToolCredentialRules(t *testing.T) {
	ar := &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "agents"},
		Spec: v1alpha1.AgentRuntimeSpec{ToolRegistryRef: &v1alpha1.NamespacedObjectReference{Name: "tools"}}}
	allKeys := map[string][]string{"api": {"token", "key", "sign"}, "legacy": {"userpass"}}
	allLabels := map[string]map[string]string{"api": optedIn, "legacy": optedIn}
	cases := []struct {
		name   string
		keys   map[string][]string
		labels map[string]map[string]string
		want   map[string]int // rule ID → findings
	}{
		{"every credential usable", allKeys, allLabels, nil},
		{"a Secret missing", map[string][]string{"api": {"token", "key", "sign"}}, allLabels,
			map[string]int{"agentruntime/tool-credential-secret-found": 1}},
		{"a Secret not opted in", allKeys, map[string]map[string]string{"legacy": optedIn},
			map[string]int{"agentruntime/tool-credential-opted-in": 3}},
		{"a key missing", map[string][]string{"api": {"token", "key"}, "legacy": {"userpass"}}, allLabels,
			map[string]int{"agentruntime/tool-credential-key-found": 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			facts := toolCredentialFacts{registry: toolCredentialRegistry(), keys: tc.keys, labels: tc.labels}
			got := map[string]int{}
			for _, f := range Default.Evaluate(kindAgentRuntime, Input{Object: ar, Facts: facts}, Options{}) {
				if f.Condition == v1alpha1.AgentRuntimeConditionToolCredentialsReady {
					got[f.RuleID]++
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("findings %v, want %v", got, tc.want)
			}
			for id, n := range tc.want {
				if got[id] != n {
					t.Errorf("findings %v, want %v", got, tc.want)
				}
			}
		})
	}
	// Facts that know no labels (omniactl's) do not judge the opt-in.
	noLabels := toolCredentialKeysOnly{f: toolCredentialFacts{registry: toolCredentialRegistry(), keys: allKeys}}
	for _, f := range Default.Evaluate(kindAgentRuntime, Input{Object: ar, Facts: noLabels}, Options{}) {
		if f.Condition == v1alpha1.AgentRuntimeConditionToolCredentialsReady {
			t.Errorf("facts without labels: %s", f)
		}
	}
}

// toolCredentialKeysOnly hides SecretLabels, as manifest facts do.
type toolCredentialKeysOnly struct {
	NoFacts
	f toolCredentialFacts
}

func (k toolCredentialKeysOnly) ToolRegistry(ns, name string) (*v1alpha1.ToolRegistry, bool) {
	return k.f.ToolRegistry(ns, name)
}
func (k toolCredentialKeysOnly) SecretKeys(ns, name string) ([]string, bool) {
	return k.f.SecretKeys(ns, name)
}
