package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/altairalabs/omnia/hack/perf/clusterbench"
	"github.com/altairalabs/omnia/hack/perf/perfreport"
)

// rssTargetKiB is the target: ≤ 200 MiB at rssTargetSize objects.
const (
	rssTargetKiB  = 200 * 1024
	rssTargetSize = 10000
)

// verbs are the methods the per-verb table shows, in order.
var verbs = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

// mib formats KiB as MiB.
func mib(kib int64) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }

// secs formats a duration in seconds.
func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

// perObject formats count ÷ n.
func perObject(count float64, n int) string { return fmt.Sprintf("%.2f", count/float64(n)) }

// mixText is "400 Providers, 300 ToolRegistries (30 probing), …".
func mixText(p Plan) string {
	var parts []string
	for _, k := range Kinds {
		parts = append(parts, fmt.Sprintf("%d %s", p.Count[k], k))
	}
	return strings.Join(parts, ", ")
}

// probing counts the plan's probing ToolRegistries.
func probing(p Plan) int {
	n := 0
	for _, it := range p.Items {
		if it.Probe {
			n++
		}
	}
	return n
}

// steadyTargetMet: no write to an Omnia object or its children in any
// size's steady state.
func steadyTargetMet(results []*result) bool {
	for _, r := range results {
		if r.writes.ObjectTotal() != 0 {
			return false
		}
	}
	return true
}

// rssTarget is the RSS target beside what was measured: met only when the
// target size ran and stayed under it.
func rssTarget(results []*result) perfreport.Target {
	t := perfreport.Target{Name: "Operator peak RSS at 10,000 objects", Goal: "≤ 200 MiB"}
	largest := results[len(results)-1]
	for _, r := range results {
		if r.n == rssTargetSize {
			t.Measured, t.Met = mib(r.peak), r.peak <= rssTargetKiB
			return t
		}
		if r.n > largest.n {
			largest = r
		}
	}
	t.Measured = fmt.Sprintf("not measured at 10,000 in this run (largest size %d: %s)", largest.n, mib(largest.peak))
	return t
}

// section builds the report section from the sizes that completed; runErr
// is the size that failed, if one did.
func section(ctx context.Context, cfg config, results []*result, runErr error) perfreport.Section {
	s := perfreport.Section{
		ID: "reconcile-scale", Order: 4, Title: "Reconcile at scale", Command: "make perf-scale",
		Summary: "For each size a fresh local cluster (kube-apiserver, etcd, kube-controller-manager, kube-scheduler, a kwok Node, Redis) runs the operator binary as `make run` runs it, " +
			fmt.Sprintf("with the Arena controllers. The harness creates the mixed objects with %d parallel creators, %d per namespace, in blocks of ten: ", cfg.concurrency, objectsPerNamespace) +
			fmt.Sprintf("4 Providers (Claude, health-checked against a local plain-http vendor), 3 ToolRegistries (one HTTP tool at a local endpoint; one registry in %d probes it over TCP every 60 s), ", probeEvery) +
			"2 AgentRuntimes (each with its own PromptPack and ConfigMap, using its block's Provider; each makes a ServiceAccount, Role, RoleBinding, Service and Deployment whose Pod kwok makes Ready) " +
			"and 1 ArenaJob (a manual evaluation of the namespace's hosted ArenaProject: an ArenaRun, a Redis work queue and a worker Job; the harness plays the worker pods). " +
			"Each namespace's credential Secret and Ready ArenaProject are set up before the clock starts. " +
			"Converged: a Provider or ToolRegistry Ready, an AgentRuntime Running (each at its current generation, as its controller reports), an ArenaJob Ready with its run finished; followed through watches, never by listing. " +
			"Requests per object are the operator's own client requests (rest_client_requests_total) from the first create to convergence, divided by the number of mixed objects. " +
			fmt.Sprintf("The steady state (%s) counts the API server's writes by resource: those to Omnia objects and their children are the operator's; Lease writes are leader election's and the API server's own.", cfg.steady),
	}
	s.Targets = []perfreport.Target{rssTarget(results), {
		Name: "Writes in a steady state after convergence", Goal: "0 (Lease renewals excepted)",
		Measured: steadyMeasured(results), Met: steadyTargetMet(results),
	}}
	s.Tables = []perfreport.Table{sizeTable(results), verbTable(results), loadTable(results)}
	s.Notes = notes(ctx, cfg, results, runErr, s.Targets)
	return s
}

