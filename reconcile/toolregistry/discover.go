package toolregistry

import (
	"net/url"
	"strings"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// Endpoints of tools that have no network address of their own.
const (
	// ClientEndpoint is the endpoint of every client tool: the browser
	// connected to the session runs it. It is never probed.
	ClientEndpoint = "client://browser"
	// PlatformEndpointPrefix prefixes a platform handler's service
	// ("platform://discovery"): the operator serves it, there is nothing to
	// dial, and it is never probed. Naming the service keeps the content
	// digest sensitive to a change of service.
	PlatformEndpointPrefix = "platform://"
	// SandboxEndpointPrefix prefixes the endpoint of a handler served from a
	// sandbox: "sandbox://<sandbox>/<port><path>". Its address exists only
	// once a session claims a sandbox, so it is never probed.
	SandboxEndpointPrefix = "sandbox://"
)

// platformTools are the tools each platform service renders
// (toolregistry.md#platform-handler-self-describing).
var platformTools = map[v1alpha1.ToolRegistryPlatformService]string{
	v1alpha1.ToolRegistryPlatformServiceDiscovery: "catalog_overview, catalog_search, catalog_get",
	v1alpha1.ToolRegistryPlatformServiceArena:     "arena_check_project, arena_start_run, arena_get_run",
}

// resolvedTool is one tool resolved from a handler, with what probing needs.
type resolvedTool struct {
	// tool is the status entry, without status, lastChecked or error.
	tool v1alpha1.ToolRegistryDiscoveredTool
	// handler is the index of the handler in spec.handlers.
	handler int
	// network is true when the endpoint is a network address a probe dials
	// (not a client, platform or sandbox tool).
	network bool
	// dialAddr is the host:port a probe dials (rules.ToolRegistryDialAddress).
	dialAddr string
}

// discoverTools resolves the tools of every handler, in handler order: an
// explicit (http, grpc, client) handler's declared tool, and one placeholder
// named after each self-describing (mcp, openapi, platform) handler, whose
// tools the runtime lists when the agent starts. It also reports how many
// handlers yielded a tool. It is pure: nothing is resolved over the network.
func discoverTools(tr *v1alpha1.ToolRegistry) (tools []resolvedTool, handlersWithTools int) {
	for i := range tr.Spec.Handlers {
		h := &tr.Spec.Handlers[i]
		rt, ok := resolveHandler(h)
		if !ok {
			continue
		}
		rt.handler = i
		rt.tool.HandlerName = h.Name
		if rt.network {
			// An endpoint with no address is toolregistry/endpoint-address's
			// finding: its handler fails validation and is never dialled.
			if addr, err := rules.ToolRegistryDialAddress(rt.tool.Endpoint); err == nil {
				rt.dialAddr = addr
			}
		}
		rt.tool.Endpoint = displayEndpoint(rt.tool.Endpoint)
		tools = append(tools, rt)
		handlersWithTools++
	}
	return tools, handlersWithTools
}

// resolveHandler returns the tool of one handler; false when the handler
// yields none (an explicit handler without its tool definition, or an
// unknown type).
func resolveHandler(h *v1alpha1.ToolRegistryHandler) (resolvedTool, bool) {
	var rt resolvedTool
	switch h.Type {
	case v1alpha1.ToolRegistryHandlerTypeHTTP, v1alpha1.ToolRegistryHandlerTypeGRPC, v1alpha1.ToolRegistryHandlerTypeClient:
		if h.Tool == nil {
			return rt, false
		}
		rt.tool.Name = h.Tool.Name
		rt.tool.Description = h.Tool.Description
		in := h.Tool.InputSchema.DeepCopy()
		rt.tool.InputSchema = in
		if h.Tool.OutputSchema != nil {
			rt.tool.OutputSchema = h.Tool.OutputSchema.DeepCopy()
		}
	case v1alpha1.ToolRegistryHandlerTypeMCP, v1alpha1.ToolRegistryHandlerTypeOpenAPI, v1alpha1.ToolRegistryHandlerTypePlatform:
		rt.tool.Name = h.Name
		rt.tool.Description = placeholderDescription(h)
	default:
		return rt, false
	}

	switch h.Type {
	case v1alpha1.ToolRegistryHandlerTypeHTTP:
		if c := h.HTTPConfig; c != nil {
			rt.tool.Endpoint, rt.network = networkOrSandbox(h.Sandbox, c.Endpoint)
		}
	case v1alpha1.ToolRegistryHandlerTypeGRPC:
		if c := h.GRPCConfig; c != nil {
			rt.tool.Endpoint, rt.network = networkOrSandbox(h.Sandbox, c.Endpoint)
		}
	case v1alpha1.ToolRegistryHandlerTypeMCP:
		if c := h.MCPConfig; c != nil {
			rt.tool.Endpoint, rt.network = networkOrSandbox(h.Sandbox, c.Endpoint)
		}
	case v1alpha1.ToolRegistryHandlerTypeOpenAPI:
		// specURL is read when the runtime starts, before any sandbox
		// exists, so it is a network address even on a sandbox.
		if c := h.OpenAPIConfig; c != nil && c.SpecURL != "" {
			rt.tool.Endpoint, rt.network = c.SpecURL, true
		}
	case v1alpha1.ToolRegistryHandlerTypeClient:
		rt.tool.Endpoint = ClientEndpoint
	case v1alpha1.ToolRegistryHandlerTypePlatform:
		if h.Platform != nil {
			rt.tool.Endpoint = PlatformEndpointPrefix + string(h.Platform.Service)
		}
	}
	return rt, true
}

// networkOrSandbox returns the endpoint of a handler and whether it is a
// network address: on a sandbox it is sandbox://<sandbox>/<port><path>.
func networkOrSandbox(sb *v1alpha1.ToolRegistryHandlerSandbox, endpoint string) (string, bool) {
	if sb != nil {
		return SandboxEndpointPrefix + sb.Name + "/" + sb.Port + endpoint, false
	}
	return endpoint, endpoint != ""
}

// placeholderDescription says where a self-describing handler's tools come
// from and what limits them, so the content digest changes when the tools an
// agent can reach through it do (a filter, a base URL, a service).
func placeholderDescription(h *v1alpha1.ToolRegistryHandler) string {
	switch h.Type {
	case v1alpha1.ToolRegistryHandlerTypeMCP:
		d := "Placeholder: the runtime lists this MCP server's tools when the agent starts"
		if c := h.MCPConfig; c != nil {
			d += " (transport " + string(c.Transport) + ")"
			if f := c.ToolFilter; f != nil {
				if len(f.Allowlist) > 0 {
					d += "; allowlist: " + strings.Join(f.Allowlist, ", ")
				}
				if len(f.Blocklist) > 0 {
					d += "; blocklist: " + strings.Join(f.Blocklist, ", ")
				}
			}
		}
		return d
	case v1alpha1.ToolRegistryHandlerTypeOpenAPI:
		d := "Placeholder: the runtime makes one tool of each operation of the OpenAPI spec when the agent starts"
		if c := h.OpenAPIConfig; c != nil {
			if len(c.OperationFilter) > 0 {
				d += "; operations: " + strings.Join(c.OperationFilter, ", ")
			}
			if c.BaseURL != "" {
				d += "; base URL: " + displayEndpoint(c.BaseURL)
			}
		}
		return d
	case v1alpha1.ToolRegistryHandlerTypePlatform:
		if h.Platform == nil {
			return "Placeholder: the operator serves this handler's tools"
		}
		d := "Placeholder: the operator's " + string(h.Platform.Service) + " platform service serves this handler's tools"
		if names, ok := platformTools[h.Platform.Service]; ok {
			d += ": " + names
		}
		return d
	}
	return ""
}

// displayEndpoint is the endpoint as status shows it: a URL's userinfo is
// dropped, so a credential written into a URL never reaches status, events
// or logs.
func displayEndpoint(raw string) string {
	if !strings.Contains(raw, "@") || !strings.Contains(raw, "://") {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		if err != nil {
			// Unparseable and carrying an '@': keep only the scheme and
			// what follows the last '@'.
			scheme, rest, _ := strings.Cut(raw, "://")
			return scheme + "://" + rest[strings.LastIndex(rest, "@")+1:]
		}
		return raw
	}
	u.User = nil
	return u.String()
}
