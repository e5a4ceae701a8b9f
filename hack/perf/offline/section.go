package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/altairalabs/omnia/hack/perf/perfreport"
)

// The targets for omniactl check on 5,000 documents.
const (
	targetWall   = 500 * time.Millisecond
	targetRSSMiB = 100
)

// maxListed bounds how many missed or extra documents a note names.
const maxListed = 5

// section writes the comparison up: the tools side by side, the per-rule
// answers, the targets and what limits them.
func section(cfg config, acc *account, results []toolResult) perfreport.Section {
	sec := perfreport.Section{
		ID:      "offline-check",
		Order:   3,
		Title:   "Offline check: omniactl, gator, the Kyverno CLI and kubectl dry-run on one file",
		Command: "make perf-offline",
		Summary: fmt.Sprintf("One generated file of %d documents (AgentRuntimes in agent and function mode, Providers, some hosted on a platform, "+
			"and Workspaces; `go run ./cmd/omniactl/testdata-gen -n %d`) in which %d documents each break one of the six rules gator and the "+
			"Kyverno CLI can express. Each tool runs once on it as its own process: wall clock from start to exit and peak RSS from the kernel "+
			"(wait4 ru_maxrss). omniactl runs every rule of the catalog; gator and the Kyverno CLI run one policy per rule for the six "+
			"(hack/perf/offline/policies); kubectl apply --dry-run=server runs the API server's schema and CEL and the operator's webhook, one "+
			"round trip per document, against a local API server. Every answer is read back to the documents flagged per rule and held to "+
			"the generator's own account of where it put the violations.",
			acc.Documents, acc.Documents, len(acc.Violations)),
	}
	omniactl := results[0]
	if cfg.quick {
		sec.Notes = append(sec.Notes, fmt.Sprintf("A -quick smoke run on %d documents: the targets are for 5,000.", acc.Documents))
	}
	if load := perfreport.LoadAverage(); load != "" {
		sec.Notes = append(sec.Notes, fmt.Sprintf("Load average when the run ended: %s (on %s); other builds and benchmarks running at the same time slow every tool alike.",
			load, perfreport.ThisMachine()))
	}

	wallMet := omniactl.Run.Wall <= targetWall
	rssMet := mib(omniactl.Run.PeakKiB) <= targetRSSMiB
	sec.Targets = []perfreport.Target{
		{Name: fmt.Sprintf("omniactl check, %d documents, wall clock", acc.Documents), Goal: "≤ 0.5 s",
			Measured: fmt.Sprintf("%.3f s", omniactl.Run.Wall.Seconds()), Met: wallMet},
		{Name: fmt.Sprintf("omniactl check, %d documents, peak RSS", acc.Documents), Goal: "≤ 100 MiB",
			Measured: fmt.Sprintf("%.1f MiB", mib(omniactl.Run.PeakKiB)), Met: rssMet},
		{Name: "every tool that ran flags exactly the expected documents", Goal: "0 missed, 0 extra",
			Measured: exactness(results), Met: allExact(results)},
	}
	if !wallMet || !rssMet {
		sec.Notes = append(sec.Notes, "omniactl missed a target: its time is the whole process (start-up, reading and decoding the file, building "+
			"the validators from the embedded CRDs, schema + CEL + Go rules of every stage on every document, JSON output). "+
			"Profile it with `go test ./cmd/omniactl -run '^$' -bench BenchmarkCheck5000 -cpuprofile cpu.out && go tool pprof -top cpu.out`.")
	}

	sec.Tables = append(sec.Tables, toolsTable(results), rulesTable(acc, results))
	for _, r := range results {
		switch {
		case r.Skipped != "":
			sec.Notes = append(sec.Notes, fmt.Sprintf("%s did not run: %s", r.Name, r.Skipped))
			continue
		case !r.Compare.exact():
			sec.Notes = append(sec.Notes, fmt.Sprintf("%s did not flag exactly the expected documents: %s", r.Name, mismatchDetail(r.Compare)))
		}
		for _, n := range r.Notes {
			sec.Notes = append(sec.Notes, r.Name+": "+n)
		}
		if len(r.Compare.OtherRules) > 0 {
			sec.Notes = append(sec.Notes, fmt.Sprintf("%s also reported %d other rules (not among the six; not held to an expectation): %s",
				r.Name, len(r.Compare.OtherRules), otherRules(r.Compare.OtherRules)))
		}
	}
	sec.Notes = append(sec.Notes,
		"Ratios are each tool's wall clock over omniactl's in the same run. omniactl checks every catalog rule; gator and the Kyverno CLI only the six "+
			"policies written for this comparison, so their times are a floor for checking the whole catalog their way.",
		"The six rules: agentruntime/reserved-env-key (a Go rule: an extraEnv list names a reserved OMNIA_* key), agentruntime/function-needs-rest "+
			"and agentruntime/facade-type-for-mode (CEL: mode function needs exactly one rest facade; a websocket facade in mode function), "+
			"provider/platform-requires-auth (CEL), and two plain OpenAPI constraints with derived IDs: a secret reference's key format "+
			"(Workspace services[].redis.existingSecret.key, pattern ^[-._a-zA-Z0-9]+$) and async maxWorkers (facades[].async.workers, maximum 64).")
	return sec
}