// steadyMeasured is "N=1000: 0 writes to objects (…)" per size.
func steadyMeasured(results []*result) string {
	var parts []string
	for _, r := range results {
		parts = append(parts, fmt.Sprintf("N=%d: %.0f in %s", r.n, r.writes.ObjectTotal(), r.steady))
	}
	return strings.Join(parts, "; ")
}

func sizeTable(results []*result) perfreport.Table {
	t := perfreport.Table{
		Caption: "Per size: convergence, the operator's memory and CPU, its API requests, and steady-state writes",
		Header: []string{"Objects", "Mix", "All created", "Converged", "Operator CPU to convergence",
			"Peak RSS before the first create", "Peak RSS at convergence", "Go heap in use at convergence", "Peak RSS after steady state", "Operator API requests per object", "of which writes",
			"Steady-state writes to objects", "Steady-state Lease writes", "Operator write requests in steady state"},
	}
	for _, r := range results {
		total := clusterbench.Sum(r.requests)
		t.Rows = append(t.Rows, []string{
			fmt.Sprint(r.n), mixText(r.plan), secs(r.allCreated), secs(r.converged), fmt.Sprintf("%.1f s", r.cpuSeconds),
			mib(r.peakBefore), mib(r.peakAtConverged), mib(int64(r.heapInuse / 1024)), mib(r.peak), perObject(total, r.n), perObject(total-r.requests["GET"], r.n),
			fmt.Sprintf("%.0f", r.writes.ObjectTotal()), fmt.Sprintf("%.0f", clusterbench.Sum(r.writes.Leases)),
			fmt.Sprintf("%.0f", clusterbench.Sum(r.operatorWrites)),
		})
	}
	return t
}

func verbTable(results []*result) perfreport.Table {
	t := perfreport.Table{
		Caption: "The operator's API requests per object during convergence, by verb (rest_client_requests_total)",
		Header:  append(append([]string{"Objects"}, verbs...), "all"),
	}
	for _, r := range results {
		row := []string{fmt.Sprint(r.n)}
		for _, v := range verbs {
			row = append(row, perObject(r.requests[v], r.n))
		}
		t.Rows = append(t.Rows, append(row, perObject(clusterbench.Sum(r.requests), r.n)))
	}
	return t
}

