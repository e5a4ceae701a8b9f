package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AgentRuntimeRollout configures a progressive rollout of a candidate version.
type AgentRuntimeRollout struct {
	// candidate holds sparse overrides for the candidate version. Unset means
	// no rollout is active; equal to the current spec means idle.
	// +optional
	Candidate *AgentRuntimeRolloutCandidate `json:"candidate,omitempty"`

	// steps is the ordered sequence of rollout actions, at least one; each
	// step sets exactly one of setWeight, pause and analysis.
	// +kubebuilder:validation:MinItems=1
	// +required
	Steps []AgentRuntimeRolloutStep `json:"steps"`

	// stickySession routes a user consistently for experiments; applied
	// only with trafficRouting.istio.
	// +optional
	StickySession *AgentRuntimeRolloutStickySession `json:"stickySession,omitempty"`

	// rollback configures when the candidate is rolled back. Defaults to manual.
	// +kubebuilder:default={}
	// +optional
	Rollback *AgentRuntimeRolloutRollback `json:"rollback,omitempty"`

	// trafficRouting says how a step's weight is delivered.
	// +optional
	TrafficRouting *AgentRuntimeRolloutTrafficRouting `json:"trafficRouting,omitempty"`

	// trigger starts a version-triggered canary: a newer version on the
	// channel becomes rollout.candidate. Requires spec.promptPackRef.version
	// and excludes spec.promptPackRef.track.
	// +optional
	Trigger *AgentRuntimeRolloutTrigger `json:"trigger,omitempty"`
}

// AgentRuntimeRolloutCandidate holds the candidate version's overrides.
type AgentRuntimeRolloutCandidate struct {
	// promptPackRef is the candidate's PromptPack (name, and version or
	// track, as in spec.promptPackRef).
	// +optional
	PromptPackRef *AgentRuntimePromptPackRef `json:"promptPackRef,omitempty"`

	// providerRefs is the candidate's provider list, shaped as spec.providers.
	// +optional
	ProviderRefs AgentRuntimeProviders `json:"providerRefs,omitempty"`

	// toolRegistryRef overrides the ToolRegistry for the candidate.
	// +optional
	ToolRegistryRef *NamespacedObjectReference `json:"toolRegistryRef,omitempty"`
}

// AgentRuntimeRolloutStep is one rollout action; exactly one field is set.
// +kubebuilder:validation:XValidation:rule="(has(self.setWeight) ? 1 : 0) + (has(self.pause) ? 1 : 0) + (has(self.analysis) ? 1 : 0) == 1",message="[agentruntime/rollout-step-exactly-one] each spec.rollout.steps[] entry sets exactly one of setWeight, pause and analysis"
type AgentRuntimeRolloutStep struct {
	// setWeight sets the candidate's traffic weight, 0 to 100.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	SetWeight *int32 `json:"setWeight,omitempty"`

	// pause pauses the rollout, for a duration or until manual promotion.
	// +optional
	Pause *AgentRuntimeRolloutPause `json:"pause,omitempty"`

	// analysis runs a RolloutAnalysis template; the rollout advances only
	// if it passes (enterprise).
	// +optional
	Analysis *AgentRuntimeRolloutAnalysis `json:"analysis,omitempty"`
}

// AgentRuntimeRolloutPause pauses a rollout.
type AgentRuntimeRolloutPause struct {
	// duration is how long to pause (e.g. 5m). Omit to wait for manual promotion.
	// +optional
	Duration string `json:"duration,omitempty"`
}

// AgentRuntimeRolloutAnalysis runs a RolloutAnalysis template.
type AgentRuntimeRolloutAnalysis struct {
	// templateName names the RolloutAnalysis in the agent's namespace.
	// +required
	TemplateName string `json:"templateName"`

	// args override the template's arguments.
	// +optional
	Args []AgentRuntimeRolloutAnalysisArg `json:"args,omitempty"`
}

// AgentRuntimeRolloutAnalysisArg overrides one analysis template argument.
type AgentRuntimeRolloutAnalysisArg struct {
	// name is the argument's name.
	// +required
	Name string `json:"name"`
	// value is the argument's value.
	// +optional
	Value string `json:"value,omitempty"`
}

// AgentRuntimeRolloutStickySession configures consistent routing.
type AgentRuntimeRolloutStickySession struct {
	// hashOn is the header hashed for consistent routing (e.g. x-user-id).
	// +required
	HashOn string `json:"hashOn"`
}

