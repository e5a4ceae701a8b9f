package arenajob

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

func mustSchedule(t *testing.T, cron, tz string) *Schedule {
	t.Helper()
	s, err := ParseSchedule(&v1alpha1.ArenaJobSchedule{Cron: cron, Timezone: tz})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestDecide(t *testing.T) {
	hourly := "0 * * * *"
	cases := []struct {
		name       string
		cron, tz   string
		policy     v1alpha1.ArenaJobConcurrencyPolicy
		active     int
		since, now string
		want       TickDecision
	}{
		{name: "no tick due yet", cron: hourly, since: "2026-03-01T12:00:00Z", now: "2026-03-01T12:59:59Z",
			want: TickDecision{Next: at("2026-03-01T13:00:00Z")}},
		{name: "the tick at now is due", cron: hourly, since: "2026-03-01T12:00:00Z", now: "2026-03-01T13:00:00Z",
			want: TickDecision{Action: TickStart, Tick: at("2026-03-01T13:00:00Z"), Next: at("2026-03-01T14:00:00Z")}},
		{name: "the tick acted on is not due again", cron: hourly, since: "2026-03-01T13:00:00Z", now: "2026-03-01T13:30:00Z",
			want: TickDecision{Next: at("2026-03-01T14:00:00Z")}},
		{name: "missed ticks: only the latest runs", cron: hourly, since: "2026-03-01T12:00:00Z", now: "2026-03-01T17:20:00Z",
			want: TickDecision{Action: TickStart, Tick: at("2026-03-01T17:00:00Z"), Missed: 4, Next: at("2026-03-01T18:00:00Z")}},
		{name: "Forbid (default) with an active run skips", cron: hourly, active: 1, since: "2026-03-01T12:00:00Z", now: "2026-03-01T13:00:10Z",
			want: TickDecision{Action: TickSkip, Tick: at("2026-03-01T13:00:00Z"), Next: at("2026-03-01T14:00:00Z")}},
		{name: "Forbid with no active run starts", cron: hourly, policy: v1alpha1.ArenaJobConcurrencyForbid, since: "2026-03-01T12:00:00Z", now: "2026-03-01T13:00:10Z",
			want: TickDecision{Action: TickStart, Tick: at("2026-03-01T13:00:00Z"), Next: at("2026-03-01T14:00:00Z")}},
		{name: "Allow with an active run starts", cron: hourly, policy: v1alpha1.ArenaJobConcurrencyAllow, active: 2, since: "2026-03-01T12:00:00Z", now: "2026-03-01T13:00:10Z",
			want: TickDecision{Action: TickStart, Tick: at("2026-03-01T13:00:00Z"), Next: at("2026-03-01T14:00:00Z")}},
		{name: "Replace with an active run cancels and starts", cron: hourly, policy: v1alpha1.ArenaJobConcurrencyReplace, active: 1, since: "2026-03-01T12:00:00Z", now: "2026-03-01T13:00:10Z",
			want: TickDecision{Action: TickStart, Replace: true, Tick: at("2026-03-01T13:00:00Z"), Next: at("2026-03-01T14:00:00Z")}},
		{name: "Replace with nothing active just starts", cron: hourly, policy: v1alpha1.ArenaJobConcurrencyReplace, since: "2026-03-01T12:00:00Z", now: "2026-03-01T13:00:10Z",
			want: TickDecision{Action: TickStart, Tick: at("2026-03-01T13:00:00Z"), Next: at("2026-03-01T14:00:00Z")}},
		{name: "the cron is read in the job's timezone", cron: "0 2 * * *", tz: "America/New_York", since: "2026-03-01T00:00:00Z", now: "2026-03-01T08:00:00Z",
			want: TickDecision{Action: TickStart, Tick: at("2026-03-01T07:00:00Z"), Next: at("2026-03-02T07:00:00Z")}},
		{name: "UTC differs from New York", cron: "0 2 * * *", tz: "UTC", since: "2026-03-01T00:00:00Z", now: "2026-03-01T08:00:00Z",
			want: TickDecision{Action: TickStart, Tick: at("2026-03-01T02:00:00Z"), Next: at("2026-03-02T02:00:00Z")}},
		{name: "a year down on a per-minute schedule still finds the latest tick", cron: "* * * * *", since: "2025-03-01T12:00:00Z", now: "2026-03-01T12:00:30Z",
			want: TickDecision{Action: TickStart, Tick: at("2026-03-01T12:00:00Z"), Missed: maxScan, Next: at("2026-03-01T12:01:00Z")}},
		{name: "a cron that never ticks has no next", cron: "0 0 30 2 *", since: "2026-03-01T12:00:00Z", now: "2026-03-01T13:00:00Z",
			want: TickDecision{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Decide(TickInput{Schedule: mustSchedule(t, c.cron, c.tz), Policy: c.policy, Active: c.active,
				Since: at(c.since), Now: at(c.now)})
			if !got.Tick.Equal(c.want.Tick) || !got.Next.Equal(c.want.Next) {
				t.Fatalf("tick %v next %v, want tick %v next %v", got.Tick, got.Next, c.want.Tick, c.want.Next)
			}
			got.Tick, got.Next, c.want.Tick, c.want.Next = time.Time{}, time.Time{}, time.Time{}, time.Time{}
			if got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestRunName(t *testing.T) {
	long := ""
	for len(long) < 253 {
		long += "a"
	}
	cases := []struct {
		name, job string
		tick      time.Time
		want      string
	}{
		{"manual", "nightly", time.Time{}, "nightly-manual"},
		{"scheduled: unix minute of the tick", "nightly", at("2026-03-01T13:00:00Z"), "nightly-29539500"},
		{"the same tick in another zone is the same name", "nightly", at("2026-03-01T08:00:00-05:00"), "nightly-29539500"},
	}
	for _, c := range cases {
		if got := RunName(c.job, c.tick); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	a, b := RunName(long, at("2026-03-01T13:00:00Z")), RunName(long[:252]+"b", at("2026-03-01T13:00:00Z"))
	if len(a) > 253 || len(b) > 253 || a == b {
		t.Fatalf("long names: %q (%d), %q (%d)", a, len(a), b, len(b))
	}
}

func run(name string, phase v1alpha1.ArenaRunPhase, tick string) *v1alpha1.ArenaRun {
	r := &v1alpha1.ArenaRun{ObjectMeta: metav1.ObjectMeta{Name: name,
		Annotations: map[string]string{ScheduledAtAnnotation: tick}}}
	r.Status.Phase = phase
	return r
}

func names(runs []*v1alpha1.ArenaRun) []string {
	var out []string
	for _, r := range runs {
		out = append(out, r.Name)
	}
	return out
}

func TestToPrune(t *testing.T) {
	i32 := func(n int32) *int32 { return &n }
	runs := func() []*v1alpha1.ArenaRun {
		return []*v1alpha1.ArenaRun{
			run("s5", v1alpha1.ArenaRunPhaseSucceeded, "2026-03-01T05:00:00Z"),
			run("s1", v1alpha1.ArenaRunPhaseSucceeded, "2026-03-01T01:00:00Z"),
			run("f2", v1alpha1.ArenaRunPhaseFailed, "2026-03-01T02:00:00Z"),
			run("s3", v1alpha1.ArenaRunPhaseSucceeded, "2026-03-01T03:00:00Z"),
			run("c4", v1alpha1.ArenaRunPhaseCancelled, "2026-03-01T04:00:00Z"),
			run("s6", v1alpha1.ArenaRunPhaseSucceeded, "2026-03-01T06:00:00Z"),
			run("r7", v1alpha1.ArenaRunPhaseRunning, "2026-03-01T07:00:00Z"),
			run("p8", "", "2026-03-01T08:00:00Z"),
		}
	}
	cases := []struct {
		name       string
		ok, failed *int32
		want       []string
	}{
		{"defaults 3 and 1, Cancelled counts as failed", nil, nil, []string{"s1", "f2"}},
		{"limits 0 delete every finished run", i32(0), i32(0), []string{"s1", "f2", "s3", "c4", "s5", "s6"}},
		{"generous limits delete nothing", i32(10), i32(10), nil},
		{"failed limit 2 keeps the cancelled and the failed", i32(1), i32(2), []string{"s1", "s3", "s5"}},
	}
	for _, c := range cases {
		spec := &v1alpha1.ArenaJobSpec{SuccessfulRunsHistoryLimit: c.ok, FailedRunsHistoryLimit: c.failed}
		got := names(ToPrune(spec, runs()))
		if len(got) != len(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: got %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
	// s1 and f2 are already being deleted (their output finalizer held):
	// not pruned again, and not counted, so s3 and c4 go next.
	deleting := runs()
	for _, r := range deleting {
		if r.Name == "s1" || r.Name == "f2" {
			r.DeletionTimestamp = &metav1.Time{Time: r.CreationTimestamp.Time}
		}
	}
	if got := names(ToPrune(&v1alpha1.ArenaJobSpec{SuccessfulRunsHistoryLimit: i32(2), FailedRunsHistoryLimit: i32(0)}, deleting)); len(got) != 2 || got[0] != "s3" || got[1] != "c4" {
		t.Errorf("with s1 and f2 being deleted: got %v, want [s3 c4]", got)
	}
	if got := names(Active(runs())); len(got) != 2 || got[0] != "r7" || got[1] != "p8" {
		t.Errorf("active: got %v, want [r7 p8] (a run with no phase yet is active)", got)
	}
}

func TestDailyRunQuotaDatesEveryRun(t *testing.T) {
	i32 := func(n int32) *int32 { return &n }
	ws := func(limit *int32) *v1alpha1.Workspace {
		return &v1alpha1.Workspace{Spec: v1alpha1.WorkspaceSpec{Quotas: &v1alpha1.WorkspaceQuotas{
			Arena: &v1alpha1.WorkspaceArenaQuota{MaxJobsPerDay: limit}}}}
	}
	now := at("2026-03-02T12:00:00Z")
	runs := []*v1alpha1.ArenaRun{
		run("old", v1alpha1.ArenaRunPhaseSucceeded, "2026-03-01T11:00:00Z"),  // 25h ago: out
		run("edge", v1alpha1.ArenaRunPhaseSucceeded, "2026-03-01T12:00:00Z"), // exactly 24h ago: out
		run("a", v1alpha1.ArenaRunPhaseCancelled, "2026-03-01T13:00:00Z"),
		run("b", v1alpha1.ArenaRunPhasePending, "2026-03-02T11:00:00Z"),
	}
	next := at("2026-03-02T13:00:00Z") // a's tick leaves the window
	cases := []struct {
		name      string
		ws        *v1alpha1.Workspace
		want      rules.ArenaDailyRunQuota
		exhausted bool
	}{
		{"no workspace", nil, rules.ArenaDailyRunQuota{}, false},
		{"no maxJobsPerDay", ws(nil), rules.ArenaDailyRunQuota{}, false},
		{"room left", ws(i32(3)), rules.ArenaDailyRunQuota{Applies: true, Limit: 3, Used: 2, NextSlot: next}, false},
		{"used up (waiting and cancelled runs count)", ws(i32(2)), rules.ArenaDailyRunQuota{Applies: true, Limit: 2, Used: 2, NextSlot: next}, true},
		{"0 admits none", ws(i32(0)), rules.ArenaDailyRunQuota{Applies: true, Limit: 0, Used: 2, NextSlot: next}, true},
	}
	for _, c := range cases {
		got := dailyRunQuota(c.ws, runs, now)
		if got != c.want || got.Exhausted() != c.exhausted {
			t.Errorf("%s: got %+v (exhausted %v), want %+v (%v)", c.name, got, got.Exhausted(), c.want, c.exhausted)
		}
	}
}