func loadTable(results []*result) perfreport.Table {
	t := perfreport.Table{
		Caption: "Reconcile work until convergence, per controller (the operator's controller_runtime metrics)",
		Header:  []string{"Objects", "Controller", "Reconciles", "Seconds reconciling", "Workers", "Mean per reconcile"},
	}
	for _, r := range results {
		names := make([]string, 0, len(r.loads))
		for name, l := range r.loads {
			if l.Reconciles > 0 {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		for _, name := range names {
			l := r.loads[name]
			t.Rows = append(t.Rows, []string{fmt.Sprint(r.n), name, fmt.Sprintf("%.0f", l.Reconciles),
				fmt.Sprintf("%.1f", l.Seconds), fmt.Sprintf("%.0f", l.Workers), fmt.Sprintf("%.1f ms", 1000*l.Seconds/l.Reconciles)})
		}
	}
	return t
}

// notes say what a reader needs to trust the figures, and for a missed
// target what limits it (the operator's profiles).
func notes(ctx context.Context, cfg config, results []*result, runErr error, targets []perfreport.Target) []string {
	var out []string
	if cfg.quick {
		out = append(out, "A -quick smoke run: small sizes and a short steady state; not the report's figures.")
	}
	if load := perfreport.LoadAverage(); load != "" {
		out = append(out, "Load average when the run ended: "+load+". The control plane, kwok, Redis, the operator and the harness share the machine's CPUs: "+
			"times and CPU depend on that sharing; the counts (requests, writes) do not.")
	}
	if len(cfg.operatorArgs) > 0 {
		out = append(out, "The operator ran with the extra flags "+strings.Join(cfg.operatorArgs, " ")+" (-operator-arg).")
	}
	if runErr != nil {
		out = append(out, "A size did not complete: "+runErr.Error())
	}
	for _, r := range results {
		out = append(out, fmt.Sprintf("N=%d: the operator used %.1f s of CPU in the %s to convergence, %.0f %% of one core: it was not what limited convergence; the API server, etcd, the controller-manager and kwok on the same shared cores were.",
			r.n, r.cpuSeconds, secs(r.converged), 100*r.cpuSeconds/r.converged.Seconds()))
		if note := probeWritesNote(r); note != "" {
			out = append(out, note)
		}
		out = append(out, fmt.Sprintf("N=%d: %d namespaces, %d probing ToolRegistries; ArenaRuns at the end by phase %v (%d work items executed by the harness's workers, %d worker errors).",
			r.n, len(r.plan.Namespaces), probing(r.plan), r.runs, r.itemsExecuted, r.workerFailures))
		if w := clusterbench.SortedLines(r.writes.Objects); len(w) > 0 {
			out = append(out, fmt.Sprintf("N=%d steady-state writes to objects by resource: %s.", r.n, strings.Join(w, ", ")))
		}
		out = append(out, fmt.Sprintf("N=%d steady-state Lease writes: %s; the operator's own write requests: %s (its PUTs are its Lease renewals; a POST is the TokenReview or SubjectAccessReview its /metrics makes to authenticate the harness's scrape).",
			r.n, orNone(clusterbench.SortedLines(r.writes.Leases)), orNone(clusterbench.SortedLines(r.operatorWrites))))
		if len(r.apiLines) > 0 {
			out = append(out, fmt.Sprintf("N=%d API server requests during convergence (every client, at least N/4): %s.", r.n, strings.Join(r.apiLines[:min(len(r.apiLines), 12)], "; ")))
		}
	}
	missed := false
	for _, t := range targets {
		missed = missed || !t.Met
	}
	if missed {
		last := results[len(results)-1]
		for _, p := range []struct {
			what string
			top  profileTop
		}{{"CPU (first " + cfg.profile.String() + " of the ramp)", last.cpuTop}, {"heap in use (at convergence)", last.heapTop}} {
			if p.top.err != nil {
				out = append(out, fmt.Sprintf("N=%d operator %s profile: %v", last.n, p.what, p.top.err))
				continue
			}
			if len(p.top.lines) > 0 {
				out = append(out, fmt.Sprintf("N=%d operator %s profile, go tool pprof -top: %s", last.n, p.what, strings.Join(p.top.lines, " | ")))
			}
		}
	}
	return out
}

// probeWritesNote explains the steady-state status writes of the probing
// ToolRegistries, when there were any.
func probeWritesNote(r *result) string {
	writes := r.writes.Objects["toolregistries/status PATCH"]
	n := probing(r.plan)
	if writes == 0 || n == 0 {
		return ""
	}
	return fmt.Sprintf("N=%d: the steady state's toolregistries/status writes (%.0f) come from the %d probing ToolRegistries, %.1f each in %s. "+
		"A probe round writes a registry's status only when a tool's result changes (status.discoveredTools[].lastChecked is the time of the last change), "+
		"so these are tools whose endpoint flipped between reachable and unreachable during the window: look for a probe target that is not stable.",
		r.n, writes, n, writes/float64(n), r.steady)
}

func orNone(lines []string) string {
	if len(lines) == 0 {
		return "none"
	}
	return strings.Join(lines, ", ")
}

// printResult prints one size's figures as they are measured.
func printResult(r *result) {
	total := clusterbench.Sum(r.requests)
	fmt.Printf("\nN=%d (%s)\n", r.n, mixText(r.plan))
	fmt.Printf("  all created after %s, converged after %s, operator CPU %.1f s\n", secs(r.allCreated), secs(r.converged), r.cpuSeconds)
	fmt.Printf("  operator peak RSS %s before the first create, %s at convergence (Go heap in use %s), %s after the steady state (VmRSS %s)\n",
		mib(r.peakBefore), mib(r.peakAtConverged), mib(int64(r.heapInuse/1024)), mib(r.peak), mib(r.rss))
	fmt.Printf("  operator API requests %.0f (%.2f per object): %s\n", total, total/float64(r.n), strings.Join(clusterbench.SortedLines(r.requests), ", "))
	fmt.Printf("  steady state %s: writes to objects %.0f (%s); Lease writes %s; operator write requests %s\n", r.steady,
		r.writes.ObjectTotal(), orNone(clusterbench.SortedLines(r.writes.Objects)), orNone(clusterbench.SortedLines(r.writes.Leases)), orNone(clusterbench.SortedLines(r.operatorWrites)))
	fmt.Printf("  other clients' steady-state writes: %s\n", orNone(clusterbench.SortedLines(r.writes.Others)))
	fmt.Printf("  ArenaRuns by phase %v, %d items executed, %d worker errors\n", r.runs, r.itemsExecuted, r.workerFailures)
}
