package agentruntime

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// setRolloutStatus: status.rollout and RolloutActive from the outcome
// (then, as in computeStatus, the traffic fields from the traffic outcome);
// nothing without an outcome.
func TestSetRolloutStatus(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC))
	for _, tc := range []struct {
		name       string
		out        *rolloutOutcome
		wantStatus metav1.ConditionStatus
		wantReason string
		wantMode   v1alpha1.AgentRuntimeTrafficRoutingMode
	}{
		{"no outcome: untouched", nil, "", "", ""},
		{"active, paused", &rolloutOutcome{status: &v1alpha1.AgentRuntimeRolloutStatus{Active: true}, active: true,
			reason: v1alpha1.AgentRuntimeReasonRolloutPaused, message: "step 2/3 (pause 5m): paused",
			traffic: &trafficOutcome{Mode: "replicaWeighted"}}, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonRolloutPaused, "replicaWeighted"},
		{"ended, rolled back", &rolloutOutcome{status: &v1alpha1.AgentRuntimeRolloutStatus{}, reason: v1alpha1.AgentRuntimeReasonRolloutRolledBack,
			message: "rolled back"}, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonRolloutRolledBack, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := agent(withRollout(candV2, nil))
			st := &v1alpha1.AgentRuntimeStatus{}
			setRolloutStatus(st, ar, statusInput{rollout: tc.out, now: now})
			setTrafficRoutingStatus(st, ar, tc.out.trafficOutcome(), now) // as computeStatus does next
			c := meta.FindStatusCondition(st.Conditions, v1alpha1.AgentRuntimeConditionRolloutActive)
			if tc.out == nil {
				if c != nil || st.Rollout != nil {
					t.Errorf("no outcome set %+v / %+v", c, st.Rollout)
				}
				return
			}
			if c == nil || c.Status != tc.wantStatus || c.Reason != tc.wantReason || c.Message != tc.out.message {
				t.Errorf("RolloutActive %+v, want %s/%s", c, tc.wantStatus, tc.wantReason)
			}
			if st.Rollout == nil || st.Rollout.TrafficRoutingMode != tc.wantMode {
				t.Errorf("status.rollout %+v, want trafficRoutingMode %q", st.Rollout, tc.wantMode)
			}
			if tc.wantMode != "" && (st.Rollout.TrafficWeightEnforced == nil || *st.Rollout.TrafficWeightEnforced) {
				t.Errorf("trafficWeightEnforced %v, want false for replicaWeighted", st.Rollout.TrafficWeightEnforced)
			}
		})
	}
}

func TestRolloutOutcomeHold(t *testing.T) {
	o := &rolloutOutcome{status: &v1alpha1.AgentRuntimeRolloutStatus{}}
	if err := o.hold(v1alpha1.AgentRuntimeReasonRolloutProgressing, "waiting"); err != nil || o.reason != v1alpha1.AgentRuntimeReasonRolloutProgressing ||
		o.message != "waiting" || o.status.Message != "waiting" {
		t.Errorf("hold: %v %+v", err, o)
	}
}

// The promote annotation's watch passes a change of the annotation only.
func TestPromoteAnnotationChanged(t *testing.T) {
	p := promoteAnnotationChanged()
	with := func(v string) *v1alpha1.AgentRuntime {
		return agent(func(a *v1alpha1.AgentRuntime) {
			if v != "" {
				a.Annotations = map[string]string{v1alpha1.AgentRuntimeRolloutPromoteAnnotation: v}
			}
		})
	}
	for _, tc := range []struct {
		name     string
		old, cur string
		want     bool
	}{
		{"set", "", "true", true},
		{"removed", "true", "", true},
		{"unchanged", "true", "true", false},
		{"absent", "", "", false},
	} {
		if got := p.Update(event.UpdateEvent{ObjectOld: with(tc.old), ObjectNew: with(tc.cur)}); got != tc.want {
			t.Errorf("%s: Update = %v, want %v", tc.name, got, tc.want)
		}
	}
	if p.Create(event.CreateEvent{Object: with("true")}) || p.Delete(event.DeleteEvent{Object: with("true")}) {
		t.Errorf("create/delete passed")
	}
}
