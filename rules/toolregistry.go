package rules

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// ToolRegistry rules: the CEL rules of the ToolRegistry CRD (documented here,
// enforced by the API server) and the Go checks the schema cannot make: the
// handler type × config-block matrix, the required tool, the auth stanza's
// required-when cells and the case-insensitive header collision. Durations
// and retry backoffs are in toolregistry_durations.go, endpoint addresses in
// toolregistry_endpoints.go, the content digest in toolregistry_digest.go.

const kindToolRegistry = "ToolRegistry"

var toolRegistryKinds = []string{kindToolRegistry}

func init() {
	for _, r := range toolRegistrySchemaRules {
		r.Kinds = toolRegistryKinds
		r.Stage = StageAdmission
		r.Severity = SeverityDeny
		r.Source = SourceSchema
		Default.Register(r)
	}

	Default.Register(Rule{
		ID:       "toolregistry/handler-config-required",
		Kinds:    toolRegistryKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc: "A handler sets the config block of its type: httpConfig for http, grpcConfig for grpc, mcpConfig for mcp, " +
			"openAPIConfig for openapi, platform for platform (clientConfig is optional for client).",
		Spec:  "toolregistry.md#handler-definition",
		Check: checkToolRegistryHandlerConfigRequired,
	})
	Default.Register(Rule{
		ID:    "toolregistry/handler-config-type",
		Kinds: toolRegistryKinds,
		Stage: StageAdmission,
		// The spec refuses another type's block only on a platform handler
		// (the schema's); on the others the block is ignored, so this warns
		// and leaves HandlersValid alone.
		Severity: SeverityWarn,
		Doc: "A non-platform handler's config block of another type (e.g. mcpConfig on an http handler, clientConfig on a non-client handler) " +
			"is ignored, with an admission warning; it does not fail the registry. Platform handlers and the platform block are the " +
			"schema's (platform-handler-fields, platform-config-type).",
		Spec:  "toolregistry.md#handler-definition",
		Check: checkToolRegistryHandlerConfigType,
	})
	Default.Register(Rule{
		ID:       "toolregistry/tool-required",
		Kinds:    toolRegistryKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc: "http, grpc and client handlers (explicit) require a tool definition; a grpc handler on a sandbox is the schema's " +
			"(sandbox-grpc-tool-required).",
		Spec:  "toolregistry.md#tool-definition-for-explicit-handlers",
		Check: checkToolRegistryToolRequired,
	})
	Default.Register(Rule{
		ID:       "toolregistry/grpc-endpoint-required",
		Kinds:    toolRegistryKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc:      "grpcConfig.endpoint (host:port) is required on a grpc handler that does not set sandbox.",
		Spec:     "toolregistry.md#grpc-configuration-options",
		Check:    checkToolRegistryGRPCEndpointRequired,
	})
	Default.Register(Rule{
		ID:       "toolregistry/auth-secret-required",
		Kinds:    toolRegistryKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc: "auth.type bearer or basic needs auth.secretRef or auth.connectionRef; the deprecated httpConfig/openAPIConfig authType " +
			"needs its authSecretRef.",
		Spec:  "toolregistry.md#authenticating-tools",
		Check: checkToolRegistryAuthSecretRequired,
	})
	Default.Register(Rule{
		ID:       "toolregistry/auth-service-account-required",
		Kinds:    toolRegistryKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc:      "auth.type serviceAccount needs auth.serviceAccount with a non-empty audience.",
		Spec:     "toolregistry.md#authenticating-tools",
		Check:    checkToolRegistryAuthServiceAccount,
	})
	Default.Register(Rule{
		ID:       "toolregistry/auth-workload-identity-required",
		Kinds:    toolRegistryKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc:      "auth.type workloadIdentity needs auth.workloadIdentity with a non-empty audience.",
		Spec:     "toolregistry.md#authenticating-tools",
		Check:    checkToolRegistryAuthWorkloadIdentity,
	})
	Default.Register(Rule{
		ID:       "toolregistry/auth-handler-type",
		Kinds:    toolRegistryKinds,
		Stage:    StageAdmission,
		Severity: SeverityWarn,
		Doc: "The auth stanza applies to http, openapi, grpc and mcp handlers; on a client handler it has no effect (an admission " +
			"warning; the registry is not failed), and workloadIdentity there fails the AgentRuntime reconcile. An empty auth " +
			"(no type but none, no credential source) is not a finding.",
		Spec:  "toolregistry.md#authenticating-tools",
		Check: checkToolRegistryAuthHandlerType,
	})
	Default.Register(Rule{
		ID:       "toolregistry/headers-from-secret-auth-header-case",
		Kinds:    toolRegistryKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc: "httpConfig.headersFromSecret may not set a header the auth stanza owns in any letter case (Authorization, or the " +
			"auth.workloadIdentity.header); the exact spellings are the schema's (headers-from-secret-auth-header).",
		Spec:  "toolregistry.md#authenticating-tools",
		Check: checkToolRegistryHeadersFromSecretCase,
	})
	Default.Register(Rule{
		ID:        "toolregistry/auth-connectionref-https",
		Kinds:     toolRegistryKinds,
		Stage:     StageAdmission,
		Severity:  SeverityWarn,
		Condition: v1alpha1.ToolRegistryConditionHandlerConnectionsValid,
		Reason:    v1alpha1.ToolRegistryReasonConnectionHostNotCovered,
		Doc: "A handler with auth.connectionRef sends its credential only to https on port 443: httpConfig.endpoint and urlTemplate, " +
			"mcpConfig.endpoint, openAPIConfig.specURL and baseURL (which an openapi handler must set), grpcConfig.endpoint (with tls).",
		Spec:  "toolregistry.md#reading-the-credential-from-a-connection",
		Check: checkToolRegistryConnectionRefHTTPS,
	})
	Default.Register(Rule{
		ID:        "toolregistry/sandbox-declared",
		Kinds:     toolRegistryKinds,
		Stage:     StageAdmission,
		Severity:  SeverityWarn,
		Condition: v1alpha1.ToolRegistryConditionSandboxesValid,
		Reason:    v1alpha1.ToolRegistryReasonSandboxNotDeclared,
		Doc:       "A handler's sandbox.name names a sandbox in spec.sandboxes.",
		Spec:      "toolregistry.md#handlers-on-a-sandbox",
		Check:     checkToolRegistrySandboxDeclared,
	})
}

