package agentruntime

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

func TestPlatformTools(t *testing.T) {
	ar := &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: "acme-ns", Name: "support"}}
	registry := func(svcs ...v1alpha1.ToolRegistryPlatformService) *v1alpha1.ToolRegistry {
		tr := &v1alpha1.ToolRegistry{ObjectMeta: metav1.ObjectMeta{Namespace: "acme-ns", Name: "tools"}}
		for _, s := range svcs {
			tr.Spec.Handlers = append(tr.Spec.Handlers, v1alpha1.ToolRegistryHandler{Name: "h-" + string(s),
				Type: v1alpha1.ToolRegistryHandlerTypePlatform, Platform: &v1alpha1.ToolRegistryPlatformConfig{Service: s}})
		}
		return tr
	}
	ws := &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: "acme"}, Spec: v1alpha1.WorkspaceSpec{Namespace: v1alpha1.WorkspaceNamespace{Name: "acme-ns"}}}
	const api = "https://omnia-operator.omnia-system.svc:9444/"
	cases := map[string]struct {
		tr          *v1alpha1.ToolRegistry
		ws          *v1alpha1.Workspace
		api         string
		wantTools   int
		wantSkipped string
	}{
		"discovery, a URL and a Workspace: rendered": {registry(v1alpha1.ToolRegistryPlatformServiceDiscovery), ws, api, 3, ""},
		"no --platform-api-url: skipped, said why":   {registry(v1alpha1.ToolRegistryPlatformServiceDiscovery), ws, "", 0, "no --platform-api-url"},
		"no Workspace for the namespace: skipped":    {registry(v1alpha1.ToolRegistryPlatformServiceDiscovery), nil, api, 0, "no Workspace names namespace acme-ns"},
		"a URL that is not http(s): skipped":         {registry(v1alpha1.ToolRegistryPlatformServiceDiscovery), ws, "ftp://x", 0, "is not an http(s) URL"},
		"arena is never rendered":                    {registry(v1alpha1.ToolRegistryPlatformServiceArena), ws, api, 0, ""},
		"no registry: nothing":                       {nil, ws, api, 0, ""},
		"two discovery handlers: one set of tools":   {registry(v1alpha1.ToolRegistryPlatformServiceDiscovery, v1alpha1.ToolRegistryPlatformServiceDiscovery), ws, api, 3, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			tools, skipped := platformTools(ar, c.tr, c.ws, c.api)
			if len(tools) != c.wantTools || !strings.Contains(skipped, c.wantSkipped) || (c.wantSkipped == "" && skipped != "") {
				t.Fatalf("tools = %d, skipped %q; want %d, %q", len(tools), skipped, c.wantTools, c.wantSkipped)
			}
		})
	}

	tools, _ := platformTools(ar, registry(v1alpha1.ToolRegistryPlatformServiceDiscovery), ws, api)
	want := map[string]string{
		"catalog_overview": "https://omnia-operator.omnia-system.svc:9444/api/v1/workspaces/acme/catalog/overview",
		"catalog_search":   "https://omnia-operator.omnia-system.svc:9444/api/v1/workspaces/acme/catalog/search",
		"catalog_get":      "https://omnia-operator.omnia-system.svc:9444/api/v1/workspaces/acme/catalog/get",
	}
	for _, tl := range tools {
		if want[tl.Name] != tl.URL || tl.Method != "GET" || tl.DelegationAudience != "workspace:acme" || tl.Handler != "h-discovery" {
			t.Errorf("%s = %+v", tl.Name, tl)
		}
		// Arguments are strings or numbers, never arrays (the spec's
		// %v-formatted query parameters).
		var schema struct {
			Properties map[string]struct {
				Type string `json:"type"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(tl.InputSchema, &schema); err != nil {
			t.Fatalf("%s schema: %v", tl.Name, err)
		}
		for arg, p := range schema.Properties {
			if p.Type != "string" && p.Type != "number" {
				t.Errorf("%s.%s is %s", tl.Name, arg, p.Type)
			}
		}
	}

	// The runtime gets them as OMNIA_PLATFORM_TOOLS, and nothing without.
	runtimeEnv := func(tools []workload.PlatformTool) (string, bool) {
		t.Helper()
		r := resolved()
		r.PlatformTools = tools
		pod, _ := mustDeployment(t, agent(), r)
		return literal(container(t, pod, workload.ContainerRuntime), workload.EnvPlatformTools)
	}
	v, _ := runtimeEnv(tools)
	var got []workload.PlatformTool
	if err := json.Unmarshal([]byte(v), &got); err != nil || len(got) != 3 {
		t.Errorf("%s = %q (%v)", workload.EnvPlatformTools, v, err)
	}
	if _, ok := runtimeEnv(nil); ok {
		t.Error("no tools, no variable")
	}
}
