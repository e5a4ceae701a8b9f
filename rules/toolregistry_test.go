package rules

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules/schema"
)

func toolRegistryBool(v bool) *bool { return &v }

func toolRegistryRaw(s string) runtime.RawExtension { return runtime.RawExtension{Raw: []byte(s)} }

func toolRegistryTool(name string) *v1alpha1.ToolRegistryToolDefinition {
	return &v1alpha1.ToolRegistryToolDefinition{
		Name:        name,
		Description: "Perform " + name,
		InputSchema: toolRegistryRaw(`{"type":"object"}`),
	}
}

// toolRegistryBase is a valid registry with one http handler.
func toolRegistryBase() *v1alpha1.ToolRegistry {
	return &v1alpha1.ToolRegistry{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "ToolRegistry"},
		ObjectMeta: metav1.ObjectMeta{Name: "agent-tools", Namespace: "agents"},
		Spec: v1alpha1.ToolRegistrySpec{
			Handlers: []v1alpha1.ToolRegistryHandler{{
				Name:       "calculator",
				Type:       v1alpha1.ToolRegistryHandlerTypeHTTP,
				HTTPConfig: &v1alpha1.ToolRegistryHTTPConfig{Endpoint: "https://api.example.com/calculate", Method: "POST"},
				Tool:       toolRegistryTool("calculate"),
			}},
		},
	}
}

// Handler builders: each is valid on its own.

func toolRegistryGRPC(name string) v1alpha1.ToolRegistryHandler {
	return v1alpha1.ToolRegistryHandler{
		Name:       name,
		Type:       v1alpha1.ToolRegistryHandlerTypeGRPC,
		GRPCConfig: &v1alpha1.ToolRegistryGRPCConfig{Endpoint: "user-grpc.internal.svc.cluster.local:50051"},
		Tool:       toolRegistryTool("get_user"),
	}
}

func toolRegistryMCP(name, endpoint string) v1alpha1.ToolRegistryHandler {
	return v1alpha1.ToolRegistryHandler{
		Name:      name,
		Type:      v1alpha1.ToolRegistryHandlerTypeMCP,
		MCPConfig: &v1alpha1.ToolRegistryMCPConfig{Transport: v1alpha1.ToolRegistryMCPTransportSSE, Endpoint: endpoint},
	}
}

func toolRegistryOpenAPI(name string) v1alpha1.ToolRegistryHandler {
	return v1alpha1.ToolRegistryHandler{
		Name:          name,
		Type:          v1alpha1.ToolRegistryHandlerTypeOpenAPI,
		OpenAPIConfig: &v1alpha1.ToolRegistryOpenAPIConfig{SpecURL: "https://api.example.com/openapi.json"},
	}
}

func toolRegistryClient(name string) v1alpha1.ToolRegistryHandler {
	return v1alpha1.ToolRegistryHandler{
		Name: name,
		Type: v1alpha1.ToolRegistryHandlerTypeClient,
		Tool: toolRegistryTool("get_location"),
	}
}

func toolRegistryPlatform(name string) v1alpha1.ToolRegistryHandler {
	return v1alpha1.ToolRegistryHandler{
		Name:     name,
		Type:     v1alpha1.ToolRegistryHandlerTypePlatform,
		Platform: &v1alpha1.ToolRegistryPlatformConfig{Service: v1alpha1.ToolRegistryPlatformServiceDiscovery},
	}
}

// toolRegistryAdd appends handlers after the base's http handler.
func toolRegistryAdd(hs ...v1alpha1.ToolRegistryHandler) func(*v1alpha1.ToolRegistry) {
	return func(tr *v1alpha1.ToolRegistry) { tr.Spec.Handlers = append(tr.Spec.Handlers, hs...) }
}

// toolRegistryOnly replaces the base's handlers with h, after mutating it.
func toolRegistryOnly(h v1alpha1.ToolRegistryHandler, mutate func(*v1alpha1.ToolRegistryHandler)) func(*v1alpha1.ToolRegistry) {
	return func(tr *v1alpha1.ToolRegistry) {
		if mutate != nil {
			mutate(&h)
		}
		tr.Spec.Handlers = []v1alpha1.ToolRegistryHandler{h}
	}
}

// toolRegistryHTTP mutates the base's http handler.
func toolRegistryHTTP(mutate func(*v1alpha1.ToolRegistryHandler)) func(*v1alpha1.ToolRegistry) {
	return func(tr *v1alpha1.ToolRegistry) { mutate(&tr.Spec.Handlers[0]) }
}

func toolRegistryConnectionRef(h *v1alpha1.ToolRegistryHandler) {
	h.Auth = &v1alpha1.ToolRegistryHandlerAuth{
		Type:          v1alpha1.ToolRegistryAuthTypeBearer,
		ConnectionRef: &v1alpha1.ToolRegistryConnectionKeyRef{Name: "crm-shared", Key: "token"},
	}
}

func toolRegistrySecret(name string) *v1alpha1.ToolRegistrySecretKeyRef {
	return &v1alpha1.ToolRegistrySecretKeyRef{Name: name, Key: "token"}
}

func toolRegistrySandboxes(names ...string) func(*v1alpha1.ToolRegistry) {
	return func(tr *v1alpha1.ToolRegistry) {
		for _, n := range names {
			tr.Spec.Sandboxes = append(tr.Spec.Sandboxes, v1alpha1.ToolRegistrySandbox{
				Name:  n,
				Class: v1alpha1.ToolRegistrySandboxClassRef{Name: "codegen-default", Kind: v1alpha1.ToolRegistrySandboxClassKindClusterSandboxClass},
			})
		}
	}
}

func toolRegistryAll(ms ...func(*v1alpha1.ToolRegistry)) func(*v1alpha1.ToolRegistry) {
	return func(tr *v1alpha1.ToolRegistry) {
		for _, m := range ms {
			m(tr)
		}
	}
}