// toolRegistrySchemaRules document the CEL rules on the ToolRegistry CRD.
// Kinds, Stage, Severity and Source are filled in at registration.
var toolRegistrySchemaRules = []Rule{
	{
		ID:   "toolregistry/probe-interval-range",
		Doc:  "spec.probe.interval is from 5s to 24h (a value stored before the bound is clamped into it by the controller).",
		Spec: "toolregistry.md#probing",
	},
	{
		ID:   "toolregistry/probe-timeout-range",
		Doc:  "spec.probe.timeout is from 100ms to 60s (a value stored before the bound is clamped into it by the controller).",
		Spec: "toolregistry.md#probing",
	},
	{
		ID:   "toolregistry/probe-timeout-within-interval",
		Doc:  "spec.probe.timeout is at most spec.probe.interval.",
		Spec: "toolregistry.md#probing",
	},
	{
		ID:   "toolregistry/platform-handler-fields",
		Doc:  "A platform handler sets none of tool, httpConfig, grpcConfig, mcpConfig, openAPIConfig, clientConfig, sandbox, auth or delegation.",
		Spec: "toolregistry.md#platform-handler-self-describing",
	},
	{
		ID:   "toolregistry/platform-config-type",
		Doc:  "The platform block is only permitted when the handler's type is platform.",
		Spec: "toolregistry.md#handler-definition",
	},
	{
		ID:   "toolregistry/delegation-not-on-client",
		Doc:  "delegation.enabled is rejected on a client handler.",
		Spec: "toolregistry.md#handler-definition",
	},
	{
		ID:   "toolregistry/sandbox-handler-type",
		Doc:  "sandbox is not permitted on a client or platform handler.",
		Spec: "toolregistry.md#handlers-on-a-sandbox",
	},
	{
		ID:   "toolregistry/sandbox-mcp-endpoint-path",
		Doc:  "On a sandbox, an mcp handler's mcpConfig.endpoint is a path starting with /.",
		Spec: "toolregistry.md#handlers-on-a-sandbox",
	},
	{
		ID:   "toolregistry/sandbox-mcp-allowlist",
		Doc:  "On a sandbox, an mcp handler needs a non-empty mcpConfig.toolFilter.allowlist.",
		Spec: "toolregistry.md#handlers-on-a-sandbox",
	},
	{
		ID:   "toolregistry/sandbox-http-endpoint-path",
		Doc:  "On a sandbox, an http handler's httpConfig.endpoint is a path starting with /.",
		Spec: "toolregistry.md#handlers-on-a-sandbox",
	},
	{
		ID:   "toolregistry/sandbox-http-urltemplate-path",
		Doc:  "On a sandbox, an http handler's httpConfig.urlTemplate, if set, is a path starting with /.",
		Spec: "toolregistry.md#handlers-on-a-sandbox",
	},
	{
		ID:   "toolregistry/sandbox-openapi-baseurl-path",
		Doc:  "On a sandbox, an openapi handler's openAPIConfig.baseURL, if set, is a path starting with /.",
		Spec: "toolregistry.md#handlers-on-a-sandbox",
	},
	{
		ID:   "toolregistry/sandbox-grpc-endpoint-unset",
		Doc:  "On a sandbox, a grpc handler leaves grpcConfig.endpoint unset.",
		Spec: "toolregistry.md#handlers-on-a-sandbox",
	},
	{
		ID:   "toolregistry/sandbox-grpc-tool-required",
		Doc:  "On a sandbox, a grpc handler requires a tool definition.",
		Spec: "toolregistry.md#handlers-on-a-sandbox",
	},
	{
		ID:   "toolregistry/auth-legacy-exclusive",
		Doc:  "A handler may not set both the auth stanza and the deprecated httpConfig/openAPIConfig authType or authSecretRef.",
		Spec: "toolregistry.md#authenticating-tools",
	},
	{
		ID:   "toolregistry/auth-connectionref-sandbox",
		Doc:  "auth.connectionRef is not permitted on a handler that sets sandbox.",
		Spec: "toolregistry.md#authenticating-tools",
	},
	{
		ID:   "toolregistry/headers-from-secret-auth-header",
		Doc:  "httpConfig.headersFromSecret may not set Authorization (or authorization) or the auth.workloadIdentity.header, spelled exactly.",
		Spec: "toolregistry.md#http-configuration-options",
	},
	{
		ID:   "toolregistry/auth-connectionref-secretref-exclusive",
		Doc:  "auth.connectionRef and auth.secretRef are mutually exclusive.",
		Spec: "toolregistry.md#authenticating-tools",
	},
	{
		ID:   "toolregistry/sandbox-targetpath-single-instance",
		Doc:  "A sandbox with targetPath set has maxInstances 1.",
		Spec: "toolregistry.md#sandbox-fields",
	},
}

