package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/hack/perf/perfreport"
	"github.com/altairalabs/omnia/test/faults"
)

// The scheduled ArenaJobs' part of the section (no tick is
// run twice and no ArenaRun is duplicated).

// arenaTarget: a duplicate (a tick with two runs, an item executed twice)
// or a tick missed outside a failover misses it, and so does a run where
// no job was observed.
func arenaTarget(res *faults.Result) perfreport.Target {
	var due, run, dups, missed, excused, twice int
	for _, a := range res.Arena {
		due += a.Due
		run += a.Run
		dups += len(a.Duplicates)
		missed += a.Missed
		excused += a.Excused
		twice += a.Executions - a.Items
	}
	return perfreport.Target{
		Name: "scheduled ArenaJobs: ticks run twice, ArenaRuns duplicated, work items executed twice; ticks missed outside a failover",
		Goal: "0; 0",
		Measured: fmt.Sprintf("%d duplicates (%d extra item executions) over %d jobs, %d due ticks, %d runs; %d missed (%d across a failover, with a MissedSchedule event)",
			dups, twice, len(res.Arena), due, run, missed, excused),
		Met: !res.ArenaFailed(),
	}
}

// arenaTable lists each job's ticks and runs.
func arenaTable(res *faults.Result) perfreport.Table {
	t := perfreport.Table{
		Caption: "Scheduled ArenaJobs (cron \\* \\* \\* \\* \\*), created before the first fault, judged over the ticks due until the stream ended",
		Header: []string{"job", "concurrencyPolicy", "ticks due", "with a run", "skipped (Forbid)", "missed (excused)",
			"runs' ticks (UTC)", "items enqueued / executed / executed twice", "runs' final phases", "duplicates"},
	}
	for _, a := range res.Arena {
		t.Rows = append(t.Rows, []string{
			a.Job, string(a.Policy), fmt.Sprint(a.Due), fmt.Sprint(a.Run), fmt.Sprint(a.Skipped),
			fmt.Sprintf("%d (%d)", a.Missed, a.Excused), strings.Join(a.Ticks, " "),
			fmt.Sprintf("%d / %d / %d", a.Enqueued, a.Items, a.Executions-a.Items),
			phases(a.Phases), fmt.Sprint(len(a.Duplicates)),
		})
	}
	return t
}

// phases prints run counts by phase, in a stable order.
func phases(m map[v1alpha1.ArenaRunPhase]int) string {
	keys := make([]string, 0, len(m))
	for p, n := range m {
		keys = append(keys, fmt.Sprintf("%s %d", p, n))
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ", ")
}

// arenaSummary is the note that says how the jobs were run and checked.
func arenaSummary(cfg faults.Config, res *faults.Result) string {
	return fmt.Sprintf("Scheduled ArenaJobs: %d jobs in namespace %s (every minute; two with concurrencyPolicy Allow, one Forbid; history "+
		"limits high enough that no run is pruned) against a hosted ArenaProject and a private Redis queue, created before the first fault; "+
		"the first fault strikes once each job has started its first run, and the stream lasts at least %s, so they tick through the faults. The harness plays the worker pods in-process "+
		"(test/arenaworker, every item passing), handing each Running run to a worker, and again every 15 s while it stays Running, and "+
		"counts each work item it executes per run: an item handed out twice (a queue enqueued again after a leader change) is counted "+
		"twice. Each run's tick is read from its scheduled-at annotation and checked against its deterministic name "+
		"<job>-<unix minute>; a due tick without a run is skipped when a RunSkipped event names it, else missed, excused only inside a "+
		"fault's window with a MissedSchedule event. Runs whose queue a worker could not work to the end: %d.",
		len(res.Arena), faults.ArenaNamespace, cfg.MinStream, res.ArenaWorkerFailures)
}
