package workload

import (
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// Ports the spec fixes: the default facade listener ports, and the internal
// management-plane twin listener of each surface.
const (
	// DefaultFacadePort is a facade's listener port when facades[].port is unset.
	DefaultFacadePort int32 = 8080
	// DefaultA2APort is a secondary a2a facade's port when a2a.port is unset.
	DefaultA2APort int32 = 9999
	// DefaultMCPPort is an mcp facade's port when mcp.port is unset.
	DefaultMCPPort int32 = 9998

	// ManagementPortFacade is the WebSocket / function surface's management port.
	ManagementPortFacade int32 = 18080
	// ManagementPortA2A is the A2A surface's management port.
	ManagementPortA2A int32 = 19999
	// ManagementPortMCP is the MCP surface's management port.
	ManagementPortMCP int32 = 19998
)

// Ports the spec does not number: the facade's health port (readiness and
// liveness run there, never on a data-plane port), the runtime's gRPC port
// (facade ↔ runtime; its probes use gRPC health checking on it, the one
// thing every omnia.runtime.v1 image serves), and the policy broker's. They are
// chosen in the 18xxx/19xxx range the management ports use, away from the
// ports users usually give facades, and they are not in the Service: only
// containers of the same pod reach them, over localhost.
const (
	FacadeHealthPort int32 = 18081
	RuntimeGRPCPort  int32 = 19000
	BrokerGRPCPort   int32 = 19100
	BrokerHealthPort int32 = 19101
)

// Port names. The primary facade's data port is `facade` whatever its type
// (it is the port status.serviceEndpoint names); a secondary a2a or mcp
// facade's is its type. A management port is its surface's name with
// `-mgmt` (`facade-mgmt` for websocket/rest, `a2a-mgmt`, `mcp-mgmt`), as the
// spec's "`*-mgmt` Service port" says.
const (
	PortNameFacade = "facade"
	PortNameA2A    = "a2a"
	PortNameMCP    = "mcp"
	mgmtSuffix     = "-mgmt"
	// Port names are unique across the pod's containers: a probe or Service
	// that names a port takes the first container's port of that name.
	portNameFacadeHealth = "facade-health"
	portNameRuntimeGRPC  = "runtime-grpc"
	portNameBrokerGRPC   = "broker-grpc"
	portNameBrokerHealth = "broker-health"
)

// FacadePort is one listener of the facade container.
type FacadePort struct {
	// Name is the container and Service port name.
	Name string
	// Port is the port number (container port and Service port).
	Port int32
	// Type is the facade type the listener serves.
	Type v1alpha1.AgentRuntimeFacadeType
	// Management is true for a management-plane twin listener.
	Management bool
}

// FacadePorts lays out the facade container's listeners, sorted by port
// number (then name), the same for the container and the Service:
//
//   - the primary facade (websocket, else rest, else a2a, else custom)
//     listens on facades[].port (8080) as `facade`;
//   - a secondary a2a facade listens on a2a.port (9999) as `a2a`;
//   - an mcp facade listens on mcp.port (9998) as `mcp`;
//   - dataPlane: false drops that facade's data port;
//   - managementPlane (default true) adds the surface's management twin:
//     18080 `facade-mgmt` for websocket/rest, 19999 `a2a-mgmt` for a2a
//     (also when a2a is the primary), 19998 `mcp-mgmt` for mcp.
//
// A custom facade gets no management twin: the operator cannot know that a
// bring-your-own container serves the management-plane auth chain, and the
// spec lists management endpoints only for the ws, a2a and mcp surfaces.
func FacadePorts(ar *v1alpha1.AgentRuntime) []FacadePort {
	facades := ar.Spec.Facades
	primary := rules.AgentRuntimePrimaryFacade(facades)
	var ports []FacadePort
	for i := range facades {
		f := &facades[i]
		t := rules.AgentRuntimeFacadeType(f)
		name, port := PortNameFacade, int32Or(f.Port, DefaultFacadePort)
		mgmtName, mgmt := PortNameFacade+mgmtSuffix, ManagementPortFacade
		switch {
		case t == v1alpha1.AgentRuntimeFacadeTypeMCP:
			name, mgmtName, mgmt = PortNameMCP, PortNameMCP+mgmtSuffix, ManagementPortMCP
			port = DefaultMCPPort
			if f.MCP != nil {
				port = int32Or(f.MCP.Port, DefaultMCPPort)
			}
		case t == v1alpha1.AgentRuntimeFacadeTypeA2A && i != primary:
			name, mgmtName, mgmt = PortNameA2A, PortNameA2A+mgmtSuffix, ManagementPortA2A
			port = DefaultA2APort
			if f.A2A != nil {
				port = int32Or(f.A2A.Port, DefaultA2APort)
			}
		case t == v1alpha1.AgentRuntimeFacadeTypeA2A:
			// a2a alone: the primary listener, with the a2a surface's twin
			mgmtName, mgmt = PortNameA2A+mgmtSuffix, ManagementPortA2A
		case i != primary:
			continue // CEL admits no second websocket/rest/custom; nothing to serve it
		}
		if boolOr(f.DataPlane, true) {
			ports = append(ports, FacadePort{Name: name, Port: port, Type: t})
		}
		if boolOr(f.ManagementPlane, true) && t != v1alpha1.AgentRuntimeFacadeTypeCustom {
			ports = append(ports, FacadePort{Name: mgmtName, Port: mgmt, Type: t, Management: true})
		}
	}
	slices.SortFunc(ports, func(a, b FacadePort) int {
		if a.Port != b.Port {
			return int(a.Port) - int(b.Port)
		}
		return strings.Compare(a.Name, b.Name)
	})
	return ports
}

// containerPorts are the facade container's ports: its listeners and its
// health port.
func facadeContainerPorts(ports []FacadePort) []corev1.ContainerPort {
	out := make([]corev1.ContainerPort, 0, len(ports)+1)
	for _, p := range ports {
		out = append(out, tcpPort(p.Name, p.Port))
	}
	out = append(out, tcpPort(portNameFacadeHealth, FacadeHealthPort))
	sortContainerPorts(out)
	return out
}

func tcpPort(name string, port int32) corev1.ContainerPort {
	return corev1.ContainerPort{Name: name, ContainerPort: port, Protocol: corev1.ProtocolTCP}
}

func int32Or(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

func boolOr(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}

// sortContainerPorts orders ports by number, then name, so the output does
// not depend on the order of spec.facades.
func sortContainerPorts(ports []corev1.ContainerPort) {
	slices.SortFunc(ports, func(a, b corev1.ContainerPort) int {
		if a.ContainerPort != b.ContainerPort {
			return int(a.ContainerPort) - int(b.ContainerPort)
		}
		return strings.Compare(a.Name, b.Name)
	})
}

func itoa(p int32) string { return strconv.Itoa(int(p)) }