// toolRegistryOf returns in.Object as a ToolRegistry; nil when it is not one.
func toolRegistryOf(in Input) *v1alpha1.ToolRegistry {
	tr, _ := in.Object.(*v1alpha1.ToolRegistry)
	return tr
}

var toolRegistryHandlersPath = field.NewPath("spec").Child("handlers")

// toolRegistryConfigBlock is one of the type-specific config blocks a
// handler may carry.
type toolRegistryConfigBlock struct {
	name    string
	forType v1alpha1.ToolRegistryHandlerType
	set     func(*v1alpha1.ToolRegistryHandler) bool
}

// toolRegistryConfigBlocks are the blocks of the non-platform types; the
// platform block is the schema's on every type.
var toolRegistryConfigBlocks = []toolRegistryConfigBlock{
	{"httpConfig", v1alpha1.ToolRegistryHandlerTypeHTTP, func(h *v1alpha1.ToolRegistryHandler) bool { return h.HTTPConfig != nil }},
	{"grpcConfig", v1alpha1.ToolRegistryHandlerTypeGRPC, func(h *v1alpha1.ToolRegistryHandler) bool { return h.GRPCConfig != nil }},
	{"mcpConfig", v1alpha1.ToolRegistryHandlerTypeMCP, func(h *v1alpha1.ToolRegistryHandler) bool { return h.MCPConfig != nil }},
	{"openAPIConfig", v1alpha1.ToolRegistryHandlerTypeOpenAPI, func(h *v1alpha1.ToolRegistryHandler) bool { return h.OpenAPIConfig != nil }},
	{"clientConfig", v1alpha1.ToolRegistryHandlerTypeClient, func(h *v1alpha1.ToolRegistryHandler) bool { return h.ClientConfig != nil }},
}

