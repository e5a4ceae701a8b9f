package arenarun

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/test/arenaworker"
)

func TestDecideQuota(t *testing.T) {
	now := t0.Time
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
			v := decideQuota(&c.run, c.others, c.ws, c.requested, c.capped, now)
			if v.admitted != c.admitted || v.reason != c.reason {
				t.Fatalf("admitted %v reason %q (%s), want %v %q", v.admitted, v.reason, v.message, c.admitted, c.reason)
			}
			if c.reason == v1alpha1.ArenaRunReasonWaitingForDailyRunQuota && len(c.others) > 0 && !strings.Contains(v.message, "next slot opens at 2026-03-02T11:00:00Z") {
				t.Fatalf("message %q does not say when the next slot opens", v.message)
			}
		})
	}
}

// maxConcurrentJobs holds a second run Pending (never Failed) until the
// first finishes, then admits it.
func TestQuotaHoldsRunPendingThenAdmits(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	readyProject(t, ns, "proj", nil)
	workspace(t, ns, v1alpha1.WorkspaceSpec{Quotas: &v1alpha1.WorkspaceQuotas{Arena: &v1alpha1.WorkspaceArenaQuota{MaxConcurrentJobs: ptr.To[int32](1)}}})
	newRun(t, ns, "first", v1alpha1.ArenaJobSpec{Providers: providers("gpt")})
	run := waitFor(t, ns, "first", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
	if c := condOf(run, v1alpha1.ArenaRunConditionWithinWorkspaceQuota); c == nil || c.Reason != v1alpha1.ArenaRunReasonQuotaSatisfied || c.Status != metav1.ConditionTrue {
		t.Fatalf("quota %+v", c)
	}
	newRun(t, ns, "second", v1alpha1.ArenaJobSpec{Providers: providers("gpt")})
	run = waitFor(t, ns, "second", "waiting", func(r *v1alpha1.ArenaRun) bool {
		c := condOf(r, v1alpha1.ArenaRunConditionWithinWorkspaceQuota)
		return c != nil && c.Reason == v1alpha1.ArenaRunReasonWaitingForConcurrentRunSlot
	})
	if run.Status.Phase != v1alpha1.ArenaRunPhasePending || condOf(run, "Ready").Reason != v1alpha1.ArenaRunReasonWaitingForWorkspaceQuota {
		t.Fatalf("phase %s ready %+v", run.Status.Phase, condOf(run, "Ready"))
	}
	if _, err := arenaworker.Run(ctx, runQueue(t, defaultRedisURL, ns, "first"), 1, arenaworker.Pass); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ns, "first", "Succeeded", phaseIs(v1alpha1.ArenaRunPhaseSucceeded))
	run = waitFor(t, ns, "second", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
	if c := condOf(run, v1alpha1.ArenaRunConditionWithinWorkspaceQuota); c.Reason != v1alpha1.ArenaRunReasonQuotaSatisfied {
		t.Fatalf("quota %+v", c)
	}
}