type toolRegistryWant = ruleWant

func TestToolRegistryRules(t *testing.T) {
	h0 := "spec.handlers[0]"
	h1 := "spec.handlers[1]"
	cases := []ruleCase[*v1alpha1.ToolRegistry]{
		{name: "base: one http handler"},
		{name: "every handler type, each well formed", mutate: toolRegistryAdd(
			toolRegistryGRPC("users"),
			toolRegistryMCP("code-tools", "http://mcp-code.tools.svc.cluster.local:8080/sse"),
			toolRegistryOpenAPI("petstore"),
			toolRegistryClient("geolocation"),
			toolRegistryPlatform("catalog"),
		)},
		{name: "update of a valid registry", mutate: toolRegistryAdd(toolRegistryGRPC("users")), old: func(*v1alpha1.ToolRegistry) {}},

		// toolregistry/serviceaccount-audience-not-kube-api
		{name: "serviceAccount auth for the tool's own audience", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeServiceAccount,
				ServiceAccount: &v1alpha1.ToolRegistryServiceAccountAuth{Audience: "weather.tools.svc"}}
		})},
		{name: "serviceAccount auth for the API server's audience", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeServiceAccount,
				ServiceAccount: &v1alpha1.ToolRegistryServiceAccountAuth{Audience: "https://Kubernetes.default.svc.cluster.local/"}}
		}), want: []toolRegistryWant{{"toolregistry/serviceaccount-audience-not-kube-api", h0 + ".auth.serviceAccount.audience"}}},

		// toolregistry/handler-config-required
		{name: "client without clientConfig", mutate: toolRegistryAdd(toolRegistryClient("geo"))},
		{name: "http without httpConfig", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) { h.HTTPConfig = nil }),
			want: []toolRegistryWant{{"toolregistry/handler-config-required", h0 + ".httpConfig"}}},
		{name: "grpc without grpcConfig", mutate: toolRegistryOnly(toolRegistryGRPC("users"), func(h *v1alpha1.ToolRegistryHandler) { h.GRPCConfig = nil }),
			want: []toolRegistryWant{{"toolregistry/handler-config-required", h0 + ".grpcConfig"}}},
		{name: "mcp without mcpConfig", mutate: toolRegistryOnly(toolRegistryMCP("m", ""), func(h *v1alpha1.ToolRegistryHandler) { h.MCPConfig = nil }),
			want: []toolRegistryWant{{"toolregistry/handler-config-required", h0 + ".mcpConfig"}}},
		{name: "openapi without openAPIConfig", mutate: toolRegistryOnly(toolRegistryOpenAPI("o"), func(h *v1alpha1.ToolRegistryHandler) { h.OpenAPIConfig = nil }),
			want: []toolRegistryWant{{"toolregistry/handler-config-required", h0 + ".openAPIConfig"}}},
		{name: "platform without platform", mutate: toolRegistryAdd(v1alpha1.ToolRegistryHandler{Name: "catalog", Type: v1alpha1.ToolRegistryHandlerTypePlatform}),
			want: []toolRegistryWant{{"toolregistry/handler-config-required", h1 + ".platform"}}},

		// toolregistry/handler-config-type
		{name: "client with clientConfig", mutate: toolRegistryOnly(toolRegistryClient("geo"), func(h *v1alpha1.ToolRegistryHandler) {
			h.ClientConfig = &v1alpha1.ToolRegistryClientConfig{ConsentMessage: "Share your location?", Categories: []string{"location"}}
		})},
		{name: "http with mcpConfig", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.MCPConfig = &v1alpha1.ToolRegistryMCPConfig{Transport: v1alpha1.ToolRegistryMCPTransportSSE, Endpoint: "http://mcp:8080/sse"}
		}), want: []toolRegistryWant{{"toolregistry/handler-config-type", h0 + ".mcpConfig"}}},
		{name: "client with httpConfig and grpcConfig", mutate: toolRegistryOnly(toolRegistryClient("geo"), func(h *v1alpha1.ToolRegistryHandler) {
			h.HTTPConfig = &v1alpha1.ToolRegistryHTTPConfig{Endpoint: "https://api.example.com"}
			h.GRPCConfig = &v1alpha1.ToolRegistryGRPCConfig{Endpoint: "svc:50051"}
		}), want: []toolRegistryWant{
			{"toolregistry/handler-config-type", h0 + ".httpConfig"},
			{"toolregistry/handler-config-type", h0 + ".grpcConfig"},
		}},
		{name: "mcp with clientConfig and openAPIConfig", mutate: toolRegistryOnly(toolRegistryMCP("m", "http://mcp:8080/sse"), func(h *v1alpha1.ToolRegistryHandler) {
			h.ClientConfig = &v1alpha1.ToolRegistryClientConfig{ConsentMessage: "ok?"}
			h.OpenAPIConfig = &v1alpha1.ToolRegistryOpenAPIConfig{SpecURL: "https://x/openapi.json"}
		}), want: []toolRegistryWant{
			{"toolregistry/handler-config-type", h0 + ".openAPIConfig"},
			{"toolregistry/handler-config-type", h0 + ".clientConfig"},
		}},
		{name: "platform with httpConfig is the schema's alone", mutate: toolRegistryAdd(func() v1alpha1.ToolRegistryHandler {
			h := toolRegistryPlatform("catalog")
			h.HTTPConfig = &v1alpha1.ToolRegistryHTTPConfig{Endpoint: "https://api.example.com"}
			return h
		}()), schema: []string{"toolregistry/platform-handler-fields"}},
		{name: "platform block on an http handler is the schema's alone", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.Platform = &v1alpha1.ToolRegistryPlatformConfig{Service: v1alpha1.ToolRegistryPlatformServiceArena}
		}), schema: []string{"toolregistry/platform-config-type"}},

		// toolregistry/tool-required
		{name: "mcp and openapi need no tool", mutate: toolRegistryAdd(toolRegistryMCP("m", "http://mcp:8080/sse"), toolRegistryOpenAPI("o"))},
		{name: "http without tool", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) { h.Tool = nil }),
			want: []toolRegistryWant{{"toolregistry/tool-required", h0 + ".tool"}}},
		{name: "grpc without tool", mutate: toolRegistryOnly(toolRegistryGRPC("users"), func(h *v1alpha1.ToolRegistryHandler) { h.Tool = nil }),
			want: []toolRegistryWant{{"toolregistry/tool-required", h0 + ".tool"}}},
		{name: "client without tool", mutate: toolRegistryOnly(toolRegistryClient("geo"), func(h *v1alpha1.ToolRegistryHandler) { h.Tool = nil }),
			want: []toolRegistryWant{{"toolregistry/tool-required", h0 + ".tool"}}},
		{name: "grpc on a sandbox without tool is the schema's alone", mutate: toolRegistryAll(toolRegistrySandboxes("build"),
			toolRegistryOnly(toolRegistryGRPC("users"), func(h *v1alpha1.ToolRegistryHandler) {
				h.Tool, h.GRPCConfig.Endpoint = nil, ""
				h.Sandbox = &v1alpha1.ToolRegistryHandlerSandbox{Name: "build", Port: "grpc"}
			})), schema: []string{"toolregistry/sandbox-grpc-tool-required"}},

		// toolregistry/grpc-endpoint-required
		{name: "grpc on a sandbox without endpoint", mutate: toolRegistryAll(toolRegistrySandboxes("build"),
			toolRegistryOnly(toolRegistryGRPC("users"), func(h *v1alpha1.ToolRegistryHandler) {
				h.GRPCConfig.Endpoint = ""
				h.Sandbox = &v1alpha1.ToolRegistryHandlerSandbox{Name: "build", Port: "grpc"}
			}))},
		{name: "grpc without endpoint or sandbox", mutate: toolRegistryOnly(toolRegistryGRPC("users"), func(h *v1alpha1.ToolRegistryHandler) {
			h.GRPCConfig.Endpoint = ""
		}), want: []toolRegistryWant{{"toolregistry/grpc-endpoint-required", h0 + ".grpcConfig.endpoint"}}},

		// toolregistry/auth-secret-required
		{name: "bearer with secretRef", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeBearer, SecretRef: toolRegistrySecret("creds")}
		})},
		{name: "basic with connectionRef", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			toolRegistryConnectionRef(h)
			h.Auth.Type = v1alpha1.ToolRegistryAuthTypeBasic
		})},
		{name: "auth type none", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeNone}
		})},
		{name: "legacy authType with authSecretRef", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.HTTPConfig.AuthType, h.HTTPConfig.AuthSecretRef = v1alpha1.ToolRegistryLegacyAuthTypeBearer, toolRegistrySecret("creds")
		})},
		{name: "bearer without a credential", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeBearer}
		}), want: []toolRegistryWant{{"toolregistry/auth-secret-required", h0 + ".auth.secretRef"}}},
		{name: "basic without a credential on mcp", mutate: toolRegistryOnly(toolRegistryMCP("m", "http://mcp:8080/sse"), func(h *v1alpha1.ToolRegistryHandler) {
			h.Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeBasic}
		}), want: []toolRegistryWant{{"toolregistry/auth-secret-required", h0 + ".auth.secretRef"}}},
		{name: "legacy httpConfig authType without authSecretRef", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.HTTPConfig.AuthType = v1alpha1.ToolRegistryLegacyAuthTypeBasic
		}), want: []toolRegistryWant{{"toolregistry/auth-secret-required", h0 + ".httpConfig.authSecretRef"}}},
		{name: "legacy openAPIConfig authType without authSecretRef", mutate: toolRegistryOnly(toolRegistryOpenAPI("o"), func(h *v1alpha1.ToolRegistryHandler) {
			h.OpenAPIConfig.AuthType = v1alpha1.ToolRegistryLegacyAuthTypeBearer
		}), want: []toolRegistryWant{{"toolregistry/auth-secret-required", h0 + ".openAPIConfig.authSecretRef"}}},
		{name: "auth next to legacy fields is the schema's alone", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeBearer, SecretRef: toolRegistrySecret("creds")}
			h.HTTPConfig.AuthType = v1alpha1.ToolRegistryLegacyAuthTypeBearer
		}), schema: []string{"toolregistry/auth-legacy-exclusive"}},
		{name: "connectionRef with secretRef is the schema's alone", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			toolRegistryConnectionRef(h)
			h.Auth.SecretRef = toolRegistrySecret("creds")
		}), schema: []string{"toolregistry/auth-connectionref-secretref-exclusive"}},

		// toolregistry/auth-service-account-required
		{name: "serviceAccount with audience", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeServiceAccount,
				ServiceAccount: &v1alpha1.ToolRegistryServiceAccountAuth{Audience: "tools.example.com"}}
		})},
		{name: "serviceAccount without the block", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeServiceAccount}
		}), want: []toolRegistryWant{{"toolregistry/auth-service-account-required", h0 + ".auth.serviceAccount"}}},
		{name: "serviceAccount with an empty audience", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeServiceAccount,
				ServiceAccount: &v1alpha1.ToolRegistryServiceAccountAuth{}}
		}), want: []toolRegistryWant{{"toolregistry/auth-service-account-required", h0 + ".auth.serviceAccount.audience"}}},

		// toolregistry/auth-workload-identity-required
		{name: "workloadIdentity with audience", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeWorkloadIdentity,
				WorkloadIdentity: &v1alpha1.ToolRegistryWorkloadIdentityAuth{Cloud: v1alpha1.ToolRegistryWorkloadIdentityCloudAzure, Audience: "api://tools"}}
		})},
		{name: "workloadIdentity without the block", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeWorkloadIdentity}
		}), want: []toolRegistryWant{{"toolregistry/auth-workload-identity-required", h0 + ".auth.workloadIdentity"}}},
		{name: "workloadIdentity with an empty audience", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeWorkloadIdentity,
				WorkloadIdentity: &v1alpha1.ToolRegistryWorkloadIdentityAuth{Cloud: v1alpha1.ToolRegistryWorkloadIdentityCloudAzure}}
		}), want: []toolRegistryWant{{"toolregistry/auth-workload-identity-required", h0 + ".auth.workloadIdentity.audience"}}},

		// toolregistry/auth-handler-type
		{name: "auth on a grpc handler", mutate: toolRegistryOnly(toolRegistryGRPC("users"), func(h *v1alpha1.ToolRegistryHandler) {
			h.Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeBearer, SecretRef: toolRegistrySecret("creds")}
		})},
		{name: "auth on a client handler", mutate: toolRegistryOnly(toolRegistryClient("geo"), func(h *v1alpha1.ToolRegistryHandler) {
			h.Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeBearer, SecretRef: toolRegistrySecret("creds")}
		}), want: []toolRegistryWant{{"toolregistry/auth-handler-type", h0 + ".auth"}}},
		{name: "empty auth on a client handler", mutate: toolRegistryOnly(toolRegistryClient("geo"), func(h *v1alpha1.ToolRegistryHandler) {
			h.Auth = &v1alpha1.ToolRegistryHandlerAuth{}
		})},
		{name: "auth type none on a client handler (empty auth as stored)", mutate: toolRegistryOnly(toolRegistryClient("geo"), func(h *v1alpha1.ToolRegistryHandler) {
			h.Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeNone}
		})},

		// toolregistry/headers-from-secret-auth-header-case
		{name: "headersFromSecret with another header", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.HTTPConfig.HeadersFromSecret = map[string]v1alpha1.ToolRegistrySecretKeyRef{"X-Api-Key": *toolRegistrySecret("k")}
		})},
		{name: "headersFromSecret AUTHORIZATION", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.HTTPConfig.HeadersFromSecret = map[string]v1alpha1.ToolRegistrySecretKeyRef{
				"X-Api-Key": *toolRegistrySecret("k"), "AUTHORIZATION": *toolRegistrySecret("k"),
			}
		}), want: []toolRegistryWant{{"toolregistry/headers-from-secret-auth-header-case", h0 + ".httpConfig.headersFromSecret[AUTHORIZATION]"}}},
		{name: "headersFromSecret with the workload-identity header in another case", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeWorkloadIdentity,
				WorkloadIdentity: &v1alpha1.ToolRegistryWorkloadIdentityAuth{Audience: "api://tools", Header: "X-Azure-Token"}}
			h.HTTPConfig.HeadersFromSecret = map[string]v1alpha1.ToolRegistrySecretKeyRef{"x-azure-token": *toolRegistrySecret("k")}
		}), want: []toolRegistryWant{{"toolregistry/headers-from-secret-auth-header-case", h0 + ".httpConfig.headersFromSecret[x-azure-token]"}}},
		{name: "headersFromSecret Authorization is the schema's alone", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.HTTPConfig.HeadersFromSecret = map[string]v1alpha1.ToolRegistrySecretKeyRef{"Authorization": *toolRegistrySecret("k")}
		}), schema: []string{"toolregistry/headers-from-secret-auth-header"}},
		{name: "headersFromSecret authorization is the schema's alone", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.HTTPConfig.HeadersFromSecret = map[string]v1alpha1.ToolRegistrySecretKeyRef{"authorization": *toolRegistrySecret("k")}
		}), schema: []string{"toolregistry/headers-from-secret-auth-header"}},
		{name: "headersFromSecret with the exact workload-identity header is the schema's alone", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeWorkloadIdentity,
				WorkloadIdentity: &v1alpha1.ToolRegistryWorkloadIdentityAuth{Audience: "api://tools", Header: "X-Azure-Token"}}
			h.HTTPConfig.HeadersFromSecret = map[string]v1alpha1.ToolRegistrySecretKeyRef{"X-Azure-Token": *toolRegistrySecret("k")}
		}), schema: []string{"toolregistry/headers-from-secret-auth-header"}},

		// toolregistry/auth-connectionref-https
		{name: "connectionRef on https endpoints", mutate: toolRegistryAll(
			toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
				toolRegistryConnectionRef(h)
				h.HTTPConfig.Endpoint = "https://crm.example.com:443/v1/lookup"
				h.HTTPConfig.URLTemplate = "https://crm.example.com/v1/orders/{{.id}}"
			}),
			toolRegistryAdd(
				func() v1alpha1.ToolRegistryHandler {
					h := toolRegistryMCP("m", "https://mcp.example.com/mcp")
					toolRegistryConnectionRef(&h)
					return h
				}(),
				func() v1alpha1.ToolRegistryHandler {
					h := toolRegistryOpenAPI("o")
					h.OpenAPIConfig.BaseURL = "https://api.example.com/v2"
					toolRegistryConnectionRef(&h)
					return h
				}(),
				func() v1alpha1.ToolRegistryHandler {
					h := toolRegistryGRPC("g")
					h.GRPCConfig.Endpoint, h.GRPCConfig.TLS = "grpc.example.com:443", toolRegistryBool(true)
					toolRegistryConnectionRef(&h)
					return h
				}(),
			))},
		{name: "connectionRef with a relative urlTemplate", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			toolRegistryConnectionRef(h)
			h.HTTPConfig.URLTemplate = "/v1/orders/{{.id}}"
		})},
		{name: "connectionRef on an http endpoint", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			toolRegistryConnectionRef(h)
			h.HTTPConfig.Endpoint = "http://crm.example.com/v1/lookup"
		}), want: []toolRegistryWant{{"toolregistry/auth-connectionref-https", h0 + ".httpConfig.endpoint"}}},
		{name: "connectionRef on port 8443 and a plain-http urlTemplate", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			toolRegistryConnectionRef(h)
			h.HTTPConfig.Endpoint = "https://crm.example.com:8443/v1/lookup"
			h.HTTPConfig.URLTemplate = "http://crm.example.com/{{.path}}"
		}), want: []toolRegistryWant{
			{"toolregistry/auth-connectionref-https", h0 + ".httpConfig.endpoint"},
			{"toolregistry/auth-connectionref-https", h0 + ".httpConfig.urlTemplate"},
		}},
		{name: "connectionRef on an mcp endpoint without TLS", mutate: toolRegistryOnly(toolRegistryMCP("m", "http://mcp.tools.svc:8080/sse"), toolRegistryConnectionRef),
			want: []toolRegistryWant{{"toolregistry/auth-connectionref-https", h0 + ".mcpConfig.endpoint"}}},
		{name: "connectionRef on openapi without baseURL", mutate: toolRegistryOnly(toolRegistryOpenAPI("o"), toolRegistryConnectionRef),
			want: []toolRegistryWant{{"toolregistry/auth-connectionref-https", h0 + ".openAPIConfig.baseURL"}}},
		{name: "connectionRef on openapi with an http specURL", mutate: toolRegistryOnly(toolRegistryOpenAPI("o"), func(h *v1alpha1.ToolRegistryHandler) {
			toolRegistryConnectionRef(h)
			h.OpenAPIConfig.SpecURL, h.OpenAPIConfig.BaseURL = "http://api.example.com/openapi.json", "https://api.example.com"
		}), want: []toolRegistryWant{{"toolregistry/auth-connectionref-https", h0 + ".openAPIConfig.specURL"}}},
		{name: "connectionRef on grpc without tls on port 50051", mutate: toolRegistryOnly(toolRegistryGRPC("g"), toolRegistryConnectionRef),
			want: []toolRegistryWant{
				{"toolregistry/auth-connectionref-https", h0 + ".grpcConfig.tls"},
				{"toolregistry/auth-connectionref-https", h0 + ".grpcConfig.endpoint"},
			}},

		// toolregistry/sandbox-declared
		{name: "handlers on a declared sandbox", mutate: toolRegistryAll(toolRegistrySandboxes("build"),
			toolRegistryOnly(toolRegistryMCP("build-shell", "/sse"), func(h *v1alpha1.ToolRegistryHandler) {
				h.Sandbox = &v1alpha1.ToolRegistryHandlerSandbox{Name: "build", Port: "mcp"}
				h.MCPConfig.ToolFilter = &v1alpha1.ToolRegistryMCPToolFilter{Allowlist: []string{"Read", "Bash"}}
			}),
			toolRegistryAdd(v1alpha1.ToolRegistryHandler{
				Name: "build-status", Type: v1alpha1.ToolRegistryHandlerTypeHTTP, Tool: toolRegistryTool("build_status"),
				Sandbox:    &v1alpha1.ToolRegistryHandlerSandbox{Name: "build", Port: "api"},
				HTTPConfig: &v1alpha1.ToolRegistryHTTPConfig{Endpoint: "/status", Method: "GET"},
			}))},
		{name: "handler on an undeclared sandbox", mutate: toolRegistryAll(toolRegistrySandboxes("build"),
			toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
				h.Sandbox = &v1alpha1.ToolRegistryHandlerSandbox{Name: "biuld", Port: "api"}
				h.HTTPConfig.Endpoint = "/status"
			})), want: []toolRegistryWant{{"toolregistry/sandbox-declared", h0 + ".sandbox.name"}}},

		// toolregistry/endpoint-address
		{name: "endpoints with an address: URL, URL without port, grpc host:port and dns target, openapi specURL", mutate: toolRegistryAdd(
			toolRegistryMCP("m", "https://mcp.tools"),
			v1alpha1.ToolRegistryHandler{Name: "g", Type: v1alpha1.ToolRegistryHandlerTypeGRPC,
				GRPCConfig: &v1alpha1.ToolRegistryGRPCConfig{Endpoint: "dns:///users.ns:50051"}, Tool: toolRegistryTool("get")},
			toolRegistryOpenAPI("o"),
		)},
		{name: "mcp endpoint without a host", mutate: toolRegistryAdd(toolRegistryMCP("m", "http:")),
			want: []toolRegistryWant{{"toolregistry/endpoint-address", h1 + ".mcpConfig.endpoint"}}},
		{name: "grpc endpoint without a port", mutate: toolRegistryAdd(v1alpha1.ToolRegistryHandler{Name: "g", Type: v1alpha1.ToolRegistryHandlerTypeGRPC,
			GRPCConfig: &v1alpha1.ToolRegistryGRPCConfig{Endpoint: "users.ns"}, Tool: toolRegistryTool("get")}),
			want: []toolRegistryWant{{"toolregistry/endpoint-address", h1 + ".grpcConfig.endpoint"}}},
		{name: "an endpoint on a sandbox is a path, not an address", mutate: toolRegistryAll(toolRegistrySandboxes("ws"), toolRegistryAdd(
			v1alpha1.ToolRegistryHandler{Name: "s", Type: v1alpha1.ToolRegistryHandlerTypeMCP,
				MCPConfig: &v1alpha1.ToolRegistryMCPConfig{Transport: v1alpha1.ToolRegistryMCPTransportSSE, Endpoint: "/sse",
					ToolFilter: &v1alpha1.ToolRegistryMCPToolFilter{Allowlist: []string{"Read"}}},
				Sandbox: &v1alpha1.ToolRegistryHandlerSandbox{Name: "ws", Port: "8080"}}))},

		// toolregistry/mcp-endpoint-metadata-address
		{name: "mcp on a Service name, a private address and a Service called metadata.<ns>", mutate: toolRegistryAdd(
			toolRegistryMCP("svc", "http://mcp-code.tools.svc.cluster.local:8080/sse"),
			toolRegistryMCP("private", "http://10.0.0.5:8080/sse"),
			toolRegistryMCP("ns", "http://metadata.tools:8080/mcp"),
			toolRegistryMCP("v6", "http://[fd00:ec2::1]:8080/mcp"),
		)},
		{name: "mcp on the IMDS address", mutate: toolRegistryAdd(toolRegistryMCP("m", "http://169.254.169.254/latest/meta-data")),
			want: []toolRegistryWant{{"toolregistry/mcp-endpoint-metadata-address", h1 + ".mcpConfig.endpoint"}}},
		{name: "mcp on a link-local address without a scheme", mutate: toolRegistryAdd(toolRegistryMCP("m", "169.254.10.1:8080/sse")),
			want: []toolRegistryWant{{"toolregistry/mcp-endpoint-metadata-address", h1 + ".mcpConfig.endpoint"}}},
		{name: "mcp on IPv4-mapped IMDS", mutate: toolRegistryAdd(toolRegistryMCP("m", "http://[::ffff:169.254.169.254]:80/sse")),
			want: []toolRegistryWant{{"toolregistry/mcp-endpoint-metadata-address", h1 + ".mcpConfig.endpoint"}}},
		{name: "mcp on IPv6 link-local with a zone", mutate: toolRegistryAdd(toolRegistryMCP("m", "http://[fe80::1%25eth0]:8080/sse")),
			want: []toolRegistryWant{{"toolregistry/mcp-endpoint-metadata-address", h1 + ".mcpConfig.endpoint"}}},
		{name: "mcp on AWS IPv6 IMDS and Alibaba metadata", mutate: toolRegistryAdd(
			toolRegistryMCP("aws", "http://[fd00:ec2::254]/sse"),
			toolRegistryMCP("ali", "http://100.100.100.200/latest"),
		), want: []toolRegistryWant{
			{"toolregistry/mcp-endpoint-metadata-address", h1 + ".mcpConfig.endpoint"},
			{"toolregistry/mcp-endpoint-metadata-address", "spec.handlers[2].mcpConfig.endpoint"},
		}},
		{name: "mcp on metadata hostnames", mutate: toolRegistryAdd(
			toolRegistryMCP("gcp", "http://Metadata.Google.Internal./computeMetadata/v1"),
			toolRegistryMCP("short", "http://metadata/computeMetadata/v1"),
			toolRegistryMCP("aws", "https://instance-data:443/latest"),
		), want: []toolRegistryWant{
			{"toolregistry/mcp-endpoint-metadata-address", h1 + ".mcpConfig.endpoint"},
			{"toolregistry/mcp-endpoint-metadata-address", "spec.handlers[2].mcpConfig.endpoint"},
			{"toolregistry/mcp-endpoint-metadata-address", "spec.handlers[3].mcpConfig.endpoint"},
		}},

		// toolregistry/duration-format
		{name: "durations are Go durations", mutate: toolRegistryAll(
			toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
				h.Timeout = "5m"
				h.HTTPConfig.RetryPolicy = &v1alpha1.ToolRegistryHTTPRetryPolicy{MaxAttempts: 3, InitialBackoff: "250ms", MaxBackoff: "10s"}
			}),
			func(tr *v1alpha1.ToolRegistry) {
				tr.Spec.Probe = &v1alpha1.ToolRegistryProbe{Enabled: toolRegistryBool(true), Interval: "1m30s", Timeout: "5s"}
			})},
		{name: "timeout without a unit", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) { h.Timeout = "30" }),
			want: []toolRegistryWant{{"toolregistry/duration-format", h0 + ".timeout"}}},
		{name: "retry backoffs and probe durations not durations", mutate: toolRegistryAll(
			toolRegistryAdd(func() v1alpha1.ToolRegistryHandler {
				h := toolRegistryGRPC("g")
				h.GRPCConfig.RetryPolicy = &v1alpha1.ToolRegistryGRPCRetryPolicy{MaxAttempts: 2, InitialBackoff: "fast"}
				return h
			}(), func() v1alpha1.ToolRegistryHandler {
				h := toolRegistryMCP("m", "http://mcp:8080/sse")
				h.MCPConfig.RetryPolicy = &v1alpha1.ToolRegistryMCPRetryPolicy{MaxAttempts: 2, MaxBackoff: "1 m"}
				return h
			}()),
			func(tr *v1alpha1.ToolRegistry) {
				tr.Spec.Probe = &v1alpha1.ToolRegistryProbe{Enabled: toolRegistryBool(true), Interval: "hourly", Timeout: "5"}
			}), want: []toolRegistryWant{
			{"toolregistry/duration-format", h1 + ".grpcConfig.retryPolicy.initialBackoff"},
			{"toolregistry/duration-format", "spec.handlers[2].mcpConfig.retryPolicy.maxBackoff"},
			{"toolregistry/duration-format", "spec.probe.interval"},
			{"toolregistry/duration-format", "spec.probe.timeout"},
		}},

		// toolregistry/retry-backoff-order
		{name: "maxBackoff equal to initialBackoff", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.HTTPConfig.RetryPolicy = &v1alpha1.ToolRegistryHTTPRetryPolicy{MaxAttempts: 3, InitialBackoff: "1s", MaxBackoff: "1000ms"}
		})},
		{name: "retry policy with defaults only", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.HTTPConfig.RetryPolicy = &v1alpha1.ToolRegistryHTTPRetryPolicy{MaxAttempts: 3}
		})},
		{name: "maxBackoff below initialBackoff", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.HTTPConfig.RetryPolicy = &v1alpha1.ToolRegistryHTTPRetryPolicy{MaxAttempts: 3, InitialBackoff: "5s", MaxBackoff: "1s"}
		}), want: []toolRegistryWant{{"toolregistry/retry-backoff-order", h0 + ".httpConfig.retryPolicy.maxBackoff"}}},
		{name: "initialBackoff above the default maxBackoff", mutate: toolRegistryOnly(toolRegistryOpenAPI("o"), func(h *v1alpha1.ToolRegistryHandler) {
			h.OpenAPIConfig.RetryPolicy = &v1alpha1.ToolRegistryHTTPRetryPolicy{MaxAttempts: 3, InitialBackoff: "1m"}
		}), want: []toolRegistryWant{{"toolregistry/retry-backoff-order", h0 + ".openAPIConfig.retryPolicy.maxBackoff"}}},
		{name: "maxBackoff below the default initialBackoff on mcp", mutate: toolRegistryOnly(toolRegistryMCP("m", "http://mcp:8080/sse"), func(h *v1alpha1.ToolRegistryHandler) {
			h.MCPConfig.RetryPolicy = &v1alpha1.ToolRegistryMCPRetryPolicy{MaxAttempts: 3, MaxBackoff: "50ms"}
		}), want: []toolRegistryWant{{"toolregistry/retry-backoff-order", h0 + ".mcpConfig.retryPolicy.maxBackoff"}}},
		{name: "an unparsable backoff is duration-format's alone", mutate: toolRegistryHTTP(func(h *v1alpha1.ToolRegistryHandler) {
			h.HTTPConfig.RetryPolicy = &v1alpha1.ToolRegistryHTTPRetryPolicy{MaxAttempts: 3, InitialBackoff: "5s", MaxBackoff: "soon"}
		}), want: []toolRegistryWant{{"toolregistry/duration-format", h0 + ".httpConfig.retryPolicy.maxBackoff"}}},
	}

	ruleTable[*v1alpha1.ToolRegistry]{kind: "ToolRegistry", prefix: "toolregistry/", base: toolRegistryBase, facts: nil}.run(t, cases)
}

