package agentruntime

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/rules"
)

// The agent's references beyond its pack and Providers: the ToolRegistry,
// the A2A clients and the PersistentVolumeClaims its pod mounts. None of
// them holds the workload back (agentruntime.md#conditions): a missing
// registry runs the agent without tools, an unresolved A2A client is left
// out, and a pod whose claim is missing stays Pending, as Kubernetes keeps
// it, until the claim is created (then the scheduler starts it without
// another apply). The decisions are rules/ findings; this file only wires
// the lookups into Resolved and the findings into conditions.

// resolveReferences fills in the ToolRegistry and the A2A clients: the
// registry only when it exists in the agent's namespace (otherwise the pod
// gets no tool registry), the clients that resolved, and every client's
// resolution for status.a2a.clients.
func resolveReferences(ar *v1alpha1.AgentRuntime, facts rules.Facts, res *workload.Resolved, in *statusInput) {
	res.ToolRegistryName, res.Tools, in.toolCredentials = "", nil, 0
	if ref := ar.Spec.ToolRegistryRef; ref != nil && (ref.Namespace == "" || ref.Namespace == ar.Namespace) {
		if tr, ok := facts.ToolRegistry(ar.Namespace, ref.Name); ok && tr != nil {
			res.ToolRegistryName = ref.Name
			t := &workload.ResolvedTools{Registry: tr, Credentials: rules.ToolCredentials(tr), Usable: map[string]bool{}}
			for _, c := range t.Credentials {
				if reason, _ := rules.ToolCredentialProblem(facts, ar.Namespace, c); reason == "" {
					t.Usable[c.Key] = true
				}
			}
			res.Tools, in.toolCredentials = t, len(t.Credentials)
		}
	}
	in.a2aClients = rules.AgentRuntimeA2AClientResolutions(ar, facts)
	res.A2AClients = nil
	for _, c := range in.a2aClients {
		if c.Resolved() {
			res.A2AClients = append(res.A2AClients, workload.ResolvedA2AClient{Name: c.Name, URL: c.URL})
		}
	}
}

// failedFirst orders a condition's findings so one whose reason fails the
// agent comes first: the condition takes the first finding's reason, and
// the phase is Failed when any reference fails it (a Provider missing beside
// one not Ready is Failed, not Pending), whatever the rule IDs' order.
func failedFirst(findings []rules.Finding) []rules.Finding {
	out := slices.Clone(findings)
	slices.SortStableFunc(out, func(a, b rules.Finding) int {
		switch fa, fb := failedReasons[a.Reason], failedReasons[b.Reason]; {
		case fa && !fb:
			return -1
		case fb && !fa:
			return 1
		}
		return 0
	})
	return out
}

// setReferenceStatus sets Volumes (always: every claim the pod mounts
// exists, vacuously when it mounts none), A2AClientsResolved and
// status.a2a.clients (only on an agent with clients; removed otherwise).
func setReferenceStatus(st *v1alpha1.AgentRuntimeStatus, ar *v1alpha1.AgentRuntime, in statusInput) {
	gen := ar.Generation
	set := func(c metav1.Condition) { conditions.Set(&st.Conditions, c, in.now) }
	set(conditions.FromFindings(v1alpha1.AgentRuntimeConditionVolumes,
		byCondition(in.findings, v1alpha1.AgentRuntimeConditionVolumes), v1alpha1.AgentRuntimeReasonVolumeClaimsFound,
		"every PersistentVolumeClaim the pod mounts exists", v1alpha1.AgentRuntimeReasonPersistentVolumeClaimNotFound, gen))

	if len(in.a2aClients) == 0 {
		meta.RemoveStatusCondition(&st.Conditions, v1alpha1.AgentRuntimeConditionA2AClientsResolved)
		if st.A2A != nil {
			st.A2A.Clients = nil
			if st.A2A.AgentCardURL == "" && st.A2A.Endpoint == "" {
				st.A2A = nil
			}
		}
		return
	}
	// CrossNamespaceRef (admission) and Unresolved (reconcile) findings;
	// the cross-namespace reason is the spec's more specific one, first.
	findings := byCondition(in.findings, v1alpha1.AgentRuntimeConditionA2AClientsResolved)
	slices.SortStableFunc(findings, func(a, b rules.Finding) int {
		ca, cb := a.Reason == v1alpha1.AgentRuntimeReasonCrossNamespaceRef, b.Reason == v1alpha1.AgentRuntimeReasonCrossNamespaceRef
		switch {
		case ca && !cb:
			return -1
		case cb && !ca:
			return 1
		}
		return 0
	})
	set(conditions.FromFindings(v1alpha1.AgentRuntimeConditionA2AClientsResolved, findings, v1alpha1.AgentRuntimeReasonA2AClientsResolved,
		"every A2A client resolved", v1alpha1.AgentRuntimeReasonUnresolved, gen))
	clients := make([]v1alpha1.AgentRuntimeA2AClientStatus, 0, len(in.a2aClients))
	for _, c := range in.a2aClients {
		clients = append(clients, v1alpha1.AgentRuntimeA2AClientStatus{Name: c.Name, ResolvedURL: c.URL, Ready: c.Resolved(), Error: c.Error})
	}
	if st.A2A == nil {
		st.A2A = &v1alpha1.AgentRuntimeA2AStatus{}
	}
	st.A2A.Clients = clients
}
