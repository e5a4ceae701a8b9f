package main

import (
	"fmt"
	"time"

	"github.com/altairalabs/omnia/hack/perf/perfreport"
)

// minFuzzTime is the campaign length per target.
const minFuzzTime = 10 * time.Minute

// section turns the campaign into the report's "fuzzing" section.
func section(results []campaignResult, fuzztime time.Duration, parallel int) perfreport.Section {
	workers := "GOMAXPROCS workers"
	if parallel > 0 {
		workers = fmt.Sprintf("%d worker(s)", parallel)
	}
	s := perfreport.Section{
		ID:      "fuzzing",
		Order:   6,
		Title:   "Fuzzing",
		Command: "make fuzz-long",
		Summary: fmt.Sprintf("Every fuzz target in the module (found in the source by hack/perf/fuzzlong), fuzzed for %s each with %s. "+
			"New inputs are inputs the fuzzer kept because they reached new coverage; they are copied into the target's testdata/fuzz corpus "+
			"(at most %d per campaign), so every `go test` replays them. Coverage is the package's statement coverage when the target replays its "+
			"committed corpus as a plain test, before and after the campaign.", fuzztime, workers, maxCorpusPerTarget),
	}
	t := perfreport.Table{Header: []string{"target", "package", "fuzzed", "executions", "execs/s", "new inputs", "corpus committed (before → after)", "coverage (before → after)", "result"}}
	for _, r := range results {
		verdict := "no failure"
		if r.Failure != "" {
			verdict = "FAILED (crasher committed)"
		}
		rate := 0.0
		if r.Elapsed > 0 {
			rate = float64(r.Execs) / r.Elapsed.Seconds()
		}
		t.Rows = append(t.Rows, []string{
			r.Name, r.Pkg, r.Elapsed.String(), fmt.Sprint(r.Execs), fmt.Sprintf("%.0f", rate), fmt.Sprint(r.NewInteresting),
			fmt.Sprintf("%d → %d", r.CorpusBefore, r.CorpusBefore+r.Copied),
			fmt.Sprintf("%.1f %% → %.1f %%", r.CoverageBefore, r.CoverageAfter), verdict,
		})
		s.Targets = append(s.Targets, perfreport.Target{
			Name:     r.Name + ": fuzzed ≥ 10 min without a failure",
			Goal:     "≥ " + minFuzzTime.String() + ", no failure",
			Measured: fmt.Sprintf("%s, %s", r.Elapsed, verdict),
			Met:      r.Elapsed >= minFuzzTime && r.Failure == "",
		})
		if r.Left > 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("%s: %d further new inputs were left in the go build cache (the per-campaign bound is %d).", r.Name, r.Left, maxCorpusPerTarget))
		}
	}
	s.Tables = []perfreport.Table{t}
	return s
}