// TestToolRegistryFullHeaderCase: through Full (schema, then Go rules on the
// defaulted object) each spelling of Authorization is reported exactly once.
func TestToolRegistryFullHeaderCase(t *testing.T) {
	sv, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"Authorization": "toolregistry/headers-from-secret-auth-header",
		"authorization": "toolregistry/headers-from-secret-auth-header",
		"AuthoriZation": "toolregistry/headers-from-secret-auth-header-case",
		"AUTHORIZATION": "toolregistry/headers-from-secret-auth-header-case",
	} {
		tr := toolRegistryBase()
		// workloadIdentity.header defaults to Authorization in the schema.
		tr.Spec.Handlers[0].Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeWorkloadIdentity,
			WorkloadIdentity: &v1alpha1.ToolRegistryWorkloadIdentityAuth{Audience: "api://tools"}}
		tr.Spec.Handlers[0].HTTPConfig.HeadersFromSecret = map[string]v1alpha1.ToolRegistrySecretKeyRef{key: *toolRegistrySecret("k")}
		findings, err := Full(context.Background(), sv, Default, toUnstructured(t, tr), nil, NoFacts{}, Options{})
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		var ids []string
		for _, f := range findings {
			ids = append(ids, f.RuleID)
		}
		if !slices.Equal(ids, []string{want}) {
			t.Errorf("%s: findings = %v, want [%s]", key, findings, want)
		}
	}
}

