package rules

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Runtime contract capabilities: what an agent's spec requires of the
// runtime it runs, against what the running runtime advertises in
// status.runtimeCapabilities (agentruntime.md#conditions,
// CapabilitiesSatisfied and RuntimeCapabilitiesReported).
//
// The spec names one requirement: spec.duplex.enabled makes the agent
// require the duplex_audio and interruption runtime capabilities
// (agentruntime.md#other-spec-fields). No other field is said to require a
// runtime capability, so none is invented here: an invented name would hold
// a real runtime that never advertises it at zero replicas.

// Runtime capabilities the spec names.
const (
	// AgentRuntimeCapabilityDuplexAudio: the runtime streams audio both ways.
	AgentRuntimeCapabilityDuplexAudio = "duplex_audio"
	// AgentRuntimeCapabilityInterruption: the runtime handles a caller
	// interrupting its output.
	AgentRuntimeCapabilityInterruption = "interruption"
)

func init() {
	Default.Register(Rule{
		ID:        "agentruntime/runtime-capabilities-satisfied",
		Kinds:     agentRuntimeKinds,
		Stage:     StageReconcile,
		Severity:  SeverityWarn,
		Condition: v1alpha1.AgentRuntimeConditionCapabilitiesSatisfied,
		Reason:    v1alpha1.AgentRuntimeReasonRuntimeCapabilitiesMissing,
		Doc: "Once the runtime has reported its capabilities for the current generation (status.runtimeCapabilities non-empty and " +
			"status.observedGeneration equal to metadata.generation), it advertises every capability the spec requires " +
			"(spec.duplex.enabled: " + AgentRuntimeCapabilityDuplexAudio + " and " + AgentRuntimeCapabilityInterruption + "); " +
			"a missing one scales the Deployment to zero. Before a report nothing is decided, so the pods that report can start.",
		Spec:  "agentruntime.md#conditions",
		Check: checkAgentRuntimeRuntimeCapabilities,
	})
}

// AgentRuntimeRequiredRuntimeCapabilities returns the runtime capabilities
// the agent's spec requires, sorted and without duplicates; nil when it
// requires none.
func AgentRuntimeRequiredRuntimeCapabilities(ar *v1alpha1.AgentRuntime) []string {
	if ar == nil {
		return nil
	}
	var req []string
	if d := ar.Spec.Duplex; d != nil && d.Enabled {
		req = append(req, AgentRuntimeCapabilityDuplexAudio, AgentRuntimeCapabilityInterruption)
	}
	slices.Sort(req)
	return slices.Compact(req)
}

// AgentRuntimeRuntimeCapabilitiesReported reports whether the runtime has
// reported its capabilities for the agent's current generation: the list is
// non-empty and the controller has observed the current generation. The
// controller clears status.runtimeCapabilities when it first observes a new
// generation (the report came from the previous generation's pods), so a
// list present at the observed generation was written by a runtime of that
// generation. An empty list is no report: it cannot be told apart from a
// runtime that has not written yet.
func AgentRuntimeRuntimeCapabilitiesReported(ar *v1alpha1.AgentRuntime) bool {
	return ar != nil && len(ar.Status.RuntimeCapabilities) > 0 && ar.Status.ObservedGeneration == ar.Generation
}

// AgentRuntimeMissingRuntimeCapabilities returns the required capabilities
// the reported list lacks, sorted; nil when every one is advertised or when
// the runtime has not reported for the current generation (nothing can be
// missing from a report that was not made).
func AgentRuntimeMissingRuntimeCapabilities(ar *v1alpha1.AgentRuntime) []string {
	if !AgentRuntimeRuntimeCapabilitiesReported(ar) {
		return nil
	}
	var missing []string
	for _, c := range AgentRuntimeRequiredRuntimeCapabilities(ar) {
		if !slices.Contains(ar.Status.RuntimeCapabilities, c) {
			missing = append(missing, c)
		}
	}
	return missing
}

func checkAgentRuntimeRuntimeCapabilities(in Input) field.ErrorList {
	ar, _ := in.Object.(*v1alpha1.AgentRuntime)
	missing := AgentRuntimeMissingRuntimeCapabilities(ar)
	if len(missing) == 0 {
		return nil
	}
	reported := slices.Clone(ar.Status.RuntimeCapabilities)
	slices.Sort(reported)
	return field.ErrorList{field.Invalid(field.NewPath("status", "runtimeCapabilities"), strings.Join(reported, ","),
		"the runtime does not advertise "+strings.Join(missing, ", ")+", which spec.duplex.enabled requires; "+
			"the Deployment is held at zero replicas: run an image that implements them (framework.image) or set spec.duplex.enabled to false")}
}