// AgentRuntimeRollbackMode is when a rollout rolls back.
// +kubebuilder:validation:Enum=automatic;manual;disabled
type AgentRuntimeRollbackMode string

// AgentRuntimeRolloutRollback configures rollback.
type AgentRuntimeRolloutRollback struct {
	// mode is automatic (roll back when an analysis step fails or the
	// candidate reports ProgressDeadlineExceeded), manual (default; never
	// rolls back on its own) or disabled (same as manual).
	// +kubebuilder:default=manual
	// +optional
	Mode AgentRuntimeRollbackMode `json:"mode,omitempty"`

	// progressDeadlineSeconds sets the candidate Deployment's
	// spec.progressDeadlineSeconds, at least 10. Unset inherits the
	// Kubernetes default (600s).
	// +kubebuilder:validation:Minimum=10
	// +optional
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty"`
}

// AgentRuntimeTrafficRoutingMode is how a rollout weight is delivered.
// +kubebuilder:validation:Enum=mesh;replicaWeighted;external
type AgentRuntimeTrafficRoutingMode string

// AgentRuntimeRolloutTrafficRouting says how a step's weight is delivered.
type AgentRuntimeRolloutTrafficRouting struct {
	// mode is mesh, replicaWeighted or external. Unset resolves to mesh when
	// the mesh is available, else replicaWeighted; with istio set and no
	// mode it resolves to external.
	// +optional
	Mode AgentRuntimeTrafficRoutingMode `json:"mode,omitempty"`

	// mesh configures the operator-owned VirtualService (mode mesh).
	// +optional
	Mesh *AgentRuntimeRolloutMesh `json:"mesh,omitempty"`

	// istio names an existing VirtualService and DestinationRule to patch
	// (mode external).
	// +optional
	Istio *AgentRuntimeRolloutIstio `json:"istio,omitempty"`
}

// AgentRuntimeRolloutMesh configures the operator-owned mesh routing.
type AgentRuntimeRolloutMesh struct {
	// hosts are the hosts the operator-owned VirtualService matches.
	// Defaults to the agent's own Service DNS name.
	// +optional
	Hosts []string `json:"hosts,omitempty"`
	// stableSubset is the DestinationRule subset for stable. Defaults to stable.
	// +kubebuilder:default=stable
	// +optional
	StableSubset string `json:"stableSubset,omitempty"`
	// candidateSubset is the DestinationRule subset for the candidate.
	// Defaults to canary.
	// +kubebuilder:default=canary
	// +optional
	CandidateSubset string `json:"candidateSubset,omitempty"`
	// waypoint is the Istio ambient waypoint; the agent Service is labelled
	// istio.io/use-waypoint=<waypoint>.
	// +optional
	Waypoint string `json:"waypoint,omitempty"`
}

// AgentRuntimeRolloutIstio names existing Istio objects to patch.
type AgentRuntimeRolloutIstio struct {
	// virtualService is the existing VirtualService to patch.
	// +required
	VirtualService AgentRuntimeRolloutVirtualService `json:"virtualService"`
	// destinationRule is the existing DestinationRule to patch.
	// +required
	DestinationRule AgentRuntimeRolloutDestinationRule `json:"destinationRule"`
}

// AgentRuntimeRolloutVirtualService names a VirtualService and the routes to manage.
type AgentRuntimeRolloutVirtualService struct {
	// name is the VirtualService's name.
	// +required
	Name string `json:"name"`
	// routes are the route names to manage, at least one.
	// +kubebuilder:validation:MinItems=1
	// +required
	Routes []string `json:"routes"`
}

// AgentRuntimeRolloutDestinationRule names a DestinationRule and its subsets.
type AgentRuntimeRolloutDestinationRule struct {
	// name is the DestinationRule's name.
	// +required
	Name string `json:"name"`
	// stableSubset is the subset for stable. Defaults to stable.
	// +kubebuilder:default=stable
	// +optional
	StableSubset string `json:"stableSubset,omitempty"`
	// candidateSubset is the subset for the candidate. Defaults to canary.
	// +kubebuilder:default=canary
	// +optional
	CandidateSubset string `json:"candidateSubset,omitempty"`
}

