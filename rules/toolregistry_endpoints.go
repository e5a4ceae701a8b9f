package rules

import (
	"net"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// ToolRegistry endpoint rules: an mcp endpoint may not address a link-local
// or cloud-metadata host, and a handler reading its credential from a
// Connection sends it only to https on port 443.

func init() {
	Default.Register(Rule{
		ID:        "toolregistry/mcp-endpoint-metadata-address",
		Kinds:     toolRegistryKinds,
		Stage:     StageAdmission,
		Severity:  SeverityWarn,
		Condition: v1alpha1.ToolRegistryConditionHandlersValid,
		Reason:    v1alpha1.ToolRegistryReasonValidationFailed,
		Doc: "mcpConfig.endpoint's host may not be a link-local or cloud-metadata address: a literal IP in 169.254.0.0/16, fe80::/10, " +
			"100.100.100.200, fd00:ec2::254, fd00:ec2::23, fd20:ce::254 or fd00:42::42 (IPv4-mapped and NAT64 forms too), or the hostnames " +
			"metadata, metadata.google.internal, metadata.goog, instance-data, instance-data.ec2.internal, metadata.tencentyun.com.",
		Spec:  "toolregistry.md#mcp-configuration-options",
		Check: checkToolRegistryMCPMetadataAddress,
	})
}

// toolRegistryMetadataHost reports the host of endpoint when it is a
// link-local or cloud-metadata address.
func toolRegistryMetadataHost(endpoint string) (string, bool) {
	ep := strings.TrimSpace(endpoint)
	if ep == "" {
		return "", false
	}
	if !strings.Contains(ep, "://") {
		ep = "http://" + ep
	}
	u, err := url.Parse(ep)
	if err != nil {
		return "", false
	}
	candidates := [2]string{u.Hostname(), strings.Trim(u.Host, "[]")}
	for _, h := range candidates {
		if MetadataHost(h) {
			return h, true
		}
	}
	return "", false
}

func checkToolRegistryMCPMetadataAddress(in Input) field.ErrorList {
	tr := toolRegistryOf(in)
	if tr == nil {
		return nil
	}
	var errs field.ErrorList
	for i := range tr.Spec.Handlers {
		h := &tr.Spec.Handlers[i]
		if h.Type != v1alpha1.ToolRegistryHandlerTypeMCP || h.MCPConfig == nil || h.Sandbox != nil {
			continue // on a sandbox the endpoint is a path (sandbox-mcp-endpoint-path)
		}
		host, bad := toolRegistryMetadataHost(h.MCPConfig.Endpoint)
		if !bad {
			continue
		}
		errs = append(errs, field.Invalid(toolRegistryHandlersPath.Index(i).Child("mcpConfig", "endpoint"), h.MCPConfig.Endpoint,
			"host "+host+" is a link-local or cloud-metadata address, which the controller refuses (HandlersValid=False): point the "+
				"endpoint at the MCP server's Service name (e.g. http://mcp.tools.svc.cluster.local:8080/sse) or its private address"))
	}
	return errs
}

// toolRegistryHTTPS443 reports why raw is not an https URL on port 443, or
// "" when it is. A URL whose host does not parse (a template) is judged on
// its scheme alone.
func toolRegistryHTTPS443(raw string) string {
	s := strings.TrimSpace(raw)
	scheme, _, ok := strings.Cut(s, "://")
	if !ok {
		return "it is not an absolute https URL"
	}
	if !strings.EqualFold(scheme, "https") {
		return "its scheme is " + scheme + ", not https"
	}
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	if p := u.Port(); p != "" && p != "443" {
		return "its port is " + p + ", not 443"
	}
	return ""
}

func checkToolRegistryConnectionRefHTTPS(in Input) field.ErrorList {
	tr := toolRegistryOf(in)
	if tr == nil {
		return nil
	}
	var errs field.ErrorList
	for i := range tr.Spec.Handlers {
		h := &tr.Spec.Handlers[i]
		if h.Auth == nil || h.Auth.ConnectionRef == nil || h.Sandbox != nil {
			continue // connectionRef on a sandbox is the schema's (auth-connectionref-sandbox)
		}
		p := toolRegistryHandlersPath.Index(i)
		https443 := func(path *field.Path, name, value string) {
			if why := toolRegistryHTTPS443(value); why != "" {
				errs = append(errs, field.Invalid(path, value,
					"auth.connectionRef sends the Connection's credential only to https on port 443 at a host the Connection lists, and "+
						name+" is not ("+why+"): use an https URL on port 443, or a secretRef instead of connectionRef"))
			}
		}
		switch h.Type {
		case v1alpha1.ToolRegistryHandlerTypeHTTP:
			if c := h.HTTPConfig; c != nil {
				https443(p.Child("httpConfig", "endpoint"), "httpConfig.endpoint", c.Endpoint)
				if strings.Contains(c.URLTemplate, "://") {
					https443(p.Child("httpConfig", "urlTemplate"), "httpConfig.urlTemplate", c.URLTemplate)
				}
			}
		case v1alpha1.ToolRegistryHandlerTypeMCP:
			if c := h.MCPConfig; c != nil {
				https443(p.Child("mcpConfig", "endpoint"), "mcpConfig.endpoint", c.Endpoint)
			}
		case v1alpha1.ToolRegistryHandlerTypeOpenAPI:
			if c := h.OpenAPIConfig; c != nil {
				https443(p.Child("openAPIConfig", "specURL"), "openAPIConfig.specURL", c.SpecURL)
				if c.BaseURL == "" {
					errs = append(errs, field.Required(p.Child("openAPIConfig", "baseURL"),
						"an openapi handler with auth.connectionRef must set openAPIConfig.baseURL (an https URL on port 443 at a host the "+
							"Connection lists), so the credential never follows the spec's servers"))
				} else {
					https443(p.Child("openAPIConfig", "baseURL"), "openAPIConfig.baseURL", c.BaseURL)
				}
			}
		case v1alpha1.ToolRegistryHandlerTypeGRPC:
			c := h.GRPCConfig
			if c == nil {
				continue
			}
			if c.TLS == nil || !*c.TLS {
				errs = append(errs, field.Required(p.Child("grpcConfig", "tls"),
					"a grpc handler with auth.connectionRef must set grpcConfig.tls: true; the Connection's credential is sent only over TLS"))
			}
			if c.Endpoint != "" {
				if _, port, err := net.SplitHostPort(c.Endpoint); err != nil || port != "443" {
					errs = append(errs, field.Invalid(p.Child("grpcConfig", "endpoint"), c.Endpoint,
						"auth.connectionRef sends the Connection's credential only to port 443 at a host the Connection lists: set "+
							"grpcConfig.endpoint to host:443, or use a secretRef instead of connectionRef"))
				}
			}
		}
	}
	return errs
}