func checkToolRegistryHandlerConfigRequired(in Input) field.ErrorList {
	tr := toolRegistryOf(in)
	if tr == nil {
		return nil
	}
	var errs field.ErrorList
	for i := range tr.Spec.Handlers {
		h := &tr.Spec.Handlers[i]
		p := toolRegistryHandlersPath.Index(i)
		switch h.Type {
		case v1alpha1.ToolRegistryHandlerTypeHTTP:
			if h.HTTPConfig == nil {
				errs = append(errs, field.Required(p.Child("httpConfig"),
					"httpConfig is required when type is http: add httpConfig with at least endpoint (the URL of the tool)"))
			}
		case v1alpha1.ToolRegistryHandlerTypeGRPC:
			if h.GRPCConfig == nil {
				errs = append(errs, field.Required(p.Child("grpcConfig"),
					"grpcConfig is required when type is grpc: add grpcConfig with endpoint (host:port), or an empty grpcConfig when the handler sets sandbox"))
			}
		case v1alpha1.ToolRegistryHandlerTypeMCP:
			if h.MCPConfig == nil {
				errs = append(errs, field.Required(p.Child("mcpConfig"),
					"mcpConfig is required when type is mcp: add mcpConfig with transport (sse or streamable-http) and endpoint"))
			}
		case v1alpha1.ToolRegistryHandlerTypeOpenAPI:
			if h.OpenAPIConfig == nil {
				errs = append(errs, field.Required(p.Child("openAPIConfig"),
					"openAPIConfig is required when type is openapi: add openAPIConfig with specURL (the URL of a JSON OpenAPI spec)"))
			}
		case v1alpha1.ToolRegistryHandlerTypePlatform:
			if h.Platform == nil {
				errs = append(errs, field.Required(p.Child("platform"),
					"platform is required when type is platform: add platform with service (discovery or arena)"))
			}
		}
	}
	return errs
}

func checkToolRegistryHandlerConfigType(in Input) field.ErrorList {
	tr := toolRegistryOf(in)
	if tr == nil {
		return nil
	}
	var errs field.ErrorList
	for i := range tr.Spec.Handlers {
		h := &tr.Spec.Handlers[i]
		if h.Type == v1alpha1.ToolRegistryHandlerTypePlatform || !toolRegistryKnownType(h.Type) {
			// A platform handler's blocks are the schema's
			// (platform-handler-fields); an unknown type is its enum's.
			continue
		}
		for _, b := range toolRegistryConfigBlocks {
			if b.forType != h.Type && b.set(h) {
				errs = append(errs, field.Forbidden(toolRegistryHandlersPath.Index(i).Child(b.name),
					b.name+" configures a "+string(b.forType)+" handler and is ignored on this "+string(h.Type)+" handler"+
						": remove "+b.name+" or change type"))
			}
		}
	}
	return errs
}

func toolRegistryKnownType(t v1alpha1.ToolRegistryHandlerType) bool {
	switch t {
	case v1alpha1.ToolRegistryHandlerTypeHTTP, v1alpha1.ToolRegistryHandlerTypeGRPC, v1alpha1.ToolRegistryHandlerTypeMCP,
		v1alpha1.ToolRegistryHandlerTypeOpenAPI, v1alpha1.ToolRegistryHandlerTypeClient, v1alpha1.ToolRegistryHandlerTypePlatform:
		return true
	}
	return false
}

func checkToolRegistryToolRequired(in Input) field.ErrorList {
	tr := toolRegistryOf(in)
	if tr == nil {
		return nil
	}
	var errs field.ErrorList
	for i := range tr.Spec.Handlers {
		h := &tr.Spec.Handlers[i]
		if h.Tool != nil {
			continue
		}
		switch h.Type {
		case v1alpha1.ToolRegistryHandlerTypeGRPC:
			if h.Sandbox != nil {
				continue // sandbox-grpc-tool-required (schema)
			}
		case v1alpha1.ToolRegistryHandlerTypeHTTP, v1alpha1.ToolRegistryHandlerTypeClient:
		default:
			continue
		}
		errs = append(errs, field.Required(toolRegistryHandlersPath.Index(i).Child("tool"),
			"tool is required on a "+string(h.Type)+" handler (it declares the tool it exposes): add tool with name, description and inputSchema"))
	}
	return errs
}

func checkToolRegistryGRPCEndpointRequired(in Input) field.ErrorList {
	tr := toolRegistryOf(in)
	if tr == nil {
		return nil
	}
	var errs field.ErrorList
	for i := range tr.Spec.Handlers {
		h := &tr.Spec.Handlers[i]
		if h.Type != v1alpha1.ToolRegistryHandlerTypeGRPC || h.GRPCConfig == nil || h.Sandbox != nil || h.GRPCConfig.Endpoint != "" {
			continue
		}
		errs = append(errs, field.Required(toolRegistryHandlersPath.Index(i).Child("grpcConfig", "endpoint"),
			"grpcConfig.endpoint is required on a grpc handler that does not set sandbox: set it to the server's host:port"))
	}
	return errs
}

