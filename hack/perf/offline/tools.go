package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// toolResult is one tool's run on the file and its answer held to the
// expected one.
type toolResult struct {
	Name string
	// Scope says what the tool checks: omniactl and the API server every
	// rule, gator and Kyverno the six policies written for them.
	Scope string
	// Skipped, when set, says why the tool did not run (not cached in a
	// -quick run, or its build failed: the error).
	Skipped string
	Run     measured
	Compare comparison
	// Notes are the tool's own caveats (evaluation errors, refusals that
	// could not be tied to a document).
	Notes []string
}

func (t toolResult) summaryLine() string {
	if t.Skipped != "" {
		return fmt.Sprintf("%-9s skipped: %s", t.Name, t.Skipped)
	}
	return fmt.Sprintf("%-9s %8.3f s  %6.1f MiB  exit %d  exact=%v mismatches=%d other-rule findings=%d",
		t.Name, t.Run.Wall.Seconds(), mib(t.Run.PeakKiB), t.Run.Exit, t.Compare.exact(), t.Compare.mismatches(), len(t.Compare.OtherRules))
}

func mib(kib int64) float64 { return float64(kib) / 1024 }

// runOmniactl builds omniactl from this tree and checks the file with it.
// Exit 1 means deny findings (expected: the file has them); 2 means the
// input was unusable.
func runOmniactl(ctx context.Context, cfg config, file string, acc *account) (toolResult, error) {
	res := toolResult{Name: "omniactl", Scope: "every catalog rule (schema, CEL and Go; admission and reconcile stages)"}
	bin := filepath.Join(cfg.dir, "omniactl")
	if err := goBuild(ctx, cfg, bin, "./cmd/omniactl"); err != nil {
		return res, err
	}
	r, err := measure(ctx, cfg.dir, "omniactl", toolTimeout, nil, bin, "check", "-f", file, "-o", "json")
	if err != nil {
		return res, err
	}
	res.Run = r
	if r.Exit != 0 && r.Exit != 1 {
		return res, fmt.Errorf("omniactl check exited %d (see %s)", r.Exit, r.Stderr)
	}
	got, err := parseFile(r.Stdout, parseOmniactl)
	if err != nil {
		return res, err
	}
	res.Compare = compare(acc.Rules, acc.expected(), got)
	return res, nil
}

// runGator runs `gator test` with the ConstraintTemplates and Constraints of
// policies/gator on the file.
func runGator(ctx context.Context, cfg config, file string, acc *account) (toolResult, error) {
	res := toolResult{Name: "gator", Scope: "the six rules, one ConstraintTemplate (Rego) + Constraint each"}
	bin, skipped := locateTool(ctx, cfg, "gator")
	if skipped != "" {
		res.Skipped = skipped
		return res, nil
	}
	policies := filepath.Join(cfg.root, "hack/perf/offline/policies/gator")
	r, err := measure(ctx, cfg.dir, "gator", toolTimeout, nil, bin, "test",
		"-f", filepath.Join(policies, "templates.yaml"), "-f", filepath.Join(policies, "constraints.yaml"), "-f", file, "-o", "json")
	if err != nil {
		return res, err
	}
	res.Run = r
	// gator exits 1 when a deny Constraint is violated.
	if r.Exit != 0 && r.Exit != 1 {
		return res, fmt.Errorf("gator exited %d (see %s)", r.Exit, r.Stderr)
	}
	got, err := parseFile(r.Stdout, parseGator)
	if err != nil {
		return res, err
	}
	res.Compare = compare(acc.Rules, acc.expected(), got)
	return res, nil
}

// runKyverno runs the Kyverno CLI's apply with the ClusterPolicies of
// policies/kyverno on the file and reads its policy report.
func runKyverno(ctx context.Context, cfg config, file string, acc *account) (toolResult, error) {
	res := toolResult{Name: "kyverno", Scope: "the six rules, one ClusterPolicy each"}
	bin, skipped := locateTool(ctx, cfg, "kyverno")
	if skipped != "" {
		res.Skipped = skipped
		return res, nil
	}
	policies := filepath.Join(cfg.root, "hack/perf/offline/policies/kyverno/policies.yaml")
	policyRules, err := readPolicyRules(policies)
	if err != nil {
		return res, err
	}
	r, err := measure(ctx, cfg.dir, "kyverno", toolTimeout, nil, bin, "apply", policies,
		"--resource", file, "--policy-report", "--output-format", "json", "--remove-color")
	if err != nil {
		return res, err
	}
	res.Run = r
	// The CLI exits 1 when a policy fails on a resource.
	if r.Exit != 0 && r.Exit != 1 {
		return res, fmt.Errorf("kyverno exited %d (see %s)", r.Exit, r.Stderr)
	}
	f, err := os.Open(r.Stdout)
	if err != nil {
		return res, err
	}
	defer f.Close()
	ky, err := parseKyverno(f, policyRules)
	if err != nil {
		return res, fmt.Errorf("%w (output in %s)", err, r.Stdout)
	}
	res.Compare = compare(acc.Rules, acc.expected(), ky.Flagged)
	if ky.Errors > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("the Kyverno CLI reported %d results of status error (a rule it could not evaluate on a document)", ky.Errors))
	}
	return res, nil
}

// locateTool finds gator's or the Kyverno CLI's binary, building it when
// cfg.build. It returns why the tool is skipped, if it is.
func locateTool(ctx context.Context, cfg config, tool string) (bin, skipped string) {
	if cfg.build {
		fmt.Printf("%s: building from its Go module if not cached (hack/perf/tools/build.sh)\n", tool)
	}
	bin, err := toolBinary(ctx, cfg, tool, !cfg.build)
	switch {
	case errors.Is(err, errNotCached):
		return "", "its binary was not cached yet and this run built nothing (-quick or -build=false): run `hack/perf/tools/build.sh " + tool + "` (or make perf-offline) once"
	case err != nil:
		return "", "could not be built here: " + oneLine(err.Error())
	}
	return bin, ""
}

// oneLine folds a multi-line error into one line for a table cell.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// parseFile opens path and parses it with parse.
func parseFile(path string, parse func(io.Reader) (flagged, error)) (flagged, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	got, err := parse(f)
	if err != nil {
		return nil, fmt.Errorf("%w (output in %s)", err, path)
	}
	return got, nil
}