// TestToolRegistryRuleMetadata pins what each Go rule reports and when it runs.
func TestToolRegistryRuleMetadata(t *testing.T) {
	type meta struct {
		stage     Stage
		severity  Severity
		condition string
		reason    string
	}
	deny := meta{StageAdmission, SeverityDeny, "", ""}
	want := map[string]meta{
		"toolregistry/handler-config-required":              deny,
		"toolregistry/handler-config-type":                  {StageAdmission, SeverityWarn, "", ""},
		"toolregistry/tool-required":                        deny,
		"toolregistry/serviceaccount-audience-not-kube-api": deny,
		"toolregistry/grpc-endpoint-required":               deny,
		"toolregistry/auth-secret-required":                 deny,
		"toolregistry/auth-service-account-required":        deny,
		"toolregistry/auth-workload-identity-required":      deny,
		"toolregistry/auth-handler-type":                    {StageAdmission, SeverityWarn, "", ""},
		"toolregistry/headers-from-secret-auth-header-case": deny,
		"toolregistry/auth-connectionref-https":             {StageAdmission, SeverityWarn, "HandlerConnectionsValid", "ConnectionHostNotCovered"},
		"toolregistry/sandbox-declared":                     {StageAdmission, SeverityWarn, "SandboxesValid", "SandboxNotDeclared"},
		"toolregistry/mcp-endpoint-metadata-address":        {StageAdmission, SeverityWarn, "HandlersValid", "ValidationFailed"},
		"toolregistry/endpoint-address":                     {StageAdmission, SeverityWarn, "HandlersValid", "ValidationFailed"},
		"toolregistry/duration-format":                      deny,
		"toolregistry/retry-backoff-order":                  {StageAdmission, SeverityWarn, "HandlersValid", "ValidationFailed"},
		"toolregistry/platform-service-served":              {StageAdmission, SeverityWarn, "HandlersValid", "ValidationFailed"},
	}
	for id, w := range want {
		r, ok := Default.Lookup(id)
		if !ok {
			t.Errorf("%s not registered", id)
			continue
		}
		got := meta{r.Stage, r.Severity, r.Condition, r.Reason}
		if r.Source != SourceGo || got != w {
			t.Errorf("%s = %s %+v, want go %+v", id, r.Source, got, w)
		}
	}
	for _, r := range Default.Rules() {
		if strings.HasPrefix(r.ID, "toolregistry/") && r.Source == SourceGo {
			if _, ok := want[r.ID]; !ok {
				t.Errorf("Go rule %s has no metadata expectation here", r.ID)
			}
		}
	}

	// A finding carries its rule's condition and reason.
	tr := toolRegistryBase()
	tr.Spec.Handlers[0].HTTPConfig.RetryPolicy = &v1alpha1.ToolRegistryHTTPRetryPolicy{MaxAttempts: 2, InitialBackoff: "2s", MaxBackoff: "1s"}
	found := Default.Evaluate("ToolRegistry", Input{Object: tr}, Options{})
	if len(found) != 1 || found[0].Condition != "HandlersValid" || found[0].Reason != "ValidationFailed" || found[0].Severity != SeverityWarn {
		t.Errorf("backoff findings = %+v", found)
	}
}