func checkToolRegistryAuthSecretRequired(in Input) field.ErrorList {
	tr := toolRegistryOf(in)
	if tr == nil {
		return nil
	}
	var errs field.ErrorList
	for i := range tr.Spec.Handlers {
		h := &tr.Spec.Handlers[i]
		p := toolRegistryHandlersPath.Index(i)
		if a := h.Auth; a != nil {
			if (a.Type == v1alpha1.ToolRegistryAuthTypeBearer || a.Type == v1alpha1.ToolRegistryAuthTypeBasic) &&
				a.SecretRef == nil && a.ConnectionRef == nil {
				errs = append(errs, field.Required(p.Child("auth", "secretRef"),
					"auth.type "+string(a.Type)+" needs the credential: set auth.secretRef {name, key} to a Secret in the AgentRuntime's "+
						"namespace, or auth.connectionRef {name, key} to a Connection's Secret"))
			}
			continue // a legacy pair next to auth is the schema's (auth-legacy-exclusive)
		}
		if c := h.HTTPConfig; c != nil && c.AuthType != "" && c.AuthSecretRef == nil {
			errs = append(errs, field.Required(p.Child("httpConfig", "authSecretRef"),
				"httpConfig.authType "+string(c.AuthType)+" needs httpConfig.authSecretRef; better, replace both deprecated fields with "+
					"auth {type: "+string(c.AuthType)+", secretRef: {name, key}}"))
		}
		if c := h.OpenAPIConfig; c != nil && c.AuthType != "" && c.AuthSecretRef == nil {
			errs = append(errs, field.Required(p.Child("openAPIConfig", "authSecretRef"),
				"openAPIConfig.authType "+string(c.AuthType)+" needs openAPIConfig.authSecretRef; better, replace both deprecated fields "+
					"with auth {type: "+string(c.AuthType)+", secretRef: {name, key}}"))
		}
	}
	return errs
}

// toolRegistryAudienceAuth describes an auth type whose block must carry a
// non-empty audience (serviceAccount, workloadIdentity).
type toolRegistryAudienceAuth struct {
	authType v1alpha1.ToolRegistryAuthType
	block    string
	// audience returns the block's audience, and false when the block is absent.
	audience func(*v1alpha1.ToolRegistryHandlerAuth) (string, bool)
	missing  string // message when the block is absent
	empty    string // message when the audience is empty
}

var (
	toolRegistryServiceAccountAuth = toolRegistryAudienceAuth{
		authType: v1alpha1.ToolRegistryAuthTypeServiceAccount,
		block:    "serviceAccount",
		audience: func(a *v1alpha1.ToolRegistryHandlerAuth) (string, bool) {
			if a.ServiceAccount == nil {
				return "", false
			}
			return a.ServiceAccount.Audience, true
		},
		missing: "auth.type serviceAccount needs auth.serviceAccount.audience: the audience the projected token binds to, which the backend checks",
		empty:   "auth.serviceAccount.audience must not be empty: set the audience the projected token binds to, which the backend checks",
	}
	toolRegistryWorkloadIdentityAuth = toolRegistryAudienceAuth{
		authType: v1alpha1.ToolRegistryAuthTypeWorkloadIdentity,
		block:    "workloadIdentity",
		audience: func(a *v1alpha1.ToolRegistryHandlerAuth) (string, bool) {
			if a.WorkloadIdentity == nil {
				return "", false
			}
			return a.WorkloadIdentity.Audience, true
		},
		missing: "auth.type workloadIdentity needs auth.workloadIdentity: set cloud: azure and audience (the API the token is acquired for)",
		empty:   "auth.workloadIdentity.audience must not be empty: set the audience the runtime acquires a token for",
	}
)

func checkToolRegistryAuthServiceAccount(in Input) field.ErrorList {
	return checkToolRegistryAudienceAuth(in, toolRegistryServiceAccountAuth)
}

func checkToolRegistryAuthWorkloadIdentity(in Input) field.ErrorList {
	return checkToolRegistryAudienceAuth(in, toolRegistryWorkloadIdentityAuth)
}

