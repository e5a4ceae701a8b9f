package agentruntime

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// TestCapabilityConditions: the two conditions and the scale-to-zero
// decision for each state of the report, from the same rule findings the
// controller uses.
func TestCapabilityConditions(t *testing.T) {
	duplex := func(a *v1alpha1.AgentRuntime) { a.Spec.Duplex = &v1alpha1.AgentRuntimeDuplex{Enabled: true} }
	report := func(gen, observed int64, caps ...string) func(*v1alpha1.AgentRuntime) {
		return func(a *v1alpha1.AgentRuntime) {
			a.Generation, a.Status.ObservedGeneration, a.Status.RuntimeCapabilities = gen, observed, caps
		}
	}
	for _, tc := range []struct {
		name                string
		mut                 []func(*v1alpha1.AgentRuntime)
		reported, satisfied string // status/reason
		zero                bool
		kept                []string
	}{
		{"nothing required, nothing reported", nil,
			"False/" + v1alpha1.AgentRuntimeReasonAwaitingRuntimeReport, "True/" + v1alpha1.AgentRuntimeReasonNoRuntimeCapabilitiesRequired, false, nil},
		{"nothing required, a report", []func(*v1alpha1.AgentRuntime){report(1, 1, "streaming")},
			"True/" + v1alpha1.AgentRuntimeReasonRuntimeCapabilitiesReported, "True/" + v1alpha1.AgentRuntimeReasonNoRuntimeCapabilitiesRequired, false, []string{"streaming"}},
		{"duplex before any report: runs, so a pod can report", []func(*v1alpha1.AgentRuntime){duplex, report(1, 1)},
			"False/" + v1alpha1.AgentRuntimeReasonAwaitingRuntimeReport, "Unknown/" + v1alpha1.AgentRuntimeReasonAwaitingRuntimeReport, false, nil},
		{"duplex, report satisfies", []func(*v1alpha1.AgentRuntime){duplex, report(1, 1, "duplex_audio", "interruption")},
			"True/" + v1alpha1.AgentRuntimeReasonRuntimeCapabilitiesReported, "True/" + v1alpha1.AgentRuntimeReasonRuntimeCapabilitiesSatisfied, false, []string{"duplex_audio", "interruption"}},
		{"duplex, report lacks one: zero", []func(*v1alpha1.AgentRuntime){duplex, report(1, 1, "duplex_audio")},
			"True/" + v1alpha1.AgentRuntimeReasonRuntimeCapabilitiesReported, "False/" + v1alpha1.AgentRuntimeReasonRuntimeCapabilitiesMissing, true, []string{"duplex_audio"}},
		{"duplex, lacking report of the previous generation: cleared, runs", []func(*v1alpha1.AgentRuntime){duplex, report(2, 1, "duplex_audio")},
			"False/" + v1alpha1.AgentRuntimeReasonAwaitingRuntimeReport, "Unknown/" + v1alpha1.AgentRuntimeReasonAwaitingRuntimeReport, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := agent(tc.mut...)
			findings := rules.Default.Evaluate("AgentRuntime", rules.Input{Object: ar, Facts: rules.NoFacts{}}, rules.Options{})
			rep, sat := capabilityConditions(ar, findings)
			if got := string(rep.Status) + "/" + rep.Reason; got != tc.reported || rep.Type != v1alpha1.AgentRuntimeConditionRuntimeCapabilitiesReported {
				t.Errorf("%s = %s, want %s", rep.Type, got, tc.reported)
			}
			if got := string(sat.Status) + "/" + sat.Reason; got != tc.satisfied || sat.Type != v1alpha1.AgentRuntimeConditionCapabilitiesSatisfied {
				t.Errorf("%s = %s, want %s", sat.Type, got, tc.satisfied)
			}
			if rep.ObservedGeneration != ar.Generation || sat.ObservedGeneration != ar.Generation {
				t.Errorf("observedGeneration %d/%d, want %d", rep.ObservedGeneration, sat.ObservedGeneration, ar.Generation)
			}
			if got := capabilitiesScaleToZero(findings); got != tc.zero {
				t.Errorf("scale to zero = %v, want %v", got, tc.zero)
			}
			if got := runtimeCapabilitiesKept(ar); !slices.Equal(got, tc.kept) {
				t.Errorf("kept report %v, want %v", got, tc.kept)
			}
		})
	}
}

func TestRuntimeCapabilitiesChangedPredicate(t *testing.T) {
	p := runtimeCapabilitiesChanged()
	withCaps := func(caps ...string) *v1alpha1.AgentRuntime {
		return agent(func(a *v1alpha1.AgentRuntime) { a.Status.RuntimeCapabilities = caps })
	}
	for _, tc := range []struct {
		name     string
		old, new *v1alpha1.AgentRuntime
		want     bool
	}{
		{"first report", withCaps(), withCaps("duplex_audio"), true},
		{"report changed", withCaps("duplex_audio"), withCaps("duplex_audio", "interruption"), true},
		{"report cleared", withCaps("duplex_audio"), withCaps(), true},
		{"same report", withCaps("duplex_audio"), withCaps("duplex_audio"), false},
		{"another status field", withCaps("a"), func() *v1alpha1.AgentRuntime {
			a := withCaps("a")
			a.Status.Invocations = &v1alpha1.AgentRuntimeInvocationStatus{Total: 3}
			a.Status.Conditions = []metav1.Condition{{Type: "Ready"}}
			return a
		}(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.Update(event.UpdateEvent{ObjectOld: tc.old, ObjectNew: tc.new}); got != tc.want {
				t.Errorf("Update = %v, want %v", got, tc.want)
			}
		})
	}
	if p.Create(event.CreateEvent{Object: withCaps()}) {
		t.Error("Create passed: creations are the generation predicate's")
	}
}