func TestToolRegistryContentDigest(t *testing.T) {
	now := metav1.Now()
	raw := func(s string) *runtime.RawExtension { r := toolRegistryRaw(s); return &r }
	base := func() []v1alpha1.ToolRegistryDiscoveredTool {
		return []v1alpha1.ToolRegistryDiscoveredTool{
			{
				HandlerName: "calculator", Name: "calculate", Description: "Perform calculations",
				InputSchema: raw(`{"type":"object","properties":{"expression":{"type":"string"},"precision":{"type":"integer","default":2}},"required":["expression"]}`),
				Endpoint:    "https://api.example.com/calculate", Status: v1alpha1.ToolRegistryToolStatusAvailable,
			},
			{
				HandlerName: "code-tools", Name: "code-tools", Endpoint: "http://mcp-code.tools.svc.cluster.local:8080/sse",
				Status: v1alpha1.ToolRegistryToolStatusAvailable,
			},
		}
	}
	want := ToolRegistryContentDigest(base())
	if !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(want) {
		t.Fatalf("digest %q is not sha256:<hex>", want)
	}

	same := map[string]func([]v1alpha1.ToolRegistryDiscoveredTool){
		"schema keys reordered and re-spaced": func(ts []v1alpha1.ToolRegistryDiscoveredTool) {
			ts[0].InputSchema = raw(`{ "required": ["expression"], "properties": {"precision": {"default": 2, "type": "integer"},
				"expression": {"type": "string"}}, "type": "object" }`)
		},
		"schema as Object instead of Raw": func(ts []v1alpha1.ToolRegistryDiscoveredTool) {
			ts[0].InputSchema = &runtime.RawExtension{Object: &runtime.Unknown{Raw: ts[0].InputSchema.Raw}}
		},
		"status flipped by a probe": func(ts []v1alpha1.ToolRegistryDiscoveredTool) {
			ts[0].Status, ts[0].LastChecked, ts[0].Error = v1alpha1.ToolRegistryToolStatusUnavailable, &now, "dial tcp: connection refused"
			ts[1].Status = v1alpha1.ToolRegistryToolStatusUnknown
		},
		"tools reordered": func(ts []v1alpha1.ToolRegistryDiscoveredTool) { ts[0], ts[1] = ts[1], ts[0] },
	}
	for name, mutate := range same {
		ts := base()
		mutate(ts)
		if got := ToolRegistryContentDigest(ts); got != want {
			t.Errorf("%s: digest changed: %s, want %s", name, got, want)
		}
	}

	different := map[string]func([]v1alpha1.ToolRegistryDiscoveredTool){
		"description changed":    func(ts []v1alpha1.ToolRegistryDiscoveredTool) { ts[0].Description = "Evaluate expressions" },
		"name changed":           func(ts []v1alpha1.ToolRegistryDiscoveredTool) { ts[0].Name = "calc" },
		"endpoint changed":       func(ts []v1alpha1.ToolRegistryDiscoveredTool) { ts[1].Endpoint = "http://mcp-code.tools.svc:9090/sse" },
		"schema default changed": func(ts []v1alpha1.ToolRegistryDiscoveredTool) { ts[0].InputSchema = raw(`{"type":"object"}`) },
		"output schema added":    func(ts []v1alpha1.ToolRegistryDiscoveredTool) { ts[1].OutputSchema = raw(`{"type":"object"}`) },
		"tool removed":           func(ts []v1alpha1.ToolRegistryDiscoveredTool) { ts[1] = ts[0] },
		"handler renamed":        func(ts []v1alpha1.ToolRegistryDiscoveredTool) { ts[0].HandlerName = "calc" },
		"description moved fields": func(ts []v1alpha1.ToolRegistryDiscoveredTool) {
			ts[0].Name, ts[0].Description = "Perform calculations", "calculate"
		},
	}
	for name, mutate := range different {
		ts := base()
		mutate(ts)
		if got := ToolRegistryContentDigest(ts); got == want {
			t.Errorf("%s: digest unchanged", name)
		}
	}

	if ToolRegistryContentDigest(nil) != ToolRegistryContentDigest([]v1alpha1.ToolRegistryDiscoveredTool{}) {
		t.Error("nil and empty tool sets digest differently")
	}
}

func TestToolRegistryDialAddress(t *testing.T) {
	cases := []struct {
		in, want string
		err      bool
	}{
		{"http://svc:8080/sse", "svc:8080", false},
		{"http://svc/sse", "svc:80", false},
		{"https://svc", "svc:443", false},
		{"wss://svc/x", "svc:443", false},
		{"http://[::1]:9000/x", "[::1]:9000", false},
		{"svc.ns:50051", "svc.ns:50051", false},
		{"dns:///svc.ns:50051", "svc.ns:50051", false},
		{"", "", true},
		{"just-a-host", "", true},
		{"http:", "", true},
		{":8080", "", true},
		{"ftp://svc/x", "", true},
		{"http://%zz", "", true},
	}
	for _, c := range cases {
		got, err := ToolRegistryDialAddress(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ToolRegistryDialAddress(%q) = %q, %v; want %q, err %v", c.in, got, err, c.want, c.err)
		}
	}
}