func checkToolRegistryAudienceAuth(in Input, kind toolRegistryAudienceAuth) field.ErrorList {
	tr := toolRegistryOf(in)
	if tr == nil {
		return nil
	}
	var errs field.ErrorList
	for i := range tr.Spec.Handlers {
		a := tr.Spec.Handlers[i].Auth
		if a == nil || a.Type != kind.authType {
			continue
		}
		p := toolRegistryHandlersPath.Index(i).Child("auth", kind.block)
		switch audience, present := kind.audience(a); {
		case !present:
			errs = append(errs, field.Required(p, kind.missing))
		case audience == "":
			errs = append(errs, field.Required(p.Child("audience"), kind.empty))
		}
	}
	return errs
}

func checkToolRegistryAuthHandlerType(in Input) field.ErrorList {
	tr := toolRegistryOf(in)
	if tr == nil {
		return nil
	}
	var errs field.ErrorList
	for i := range tr.Spec.Handlers {
		h := &tr.Spec.Handlers[i]
		if h.Type != v1alpha1.ToolRegistryHandlerTypeClient || toolRegistryAuthEmpty(h.Auth) {
			continue
		}
		errs = append(errs, field.Forbidden(toolRegistryHandlersPath.Index(i).Child("auth"),
			"auth applies to http, openapi, grpc and mcp handlers; a client handler runs in the browser and sends no credential "+
				"(workloadIdentity on it fails the AgentRuntime reconcile): remove auth"))
	}
	return errs
}

// toolRegistryAuthEmpty reports whether an auth stanza asks for nothing:
// absent, or `auth: {}` (stored as type none) with no credential source.
func toolRegistryAuthEmpty(a *v1alpha1.ToolRegistryHandlerAuth) bool {
	return a == nil || ((a.Type == "" || a.Type == v1alpha1.ToolRegistryAuthTypeNone) &&
		a.SecretRef == nil && a.ConnectionRef == nil && a.ServiceAccount == nil && a.WorkloadIdentity == nil)
}

// toolRegistryAuthorizationHeader is the header the auth stanza always owns.
const toolRegistryAuthorizationHeader = "Authorization"

func checkToolRegistryHeadersFromSecretCase(in Input) field.ErrorList {
	tr := toolRegistryOf(in)
	if tr == nil {
		return nil
	}
	var errs field.ErrorList
	for i := range tr.Spec.Handlers {
		h := &tr.Spec.Handlers[i]
		if h.HTTPConfig == nil || len(h.HTTPConfig.HeadersFromSecret) == 0 {
			continue
		}
		wiHeader := ""
		if h.Auth != nil && h.Auth.WorkloadIdentity != nil {
			wiHeader = h.Auth.WorkloadIdentity.Header
		}
		for _, k := range slices.Sorted(maps.Keys(h.HTTPConfig.HeadersFromSecret)) {
			owned := ""
			switch {
			// The schema refuses "Authorization", "authorization" and the
			// workload-identity header spelled exactly; this rule is the
			// other spellings of the same header.
			case k == toolRegistryAuthorizationHeader || k == "authorization" || (wiHeader != "" && k == wiHeader):
			case equalFoldASCII(k, toolRegistryAuthorizationHeader):
				owned = toolRegistryAuthorizationHeader
			case wiHeader != "" && equalFoldASCII(k, wiHeader):
				owned = wiHeader + " (auth.workloadIdentity.header)"
			}
			if owned == "" {
				continue
			}
			errs = append(errs, field.Forbidden(toolRegistryHandlersPath.Index(i).Child("httpConfig", "headersFromSecret").Key(k),
				"header "+k+" is "+owned+" in another letter case (HTTP header names are case-insensitive), a header the auth stanza owns: "+
					"configure that credential in auth and remove it from httpConfig.headersFromSecret"))
		}
	}
	return errs
}

// equalFoldASCII is strings.EqualFold for header names (ASCII tokens).
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

func checkToolRegistrySandboxDeclared(in Input) field.ErrorList {
	tr := toolRegistryOf(in)
	if tr == nil {
		return nil
	}
	var errs field.ErrorList
	for i := range tr.Spec.Handlers {
		s := tr.Spec.Handlers[i].Sandbox
		if s == nil || s.Name == "" {
			continue
		}
		declared := false
		for j := range tr.Spec.Sandboxes {
			if tr.Spec.Sandboxes[j].Name == s.Name {
				declared = true
				break
			}
		}
		if !declared {
			errs = append(errs, field.Invalid(toolRegistryHandlersPath.Index(i).Child("sandbox", "name"), s.Name,
				"not a sandbox in spec.sandboxes: declare it there (name and class) or name one that is declared"))
		}
	}
	return errs
}
