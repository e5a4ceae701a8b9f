package agentruntime

import (
	"strconv"
	"strings"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/rules"
)

// A2AAgentCardPath is where the A2A facade serves its agent card
// (agentruntime.md § facades[].a2a; also at /.well-known/agent.json).
const A2AAgentCardPath = "/.well-known/agent-card.json"

// a2aEndpoints are status.a2a's endpoint and agentCardURL (agentruntime.md
// § Other status fields: only with an a2a facade). The endpoint is the A2A
// facade's external URL when its route is valid (status.facade.endpoints,
// protocol a2a), else its in-cluster URL on the agent's Service,
// http://{name}.{namespace}.svc.cluster.local:{port} (the a2a data port:
// `a2a`, 9999 by default, or `facade` when a2a is the primary). The agent
// card is the endpoint plus /.well-known/agent-card.json. Both are empty
// without an a2a facade, when the a2a facade has no data plane (its only
// listener is the management twin, which A2A callers cannot use), or when
// the Service is not applied (like status.serviceEndpoint).
func a2aEndpoints(ar *v1alpha1.AgentRuntime, serviceApplied bool, external []v1alpha1.AgentRuntimeFacadeEndpoint) (endpoint, card string) {
	hasA2A := false
	for i := range ar.Spec.Facades {
		if rules.AgentRuntimeFacadeType(&ar.Spec.Facades[i]) == v1alpha1.AgentRuntimeFacadeTypeA2A {
			hasA2A = true
		}
	}
	port, ok := workload.FacadeDataPort(ar, v1alpha1.AgentRuntimeFacadeTypeA2A)
	if !hasA2A || !ok {
		return "", ""
	}
	for _, e := range external {
		if e.Valid && e.Protocol == string(v1alpha1.AgentRuntimeFacadeTypeA2A) {
			endpoint = strings.TrimSuffix(e.URL, "/")
			return endpoint, endpoint + A2AAgentCardPath
		}
	}
	if !serviceApplied {
		return "", ""
	}
	endpoint = "http://" + workload.ServiceHost(ar) + ":" + strconv.Itoa(int(port.Port))
	return endpoint, endpoint + A2AAgentCardPath
}

// setA2AStatus sets status.a2a.agentCardURL and endpoint, after
// setReferenceStatus has set status.a2a.clients: status.a2a is removed
// when it would hold nothing.
func setA2AStatus(st *v1alpha1.AgentRuntimeStatus, ar *v1alpha1.AgentRuntime, in statusInput) {
	var external []v1alpha1.AgentRuntimeFacadeEndpoint
	if st.Facade != nil {
		external = st.Facade.Endpoints
	}
	endpoint, card := a2aEndpoints(ar, in.serviceApplied, external)
	if endpoint == "" {
		if st.A2A != nil {
			st.A2A.AgentCardURL, st.A2A.Endpoint = "", ""
			if len(st.A2A.Clients) == 0 {
				st.A2A = nil
			}
		}
		return
	}
	if st.A2A == nil {
		st.A2A = &v1alpha1.AgentRuntimeA2AStatus{}
	}
	st.A2A.AgentCardURL, st.A2A.Endpoint = card, endpoint
}
