package v1alpha1

// Reasons of the AgentRuntime condition RolloutActive (agentruntime.md
// § rollout, § rollout (status)). The spec names the condition but none of
// its reasons; these are the operator's. RolloutActive is present only on an
// agent with spec.rollout (or a status.rollout left by a past rollout).
//
// True: a rollout is in progress.
const (
	// AgentRuntimeReasonRolloutProgressing: RolloutActive True, the
	// rollout is running a step (a setWeight waiting for the candidate's
	// replicas, or an analysis running).
	AgentRuntimeReasonRolloutProgressing = "RolloutProgressing"
	// AgentRuntimeReasonRolloutPaused: RolloutActive True, a pause step
	// holds the rollout (for its duration, or until a person promotes it).
	AgentRuntimeReasonRolloutPaused = "RolloutPaused"
	// AgentRuntimeReasonRolloutPromoting: RolloutActive True, the candidate
	// is being promoted (status.rollout.promoting).
	AgentRuntimeReasonRolloutPromoting = "RolloutPromoting"
	// AgentRuntimeReasonRolloutAnalysisFailed: RolloutActive True, an
	// analysis step failed under rollback mode manual or disabled: the
	// rollout holds until a person promotes or aborts it.
	AgentRuntimeReasonRolloutAnalysisFailed = "RolloutAnalysisFailed"
	// AgentRuntimeReasonRolloutCandidateUnhealthy: RolloutActive True, the
	// candidate Deployment reports ProgressDeadlineExceeded under rollback
	// mode manual or disabled: the rollout holds.
	AgentRuntimeReasonRolloutCandidateUnhealthy = "RolloutCandidateUnhealthy"
	// AgentRuntimeReasonRolloutCandidateHeld: RolloutActive True, the
	// candidate's inputs (its PromptPack, Providers) do not resolve, so no
	// candidate Deployment is built yet.
	AgentRuntimeReasonRolloutCandidateHeld = "RolloutCandidateHeld"
)

// False: no rollout is in progress.
const (
	// AgentRuntimeReasonRolloutIdle: RolloutActive False, spec.rollout has
	// no candidate, or a candidate equal to the current spec.
	AgentRuntimeReasonRolloutIdle = "RolloutIdle"
	// AgentRuntimeReasonRolloutPromoted: RolloutActive False, the last
	// rollout ended with the candidate promoted into the spec.
	AgentRuntimeReasonRolloutPromoted = "RolloutPromoted"
	// AgentRuntimeReasonRolloutRolledBack: RolloutActive False, the last
	// rollout was rolled back automatically (a failed analysis, or the
	// candidate's ProgressDeadlineExceeded); spec.rollout.candidate was set
	// back to match the spec.
	AgentRuntimeReasonRolloutRolledBack = "RolloutRolledBack"
	// AgentRuntimeReasonRolloutAborted: RolloutActive False, a person
	// removed spec.rollout.candidate during the rollout.
	AgentRuntimeReasonRolloutAborted = "RolloutAborted"
)

// AgentRuntimeRolloutPromoteAnnotation promotes an active rollout by hand:
// set it to "true" on the AgentRuntime and the controller promotes the
// candidate at once (whatever step it is on: a pause without a duration,
// an analysis that failed under rollback mode manual), then removes the
// annotation. On an agent with no active rollout it is removed and ignored.
const AgentRuntimeRolloutPromoteAnnotation = "omnia.altairalabs.ai/rollout-promote"
