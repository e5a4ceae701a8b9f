package rules

import (
	"testing"
	"time"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func TestArenaDailyQuota(t *testing.T) {
	i32 := func(n int32) *int32 { return &n }
	ws := func(limit *int32) *v1alpha1.Workspace {
		return &v1alpha1.Workspace{Spec: v1alpha1.WorkspaceSpec{Quotas: &v1alpha1.WorkspaceQuotas{
			Arena: &v1alpha1.WorkspaceArenaQuota{MaxJobsPerDay: limit}}}}
	}
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	used := []time.Time{
		ago(25 * time.Hour), // out
		ago(24 * time.Hour), // exactly 24h ago: out
		ago(23 * time.Hour), // the oldest counted: the next slot opens at now+1h
		ago(time.Hour),
		now.Add(time.Minute), // after now: out
	}
	cases := []struct {
		name      string
		ws        *v1alpha1.Workspace
		ahead     int
		want      ArenaDailyRunQuota
		exhausted bool
	}{
		{name: "no workspace", want: ArenaDailyRunQuota{}},
		{name: "no arena quota", ws: &v1alpha1.Workspace{}, want: ArenaDailyRunQuota{}},
		{name: "no maxJobsPerDay", ws: ws(nil), want: ArenaDailyRunQuota{}},
		{name: "room left", ws: ws(i32(3)), want: ArenaDailyRunQuota{Applies: true, Limit: 3, Used: 2, NextSlot: now.Add(time.Hour)}},
		{name: "used up", ws: ws(i32(2)), want: ArenaDailyRunQuota{Applies: true, Limit: 2, Used: 2, NextSlot: now.Add(time.Hour)}, exhausted: true},
		{name: "an older waiting run takes the last slot", ws: ws(i32(3)), ahead: 1,
			want: ArenaDailyRunQuota{Applies: true, Limit: 3, Used: 2, Ahead: 1, NextSlot: now.Add(time.Hour)}, exhausted: true},
		{name: "0 admits none", ws: ws(i32(0)), want: ArenaDailyRunQuota{Applies: true, Limit: 0, Used: 2, NextSlot: now.Add(time.Hour)}, exhausted: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ArenaDailyQuota(c.ws, used, c.ahead, now)
			if got != c.want || got.Exhausted() != c.exhausted {
				t.Errorf("got %+v (exhausted %v), want %+v (%v)", got, got.Exhausted(), c.want, c.exhausted)
			}
		})
	}
	if got := ArenaDailyQuota(ws(i32(1)), nil, 0, now); got.Exhausted() || !got.NextSlot.Equal(now.Add(ArenaQuotaDay)) {
		t.Errorf("nothing used: %+v", got)
	}
}

func TestArenaRunPhaseFinal(t *testing.T) {
	for p, want := range map[v1alpha1.ArenaRunPhase]bool{
		"": false, v1alpha1.ArenaRunPhasePending: false, v1alpha1.ArenaRunPhaseRunning: false,
		v1alpha1.ArenaRunPhaseSucceeded: true, v1alpha1.ArenaRunPhaseFailed: true, v1alpha1.ArenaRunPhaseCancelled: true,
	} {
		if got := ArenaRunPhaseFinal(p); got != want {
			t.Errorf("ArenaRunPhaseFinal(%q) = %v, want %v", p, got, want)
		}
	}
}
