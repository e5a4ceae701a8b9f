package toolregistry

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func toolDef(name string) *v1alpha1.ToolRegistryToolDefinition {
	return &v1alpha1.ToolRegistryToolDefinition{
		Name:        name,
		Description: "does " + name,
		InputSchema: runtime.RawExtension{Raw: []byte(`{"type":"object"}`)},
	}
}

func TestDiscoverTools(t *testing.T) {
	tls := true
	tr := &v1alpha1.ToolRegistry{Spec: v1alpha1.ToolRegistrySpec{Handlers: []v1alpha1.ToolRegistryHandler{
		{Name: "calc", Type: "http", HTTPConfig: &v1alpha1.ToolRegistryHTTPConfig{Endpoint: "https://api.example.com/calculate"}, Tool: toolDef("calculate")},
		{Name: "users", Type: "grpc", GRPCConfig: &v1alpha1.ToolRegistryGRPCConfig{Endpoint: "user-grpc.internal:50051", TLS: &tls}, Tool: toolDef("get_user")},
		{Name: "code", Type: "mcp", MCPConfig: &v1alpha1.ToolRegistryMCPConfig{Transport: "sse", Endpoint: "http://mcp.tools:8080/sse",
			ToolFilter: &v1alpha1.ToolRegistryMCPToolFilter{Allowlist: []string{"Read", "Bash"}}}},
		{Name: "petstore", Type: "openapi", OpenAPIConfig: &v1alpha1.ToolRegistryOpenAPIConfig{SpecURL: "https://petstore.swagger.io/v2/swagger.json"}},
		{Name: "geo", Type: "client", Tool: toolDef("get_location")},
		{Name: "catalog", Type: "platform", Platform: &v1alpha1.ToolRegistryPlatformConfig{Service: "discovery"}},
		{Name: "build", Type: "mcp", Sandbox: &v1alpha1.ToolRegistryHandlerSandbox{Name: "box", Port: "mcp"},
			MCPConfig: &v1alpha1.ToolRegistryMCPConfig{Transport: "sse", Endpoint: "/sse"}},
		{Name: "no-tool", Type: "http", HTTPConfig: &v1alpha1.ToolRegistryHTTPConfig{Endpoint: "http://x"}},
		{Name: "creds", Type: "http", HTTPConfig: &v1alpha1.ToolRegistryHTTPConfig{Endpoint: "https://user:s3cret@api.example.com/x"}, Tool: toolDef("creds")},
	}}}
	tools, n := discoverTools(tr)
	if n != 8 {
		t.Fatalf("handlers with tools = %d, want 8", n)
	}
	want := []struct {
		handler, name, endpoint string
		network                 bool
		dial                    string
	}{
		{"calc", "calculate", "https://api.example.com/calculate", true, "api.example.com:443"},
		{"users", "get_user", "user-grpc.internal:50051", true, "user-grpc.internal:50051"},
		{"code", "code", "http://mcp.tools:8080/sse", true, "mcp.tools:8080"},
		{"petstore", "petstore", "https://petstore.swagger.io/v2/swagger.json", true, "petstore.swagger.io:443"},
		{"geo", "get_location", ClientEndpoint, false, ""},
		{"catalog", "catalog", "platform://discovery", false, ""},
		{"build", "build", "sandbox://box/mcp/sse", false, ""},
		{"creds", "creds", "https://api.example.com/x", true, "api.example.com:443"},
	}
	if len(tools) != len(want) {
		t.Fatalf("got %d tools, want %d", len(tools), len(want))
	}
	for i, w := range want {
		got := tools[i]
		if got.tool.HandlerName != w.handler || got.tool.Name != w.name || got.tool.Endpoint != w.endpoint ||
			got.network != w.network || got.dialAddr != w.dial {
			t.Errorf("tool %d = %+v (network %v dial %q), want %+v", i, got.tool, got.network, got.dialAddr, w)
		}
	}
	if tools[0].tool.InputSchema == nil || string(tools[0].tool.InputSchema.Raw) != `{"type":"object"}` || tools[0].tool.Description != "does calculate" {
		t.Errorf("explicit tool lost its definition: %+v", tools[0].tool)
	}
	if d := tools[2].tool.Description; d != "Placeholder: the runtime lists this MCP server's tools when the agent starts (transport sse); allowlist: Read, Bash" {
		t.Errorf("mcp placeholder description = %q", d)
	}
	if d := tools[5].tool.Description; d != "Placeholder: the operator's discovery platform service serves this handler's tools: catalog_overview, catalog_search, catalog_get" {
		t.Errorf("platform placeholder description = %q", d)
	}
}

func TestDisplayEndpoint(t *testing.T) {
	cases := map[string]string{
		"https://api.example.com/x":         "https://api.example.com/x",
		"https://user:pw@api.example.com/x": "https://api.example.com/x",
		"https://token@api.example.com/x":   "https://api.example.com/x",
		"https://api.example.com/a@b":       "https://api.example.com/a@b",
		"svc:50051":                         "svc:50051",
		"http://us%er:p@ss@host:1/%zz":      "http://host:1/%zz",
		"client://browser":                  "client://browser",
	}
	for in, want := range cases {
		if got := displayEndpoint(in); got != want {
			t.Errorf("displayEndpoint(%q) = %q, want %q", in, got, want)
		}
	}
}
