package conditions

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSetPolicy(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	own := metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "ProviderReady", Message: "usable", LastTransitionTime: t0}
	endpoint := metav1.Condition{Type: "EndpointReachable", Status: metav1.ConditionTrue, Reason: "EndpointReachable", LastTransitionTime: t0}
	identity := finding{"policy/prod/workload-identity", "spec.credential", "", "use workload identity"}
	rateLimit := finding{"policy/agents/rate-limit", "spec.rateLimit", "", "set a rate limit"}
	many := make([]finding, 0, 25)
	for i := range 25 {
		many = append(many, finding{"policy/p/r", "spec.items[" + strconv.Itoa(10+i) + "]", "", "bad"})
	}

	type want struct {
		status   metav1.ConditionStatus
		reason   string
		contains []string
		lacks    []string
	}
	tests := []struct {
		name     string
		before   []metav1.Condition
		applying []PolicyRule[finding]
		reserved []string
		want     map[string]want // by type; every other policy type absent
		changed  bool
	}{
		{
			name:     "a rule with a condition sets that condition False with its finding",
			before:   []metav1.Condition{own},
			applying: []PolicyRule[finding]{{ID: identity.id, Condition: "WorkloadIdentity", Findings: []finding{identity}}},
			want: map[string]want{"WorkloadIdentity": {status: metav1.ConditionFalse, reason: ReasonPolicyViolation,
				contains: []string{"[policy/prod/workload-identity] spec.credential: use workload identity"}}},
			changed: true,
		},
		{
			name:     "a rule with a condition and no finding sets it True",
			before:   []metav1.Condition{own},
			applying: []PolicyRule[finding]{{ID: identity.id, Condition: "WorkloadIdentity"}},
			want: map[string]want{"WorkloadIdentity": {status: metav1.ConditionTrue, reason: ReasonPolicyCompliant,
				contains: []string{"policy/prod/workload-identity"}}},
			changed: true,
		},
		{
			name:   "rules without a condition share PolicyCompliant, which lists every finding",
			before: []metav1.Condition{own},
			applying: []PolicyRule[finding]{
				{ID: rateLimit.id, Findings: []finding{rateLimit}},
				{ID: identity.id, Findings: []finding{identity}},
				{ID: "policy/agents/quiet"},
			},
			want: map[string]want{ConditionPolicyCompliant: {status: metav1.ConditionFalse, reason: ReasonPolicyViolation,
				contains: []string{"[policy/agents/rate-limit] spec.rateLimit: set a rate limit", "[policy/prod/workload-identity] spec.credential: use workload identity"}}},
			changed: true,
		},
		{
			name:     "rules without a condition and no finding: PolicyCompliant True",
			applying: []PolicyRule[finding]{{ID: rateLimit.id}},
			want:     map[string]want{ConditionPolicyCompliant: {status: metav1.ConditionTrue, reason: ReasonCompliant, contains: []string{"policy/agents/rate-limit"}}},
			changed:  true,
		},
		{
			name: "no rule applying removes every policy condition, and only those",
			before: []metav1.Condition{own,
				{Type: ConditionPolicyCompliant, Status: metav1.ConditionTrue, Reason: ReasonCompliant, Message: "x", LastTransitionTime: t0},
				{Type: "WorkloadIdentity", Status: metav1.ConditionTrue, Reason: ReasonPolicyCompliant, Message: "x", LastTransitionTime: t0},
				{Type: "RateLimited", Status: metav1.ConditionFalse, Reason: ReasonPolicyViolation, Message: "x", LastTransitionTime: t0}},
			want:    map[string]want{},
			changed: true,
		},
		{
			name: "a condition whose rule no longer applies is removed, the others kept",
			before: []metav1.Condition{own,
				{Type: "WorkloadIdentity", Status: metav1.ConditionFalse, Reason: ReasonPolicyViolation, Message: "x", LastTransitionTime: t0}},
			applying: []PolicyRule[finding]{{ID: rateLimit.id, Condition: "RateLimited"}},
			want:     map[string]want{"RateLimited": {status: metav1.ConditionTrue, reason: ReasonPolicyCompliant}},
			changed:  true,
		},
		{
			name:     "a condition the reconciler owns is never overwritten: the finding goes to PolicyCompliant",
			before:   []metav1.Condition{own, endpoint},
			applying: []PolicyRule[finding]{{ID: identity.id, Condition: "EndpointReachable", Findings: []finding{identity}}, {ID: rateLimit.id, Condition: "Ready"}},
			want: map[string]want{ConditionPolicyCompliant: {status: metav1.ConditionFalse, reason: ReasonPolicyViolation,
				contains: []string{"[policy/prod/workload-identity]"}}},
			changed: true,
		},
		{
			name:     "a reserved condition type absent from the object is not set either",
			before:   []metav1.Condition{own},
			applying: []PolicyRule[finding]{{ID: identity.id, Condition: "CredentialValid", Findings: []finding{identity}}},
			reserved: []string{"CredentialValid"},
			want: map[string]want{ConditionPolicyCompliant: {status: metav1.ConditionFalse, reason: ReasonPolicyViolation,
				contains: []string{"[policy/prod/workload-identity]"}}},
			changed: true,
		},
		{
			name:     "the message is bounded: the first findings, then a count",
			applying: []PolicyRule[finding]{{ID: "policy/p/r", Findings: many}},
			want: map[string]want{ConditionPolicyCompliant: {status: metav1.ConditionFalse, reason: ReasonPolicyViolation,
				contains: []string{"spec.items[10]", "spec.items[29]", "and 5 more"}, lacks: []string{"spec.items[30]"}}},
			changed: true,
		},
		{
			name: "an unchanged verdict changes nothing",
			before: []metav1.Condition{own, {Type: ConditionPolicyCompliant, Status: metav1.ConditionFalse, Reason: ReasonPolicyViolation,
				Message: "[policy/agents/rate-limit] spec.rateLimit: set a rate limit", ObservedGeneration: 3, LastTransitionTime: t0}},
			applying: []PolicyRule[finding]{{ID: rateLimit.id, Findings: []finding{rateLimit}}},
			want:     map[string]want{ConditionPolicyCompliant: {status: metav1.ConditionFalse, reason: ReasonPolicyViolation}},
			changed:  false,
		},
		{
			name:    "nothing applying on an object without policy conditions changes nothing",
			before:  []metav1.Condition{own},
			want:    map[string]want{},
			changed: false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conds := append([]metav1.Condition(nil), tt.before...)
			now := metav1.NewTime(t0.Add(time.Hour))
			if got := SetPolicy(&conds, tt.applying, tt.reserved, 3, now); got != tt.changed {
				t.Errorf("changed = %v, want %v", got, tt.changed)
			}
			// The reconciler's own conditions are untouched.
			for _, b := range tt.before {
				if IsPolicyCondition(b) {
					continue
				}
				if c := meta.FindStatusCondition(conds, b.Type); c == nil || *c != b {
					t.Errorf("own condition %s changed: %+v", b.Type, c)
				}
			}
			for _, c := range conds {
				if !IsPolicyCondition(c) {
					continue
				}
				w, ok := tt.want[c.Type]
				if !ok {
					t.Errorf("policy condition %s lingers: %+v", c.Type, c)
					continue
				}
				if c.Status != w.status || c.Reason != w.reason || c.ObservedGeneration != 3 {
					t.Errorf("%s = %s/%s gen %d, want %s/%s gen 3", c.Type, c.Status, c.Reason, c.ObservedGeneration, w.status, w.reason)
				}
				for _, s := range w.contains {
					if !strings.Contains(c.Message, s) {
						t.Errorf("%s message %q lacks %q", c.Type, c.Message, s)
					}
				}
				for _, s := range w.lacks {
					if strings.Contains(c.Message, s) {
						t.Errorf("%s message %q holds %q", c.Type, c.Message, s)
					}
				}
			}
			for typ := range tt.want {
				if meta.FindStatusCondition(conds, typ) == nil {
					t.Errorf("condition %s not set", typ)
				}
			}
		})
	}
}

func TestSetPolicyBoundsBytes(t *testing.T) {
	long := make([]finding, 0, MaxPolicyFindings)
	for i := range MaxPolicyFindings {
		long = append(long, finding{"policy/p/r", "spec.f" + strconv.Itoa(i), "", strings.Repeat("é", 400)})
	}
	var conds []metav1.Condition
	SetPolicy(&conds, []PolicyRule[finding]{{ID: "policy/p/r", Findings: long}}, nil, 1, metav1.Now())
	c := meta.FindStatusCondition(conds, ConditionPolicyCompliant)
	if c == nil || len(c.Message) > maxMessage || !strings.HasSuffix(c.Message, "...") {
		t.Fatalf("message not bounded to %d bytes: %+v", maxMessage, c)
	}
}