func toolsTable(results []toolResult) perfreport.Table {
	t := perfreport.Table{
		Caption: "Each tool on the same file, in one run",
		Header:  []string{"tool", "checks", "wall clock", "× omniactl", "peak RSS", "exit", "flags exactly the expected documents"},
	}
	base := results[0].Run.Wall
	for _, r := range results {
		if r.Skipped != "" {
			t.Rows = append(t.Rows, []string{r.Name, r.Scope, "not run", "", "", "", r.Skipped})
			continue
		}
		ratio := "1.0"
		if r.Name != results[0].Name && base > 0 {
			ratio = fmt.Sprintf("%.1f", r.Run.Wall.Seconds()/base.Seconds())
		}
		exact := "yes"
		if !r.Compare.exact() {
			exact = fmt.Sprintf("no: %d mismatched", r.Compare.mismatches())
		}
		t.Rows = append(t.Rows, []string{r.Name, r.Scope, fmt.Sprintf("%.3f s", r.Run.Wall.Seconds()), ratio,
			fmt.Sprintf("%.1f MiB", mib(r.Run.PeakKiB)), fmt.Sprint(r.Run.Exit), exact})
	}
	return t
}

func rulesTable(acc *account, results []toolResult) perfreport.Table {
	t := perfreport.Table{Caption: "Documents flagged per rule (missed and extra against the generator's account)", Header: []string{"rule", "expected"}}
	var ran []toolResult
	for _, r := range results {
		if r.Skipped == "" {
			ran = append(ran, r)
			t.Header = append(t.Header, r.Name)
		}
	}
	for i, rule := range acc.Rules {
		row := []string{"`" + rule + "`", fmt.Sprint(len(acc.expected()[rule]))}
		for _, r := range ran {
			rc := r.Compare.Rules[i]
			cell := fmt.Sprint(rc.Flagged)
			if len(rc.Missed) > 0 || len(rc.Extra) > 0 {
				cell += fmt.Sprintf(" (%d missed, %d extra)", len(rc.Missed), len(rc.Extra))
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func exactness(results []toolResult) string {
	var parts []string
	for _, r := range results {
		if r.Skipped != "" {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d mismatched", r.Name, r.Compare.mismatches()))
	}
	return strings.Join(parts, ", ")
}

func allExact(results []toolResult) bool {
	for _, r := range results {
		if r.Skipped == "" && !r.Compare.exact() {
			return false
		}
	}
	return true
}

// mismatchDetail names, per rule, the first few missed and extra documents.
func mismatchDetail(c comparison) string {
	var parts []string
	for _, rc := range c.Rules {
		if len(rc.Missed) > 0 {
			parts = append(parts, fmt.Sprintf("%s missed %d (%s)", rc.Rule, len(rc.Missed), listKeys(rc.Missed)))
		}
		if len(rc.Extra) > 0 {
			parts = append(parts, fmt.Sprintf("%s extra %d (%s)", rc.Rule, len(rc.Extra), listKeys(rc.Extra)))
		}
	}
	return strings.Join(parts, "; ")
}

func listKeys(ks []docKey) string {
	var names []string
	for i, k := range ks {
		if i == maxListed {
			names = append(names, fmt.Sprintf("… %d more", len(ks)-maxListed))
			break
		}
		names = append(names, k.Kind+" "+k.Name)
	}
	return strings.Join(names, ", ")
}

func otherRules(m map[string]int) string {
	var parts []string
	for _, rule := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s on %d documents", rule, m[rule]))
	}
	return strings.Join(parts, ", ")
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
