package faults

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/arenajob"
)

// scheduledRun is job's run of tick as the ArenaJob controller names it,
// with its items executed once each.
func scheduledRun(job string, tick time.Time, phase v1alpha1.ArenaRunPhase) RunSeen {
	return RunSeen{Name: arenajob.RunName(job, tick), Trigger: v1alpha1.ArenaRunTriggerSchedule,
		ScheduledAt: tick.UTC().Format(time.RFC3339), Phase: phase,
		Executions: map[string]int{"s1|p|1": 1, "s2|p|1": 1}, Enqueued: 2}
}

func TestJudgeTicks(t *testing.T) {
	created := time.Date(2026, 12, 1, 12, 0, 30, 0, time.UTC)
	tick := func(m int) time.Time { return time.Date(2026, 12, 1, 12, m, 0, 0, time.UTC) }
	end := tick(4).Add(20 * time.Second) // ticks 12:01 .. 12:04 are due
	failover := [][2]time.Time{{tick(2).Add(-5 * time.Second), tick(3).Add(10 * time.Second)}}
	every := func(ticks ...int) []RunSeen {
		var out []RunSeen
		for _, m := range ticks {
			out = append(out, scheduledRun("job", tick(m), v1alpha1.ArenaRunPhaseSucceeded))
		}
		return out
	}
	cases := []struct {
		name    string
		job     func(j *JobSeen)
		failed  bool
		due     int
		missed  int
		excused int
		// says is a duplicate's wording that must be reported.
		says string
	}{
		{name: "one run per due tick (and one after the end, not judged)",
			job: func(j *JobSeen) { j.Runs = every(1, 2, 3, 4, 5) }, due: 4},
		{name: "a tick with two runs", failed: true, due: 4, says: "has 2 runs",
			job: func(j *JobSeen) {
				dup := scheduledRun("job", tick(2), v1alpha1.ArenaRunPhaseSucceeded)
				dup.Name = "job-copy"
				j.Runs = append(every(1, 2, 3, 4), dup)
			}},
		{name: "an item executed twice", failed: true, due: 4, says: "executed item s1|p|1 2 times",
			job: func(j *JobSeen) {
				j.Runs = every(1, 2, 3, 4)
				j.Runs[2].Executions["s1|p|1"] = 2
			}},
		{name: "a manual run among the scheduled ones", failed: true, due: 4, says: "has no tick",
			job: func(j *JobSeen) {
				j.Runs = append(every(1, 2, 3, 4), RunSeen{Name: "job-manual", Trigger: v1alpha1.ArenaRunTriggerManual})
			}},
		{name: "a tick skipped by Forbid, with its event", due: 4,
			job: func(j *JobSeen) { j.Runs, j.SkippedTicks = every(1, 3, 4), []time.Time{tick(2)} }},
		{name: "a tick missed outside every failover", failed: true, due: 4, missed: 1,
			job: func(j *JobSeen) { j.Runs, j.MissedEvents = every(2, 3, 4), 1 }},
		{name: "a tick missed across the failover, with a MissedSchedule event", due: 4, missed: 1, excused: 1,
			job: func(j *JobSeen) { j.Runs, j.MissedEvents = every(1, 3, 4), 1 }},
		{name: "a tick missed across the failover, no event", failed: true, due: 4, missed: 1,
			job: func(j *JobSeen) { j.Runs = every(1, 3, 4) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			job := JobSeen{Name: "job", Cron: everyMinute, Policy: v1alpha1.ArenaJobConcurrencyAllow, Created: created}
			c.job(&job)
			rep, err := JudgeTicks(job, end, failover)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Failed() != c.failed || rep.Due != c.due || rep.Missed != c.missed || rep.Excused != c.excused {
				t.Errorf("JudgeTicks = failed %v, due %d, missed %d, excused %d, duplicates %v; want failed %v, due %d, missed %d, excused %d",
					rep.Failed(), rep.Due, rep.Missed, rep.Excused, rep.Duplicates, c.failed, c.due, c.missed, c.excused)
			}
			if c.says != "" && !slices.ContainsFunc(rep.Duplicates, func(d string) bool { return strings.Contains(d, c.says) }) {
				t.Errorf("duplicates %q do not say %q", rep.Duplicates, c.says)
			}
		})
	}
	if _, err := JudgeTicks(JobSeen{Name: "bad", Cron: "every minute"}, end, nil); err == nil {
		t.Error("a cron the parser refuses was judged")
	}
}

func TestEventMessagesAreRead(t *testing.T) {
	if got, ok := SkippedTick("the tick of 2026-12-01T12:03:00Z was skipped: concurrencyPolicy Forbid and 1 run(s) still active; it is recorded as passed"); !ok || !got.Equal(time.Date(2026, 12, 1, 12, 3, 0, 0, time.UTC)) {
		t.Errorf("SkippedTick = %v, %v", got, ok)
	}
	if _, ok := SkippedTick("3 earlier due tick(s) were not run"); ok {
		t.Error("SkippedTick read a tick from a MissedSchedule message")
	}
	if n := MissedCount("3 earlier due tick(s) were not run: only the most recent due tick is acted on"); n != 3 {
		t.Errorf("MissedCount = %d, want 3", n)
	}
	if n := MissedCount("the tick of 2026-12-01T12:03:00Z was skipped"); n != 0 {
		t.Errorf("MissedCount of another message = %d, want 0", n)
	}
}
