package rules

import (
	"slices"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Decisions about an AgentRuntime's pod that the workload builder
// (reconcile/agentruntime) shares with the admission rules, so the pod and
// the webhook never disagree: one decision, one function.

// AgentRuntimeReservedEnvKey reports whether name is one of the environment
// keys only a controller sets (OMNIA_PACK_MODE, OMNIA_PACK_SOURCE_DIR,
// OMNIA_PACK_CONFIG_FILE, OMNIA_PACK_OUT_DIR, OMNIA_SESSION_TAGS,
// OMNIA_SESSION_PACK_NAME, OMNIA_IDLE_TIMEOUT). The agentruntime/reserved-env-key
// rule refuses them at admission; the operator drops them from the pod.
func AgentRuntimeReservedEnvKey(name string) bool {
	_, reserved := agentRuntimeReservedEnv[name]
	return reserved
}

// AgentRuntimeReservedEnvKeys lists the reserved keys, sorted.
func AgentRuntimeReservedEnvKeys() []string {
	keys := make([]string, 0, len(agentRuntimeReservedEnv))
	for k := range agentRuntimeReservedEnv {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// AgentRuntimePrimaryFacade returns the index of the primary facade, the one
// handler, drainTimeout, clientToolTimeout and extraEnv are read from:
// websocket if present, else rest, else a2a, else a custom facade (which
// must be alone); -1 when there is none (mcp is never primary).
func AgentRuntimePrimaryFacade(facades []v1alpha1.AgentRuntimeFacade) int {
	return agentRuntimePrimaryFacade(facades)
}

// AgentRuntimeFacadeType returns the facade's type with the default
// (websocket) applied.
func AgentRuntimeFacadeType(f *v1alpha1.AgentRuntimeFacade) v1alpha1.AgentRuntimeFacadeType {
	return agentRuntimeFacadeType(f)
}

// AgentRuntimeFacadeReadsClientKeys is the one decision whether the facade's
// Role may list and watch the namespace's Secrets to read the agent's client
// keys: externalAuth.clientKeys is set and the primary facade is one the
// operator ships. A custom facade runs the tenant's image, which must not
// hold read access to the namespace's Secrets.
func AgentRuntimeFacadeReadsClientKeys(ar *v1alpha1.AgentRuntime) bool {
	if ea := ar.Spec.ExternalAuth; ea == nil || ea.ClientKeys == nil {
		return false
	}
	pi := agentRuntimePrimaryFacade(ar.Spec.Facades)
	return pi >= 0 && agentRuntimeFacadeType(&ar.Spec.Facades[pi]) != v1alpha1.AgentRuntimeFacadeTypeCustom
}
