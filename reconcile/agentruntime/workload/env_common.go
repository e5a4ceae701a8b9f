package workload

import (
	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Environment names set on every operator container (facade, runtime,
// policy broker). The spec names only a few OMNIA_* variables
// (OMNIA_PACK_MODE, OMNIA_SESSION_*, OMNIA_IDLE_TIMEOUT,
// OMNIA_SANDBOX_API_URL, OMNIA_MEDIA_STORAGE_*); the rest follow the same
// OMNIA_<TOPIC>_<SETTING> pattern.
const (
	EnvAgentName      = "OMNIA_AGENT_NAME"
	EnvAgentNamespace = "OMNIA_AGENT_NAMESPACE"
	EnvAgentMode      = "OMNIA_AGENT_MODE"
	EnvPodName        = "OMNIA_POD_NAME"
	EnvHealthPort     = "OMNIA_HEALTH_PORT"

	// EnvSessionAPIURL and EnvMemoryAPIURL are the upstream images' names
	// for the service group's session-api and memory-api.
	EnvSessionAPIURL = "SESSION_API_URL"
	EnvMemoryAPIURL  = "MEMORY_API_URL"
)

// identityEnv is the agent's identity, which every container needs to find
// its AgentRuntime (the facade reads it, under the Role built here) and to
// label its telemetry.
func identityEnv(ar *v1alpha1.AgentRuntime) envSet {
	e := envSet{}
	e.lit(EnvAgentName, ar.Name)
	e.lit(EnvAgentNamespace, ar.Namespace)
	mode := ar.Spec.Mode
	if mode == "" {
		mode = v1alpha1.AgentRuntimeModeAgent
	}
	e.lit(EnvAgentMode, string(mode))
	e.field(EnvPodName, "metadata.name")
	return e
}
