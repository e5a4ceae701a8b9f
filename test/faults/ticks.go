package faults

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/arenajob"
)

// The scheduled ArenaJobs' check (no tick is run twice and
// no ArenaRun is duplicated). It is pure: the scenario gathers what it
// reads (the job, its runs, its events, the items the in-process workers
// executed, the queues' totals) and JudgeTicks decides.

// RunSeen is one ArenaRun as the check reads it.
type RunSeen struct {
	Name    string
	Trigger v1alpha1.ArenaRunTrigger
	// ScheduledAt is the run's arenajob.ScheduledAtAnnotation, verbatim.
	ScheduledAt string
	Phase       v1alpha1.ArenaRunPhase
	// Executions counts, per work item ID, how often a worker executed it;
	// Enqueued is the queue's total (-1: the queue was not found).
	Executions map[string]int
	Enqueued   int64
}

// JobSeen is one scheduled ArenaJob and what it left.
type JobSeen struct {
	Name    string
	Cron    string
	Policy  v1alpha1.ArenaJobConcurrencyPolicy
	Created time.Time
	Runs    []RunSeen
	// SkippedTicks are the ticks its RunSkipped events name (Forbid);
	// MissedEvents sums the counts its MissedSchedule events give.
	SkippedTicks []time.Time
	MissedEvents int
}

// TickReport is the verdict on one job.
type TickReport struct {
	Job    string
	Policy v1alpha1.ArenaJobConcurrencyPolicy
	// Due are the ticks due between the job's creation and the end of the
	// observation; Run those with a run, Skipped those skipped (Forbid).
	Due, Run, Skipped int
	// Missed are due ticks with neither a run nor a skip; Excused those of
	// them inside a failover window with a MissedSchedule event to say so.
	Missed, Excused int
	// Ticks lists every run's tick (minute, UTC) in order.
	Ticks []string
	// Duplicates: ticks with two runs or more, runs whose name is not
	// their tick's deterministic name, runs with no tick, work items
	// executed twice (a queue enqueued twice hands its items out twice).
	// Each is a failure.
	Duplicates []string
	// Items sums the runs' distinct items executed; Executions every
	// execution; Enqueued the queues' totals (of the runs whose queue was
	// read).
	Items, Executions int
	Enqueued          int64
	Phases            map[v1alpha1.ArenaRunPhase]int
}

// Failed reports a duplicate or a tick missed outside every failover.
func (r TickReport) Failed() bool { return len(r.Duplicates) > 0 || r.Missed > r.Excused }

// maxDuplicatesListed bounds a report's duplicate list.
const maxDuplicatesListed = 20

// JudgeTicks checks one job's runs against its schedule, over the ticks
// due after its creation up to end; runs of later ticks are not judged.
// A missed tick is excused when it falls in one of windows (the faults,
// failovers included) and the job's MissedSchedule events count at least
// as many missed ticks.
func JudgeTicks(job JobSeen, end time.Time, windows [][2]time.Time) (TickReport, error) {
	rep := TickReport{Job: job.Name, Policy: job.Policy, Phases: map[v1alpha1.ArenaRunPhase]int{}}
	sched, err := arenajob.ParseSchedule(&v1alpha1.ArenaJobSchedule{Cron: job.Cron})
	if err != nil {
		return rep, fmt.Errorf("faults: job %s: %w", job.Name, err)
	}
	dup := func(format string, args ...any) {
		if len(rep.Duplicates) < maxDuplicatesListed {
			rep.Duplicates = append(rep.Duplicates, job.Name+": "+fmt.Sprintf(format, args...))
		}
	}
	runsAt := map[time.Time][]string{}
	for _, r := range job.Runs {
		tick, err := time.Parse(time.RFC3339, r.ScheduledAt)
		if r.Trigger != v1alpha1.ArenaRunTriggerSchedule || err != nil {
			dup("run %s has no tick (trigger %q, scheduled-at %q)", r.Name, r.Trigger, r.ScheduledAt)
			continue
		}
		if want := arenajob.RunName(job.Name, tick); r.Name != want {
			dup("run %s is not its tick's run %s", r.Name, want)
		}
		if tick.After(end) {
			continue
		}
		runsAt[tick] = append(runsAt[tick], r.Name)
		rep.Phases[r.Phase]++
		distinct := 0
		for id, n := range r.Executions {
			distinct++
			rep.Executions += n
			if n > 1 {
				dup("run %s executed item %s %d times", r.Name, id, n)
			}
		}
		rep.Items += distinct
		if r.Enqueued >= 0 {
			rep.Enqueued += r.Enqueued
		}
	}
	skipped := map[time.Time]bool{}
	for _, t := range job.SkippedTicks {
		skipped[t.UTC()] = true
	}
	var missedIn int
	for t := sched.Next(job.Created); !t.IsZero() && !t.After(end); t = sched.Next(t) {
		rep.Due++
		t = t.UTC()
		switch names := runsAt[t]; {
		case len(names) > 1:
			slices.Sort(names)
			dup("tick %s has %d runs: %s", t.Format(time.RFC3339), len(names), strings.Join(names, ", "))
			rep.Run++
		case len(names) == 1:
			rep.Run++
		case skipped[t]:
			rep.Skipped++
		default:
			rep.Missed++
			if inAny(t, windows) {
				missedIn++
			}
		}
	}
	rep.Excused = min(missedIn, job.MissedEvents)
	ticks := make([]time.Time, 0, len(runsAt))
	for t := range runsAt {
		ticks = append(ticks, t)
	}
	slices.SortFunc(ticks, func(a, b time.Time) int { return a.Compare(b) })
	for _, t := range ticks {
		rep.Ticks = append(rep.Ticks, t.Format("15:04"))
	}
	return rep, nil
}

// inAny reports whether t lies in one of windows.
func inAny(t time.Time, windows [][2]time.Time) bool {
	for _, w := range windows {
		if !t.Before(w[0]) && !t.After(w[1]) {
			return true
		}
	}
	return false
}

// SkippedTick reads the tick a RunSkipped event's message names ("the
// tick of <RFC 3339> was skipped: ...").
func SkippedTick(message string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(message, "the tick of ")
	if !ok {
		return time.Time{}, false
	}
	stamp, _, ok := strings.Cut(rest, " ")
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, stamp)
	return t, err == nil
}

// MissedCount reads how many ticks a MissedSchedule event's message says
// were not run ("<n> earlier due tick(s) were not run: ...").
func MissedCount(message string) int {
	n, err := strconv.Atoi(strings.SplitN(message, " ", 2)[0])
	if err != nil || n < 0 {
		return 0
	}
	return n
}
