package agentruntime

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/rules"
)

// Runtime capabilities (agentruntime.md#conditions): the runtime writes the
// contract capabilities it advertises to status.runtimeCapabilities; the
// spec's requirements are rules.AgentRuntimeRequiredRuntimeCapabilities; the
// rule agentruntime/runtime-capabilities-satisfied compares them.
//
// When the Deployment is scaled to zero, precisely: when that rule has a
// finding, i.e. the runtime reported (a non-empty list) while the agent was
// at its current generation, and the report lacks a required capability.
// At no other time:
//
//   - before any report the Deployment runs (RuntimeCapabilitiesReported
//     False, CapabilitiesSatisfied Unknown): only a running pod can report,
//     so holding it at zero then would wait forever;
//   - on a new generation the controller clears the previous report from
//     status (it came from the previous generation's pods, and the new spec
//     may name a new image) and the Deployment runs again until the new
//     pods report. So a fix that changes the spec — another framework.image,
//     duplex turned off — always gets pods that can report, and an agent is
//     never kept at zero by a report that predates its spec.
//
// A fix that changes no generation (an operator restarted with another
// --framework-image) keeps the agent at zero until its spec is next edited:
// nothing tells the controller that the report no longer describes the
// image that would run.

// capabilitiesScaleToZero reports whether the Deployment is held at zero
// replicas: the capabilities rule found a required capability missing from
// a report made at the current generation (see above).
func capabilitiesScaleToZero(findings []rules.Finding) bool {
	return len(byCondition(findings, v1alpha1.AgentRuntimeConditionCapabilitiesSatisfied)) > 0
}

// runtimeCapabilitiesKept is status.runtimeCapabilities as the controller
// writes it back: the report, unless the controller is observing a new
// generation, whose pods have not reported yet (the report is cleared).
func runtimeCapabilitiesKept(ar *v1alpha1.AgentRuntime) []string {
	if ar.Status.ObservedGeneration != ar.Generation {
		return nil
	}
	return ar.Status.RuntimeCapabilities
}

// capabilityConditions are RuntimeCapabilitiesReported and
// CapabilitiesSatisfied for the agent as stored (its report and observed
// generation) and the rule findings.
func capabilityConditions(ar *v1alpha1.AgentRuntime, findings []rules.Finding) (reported, satisfied metav1.Condition) {
	gen := ar.Generation
	required := rules.AgentRuntimeRequiredRuntimeCapabilities(ar)
	isReported := rules.AgentRuntimeRuntimeCapabilitiesReported(ar)

	reported = metav1.Condition{Type: v1alpha1.AgentRuntimeConditionRuntimeCapabilitiesReported, ObservedGeneration: gen,
		Status: metav1.ConditionFalse, Reason: v1alpha1.AgentRuntimeReasonAwaitingRuntimeReport,
		Message: "the runtime has not reported its capabilities for this generation (status.runtimeCapabilities)"}
	if isReported {
		reported.Status, reported.Reason = metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonRuntimeCapabilitiesReported
		reported.Message = conditions.Truncate("the runtime reported: "+strings.Join(ar.Status.RuntimeCapabilities, ", "), 4096)
	}

	switch {
	case len(required) == 0:
		satisfied = metav1.Condition{Type: v1alpha1.AgentRuntimeConditionCapabilitiesSatisfied, Status: metav1.ConditionTrue,
			Reason: v1alpha1.AgentRuntimeReasonNoRuntimeCapabilitiesRequired, Message: "the spec requires no runtime capability", ObservedGeneration: gen}
	case !isReported:
		satisfied = metav1.Condition{Type: v1alpha1.AgentRuntimeConditionCapabilitiesSatisfied, Status: metav1.ConditionUnknown,
			Reason: v1alpha1.AgentRuntimeReasonAwaitingRuntimeReport, ObservedGeneration: gen,
			Message: "waiting for the runtime to report; the spec requires " + strings.Join(required, ", ")}
	default:
		satisfied = conditions.FromFindings(v1alpha1.AgentRuntimeConditionCapabilitiesSatisfied,
			byCondition(findings, v1alpha1.AgentRuntimeConditionCapabilitiesSatisfied),
			v1alpha1.AgentRuntimeReasonRuntimeCapabilitiesSatisfied, "the runtime advertises every required capability: "+strings.Join(required, ", "),
			v1alpha1.AgentRuntimeReasonRuntimeCapabilitiesMissing, gen)
	}
	return reported, satisfied
}
