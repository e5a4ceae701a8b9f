package rules

import (
	"errors"
	"net"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// The endpoint-address rule: a handler's network endpoint must name an
// address the runtime (and the controller's reachability probe) can reach.
// ToolRegistryDialAddress is the one parser both use.

func init() {
	Default.Register(Rule{
		ID:        "toolregistry/endpoint-address",
		Kinds:     toolRegistryKinds,
		Stage:     StageAdmission,
		Severity:  SeverityWarn,
		Condition: v1alpha1.ToolRegistryConditionHandlersValid,
		Reason:    v1alpha1.ToolRegistryReasonValidationFailed,
		Doc: "A handler's network endpoint (httpConfig.endpoint, grpcConfig.endpoint, mcpConfig.endpoint, openAPIConfig.specURL; " +
			"not on a sandbox) is a URL with a host (port from the URL, or 80 for http/ws and 443 for https/wss) or host:port " +
			"(dns:///host:port for grpc). The spec marks a tool Available only when its endpoint resolves.",
		Spec:  "toolregistry.md#status-fields",
		Check: checkToolRegistryEndpointAddress,
	})
}

// ToolRegistryDialAddress derives the host:port of a handler's network
// endpoint: a URL (the scheme's default port when it has none: 80 for http
// and ws, 443 for https and wss) or a bare host:port (a grpc endpoint, also
// as a dns:///host:port target). The error says why there is none.
func ToolRegistryDialAddress(endpoint string) (string, error) {
	ep := strings.TrimSpace(endpoint)
	if ep == "" {
		return "", errors.New("the endpoint is empty")
	}
	if !strings.Contains(ep, "://") {
		if host, port, err := net.SplitHostPort(ep); err != nil || host == "" || port == "" {
			return "", errors.New("the endpoint is neither a URL nor host:port")
		}
		return ep, nil
	}
	u, err := url.Parse(ep)
	if err != nil {
		return "", errors.New("the endpoint is not a valid URL")
	}
	host, port := u.Hostname(), u.Port()
	if host == "" {
		// A gRPC target such as dns:///host:port.
		target := strings.TrimPrefix(u.Path, "/")
		if h, p, err := net.SplitHostPort(target); err == nil && h != "" {
			return net.JoinHostPort(h, p), nil
		}
		return "", errors.New("the endpoint URL has no host")
	}
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "http", "ws":
			port = "80"
		case "https", "wss":
			port = "443"
		default:
			return "", errors.New("the endpoint URL has no port and its scheme " + u.Scheme + " has no default")
		}
	}
	return net.JoinHostPort(host, port), nil
}

func checkToolRegistryEndpointAddress(in Input) field.ErrorList {
	tr := toolRegistryOf(in)
	if tr == nil {
		return nil
	}
	var errs field.ErrorList
	for i := range tr.Spec.Handlers {
		h := &tr.Spec.Handlers[i]
		p := toolRegistryHandlersPath.Index(i)
		var endpoint string
		switch {
		case h.Type == v1alpha1.ToolRegistryHandlerTypeHTTP && h.HTTPConfig != nil && h.Sandbox == nil:
			endpoint, p = h.HTTPConfig.Endpoint, p.Child("httpConfig", "endpoint")
		case h.Type == v1alpha1.ToolRegistryHandlerTypeGRPC && h.GRPCConfig != nil && h.Sandbox == nil:
			endpoint, p = h.GRPCConfig.Endpoint, p.Child("grpcConfig", "endpoint")
		case h.Type == v1alpha1.ToolRegistryHandlerTypeMCP && h.MCPConfig != nil && h.Sandbox == nil:
			endpoint, p = h.MCPConfig.Endpoint, p.Child("mcpConfig", "endpoint")
		case h.Type == v1alpha1.ToolRegistryHandlerTypeOpenAPI && h.OpenAPIConfig != nil:
			// specURL is read when the runtime starts, before any sandbox
			// exists, so it is a network address even on a sandbox.
			endpoint, p = h.OpenAPIConfig.SpecURL, p.Child("openAPIConfig", "specURL")
		}
		if endpoint == "" {
			continue // a missing endpoint is the required-field rules' finding
		}
		if _, err := ToolRegistryDialAddress(endpoint); err != nil {
			errs = append(errs, field.Invalid(p, endpoint,
				err.Error()+": set a URL with a host (https://svc.ns:8080/path) or, for grpc, host:port"))
		}
	}
	return errs
}