// AgentRuntimeRolloutTrigger starts a version-triggered canary.
type AgentRuntimeRolloutTrigger struct {
	// promptPackChannel is the channel (stable or prerelease) watched for a
	// version newer than the agent's active one.
	// +required
	PromptPackChannel AgentRuntimePromptPackTrack `json:"promptPackChannel"`
}

// AgentRuntimeRolloutStatus reports rollout progress.
type AgentRuntimeRolloutStatus struct {
	// active is true while a rollout is in progress.
	// +optional
	Active bool `json:"active"`
	// currentStep is the current step index, zero-based.
	// +optional
	CurrentStep *int32 `json:"currentStep,omitempty"`
	// currentWeight is the candidate's current traffic weight.
	// +optional
	CurrentWeight *int32 `json:"currentWeight,omitempty"`
	// stableVersion is the version serving stable traffic.
	// +optional
	StableVersion string `json:"stableVersion,omitempty"`
	// candidateVersion is the version serving candidate traffic.
	// +optional
	CandidateVersion string `json:"candidateVersion,omitempty"`
	// startedAt is when the rollout began.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
	// stepStartedAt is when the current step began.
	// +optional
	StepStartedAt *metav1.Time `json:"stepStartedAt,omitempty"`
	// message is the human-readable rollout state.
	// +optional
	Message string `json:"message,omitempty"`
	// trafficRoutingMode is the traffic-routing mode actually in use.
	// +optional
	TrafficRoutingMode AgentRuntimeTrafficRoutingMode `json:"trafficRoutingMode,omitempty"`
	// trafficWeightEnforced is false when the weight is approximated by replica ratio.
	// +optional
	TrafficWeightEnforced *bool `json:"trafficWeightEnforced,omitempty"`
	// analysis is the progress of the analysis step being executed.
	// +optional
	Analysis *AgentRuntimeRolloutAnalysisStatus `json:"analysis,omitempty"`
	// promoting is true while a promotion is in progress.
	// +optional
	Promoting bool `json:"promoting,omitempty"`
}

// AgentRuntimeRolloutAnalysisStatus is the progress of a running analysis step.
type AgentRuntimeRolloutAnalysisStatus struct {
	// templateName is the RolloutAnalysis being run.
	// +optional
	TemplateName string `json:"templateName,omitempty"`
	// phase is the analysis run's phase.
	// +optional
	Phase string `json:"phase,omitempty"`
	// startedAt is when the analysis began.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
	// message describes the analysis state.
	// +optional
	Message string `json:"message,omitempty"`
	// nextMeasurementAt is when the next measurement is due; unset once
	// the analysis has finished.
	// +optional
	NextMeasurementAt *metav1.Time `json:"nextMeasurementAt,omitempty"`
	// metrics is each metric's progress, in the template's order.
	// +kubebuilder:validation:MaxItems=8
	// +optional
	Metrics []AgentRuntimeRolloutAnalysisMetricStatus `json:"metrics,omitempty"`
}

// AgentRuntimeRolloutAnalysisMetricStatus is one metric's progress in a
// running analysis.
type AgentRuntimeRolloutAnalysisMetricStatus struct {
	// name is the metric's name in the template.
	// +kubebuilder:validation:MaxLength=63
	// +required
	Name string `json:"name"`
	// measurements is how many measurements were taken.
	// +optional
	Measurements int32 `json:"measurements"`
	// successes is how many measurements met the successCondition.
	// +optional
	Successes int32 `json:"successes"`
	// failures is how many did not (or could not be taken).
	// +optional
	Failures int32 `json:"failures"`
	// lastResult is the last measurement's values, as text (bounded).
	// +kubebuilder:validation:MaxLength=256
	// +optional
	LastResult string `json:"lastResult,omitempty"`
	// lastError is why the last measurement failed to be taken; empty when
	// it was taken.
	// +kubebuilder:validation:MaxLength=512
	// +optional
	LastError string `json:"lastError,omitempty"`
}

// AgentRuntimeRolloutPromoteAnnotation promotes an active rollout by hand:
// set it to "true" on the AgentRuntime and the controller promotes the
// candidate at once (whatever step it is on: a pause without a duration,
// an analysis that failed under rollback mode manual), then removes the
// annotation. On an agent with no active rollout it is removed and ignored.
const AgentRuntimeRolloutPromoteAnnotation = "omnia.altairalabs.ai/rollout-promote"
