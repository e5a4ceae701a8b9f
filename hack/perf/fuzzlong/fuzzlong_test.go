package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/altairalabs/omnia/hack/perf/perfreport"
)

func TestParseProgress(t *testing.T) {
	out := []byte("fuzz: elapsed: 0s, gathering baseline coverage: 0/40 completed\n" +
		"fuzz: elapsed: 3s, execs: 1200 (400/sec), new interesting: 2 (total: 42)\n" +
		"fuzz: elapsed: 10m0s, execs: 987654 (1646/sec), new interesting: 17 (total: 57)\n" +
		"PASS\n")
	elapsed, execs, fresh, total, ok := parseProgress(out)
	if !ok || elapsed != 10*time.Minute || execs != 987654 || fresh != 17 || total != 57 {
		t.Fatalf("parseProgress = %v %d %d %d %v", elapsed, execs, fresh, total, ok)
	}
	if _, _, _, _, ok := parseProgress([]byte("FAIL\tbuild failed\n")); ok {
		t.Fatal("a run without progress lines parsed")
	}
}

func TestParseCoverage(t *testing.T) {
	if cov, ok := parseCoverage([]byte("ok  \tx/rules\t1.2s\tcoverage: 61.4% of statements in x/rules\n")); !ok || cov != 61.4 {
		t.Fatalf("parseCoverage = %v %v", cov, ok)
	}
	if _, ok := parseCoverage([]byte("ok  \tx/rules\t1.2s\n")); ok {
		t.Fatal("output without coverage parsed")
	}
}

// TestDiscoverFindsEveryTargetTheMakefileRuns keeps `make fuzz` (and so
// fuzz-smoke in make test) and the long campaign over the same targets.
func TestDiscoverFindsEveryTargetTheMakefileRuns(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	targets, err := discover(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(targets) < 4 {
		t.Fatalf("discover found %d targets: %v", len(targets), targets)
	}
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		line := "-fuzz '^" + tg.Name + "$$' -fuzztime $(FUZZTIME) " + tg.Pkg + "/"
		if !strings.Contains(string(makefile), line) {
			t.Errorf("the Makefile's fuzz target does not run %s in %s (want a line with %q)", tg.Name, tg.Pkg, line)
		}
	}
}

func TestCommitCorpus(t *testing.T) {
	from, to := t.TempDir(), filepath.Join(t.TempDir(), "testdata", "fuzz", "FuzzX")
	for _, name := range []string{"a", "b", "c", "d"} {
		if err := os.WriteFile(filepath.Join(from, name), []byte("go test fuzz v1\n"+name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(to, "b"), []byte("already committed"), 0o644); err != nil {
		t.Fatal(err)
	}
	copied, left, err := commitCorpus(from, to, 2)
	if err != nil || copied != 2 || left != 1 {
		t.Fatalf("commitCorpus = %d copied, %d left, %v; want 2, 1", copied, left, err)
	}
	if got := countFiles(to); got != 3 {
		t.Fatalf("corpus holds %d files, want 3", got)
	}
	if data, _ := os.ReadFile(filepath.Join(to, "b")); string(data) != "already committed" {
		t.Fatal("an existing corpus file was overwritten")
	}
	if c, l, err := commitCorpus(filepath.Join(from, "missing"), to, 2); err != nil || c != 0 || l != 0 {
		t.Fatalf("a missing cache dir: %d %d %v", c, l, err)
	}
}

func TestSectionTargets(t *testing.T) {
	s := section([]campaignResult{
		{result: result{target: target{Pkg: "./rules", Name: "FuzzEvaluate"}, Elapsed: 10 * time.Minute, Execs: 600}},
		{result: result{target: target{Pkg: "./policies", Name: "FuzzCompile"}, Elapsed: 10 * time.Minute, Failure: "panic"}},
		{result: result{target: target{Pkg: "./admission", Name: "FuzzHandler"}, Elapsed: time.Minute}, Left: 3},
	}, 10*time.Minute, 1)
	var met []bool
	for _, tg := range s.Targets {
		met = append(met, tg.Met)
	}
	if len(met) != 3 || !met[0] || met[1] || met[2] {
		t.Fatalf("targets met = %v, want [true false false]", met)
	}
	if s.Tables[0].Rows[0][4] != "1" || len(s.Notes) != 1 {
		t.Fatalf("execs/s %q, notes %v", s.Tables[0].Rows[0][4], s.Notes)
	}
}

func TestMergeEarlierKeepsTargetsNotRerun(t *testing.T) {
	earlier := section([]campaignResult{
		{result: result{target: target{Pkg: "./admission", Name: "FuzzHandler"}, Elapsed: 6 * time.Minute, Failure: "x"}},
		{result: result{target: target{Pkg: "./rules", Name: "FuzzEvaluate"}, Elapsed: 10 * time.Minute}, Left: 2},
	}, 10*time.Minute, 0)
	now := section([]campaignResult{
		{result: result{target: target{Pkg: "./admission", Name: "FuzzHandler"}, Elapsed: 10 * time.Minute}},
	}, 10*time.Minute, 0)
	got := mergeEarlier(now, []perfreport.Section{earlier})
	rows := got.Tables[0].Rows
	if len(rows) != 2 || rows[0][0] != "FuzzEvaluate" || rows[1][0] != "FuzzHandler" || rows[1][8] != "no failure" {
		t.Fatalf("rows = %v", rows)
	}
	if len(got.Targets) != 2 || !got.Targets[0].Met || !got.Targets[1].Met {
		t.Fatalf("targets = %+v", got.Targets)
	}
	if len(got.Notes) != 1 || !strings.HasPrefix(got.Notes[0], "FuzzEvaluate:") {
		t.Fatalf("notes = %v", got.Notes)
	}
	if same := mergeEarlier(now, nil); len(same.Tables[0].Rows) != 1 {
		t.Fatal("merging with no earlier section changed the section")
	}
}
