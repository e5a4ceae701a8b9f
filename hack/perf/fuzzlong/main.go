// Command fuzzlong is `make fuzz-long`: a long fuzzing campaign over every
// fuzz target in the module (found in the source, so none is forgotten),
// each for -fuzztime (10 minutes by default). For each target it reports
// the executions, the inputs that reached new coverage, the statement
// coverage its committed corpus gives before and after, and any failure;
// it copies the new inputs into the target's testdata/fuzz corpus so they
// are committed and replayed by every `go test`. It writes the "fuzzing"
// section of docs/performance.md (hack/perf/perfreport).
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/altairalabs/omnia/hack/perf/harness"
)

// options are the command's flags.
type options struct {
	fuzztime  time.Duration
	parallel  int
	out, only string
}

func main() {
	var o options
	flag.DurationVar(&o.fuzztime, "fuzztime", 10*time.Minute, "how long to fuzz each target")
	flag.IntVar(&o.parallel, "parallel", 0, "fuzzing workers per target (0: GOMAXPROCS)")
	flag.StringVar(&o.out, "out", "docs/performance", "directory for the section JSON")
	flag.StringVar(&o.only, "run", "", "regexp: fuzz only the targets whose name matches")
	quick := flag.Bool("quick", false, "10 s per target (a smoke run of the campaign itself)")
	flag.Parse()
	if *quick {
		o.fuzztime = 10 * time.Second
	}
	harness.Main("fuzzlong", func(ctx context.Context) error { return run(ctx, o) })
}

// run fuzzes every target in turn; an interrupt (ctx) stops the one
// fuzzing.
func run(ctx context.Context, o options) error {
	filter, err := regexp.Compile(o.only)
	if err != nil {
		return fmt.Errorf("-run: %w", err)
	}
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	module, err := modulePath(root)
	if err != nil {
		return err
	}
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		return fmt.Errorf("go env GOCACHE: %w", err)
	}
	targets, err := discover(root)
	if err != nil {
		return err
	}

	var results []campaignResult
	for _, t := range targets {
		if !filter.MatchString(t.Name) {
			continue
		}
		fmt.Fprintf(os.Stderr, "== %s %s for %s\n", t.Pkg, t.Name, o.fuzztime)
		r, err := campaign(ctx, root, module, strings.TrimSpace(string(gocache)), t, o.fuzztime, o.parallel)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	if len(results) == 0 {
		return errors.New("no fuzz target matched")
	}
	sec := section(results, o.fuzztime, o.parallel)
	if o.only != "" {
		earlier, err := readEarlier(o.out)
		if err != nil {
			return err
		}
		sec = mergeEarlier(sec, earlier)
	}
	if err := sec.Write(o.out); err != nil {
		return err
	}
	for _, r := range results {
		if r.Failure != "" {
			return fmt.Errorf("%s %s failed; the crasher is in %s/testdata/fuzz/%s", r.Pkg, r.Name, r.Pkg, r.Name)
		}
	}
	return nil
}

// campaignResult is one target's campaign with its corpus and coverage.
type campaignResult struct {
	result
	CoverageBefore, CoverageAfter float64
	CorpusBefore, Copied, Left    int
}

// campaign measures the committed corpus's coverage, fuzzes, commits the
// new inputs, and measures again.
func campaign(ctx context.Context, root, module, gocache string, t target, d time.Duration, parallel int) (campaignResult, error) {
	c := campaignResult{CorpusBefore: countFiles(corpusDir(root, t))}
	var err error
	if c.CoverageBefore, err = corpusCoverage(ctx, root, module, t); err != nil {
		return c, err
	}
	if c.result, err = fuzz(ctx, root, t, d, parallel, os.Stderr); err != nil {
		return c, err
	}
	if c.Copied, c.Left, err = commitCorpus(cacheDir(gocache, module, t), corpusDir(root, t), maxCorpusPerTarget); err != nil {
		return c, err
	}
	if c.Failure != "" {
		// A crasher is already in testdata/fuzz; replaying it would fail.
		return c, nil
	}
	c.CoverageAfter, err = corpusCoverage(ctx, root, module, t)
	return c, err
}

// modulePath reads the module path from root/go.mod.
func modulePath(root string) (string, error) {
	f, err := os.Open(root + "/go.mod")
	if err != nil {
		return "", fmt.Errorf("run from the repository root: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.TrimSpace(m), nil
		}
	}
	return "", errors.New("go.mod names no module")
}
