package v1alpha1

// The AgentRuntime conditions SessionRecording, PrivacyPolicyResolved and
// A2ATaskStoreShared and their reasons (agentruntime.md#conditions). The
// False reasons of SessionRecording are the spec's; the spec names no
// other reason of these three conditions, so these are the operator's own.

const (
	// AgentRuntimeConditionSessionRecording: the agent's service group has a
	// session-api, so conversations are recorded. False when it does not: the
	// agent still serves, but writes no history. Never gates Ready.
	AgentRuntimeConditionSessionRecording = "SessionRecording"
	// AgentRuntimeReasonSessionServiceFound (SessionRecording=True, not named by
	// the spec): the agent's service group has a session-api.
	AgentRuntimeReasonSessionServiceFound = "SessionServiceFound"
	// AgentRuntimeReasonWorkspaceNotFound (SessionRecording=False, spec): no
	// Workspace owns the agent's namespace.
	AgentRuntimeReasonWorkspaceNotFound = "WorkspaceNotFound"
	// AgentRuntimeReasonServiceGroupNotFound (SessionRecording=False, spec): the
	// Workspace declares no service group named by spec.serviceGroup (default
	// "default").
	AgentRuntimeReasonServiceGroupNotFound = "ServiceGroupNotFound"
	// AgentRuntimeReasonNoSessionService (SessionRecording=False, spec): the
	// service group has no session-api.
	AgentRuntimeReasonNoSessionService = "NoSessionService"
)

const (
	// AgentRuntimeConditionPrivacyPolicyResolved: which privacy policy applies
	// to the agent.
	AgentRuntimeConditionPrivacyPolicyResolved = "PrivacyPolicyResolved"
	// AgentRuntimeReasonAgentPolicy (PrivacyPolicyResolved=True, not named by
	// the spec): the agent's spec.privacyPolicyRef applies.
	AgentRuntimeReasonAgentPolicy = "AgentPolicy"
	// AgentRuntimeReasonNoPolicy (PrivacyPolicyResolved=True, not named by the
	// spec): no privacy policy applies to the agent.
	AgentRuntimeReasonNoPolicy = "NoPolicy"
)

const (
	// AgentRuntimeConditionA2ATaskStoreShared: A2A tasks are visible to every
	// replica (agentruntime.md § facades[].a2a.taskStore). Present only on an
	// agent with an a2a facade.
	AgentRuntimeConditionA2ATaskStoreShared = "A2ATaskStoreShared"
	// AgentRuntimeReasonRedisTaskStore (A2ATaskStoreShared=True, not named by
	// the spec): the A2A task store is redis, shared by every replica.
	AgentRuntimeReasonRedisTaskStore = "RedisTaskStore"
	// AgentRuntimeReasonSingleReplica (A2ATaskStoreShared=True, not named by the
	// spec): the task store is memory but the agent runs at most one replica.
	AgentRuntimeReasonSingleReplica = "SingleReplica"
	// AgentRuntimeReasonMemoryTaskStoreMultiReplica (A2ATaskStoreShared=False,
	// not named by the spec): the task store is memory and the agent can run
	// more than one replica, so a task is visible only on the replica that
	// created it.
	AgentRuntimeReasonMemoryTaskStoreMultiReplica = "MemoryTaskStoreMultiReplica"
)
