package agentruntime

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/go-logr/logr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
)

// Platform handlers (toolregistry.md § Platform handler): a ToolRegistry
// handler of type platform has no backend; the operator serves its tools.
// For `service: discovery` the controller renders the three catalog tools
// into the runtime's environment (OMNIA_PLATFORM_TOOLS), each an HTTP GET
// on the operator's catalog route of the agent's workspace, which the
// runtime calls with a delegation token for that workspace. It needs the
// operator's API URL (--platform-api-url) and a Workspace for the agent's
// namespace; without either the handler is skipped, the reason is logged,
// and the reconcile goes on. `service: arena` is never rendered (it needs
// SandboxClaims; rules toolregistry/platform-service-served reports it).

// PlatformOptions configure the rendering of platform handlers.
type PlatformOptions struct {
	// APIURL is the operator's API (the deploy API listener) as agents
	// reach it, e.g. https://omnia-operator.omnia-system.svc:9444.
	// Empty: platform handlers are skipped.
	APIURL string
	// Log receives why a handler was skipped (ctrl.Log's controller
	// logger when unset).
	Log logr.Logger
}

// discoveryTool is one of the three catalog tools, by route.
type discoveryTool struct {
	name, route, description, schema string
}

// discoveryTools are what a discovery handler renders (toolregistry.md's
// table): arguments are strings or numbers only, never arrays.
var discoveryTools = []discoveryTool{
	{"catalog_overview", "overview",
		"What exists in this workspace's catalog: a count per kind (tool, skill, provider, agent, skillSource, promptPack, ...) and the groups (tool registries, skill sources) a search can be narrowed by, each with a count and readiness.",
		`{"type":"object","properties":{}}`},
	{"catalog_search", "search",
		"Search the workspace catalog by what you need. Returns a ranked page of compact results (id, kind, name, group, description cut to 200 characters, ready) and a nextCursor while more remain. Without a query, browses every entry in id order.",
		`{"type":"object","properties":{` +
			`"query":{"type":"string","description":"words to match against names and descriptions"},` +
			`"kinds":{"type":"string","description":"comma-separated kinds, e.g. tool,skill"},` +
			`"group":{"type":"string","description":"a group id from catalog_overview, e.g. toolRegistry:billing"},` +
			`"readyOnly":{"type":"string","enum":["true","false"],"description":"\"true\" for ready entries only"},` +
			`"limit":{"type":"number","minimum":1,"maximum":50,"description":"page size, default 10"},` +
			`"cursor":{"type":"string","description":"the nextCursor of the previous page, with the same query and filters"}}}`},
	{"catalog_get", "get",
		"Full detail of catalog entries (tool schema, A2A card, provider pricing, ...), by the ids catalog_search returned. Unknown or malformed ids come back in missing with a reason.",
		`{"type":"object","required":["ids"],"properties":{"ids":{"type":"string","description":"comma-separated ids, at most 20, exactly as catalog_search returned them"}}}`},
}

// platformTools renders the agent's ToolRegistry's discovery handlers.
// The second result says why handlers were skipped ("" when none were).
func platformTools(ar *v1alpha1.AgentRuntime, tr *v1alpha1.ToolRegistry, ws *v1alpha1.Workspace, apiURL string) ([]workload.PlatformTool, string) {
	if tr == nil {
		return nil, ""
	}
	var handlers []string
	for i := range tr.Spec.Handlers {
		h := &tr.Spec.Handlers[i]
		if h.Type == v1alpha1.ToolRegistryHandlerTypePlatform && h.Platform != nil && h.Platform.Service == v1alpha1.ToolRegistryPlatformServiceDiscovery {
			handlers = append(handlers, h.Name)
		}
	}
	if len(handlers) == 0 {
		return nil, ""
	}
	base, err := url.Parse(strings.TrimRight(apiURL, "/"))
	switch {
	case apiURL == "":
		return nil, "the operator has no --platform-api-url: the discovery handler " + handlers[0] + " of ToolRegistry " + tr.Name + " is not rendered"
	case err != nil || base.Host == "" || (base.Scheme != "https" && base.Scheme != "http"):
		return nil, "--platform-api-url " + apiURL + " is not an http(s) URL: the discovery handler " + handlers[0] + " is not rendered"
	case ws == nil:
		return nil, "no Workspace names namespace " + ar.Namespace + ": the discovery handler " + handlers[0] + " of ToolRegistry " + tr.Name +
			" has no workspace catalog and is not rendered"
	}
	var out []workload.PlatformTool
	// One catalog per workspace: a second discovery handler would render
	// the same three tool names again, so only the first is rendered.
	for _, t := range discoveryTools {
		out = append(out, workload.PlatformTool{
			Name: t.name, Description: t.description, InputSchema: json.RawMessage(t.schema), Handler: handlers[0],
			Method: "GET", URL: base.String() + "/api/v1/workspaces/" + url.PathEscape(ws.Name) + "/catalog/" + t.route,
			DelegationAudience: "workspace:" + ws.Name,
		})
	}
	return out, ""
}

// resolvePlatformTools renders the agent's platform tools from the facts,
// logging (never failing on) a skipped handler.
func (r *Reconciler) resolvePlatformTools(ar *v1alpha1.AgentRuntime, facts *clusterfacts.Facts) []workload.PlatformTool {
	ref := ar.Spec.ToolRegistryRef
	if ref == nil || (ref.Namespace != "" && ref.Namespace != ar.Namespace) {
		return nil
	}
	tr, _ := facts.ToolRegistry(ar.Namespace, ref.Name)
	ws, _ := facts.Workspace(ar.Namespace)
	tools, skipped := platformTools(ar, tr, ws, r.opts.Platform.APIURL)
	if skipped != "" {
		log := r.opts.Platform.Log
		if log.GetSink() == nil {
			log = logf.Log.WithName(ControllerName)
		}
		log.Info("platform handler skipped", "agentRuntime", ar.Namespace+"/"+ar.Name, "reason", skipped)
	}
	return tools
}
