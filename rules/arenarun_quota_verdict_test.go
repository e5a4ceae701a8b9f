package rules

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// TestArenaRunQuota: the workspace quota's decision on one run, one case
// per reason (admitted and held).
func TestArenaRunQuota(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) metav1.Time { return metav1.NewTime(now.Add(d)) }
	mk := func(name string, created time.Duration, phase v1alpha1.ArenaRunPhase, start *metav1.Time, quotaReason string, quotaSince time.Duration) v1alpha1.ArenaRun {
		r := v1alpha1.ArenaRun{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: at(created)}}
		r.Status.Phase, r.Status.StartTime = phase, start
		if quotaReason != "" {
			r.Status.Conditions = []metav1.Condition{{Type: v1alpha1.ArenaRunConditionWithinWorkspaceQuota, Reason: quotaReason, LastTransitionTime: at(quotaSince)}}
		}
		return r
	}
	ws := func(conc, day, workers *int32) *v1alpha1.Workspace {
		return &v1alpha1.Workspace{Spec: v1alpha1.WorkspaceSpec{Quotas: &v1alpha1.WorkspaceQuotas{Arena: &v1alpha1.WorkspaceArenaQuota{
			MaxConcurrentJobs: conc, MaxJobsPerDay: day, MaxWorkersPerJob: workers}}}}
	}
	started := at(-time.Hour)
	cases := []struct {
		name              string
		run               v1alpha1.ArenaRun
		others            []v1alpha1.ArenaRun
		ws                *v1alpha1.Workspace
		requested, capped int32
		admitted          bool
		reason            string
	}{
		{"no quota", mk("r", 0, "Pending", nil, "", 0), nil, nil, 1, 1, true, ""},
		{"first sight", mk("r", 0, "Pending", nil, "", 0), nil, ws(ptr.To[int32](1), nil, nil), 1, 1, false, v1alpha1.ArenaRunReasonWaitingForQuotaAdmission},
		{"free slot", mk("r", 0, "Pending", nil, v1alpha1.ArenaRunReasonWaitingForQuotaAdmission, 0), []v1alpha1.ArenaRun{mk("a", -time.Hour, "Succeeded", &started, "", 0)},
			ws(ptr.To[int32](1), nil, nil), 1, 1, true, v1alpha1.ArenaRunReasonQuotaSatisfied},
		{"slot taken", mk("r", 0, "Pending", nil, v1alpha1.ArenaRunReasonWaitingForQuotaAdmission, 0), []v1alpha1.ArenaRun{mk("a", -time.Hour, "Running", &started, "", 0)},
			ws(ptr.To[int32](1), nil, nil), 1, 1, false, v1alpha1.ArenaRunReasonWaitingForConcurrentRunSlot},
		{"an older waiting run goes first", mk("r", 0, "Pending", nil, v1alpha1.ArenaRunReasonWaitingForQuotaAdmission, 0), []v1alpha1.ArenaRun{mk("a", -time.Minute, "Pending", nil, v1alpha1.ArenaRunReasonWaitingForConcurrentRunSlot, -time.Minute)},
			ws(ptr.To[int32](1), nil, nil), 1, 1, false, v1alpha1.ArenaRunReasonWaitingForConcurrentRunSlot},
		{"a younger waiting run does not block", mk("r", -time.Minute, "Pending", nil, v1alpha1.ArenaRunReasonWaitingForQuotaAdmission, 0), []v1alpha1.ArenaRun{mk("b", 0, "Pending", nil, v1alpha1.ArenaRunReasonWaitingForConcurrentRunSlot, 0)},
			ws(ptr.To[int32](1), nil, nil), 1, 1, true, v1alpha1.ArenaRunReasonQuotaSatisfied},
		{"a stale admission does not hold a slot", mk("r", 0, "Pending", nil, v1alpha1.ArenaRunReasonWaitingForQuotaAdmission, 0), []v1alpha1.ArenaRun{mk("a", -time.Hour, "Pending", nil, v1alpha1.ArenaRunReasonQuotaSatisfied, -20*time.Minute)},
			ws(ptr.To[int32](1), nil, nil), 1, 1, true, v1alpha1.ArenaRunReasonQuotaSatisfied},
		{"daily quota used", mk("r", 0, "Pending", nil, v1alpha1.ArenaRunReasonWaitingForQuotaAdmission, 0), []v1alpha1.ArenaRun{mk("a", -2*time.Hour, "Succeeded", &started, "", 0)},
			ws(nil, ptr.To[int32](1), nil), 1, 1, false, v1alpha1.ArenaRunReasonWaitingForDailyRunQuota},
		{"daily quota: yesterday's run does not count", mk("r", 0, "Pending", nil, v1alpha1.ArenaRunReasonWaitingForQuotaAdmission, 0), []v1alpha1.ArenaRun{mk("a", -30*time.Hour, "Succeeded", ptr.To(at(-25*time.Hour)), "", 0)},
			ws(nil, ptr.To[int32](1), nil), 1, 1, true, v1alpha1.ArenaRunReasonQuotaSatisfied},
		{"daily quota of 0 admits none", mk("r", 0, "Pending", nil, v1alpha1.ArenaRunReasonWaitingForQuotaAdmission, 0), nil,
			ws(nil, ptr.To[int32](0), nil), 1, 1, false, v1alpha1.ArenaRunReasonWaitingForDailyRunQuota},
		{"clamped", mk("r", 0, "Pending", nil, v1alpha1.ArenaRunReasonWaitingForQuotaAdmission, 0), nil, ws(nil, nil, ptr.To[int32](2)), 5, 2, true, v1alpha1.ArenaRunReasonWorkersClamped},
		{"admitted but not started in 15 minutes", mk("r", -time.Hour, "Pending", nil, v1alpha1.ArenaRunReasonQuotaSatisfied, -16*time.Minute), nil,
			ws(ptr.To[int32](1), nil, nil), 1, 1, false, v1alpha1.ArenaRunReasonAdmissionReleased},
		{"admitted and running stays admitted", mk("r", -time.Hour, "Running", &started, v1alpha1.ArenaRunReasonQuotaSatisfied, -time.Hour),
			[]v1alpha1.ArenaRun{mk("a", -2*time.Hour, "Running", &started, "", 0)}, ws(ptr.To[int32](1), nil, nil), 1, 1, true, v1alpha1.ArenaRunReasonQuotaSatisfied},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := ArenaRunQuota(&c.run, c.others, c.ws, c.requested, c.capped, now)
			if v.Admitted != c.admitted || v.Reason != c.reason {
				t.Fatalf("admitted %v reason %q (%s), want %v %q", v.Admitted, v.Reason, v.Message, c.admitted, c.reason)
			}
			if c.reason == v1alpha1.ArenaRunReasonWaitingForDailyRunQuota && len(c.others) > 0 && !strings.Contains(v.Message, "next slot opens at 2026-03-02T11:00:00Z") {
				t.Fatalf("message %q does not say when the next slot opens", v.Message)
			}
		})
	}
}
