package workload

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Service builds the agent's ClusterIP Service: one port per facade
// listener FacadePorts lays out (data-plane `facade`/`a2a`/`mcp` and their
// `-mgmt` twins), each targeting the container port of the same name, in
// port order. The health, gRPC and broker ports are pod-internal and not in
// it.
//
// The spec's CEL rules leave every agent at least one listener, except a
// custom facade with dataPlane: false; that Service has no ports and the API
// server refuses it, which the controller reports as ServiceReady=False.
func Service(ar *v1alpha1.AgentRuntime) *corev1.Service {
	fp := FacadePorts(ar)
	ports := make([]corev1.ServicePort, 0, len(fp))
	for _, p := range fp {
		ports = append(ports, corev1.ServicePort{
			Name:       p.Name,
			Port:       p.Port,
			TargetPort: intstr.FromString(p.Name),
			Protocol:   corev1.ProtocolTCP,
		})
	}
	om := ObjectMeta(ar, ServiceName(ar))
	if w := WaypointOf(ar); w != "" {
		// Istio ambient: the waypoint applies the rollout's L7 split
		// (spec.rollout.trafficRouting.mesh.waypoint).
		om.Labels[WaypointLabel] = w
	}
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: om,
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: SelectorLabels(ar),
			Ports:    ports,
		},
	}
}

// ServiceEndpoint is status.serviceEndpoint: the primary facade's data
// port on the Service, {name}.{namespace}.svc.cluster.local:{port}; empty
// when the primary facade has no data plane.
func ServiceEndpoint(ar *v1alpha1.AgentRuntime) string {
	for _, p := range FacadePorts(ar) {
		if p.Name == PortNameFacade {
			return ServiceHost(ar) + ":" + itoa(p.Port)
		}
	}
	return ""
}

// ManagementEndpoints is status.managementEndpoints: one entry per surface
// whose facade has a management twin; nil when none has.
func ManagementEndpoints(ar *v1alpha1.AgentRuntime) *v1alpha1.AgentRuntimeManagementEndpoints {
	var m v1alpha1.AgentRuntimeManagementEndpoints
	for _, p := range FacadePorts(ar) {
		if !p.Management {
			continue
		}
		ep := ServiceHost(ar) + ":" + itoa(p.Port)
		switch p.Port {
		case ManagementPortFacade:
			m.WS = ep
		case ManagementPortA2A:
			m.A2A = ep
		case ManagementPortMCP:
			m.MCP = ep
		}
	}
	if m == (v1alpha1.AgentRuntimeManagementEndpoints{}) {
		return nil
	}
	return &m
}

// ServiceHost is the agent Service's in-cluster DNS name,
// {name}.{namespace}.svc.cluster.local.
func ServiceHost(ar *v1alpha1.AgentRuntime) string {
	return ServiceName(ar) + "." + ar.Namespace + ".svc.cluster.local"
}
