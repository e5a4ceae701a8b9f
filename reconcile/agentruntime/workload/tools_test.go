package workload

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// TestRenderToolsFile: the tools file keeps each handler's configuration,
// names the file of every Secret credential in place of the reference,
// drops the deprecated fields it normalises, and leaves platform handlers
// to OMNIA_PLATFORM_TOOLS.
func TestRenderToolsFile(t *testing.T) {
	tr := &v1alpha1.ToolRegistry{ObjectMeta: metav1.ObjectMeta{Name: "tools", Namespace: "team-a", Generation: 3}, Spec: v1alpha1.ToolRegistrySpec{
		Handlers: []v1alpha1.ToolRegistryHandler{
			{Name: "legacy", Type: v1alpha1.ToolRegistryHandlerTypeHTTP, HTTPConfig: &v1alpha1.ToolRegistryHTTPConfig{
				Endpoint: "https://legacy.example.com", AuthType: v1alpha1.ToolRegistryLegacyAuthTypeBearer,
				AuthSecretRef:     &v1alpha1.ToolRegistrySecretKeyRef{Name: "legacy-src", Key: "tok"},
				HeadersFromSecret: map[string]v1alpha1.ToolRegistrySecretKeyRef{"X-Key": {Name: "legacy-src", Key: "key"}}}},
			{Name: "catalog", Type: v1alpha1.ToolRegistryHandlerTypePlatform, Platform: &v1alpha1.ToolRegistryPlatformConfig{Service: v1alpha1.ToolRegistryPlatformServiceDiscovery}},
		}}}
	raw, err := RenderToolsFile(&ResolvedTools{Registry: tr, Credentials: rules.ToolCredentials(tr)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "legacy-src") || strings.Contains(string(raw), "authSecretRef") {
		t.Errorf("the tools file names a source Secret:\n%s", raw)
	}
	var f ToolsFile
	if err := yaml.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	if f.Registry != (ToolsFileRegistry{Name: "tools", Namespace: "team-a", Generation: 3}) || len(f.Handlers) != 1 {
		t.Fatalf("file = %+v, want the registry and its one non-platform handler", f)
	}
	h := f.Handlers[0]
	if h.Auth.Type != v1alpha1.ToolRegistryAuthTypeBearer || h.Auth.CredentialFile != ToolSecretsMountPath+"/legacy.auth" {
		t.Errorf("auth = %+v, want the deprecated bearer normalised with its file", h.Auth)
	}
	if h.HeadersFromFiles["X-Key"] != ToolSecretsMountPath+"/legacy.header.X-Key" || h.HTTPConfig.Endpoint != "https://legacy.example.com" {
		t.Errorf("handler = %+v", h)
	}
}

// TestNoToolsNoVolumes: an agent without a resolved registry gets no tools
// volume, mount or variable.
func TestNoToolsNoVolumes(t *testing.T) {
	ar := &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "n"}}
	if v := toolVolumes(ar, nil); v != nil {
		t.Errorf("volumes without tools: %v", v)
	}
	tr := &v1alpha1.ToolRegistry{}
	if v := toolVolumes(ar, &ResolvedTools{Registry: tr}); len(v) != 2 {
		t.Errorf("volumes with a registry and no serviceAccount handler = %d, want the tools file and the tool-secrets", len(v))
	}
}

// TestKubeAPIAudienceNotProjected: a serviceAccount handler asking for the
// API server's audience gets no token in the runtime, even when the
// registry got in without the admission rule.
func TestKubeAPIAudienceNotProjected(t *testing.T) {
	ar := &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "n"}}
	sa := func(aud string) v1alpha1.ToolRegistryHandler {
		return v1alpha1.ToolRegistryHandler{Name: "h-" + strings.ReplaceAll(aud, ".", "-"), Type: v1alpha1.ToolRegistryHandlerTypeHTTP,
			Auth: &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeServiceAccount, ServiceAccount: &v1alpha1.ToolRegistryServiceAccountAuth{Audience: aud}}}
	}
	tr := &v1alpha1.ToolRegistry{Spec: v1alpha1.ToolRegistrySpec{Handlers: []v1alpha1.ToolRegistryHandler{sa("kubernetes.default.svc"), sa("weather.tools")}}}
	vols := toolVolumes(ar, &ResolvedTools{Registry: tr})
	if len(vols) != 3 || len(vols[2].Projected.Sources) != 1 || vols[2].Projected.Sources[0].ServiceAccountToken.Audience != "weather.tools" {
		t.Fatalf("tool token volume = %+v, want weather.tools's token only", vols)
	}
}
