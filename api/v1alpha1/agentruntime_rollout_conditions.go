package v1alpha1

// The AgentRuntime conditions RolloutActive and TrafficRouting and their
// reasons (agentruntime.md § rollout, § rollout (status)). The spec names
// both conditions but none of their reasons; these are the operator's.
// RolloutActive is present only on an agent with spec.rollout (or a
// status.rollout left by a past rollout), TrafficRouting only on an agent
// with spec.rollout.

const (
	// AgentRuntimeConditionRolloutActive: a rollout is in progress (True) or not
	// (False): the progress of spec.rollout's steps. Present only on an agent
	// with spec.rollout (or a status.rollout left by a past rollout).
	AgentRuntimeConditionRolloutActive = "RolloutActive"
	// AgentRuntimeReasonRolloutProgressing (RolloutActive=True, not named by the
	// spec): the rollout is running a step (a setWeight waiting for the
	// candidate's replicas, or an analysis running).
	AgentRuntimeReasonRolloutProgressing = "RolloutProgressing"
	// AgentRuntimeReasonRolloutPaused (RolloutActive=True, not named by the
	// spec): a pause step holds the rollout (for its duration, or until a person
	// promotes it).
	AgentRuntimeReasonRolloutPaused = "RolloutPaused"
	// AgentRuntimeReasonRolloutPromoting (RolloutActive=True, not named by the
	// spec): the candidate is being promoted (status.rollout.promoting).
	AgentRuntimeReasonRolloutPromoting = "RolloutPromoting"
	// AgentRuntimeReasonRolloutAnalysisFailed (RolloutActive=True, not named by
	// the spec): an analysis step failed under rollback mode manual or disabled:
	// the rollout holds until a person promotes or aborts it.
	AgentRuntimeReasonRolloutAnalysisFailed = "RolloutAnalysisFailed"
	// AgentRuntimeReasonRolloutCandidateUnhealthy (RolloutActive=True, not named
	// by the spec): the candidate Deployment reports ProgressDeadlineExceeded
	// under rollback mode manual or disabled: the rollout holds.
	AgentRuntimeReasonRolloutCandidateUnhealthy = "RolloutCandidateUnhealthy"
	// AgentRuntimeReasonRolloutCandidateHeld (RolloutActive=True, not named by
	// the spec): the candidate's inputs (its PromptPack, Providers) do not
	// resolve, so no candidate Deployment is built yet.
	AgentRuntimeReasonRolloutCandidateHeld = "RolloutCandidateHeld"
	// AgentRuntimeReasonRolloutIdle (RolloutActive=False, not named by the
	// spec): spec.rollout has no candidate, or a candidate equal to the current
	// spec.
	AgentRuntimeReasonRolloutIdle = "RolloutIdle"
	// AgentRuntimeReasonRolloutPromoted (RolloutActive=False, not named by the
	// spec): the last rollout ended with the candidate promoted into the spec.
	AgentRuntimeReasonRolloutPromoted = "RolloutPromoted"
	// AgentRuntimeReasonRolloutRolledBack (RolloutActive=False, not named by the
	// spec): the last rollout was rolled back automatically (a failed analysis,
	// or the candidate's ProgressDeadlineExceeded); spec.rollout.candidate was
	// set back to match the spec.
	AgentRuntimeReasonRolloutRolledBack = "RolloutRolledBack"
	// AgentRuntimeReasonRolloutAborted (RolloutActive=False, not named by the
	// spec): a person removed spec.rollout.candidate during the rollout.
	AgentRuntimeReasonRolloutAborted = "RolloutAborted"
)

const (
	// AgentRuntimeConditionTrafficRouting: the traffic-routing health of a
	// rollout: True with the mode in use delivering the candidate's weight,
	// False when the requested mode degraded to replicaWeighted. Present only
	// on an agent with spec.rollout.
	AgentRuntimeConditionTrafficRouting = "TrafficRouting"
	// AgentRuntimeReasonMeshRouting (TrafficRouting=True, not named by the
	// spec): the operator-owned VirtualService delivers the weight.
	AgentRuntimeReasonMeshRouting = "MeshRouting"
	// AgentRuntimeReasonExternalRouting (TrafficRouting=True, not named by the
	// spec): the named routes of the user's VirtualService deliver the weight.
	AgentRuntimeReasonExternalRouting = "ExternalRouting"
	// AgentRuntimeReasonReplicaWeighted (TrafficRouting=True, not named by the
	// spec): replicaWeighted was asked for (or resolved from an unset mode
	// without a mesh); the weight is the replica ratio.
	AgentRuntimeReasonReplicaWeighted = "ReplicaWeighted"
	// AgentRuntimeReasonMeshNotInstalled (TrafficRouting=False, not named by the
	// spec): mesh or external was asked for but Istio's VirtualService kind is
	// not served; degraded to replicaWeighted.
	AgentRuntimeReasonMeshNotInstalled = "MeshNotInstalled"
	// AgentRuntimeReasonExternalObjectNotFound (TrafficRouting=False, not named
	// by the spec): mode external names a VirtualService, DestinationRule or
	// route that does not exist; degraded to replicaWeighted.
	AgentRuntimeReasonExternalObjectNotFound = "ExternalObjectNotFound"
)
