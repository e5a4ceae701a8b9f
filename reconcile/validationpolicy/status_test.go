package validationpolicy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/policies"
	"github.com/altairalabs/omnia/rules"
)

func ruleErrors(n int) []v1alpha1.ValidationPolicyRuleError {
	out := make([]v1alpha1.ValidationPolicyRuleError, n)
	for i := range out {
		out[i] = v1alpha1.ValidationPolicyRuleError{Rule: fmt.Sprintf("policy/p/r%d", i), Field: fmt.Sprintf("spec.rules[%d].cel", i), Message: "undefined field 'nope'"}
	}
	return out
}

func TestStatus(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	ready := func(status metav1.ConditionStatus, reason string, gen int64, at metav1.Time) v1alpha1.ValidationPolicyStatus {
		return v1alpha1.ValidationPolicyStatus{ObservedGeneration: gen, Conditions: []metav1.Condition{{
			Type: v1alpha1.ValidationPolicyConditionReady, Status: status, Reason: reason, ObservedGeneration: gen, LastTransitionTime: at, Message: "old"}}}
	}
	compiled := &policies.Compiled{Name: "p", Generation: 2, Rules: []rules.Rule{{ID: "policy/p/a"}, {ID: "policy/p/b"}}}
	for _, tc := range []struct {
		name          string
		old           v1alpha1.ValidationPolicyStatus
		compiled      *policies.Compiled
		wantStatus    metav1.ConditionStatus
		wantReason    string
		wantErrors    int
		wantMessage   []string // substrings
		wantNotInMsg  string
		wantUnchanged bool // lastTransitionTime kept
	}{
		{name: "compiled: Ready True", compiled: compiled,
			wantStatus: metav1.ConditionTrue, wantReason: v1alpha1.ValidationPolicyReasonCompiled, wantMessage: []string{"2 rules compiled and in force"}},
		{name: "compile errors: Ready False, each error in ruleErrors and in the message", compiled: &policies.Compiled{Name: "p", Errors: ruleErrors(2)},
			wantStatus: metav1.ConditionFalse, wantReason: v1alpha1.ValidationPolicyReasonCompileFailed, wantErrors: 2,
			wantMessage: []string{"2 compile errors", "[policy/p/r0] spec.rules[0].cel: undefined field 'nope'", "[policy/p/r1] spec.rules[1].cel"}},
		{name: "many errors: ruleErrors bounded at 128, the message summarises five", compiled: &policies.Compiled{Name: "p", Errors: ruleErrors(200)},
			wantStatus: metav1.ConditionFalse, wantReason: v1alpha1.ValidationPolicyReasonCompileFailed, wantErrors: MaxRuleErrors,
			wantMessage: []string{"200 compile errors", "[policy/p/r4]", "and 195 more (status.ruleErrors)"}, wantNotInMsg: "[policy/p/r5]"},
		{name: "fixed: errors cleared, Ready turns True at now", old: func() v1alpha1.ValidationPolicyStatus {
			st := ready(metav1.ConditionFalse, v1alpha1.ValidationPolicyReasonCompileFailed, 1, t0)
			st.RuleErrors = ruleErrors(1)
			return st
		}(), compiled: compiled, wantStatus: metav1.ConditionTrue, wantReason: v1alpha1.ValidationPolicyReasonCompiled},
		{name: "still compiled at a new generation: the transition time is kept", old: ready(metav1.ConditionTrue, v1alpha1.ValidationPolicyReasonCompiled, 1, t0),
			compiled: compiled, wantStatus: metav1.ConditionTrue, wantReason: v1alpha1.ValidationPolicyReasonCompiled, wantUnchanged: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oldCopy := tc.old.DeepCopy()
			st := Status(tc.old, 2, tc.compiled, t1)
			if st.ObservedGeneration != 2 {
				t.Errorf("observedGeneration %d, want 2", st.ObservedGeneration)
			}
			c := meta.FindStatusCondition(st.Conditions, v1alpha1.ValidationPolicyConditionReady)
			if c == nil {
				t.Fatal("no Ready condition")
			}
			if c.Status != tc.wantStatus || c.Reason != tc.wantReason || c.ObservedGeneration != 2 {
				t.Errorf("Ready %s/%s gen %d, want %s/%s gen 2", c.Status, c.Reason, c.ObservedGeneration, tc.wantStatus, tc.wantReason)
			}
			for _, want := range tc.wantMessage {
				if !strings.Contains(c.Message, want) {
					t.Errorf("message %q does not contain %q", c.Message, want)
				}
			}
			if tc.wantNotInMsg != "" && strings.Contains(c.Message, tc.wantNotInMsg) {
				t.Errorf("message %q lists %q beyond the summary", c.Message, tc.wantNotInMsg)
			}
			if len(c.Message) > maxReadyMessage {
				t.Errorf("message of %d bytes, over %d", len(c.Message), maxReadyMessage)
			}
			if len(st.RuleErrors) != tc.wantErrors {
				t.Errorf("%d ruleErrors, want %d", len(st.RuleErrors), tc.wantErrors)
			}
			wantAt := t1
			if tc.wantUnchanged {
				wantAt = t0
			}
			if !c.LastTransitionTime.Equal(&wantAt) {
				t.Errorf("lastTransitionTime %v, want %v", c.LastTransitionTime, wantAt)
			}
			if len(st.Conditions) != 1 {
				t.Errorf("conditions %+v, want Ready alone", st.Conditions)
			}
			if !equalStatus(*oldCopy, tc.old) {
				t.Error("Status modified its input")
			}
		})
	}
}

func equalStatus(a, b v1alpha1.ValidationPolicyStatus) bool {
	return fmt.Sprintf("%+v", a) == fmt.Sprintf("%+v", b)
}
