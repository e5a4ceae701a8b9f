package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/altairalabs/omnia/hack/perf/perfreport"
	"github.com/altairalabs/omnia/test/faults"
)

// maxListed bounds the differences and invalid objects a section lists.
const maxListed = 20

// Section turns a run into the report's "faults" section: every figure is
// one this run measured.
func Section(cfg faults.Config, res *faults.Result, quick bool) perfreport.Section {
	s := perfreport.Section{ID: "faults", Order: 5, Title: "Faults, with nothing lost", Command: "make perf-faults"}
	s.Summary = fmt.Sprintf("The local cluster (kube-apiserver, etcd, kube-controller-manager, kube-scheduler, a kwok Node) runs two operator "+
		"replicas, leader election on, both serving the webhooks (failurePolicy Fail, as generated) behind a TCP front registered as the "+
		"webhook endpoint, which spreads connections over the replicas and fails over as a Service would. A stream of %d operations, "+
		"written by %d writers and paced at one every %s (each object's operations in order on one writer; a writer held up by a fault catches up after), runs while the faults "+
		"below are injected one after another, %s apart: first the creates of %d groups (a Provider, a ToolRegistry and an AgentRuntime "+
		"using both), then round after round of updates of them, with one valid write in %d creating another Provider or ToolRegistry, "+
		"and one write in %d an invalid create or update the webhook must refuse. Every failed attempt is retried. A replica that exits "+
		"is started again after %s, as a kubelet would. The same operations are then replayed without faults in a second namespace "+
		"(up to %d writers, unpaced), and once both settle every object's status is compared (timestamps, the namespace's name, the "+
		"UID-derived compositionDigest and the order of conditions normalised; generations and observedGenerations compared as they "+
		"are), and every stored object is judged again offline with the rule library (rules.Full, admission stage: `omniactl check`'s verdict).",
		res.Ops, min(cfg.Groups, faults.StreamWriters), cfg.Interval, cfg.Settle, cfg.Groups, faults.CreateEvery, faults.InvalidEvery,
		time.Second, min(cfg.Groups, faults.ReplayWriters))

	admitted := len(res.Run.Admitted) + len(res.Reference.Admitted)
	invalidStored := len(res.Recheck.Invalid)
	converged := "did not settle to the same statuses"
	if res.Converged > 0 {
		converged = fmt.Sprintf("same statuses %s after the replay ended", res.Converged.Round(time.Second))
	}
	s.Targets = []perfreport.Target{
		{Name: "objects whose status differs from the run without faults", Goal: "0",
			Measured: fmt.Sprintf("%d of %d (%s)", len(res.Differences), res.Compared, converged),
			Met:      len(res.Differences) == 0 && res.Compared > 0 && res.Converged > 0},
		{Name: "invalid objects that got in", Goal: "0",
			Measured: fmt.Sprintf("%d admitted of %d invalid writes; %d of %d stored objects invalid on re-check",
				admitted, res.Run.Denied+res.Reference.Denied+admitted, invalidStored, res.Recheck.Checked),
			Met: admitted == 0 && invalidStored == 0 && res.Recheck.Checked > 0},
		{Name: "writes lost (told OK and not stored as written, or told refused and stored)", Goal: "0",
			Measured: fmt.Sprintf("%d of %d objects read back; %d operations had a failed attempt that was stored all the same (retried, no harm)",
				res.Lost.Count, res.Lost.Checked, len(res.Run.Landed)),
			Met: res.Lost.Count == 0 && res.Lost.Checked > 0},
		arenaTarget(res),
	}

	recovery := perfreport.Table{
		Caption: "Recovery, from the moment the killed process is gone (each the first time it is observed, polled every 100 ms)",
		Header: []string{"fault", "API server answering (a quorum read)", "webhook refusing an invalid object again", "a leader holds the Lease",
			"first reconcile after", "failed attempts (" + classHeader + ")", "of which creates", "operator restarts"},
	}
	for _, f := range res.Faults {
		r := f.Recovery
		leader := dur(r.Leader, "leader holding the Lease", r.Missing)
		if f.Name == faults.FaultLeader {
			leader += " (new holder)"
		}
		recovery.Rows = append(recovery.Rows, []string{
			f.Name,
			dur(r.APIServer, "API server answering", r.Missing),
			dur(r.Webhook, "webhook answering", r.Missing),
			leader,
			dur(r.FirstReconcile, "first reconcile", r.Missing),
			byClass(f.Failed),
			fmt.Sprint(f.FailedCreates),
			fmt.Sprint(f.ReplicaExits),
		})
	}
	served := make([]string, 0, len(res.FrontServed))
	for addr, n := range res.FrontServed {
		served = append(served, fmt.Sprintf("%s: %d", addr, n))
	}
	slices.Sort(served)
	stream := perfreport.Table{
		Caption: "The stream",
		Header:  []string{"figure", "with faults", "replay without faults"},
		Rows: [][]string{
			{"operations", fmt.Sprint(res.Run.Done), fmt.Sprint(res.Reference.Done)},
			{"invalid writes refused by the webhook", fmt.Sprint(res.Run.Denied), fmt.Sprint(res.Reference.Denied)},
			{"invalid writes admitted", fmt.Sprint(len(res.Run.Admitted)), fmt.Sprint(len(res.Reference.Admitted))},
			{"failed attempts (retried)", fmt.Sprint(res.Run.Failed), fmt.Sprint(res.Reference.Failed)},
			{"failed attempts outside every fault (" + classHeader + ")", byClass(res.FailedOutside), "—"},
			{"operations with a failed attempt that was stored anyway (seen on the retry)", fmt.Sprint(len(res.Run.Landed)), fmt.Sprint(len(res.Reference.Landed))},
			{"writes lost (stored-state check)", fmt.Sprintf("%d of %d objects", res.Lost.Count, res.Lost.Checked), "—"},
			{"objects compared", fmt.Sprint(res.Compared), fmt.Sprint(res.Compared)},
			{"stored objects re-checked offline", fmt.Sprint(res.Recheck.Checked), "(both namespaces)"},
			{"webhook connections per replica (front)", strings.Join(served, ", ") + fmt.Sprintf("; none answering: %d", res.FrontRefused), "—"},
		},
	}
	s.Tables = []perfreport.Table{recovery, stream, arenaTable(res)}

	if quick {
		s.Notes = append(s.Notes, "A -quick smoke run (PERF_QUICK=1): short pauses and a 6 s Lease; not the report's figures.")
	}
	lease := "the operator's default leader election (15 s lease, 10 s renew deadline, 2 s retry)"
	if len(cfg.LeaseArgs) > 0 {
		lease = "leader election " + strings.Join(cfg.LeaseArgs, " ")
	}
	load := ""
	if l := perfreport.LoadAverage(); l != "" {
		load = " (load average at the end: " + l + ")"
	}
	s.Notes = append(s.Notes,
		fmt.Sprintf("Run with %s; the run took %s, cluster start included%s. The load average counts the run itself: the control plane, two operator replicas, Redis, the writers and the workers share the machine's CPUs.",
			lease, res.Elapsed.Round(time.Second), load),
		"The leader's recovery is bounded by the Lease: a SIGKILLed leader does not release it, so the other replica waits for it to expire "+
			"(lease duration) before it takes over; a shorter lease recovers faster at the price of more Lease writes. While the API server or etcd "+
			"is down the leader cannot renew and, past its renew deadline, exits on purpose; it is then started again (operator restarts above).",
		"kube-apiserver is killed with SIGKILL and started again at once with the same command line (same port, certificates and etcd); etcd "+
			"is stopped with SIGTERM and started again with the same data directory (test/controlplane/restart.go), as a kubelet restarts a static pod.",
		"Both runs share one cluster, in two namespaces (faults-run, then faults-reference): the replay runs after the faults, on a healthy cluster.",
		"Failed attempts are classed by what the writer was told: refused (connection refused: never sent), cut-off (the connection closed "+
			"with the request in flight: reset, EOF, or client-go closing the HTTP/2 connection of an API server that died; the write may have landed), "+
			"timeout (no answer in time: the write may have landed), not ready (503/500/429, etcd unavailable, or a 404 for the custom resource before a restarted "+
			"API server serves the CRDs again), webhook unavailable, webhook denied (a valid write refused: a bug), conflict, other. Every "+
			"failed attempt is retried until the operation has its outcome; a write is lost when the writer was told OK and the object does "+
			"not hold what it wrote, or told refused and the object is stored: the stored-state check reads every object back.",
		arenaSummary(cfg, res),
	)
	for _, c := range faults.ErrorClasses {
		if ex, ok := res.Examples[c]; ok {
			s.Notes = append(s.Notes, fmt.Sprintf("First failed attempt of class %s: %s", c, ex))
		}
	}
	for i, l := range res.Run.Landed {
		if i == maxListed {
			s.Notes = append(s.Notes, fmt.Sprintf("… and %d more writes stored although told an error.", len(res.Run.Landed)-maxListed))
			break
		}
		s.Notes = append(s.Notes, "Not lost (the retry found it stored): "+l)
	}
	for _, l := range [][]string{res.Lost.Missing, res.Lost.Changed, res.Lost.Refused} {
		for _, w := range l {
			s.Notes = append(s.Notes, "Lost write: "+w)
		}
	}
	for _, a := range res.Arena {
		for _, d := range a.Duplicates {
			s.Notes = append(s.Notes, "Scheduled ArenaJob duplicate: "+d)
		}
	}
	for i, d := range res.Differences {
		if i == maxListed {
			s.Notes = append(s.Notes, fmt.Sprintf("… and %d more differences.", len(res.Differences)-maxListed))
			break
		}
		s.Notes = append(s.Notes, fmt.Sprintf("Difference: %s: %s", d.Object, d.Detail))
	}
	for i, inv := range append(append(res.Run.Admitted, res.Reference.Admitted...), res.Recheck.Invalid...) {
		if i == maxListed {
			s.Notes = append(s.Notes, "… and more invalid objects.")
			break
		}
		s.Notes = append(s.Notes, "Invalid object: "+inv)
	}
	for _, msg := range res.Unexplained {
		s.Notes = append(s.Notes, "A failed attempt of class other: "+msg)
	}
	for _, f := range res.Faults {
		if len(f.Recovery.Missing) > 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("%s: not observed within %s: %s.", f.Name, cfg.RecoveryTimeout, strings.Join(f.Recovery.Missing, ", ")))
		}
	}
	return s
}

// dur prints a recovery time, or says it was not observed.
func dur(d time.Duration, name string, missing []string) string {
	if slices.Contains(missing, name) {
		return "not observed"
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// classHeader names byClass's columns.
var classHeader = func() string {
	names := make([]string, 0, len(faults.ErrorClasses))
	for _, c := range faults.ErrorClasses {
		names = append(names, string(c))
	}
	return strings.Join(names, " / ")
}()

// byClass prints failed attempts per class, in classHeader's order.
func byClass(m map[faults.ErrorClass]int) string {
	out := make([]string, 0, len(faults.ErrorClasses))
	for _, c := range faults.ErrorClasses {
		out = append(out, fmt.Sprint(m[c]))
	}
	return strings.Join(out, " / ")
}
