package agentruntime

import (
	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// serviceGroupOf is the Workspace service group the agent selects
// (spec.serviceGroup, default "default"); nil without a Workspace or such a
// group.
func serviceGroupOf(ar *v1alpha1.AgentRuntime, ws *v1alpha1.Workspace) *v1alpha1.WorkspaceServiceGroup {
	if ws == nil {
		return nil
	}
	group := serviceGroupName(ar)
	for i := range ws.Spec.Services {
		if ws.Spec.Services[i].Name == group {
			return &ws.Spec.Services[i]
		}
	}
	return nil
}

// resolveServiceEndpoints gives the pod its service group's session-api
// and, with spec.memory.enabled, its memory-api (agentruntime.md §
// serviceGroup, § memory: "The memory-api endpoint is resolved from the
// Workspace service group"). Only an external url is an endpoint the
// operator knows: this operator runs no managed session-api or memory-api,
// so a managed block gives the pod no URL.
func resolveServiceEndpoints(ar *v1alpha1.AgentRuntime, ws *v1alpha1.Workspace, res *workload.Resolved) {
	res.SessionAPIURL, res.MemoryAPIURL = "", ""
	g := serviceGroupOf(ar, ws)
	if g == nil {
		return
	}
	// The same reading of a block SessionRecording uses (hasService): an
	// external url is the service whatever enabled says, so the pod gets
	// the URL exactly when the condition says conversations are recorded
	// to it.
	if hasService(g.Session) {
		res.SessionAPIURL = g.Session.URL
	}
	if hasService(g.Memory) && ar.Spec.Memory != nil && ar.Spec.Memory.Enabled {
		res.MemoryAPIURL = g.Memory.URL
	}
}
