package v1alpha1

// The AgentRuntime condition AsyncInvocationReady and its reasons
// (agentruntime.md § facades[].async). QueueBackendMissing and
// QueueSecretUnavailable are the spec's; the spec names no True reason, so
// AsyncQueueConfigured is the operator's own.
//
// The condition is present only while a facade sets async.enabled: without
// it the async routes answer 501 by design, and a condition on every agent
// would report a queue nobody asked for (as A2ATaskStoreShared is present
// only on an agent with an a2a facade).

const (
	// AgentRuntimeConditionAsyncInvocationReady: async invocation can run
	// (agentruntime.md § facades[].async): the operator has a queue backend and
	// the facade is wired to it. Present only while a facade sets async.enabled.
	AgentRuntimeConditionAsyncInvocationReady = "AsyncInvocationReady"
	// AgentRuntimeReasonAsyncQueueConfigured (AsyncInvocationReady=True, not
	// named by the spec): the operator has a queue backend (the chart's
	// redis.default as url, host, or existingSecret copied into
	// agent-<name>-async-redis) and the facade is given its URL. The operator
	// does not dial the Redis itself: True says the pods are wired to it, not
	// that it answers.
	AgentRuntimeReasonAsyncQueueConfigured = "AsyncQueueConfigured"
	// AgentRuntimeReasonQueueBackendMissing (AsyncInvocationReady=False, spec):
	// the operator has no queue backend; the async routes answer 501 and the
	// operator never falls back to an in-process queue.
	AgentRuntimeReasonQueueBackendMissing = "QueueBackendMissing"
	// AgentRuntimeReasonQueueSecretUnavailable (AsyncInvocationReady=False,
	// spec): the redis.default existingSecret (in the operator's namespace) or
	// its url key is missing or empty.
	AgentRuntimeReasonQueueSecretUnavailable = "QueueSecretUnavailable"
	// AgentRuntimeReasonQueueCredentialUnavailable (AsyncInvocationReady=False,
	// not named by the spec): the operator gives each namespace its own Redis
	// user (--redis-tenant-credentials) and could not set up this namespace's
	// (the operator's Redis user may not run ACL SETUSER, or the Redis is
	// unreachable). An earlier copy stays wired.
	AgentRuntimeReasonQueueCredentialUnavailable = "QueueCredentialUnavailable"
)
