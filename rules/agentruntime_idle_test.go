package rules

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func TestAgentRuntimeIdleDeadline(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	created := now.Add(-3 * time.Hour)
	at := func(d time.Duration) *metav1.Time { t := metav1.NewTime(now.Add(d)); return &t }

	for _, tc := range []struct {
		name       string
		annotation *string // nil: no annotation
		created    time.Time
		lastUsedAt *metav1.Time
		wantOK     bool
		want       time.Time
		wantPassed bool // !now.Before(deadline)
	}{
		{name: "no annotation", created: created, lastUsedAt: at(-10 * time.Hour)},
		{name: "not a duration", annotation: ptrTo("two hours"), created: created},
		{name: "zero", annotation: ptrTo("0s"), created: created},
		{name: "negative", annotation: ptrTo("-30m"), created: created},
		{name: "empty value", annotation: ptrTo(""), created: created},
		{name: "never used: counted from creation, passed", annotation: ptrTo("2h"), created: created,
			wantOK: true, want: created.Add(2 * time.Hour), wantPassed: true},
		{name: "never used: counted from creation, not passed", annotation: ptrTo("4h"), created: created,
			wantOK: true, want: created.Add(4 * time.Hour)},
		{name: "used: counted from lastUsedAt, not from creation", annotation: ptrTo("2h"), created: created, lastUsedAt: at(-30 * time.Minute),
			wantOK: true, want: now.Add(90 * time.Minute)},
		{name: "used long ago: passed", annotation: ptrTo("30m"), created: created, lastUsedAt: at(-time.Hour),
			wantOK: true, want: now.Add(-30 * time.Minute), wantPassed: true},
		{name: "lastUsedAt in the future counts as now", annotation: ptrTo("1h"), created: created, lastUsedAt: at(10 * 365 * 24 * time.Hour),
			wantOK: true, want: now.Add(time.Hour)},
		{name: "exactly at the deadline: passed", annotation: ptrTo("1h"), created: created, lastUsedAt: at(-time.Hour),
			wantOK: true, want: now, wantPassed: true},
		{name: "one second before the deadline: not passed", annotation: ptrTo("1h"), created: created, lastUsedAt: at(-time.Hour + time.Second),
			wantOK: true, want: now.Add(time.Second)},
		{name: "never stored (no creationTimestamp) counts from now", annotation: ptrTo("1h30m"),
			wantOK: true, want: now.Add(90 * time.Minute)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "n", CreationTimestamp: metav1.NewTime(tc.created)}}
			if tc.annotation != nil {
				ar.Annotations = map[string]string{AgentRuntimeIdleTimeoutAnnotation: *tc.annotation}
			}
			ar.Status.LastUsedAt = tc.lastUsedAt
			got, ok := AgentRuntimeIdleDeadline(ar, now)
			if ok != tc.wantOK || !got.Equal(tc.want) {
				t.Fatalf("AgentRuntimeIdleDeadline = %v, %v; want %v, %v", got, ok, tc.want, tc.wantOK)
			}
			if ok && !now.Before(got) != tc.wantPassed {
				t.Errorf("deadline %v passed at %v = %v, want %v", got, now, !now.Before(got), tc.wantPassed)
			}
			// The rule and the deadline parse the annotation the same way:
			// an annotated agent has no deadline exactly when the rule
			// reports the value.
			var found bool
			for _, f := range Default.Evaluate("AgentRuntime", Input{Object: ar}, Options{}) {
				if f.RuleID == "agentruntime/idle-timeout-annotation" {
					found = true
				}
			}
			if want := tc.annotation != nil && !ok; found != want {
				t.Errorf("agentruntime/idle-timeout-annotation finding = %v, want %v (deadline ok=%v)", found, want, ok)
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }
