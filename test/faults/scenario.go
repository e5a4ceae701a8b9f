package faults

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/admission"
	"github.com/altairalabs/omnia/hack/perf/clusterbench"
	"github.com/altairalabs/omnia/test/controlplane"
)

// Fault names, in the order a full run injects them.
const (
	FaultAPIServer = "kill -9 kube-apiserver, restart it"
	FaultEtcd      = "restart etcd (SIGTERM, same data directory)"
	FaultLeader    = "kill -9 the operator leader"
)

// Config says how long and how hard a run is.
type Config struct {
	// Groups is how many Provider + ToolRegistry + AgentRuntime groups the
	// stream creates before it updates them round after round.
	Groups int
	// Interval paces the stream with faults (one operation per Interval).
	Interval time.Duration
	// Warmup is how long the stream runs before the first fault; Settle
	// how long it runs after each recovery.
	Warmup, Settle time.Duration
	// Faults are injected in this order (FaultAPIServer, FaultEtcd,
	// FaultLeader).
	Faults []string
	// LeaseArgs are the operator's leader-election flags (empty: its
	// defaults, 15 s lease, 10 s renew deadline, 2 s retry).
	LeaseArgs []string
	// MinStream is the shortest the stream with faults runs (the settle
	// after the last fault is stretched to it): the scheduled ArenaJobs
	// tick once a minute, so a few minutes give a few ticks across the
	// faults.
	MinStream time.Duration
	// RecoveryTimeout bounds each fault's recovery; ConvergeTimeout the
	// wait for both runs to settle to the same statuses.
	RecoveryTimeout, ConvergeTimeout time.Duration
	// Log receives progress lines (nil: none).
	Log io.Writer
	// Keep keeps the logs directory.
	Keep bool
}

// FaultReport is one fault's outcome.
type FaultReport struct {
	Name     string
	Recovery Recovery
	// Failed counts the stream's failed attempts (retried) during the
	// fault, by class; FailedCreates those of creates.
	Failed        map[ErrorClass]int
	FailedCreates int
	// ReplicaExits counts operator processes that exited on their own
	// during the fault (a leader that cannot renew its Lease exits) and
	// were started again.
	ReplicaExits int
	// Window is when the fault's failed attempts were counted.
	Window [2]time.Time
}

// Result is a whole run.
type Result struct {
	Faults []FaultReport
	// Ops is how many operations each run performed; Run and Reference
	// are the two streams' reports.
	Ops            int
	Run, Reference StreamReport
	// FailedOutside counts failed attempts outside every fault window.
	FailedOutside map[ErrorClass]int
	// Unexplained are the distinct errors of attempts no fault explains
	// (ClassOther), at most maxUnexplainedKept, for the report.
	Unexplained []string
	// Examples holds, per class, the first failed attempt's operation,
	// HTTP status and error text (bounded), for the report.
	Examples map[ErrorClass]string
	// Compared is how many objects were compared; Differences what
	// differed once both runs converged (or when ConvergeTimeout ran out).
	Compared    int
	Differences []Difference
	// Converged is how long after the reference run ended both runs held
	// the same statuses (0 when they never did).
	Converged time.Duration
	// Lost is the stored-state check of the run with faults: writes told
	// OK and not there, or told refused and there.
	Lost Lost
	// Recheck is the offline verdict on every stored object.
	Recheck Recheck
	// FrontServed counts the webhook connections each replica took, and
	// FrontRefused those no replica accepted.
	FrontServed  map[string]int
	FrontRefused int
	// Forbidden lists permission refusals in the operator logs.
	Forbidden []string
	// Arena is the verdict on each scheduled ArenaJob; ArenaWorkerFailures
	// counts runs the in-process workers could not work to the end.
	Arena               []TickReport
	ArenaWorkerFailures int64
	// LogDir is where the logs are (kept when Keep or on failure).
	LogDir string
	// Elapsed is the run's wall-clock time, cluster start included.
	Elapsed time.Duration
}

// Namespaces of the two runs.
const (
	RunNamespace       = "faults-run"
	ReferenceNamespace = "faults-reference"
	probeNamespace     = "faults-probe"
)

// maxUnexplainedKept bounds Result.Unexplained.
const maxUnexplainedKept = 10

// StreamWriters is how many writers the stream with faults has: several
// operations are in flight when a fault strikes, as with several clients.
// ReplayWriters bounds the reference run's writers (unpaced).
const (
	StreamWriters = 4
	ReplayWriters = 8
)

// env is a running scenario.
type env struct {
	cfg       Config
	dir       string
	cluster   *controlplane.Cluster
	admin     client.Client
	front     *Front
	replicas  []*Replica
	apiserver *controlplane.RestartableProcess
	etcd      *controlplane.RestartableProcess
	watch     *watcher
	binDir    string
	backend   *clusterbench.ArenaBackend
	arena     *arenaLoad
}

func (e *env) logf(format string, args ...any) {
	if e.cfg.Log != nil {
		fmt.Fprintf(e.cfg.Log, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05.0")}, args...)...)
	}
}

// Run starts the local cluster with two operator replicas, runs the stream
// through the faults, replays it without faults, and compares.
func Run(ctx context.Context, cfg Config) (res *Result, err error) {
	start := time.Now()
	dir, err := os.MkdirTemp("", "omnia-faults-")
	if err != nil {
		return nil, err
	}
	e := &env{cfg: cfg, dir: dir}
	e.logf("logs in %s", dir)
	failed := true
	defer func() {
		if tErr := e.teardown(); tErr != nil && err == nil {
			err = tErr
		}
		if res != nil {
			res.Elapsed = time.Since(start)
			res.LogDir = dir
		}
		if failed || cfg.Keep || err != nil {
			e.logf("logs kept in %s", dir)
			return
		}
		_ = os.RemoveAll(dir)
	}()
	if err := e.up(ctx); err != nil {
		return nil, err
	}
	res, err = e.scenario(ctx)
	if err != nil {
		return res, err
	}
	res.Forbidden = e.stopReplicas()
	res.FrontServed, res.FrontRefused = e.front.Served()
	failed = len(res.Differences) > 0 || len(res.Recheck.Invalid) > 0 || len(res.Run.Admitted) > 0 || res.ArenaFailed() || res.Lost.Count > 0
	return res, nil
}

// up starts the cluster, the front and both replicas, and waits for a
// leader.
func (e *env) up(ctx context.Context) error {
	cluster, err := controlplane.StartCluster(controlplane.Options{Webhooks: true}, e.dir)
	if err != nil {
		return err
	}
	e.cluster = cluster
	e.logf("local cluster up")
	if e.apiserver, err = controlplane.APIServerProcess(cluster.Environment); err != nil {
		return err
	}
	if e.etcd, err = controlplane.EtcdProcess(cluster.Environment); err != nil {
		return err
	}
	cfg := rest.CopyConfig(cluster.Config)
	// The harness's own client must not be what limits recovery, and a
	// request to a dead API server must fail fast to be retried.
	cfg.QPS, cfg.Burst, cfg.Timeout = 200, 400, 10*time.Second
	if e.admin, err = controlplane.NewClient(cfg); err != nil {
		return err
	}
	if e.backend, err = clusterbench.StartArenaBackend(e.dir); err != nil {
		return err
	}
	binary, err := controlplane.BuildOperator()
	if err != nil {
		return err
	}
	e.binDir = filepath.Dir(binary)
	kubeconfig, err := controlplane.OperatorKubeconfig(cluster.Config)
	if err != nil {
		return err
	}
	kubeconfigPath := filepath.Join(e.dir, "operator.kubeconfig")
	if err := os.WriteFile(kubeconfigPath, kubeconfig, 0o600); err != nil {
		return err
	}
	token, err := controlplane.ServiceAccountToken(cluster.Config, controlplane.OperatorNamespace, controlplane.MetricsScraper)
	if err != nil {
		return err
	}
	hooks := cluster.WebhookInstallOptions
	var backends []string
	for _, name := range []string{"operator-a", "operator-b"} {
		port, err := controlplane.FreePort()
		if err != nil {
			return err
		}
		r, err := newReplica(name, e.dir, controlplane.OperatorOptions{
			Binary: binary, Kubeconfig: kubeconfigPath, CertDir: hooks.LocalServingCertDir, CAData: hooks.LocalServingCAData,
			WebhookPort: port,
			Args: append(append([]string{"--excluded-namespace", admission.DefaultExcludedNamespace}, e.backend.OperatorArgs()...),
				e.cfg.LeaseArgs...),
		})
		if err != nil {
			return err
		}
		e.replicas = append(e.replicas, r)
		backends = append(backends, r.WebhookAddr)
		if err := r.Operator().WaitReady(2 * time.Minute); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	// The webhooks are registered at envtest's serving address: the front
	// listens there, as a Service would.
	if e.front, err = NewFront("127.0.0.1:"+strconv.Itoa(hooks.LocalServingPort), backends); err != nil {
		return fmt.Errorf("faults: the webhook front: %w", err)
	}
	e.watch = &watcher{admin: e.admin, probeNS: probeNamespace, replicas: e.replicas, token: token}
	for _, ns := range []string{RunNamespace, ReferenceNamespace, probeNamespace} {
		if err := e.admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return err
		}
	}
	for _, ns := range []string{RunNamespace, ReferenceNamespace} {
		for _, o := range prerequisites(ns) {
			if err := e.admin.Create(ctx, o); err != nil {
				return fmt.Errorf("faults: %T %s/%s: %w", o, ns, o.GetName(), err)
			}
		}
	}
	err = wait.PollUntilContextTimeout(ctx, recoveryPoll, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := e.watch.LeaseHolder(ctx)
		return err == nil && e.leader() != nil && e.watch.webhookAnswers(ctx), nil
	})
	if err != nil {
		return fmt.Errorf("faults: no leader and answering webhook within 2m: %w", err)
	}
	e.logf("two replicas up, %s leads", e.leader().Name)
	if e.arena, err = startArena(ctx, e.admin, e.backend); err != nil {
		return fmt.Errorf("faults: the scheduled ArenaJobs: %w", err)
	}
	e.logf("%d scheduled ArenaJobs created (%s)", len(scheduledJobs), everyMinute)
	return nil
}

// leader is the replica whose current process leads.
func (e *env) leader() *Replica {
	for _, r := range e.replicas {
		if r.Leads() {
			return r
		}
	}
	return nil
}

// scenario runs the stream with faults, then without, and compares.
func (e *env) scenario(ctx context.Context) (*Result, error) {
	run := &Stream{Client: e.admin, Namespace: RunNamespace, Groups: e.cfg.Groups, Interval: e.cfg.Interval}
	stop := make(chan struct{})
	streamErr := make(chan error, 1)
	go func() { streamErr <- run.Run(ctx, stop, 0, min(e.cfg.Groups, StreamWriters)) }()
	res := &Result{}
	streamStart := time.Now()
	sleep := func(d time.Duration) error {
		select {
		case err := <-streamErr:
			return fmt.Errorf("faults: the stream stopped: %v", err)
		case <-time.After(d):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err := sleep(e.cfg.Warmup); err != nil {
		return nil, err
	}
	// The faults strike once the schedule is going (every job has run a
	// tick), so the ticks that follow fall among them.
	if err := e.arena.waitFirstRuns(ctx, 2*time.Minute); err != nil {
		return nil, fmt.Errorf("faults: no scheduled ArenaRun within 2m of the jobs' creation: %w", err)
	}
	e.logf("every scheduled ArenaJob has started a run; injecting the faults")
	for _, name := range e.cfg.Faults {
		e.logf("fault: %s (stream at %d operations)", name, run.Report().Done)
		fr, err := e.inject(ctx, name)
		if err != nil {
			return nil, err
		}
		e.logf("  recovered: API %s, webhook %s, leader %s, first reconcile %s, missing %v",
			fr.Recovery.APIServer.Round(time.Millisecond), fr.Recovery.Webhook.Round(time.Millisecond),
			fr.Recovery.Leader.Round(time.Millisecond), fr.Recovery.FirstReconcile.Round(time.Millisecond), fr.Recovery.Missing)
		res.Faults = append(res.Faults, fr)
		if err := sleep(e.cfg.Settle); err != nil {
			return nil, err
		}
	}
	if rest := e.cfg.MinStream - time.Since(streamStart); rest > 0 {
		e.logf("stream extended by %s (scheduled ArenaJobs: at least %s of ticks)", rest.Round(time.Second), e.cfg.MinStream)
		if err := sleep(rest); err != nil {
			return nil, err
		}
	}
	close(stop)
	arenaEnd := time.Now()
	if err := <-streamErr; err != nil {
		return nil, fmt.Errorf("faults: the stream: %w", err)
	}
	res.Run = run.Report()
	res.Ops = res.Run.Done
	e.attribute(res)
	for i := range res.Faults {
		for _, r := range e.replicas {
			for _, t := range r.UnaskedExits() {
				if !t.Before(res.Faults[i].Window[0]) && !t.After(res.Faults[i].Window[1]) {
					res.Faults[i].ReplicaExits++
				}
			}
		}
	}
	e.logf("stream with faults done: %d operations; replaying them without faults", res.Ops)
	if err := e.judgeArena(ctx, res, arenaEnd); err != nil {
		return nil, err
	}

	ref := &Stream{Client: e.admin, Namespace: ReferenceNamespace, Groups: e.cfg.Groups}
	if err := ref.Run(ctx, nil, res.Ops, min(e.cfg.Groups, ReplayWriters)); err != nil {
		return nil, fmt.Errorf("faults: the reference stream: %w", err)
	}
	res.Reference = ref.Report()
	refDone := time.Now()

	var last []Difference
	var compared int
	stable := 0
	err := wait.PollUntilContextTimeout(ctx, time.Second, e.cfg.ConvergeTimeout, true, func(ctx context.Context) (bool, error) {
		a, err := TakeSnapshot(ctx, e.admin, RunNamespace)
		if err != nil {
			return false, nil
		}
		b, err := TakeSnapshot(ctx, e.admin, ReferenceNamespace)
		if err != nil {
			return false, nil
		}
		last, compared = Compare(a, b), len(a)
		if len(last) == 0 && a.Settled() && b.Settled() {
			stable++
		} else {
			stable = 0
		}
		// Equal twice in a row, two seconds apart: not a passing moment.
		return stable >= 3, nil
	})
	res.Differences, res.Compared = last, compared
	if err == nil {
		res.Converged = time.Since(refDone)
	}
	e.logf("compared %d objects: %d differences", compared, len(last))
	if res.Lost, err = CheckStored(ctx, e.admin, RunNamespace, e.cfg.Groups, res.Ops); err != nil {
		return nil, fmt.Errorf("faults: the stored-state check: %w", err)
	}
	e.logf("stored-state check: %d objects read, %d writes lost; %d operations had a failed attempt that landed",
		res.Lost.Checked, res.Lost.Count, len(res.Run.Landed))
	recheck, err := RecheckStored(ctx, e.admin, RunNamespace, ReferenceNamespace)
	if err != nil {
		return nil, err
	}
	res.Recheck = recheck
	return res, nil
}

// inject performs one fault and measures its recovery.
func (e *env) inject(ctx context.Context, name string) (FaultReport, error) {
	fr := FaultReport{Name: name}
	oldHolder, _ := e.watch.LeaseHolder(ctx)
	signalled := time.Now()
	var down time.Time
	newHolder := false
	var killed *Replica
	switch name {
	case FaultAPIServer:
		if err := e.apiserver.Signal(syscall.SIGKILL, 30*time.Second); err != nil {
			return fr, err
		}
		down = time.Now()
		if err := e.apiserver.Restart(filepath.Join(e.dir, "kube-apiserver.log")); err != nil {
			return fr, err
		}
	case FaultEtcd:
		if err := e.etcd.Signal(syscall.SIGTERM, 30*time.Second); err != nil {
			return fr, err
		}
		down = time.Now()
		if err := e.etcd.Restart(filepath.Join(e.dir, "etcd.log")); err != nil {
			return fr, err
		}
	case FaultLeader:
		killed = e.leader()
		if killed == nil {
			return fr, errors.New("faults: no replica leads")
		}
		killed.KillHeld()
		down = time.Now()
		newHolder = true
	default:
		return fr, fmt.Errorf("faults: unknown fault %q", name)
	}
	fr.Recovery = e.watch.recover(ctx, down, oldHolder, newHolder, e.cfg.RecoveryTimeout)
	recovered := time.Now()
	if killed != nil {
		// Like a kubelet, start the killed replica again, once the other
		// has taken over: it comes back as the standby.
		if err := killed.Release(); err != nil {
			return fr, err
		}
	}
	// Failed attempts up to a few seconds after the last sign of recovery
	// still belong to the fault (retries in flight, caches resyncing).
	fr.Window = [2]time.Time{signalled, recovered.Add(5 * time.Second)}
	return fr, nil
}

// attribute counts each failed attempt of the stream with faults to the
// fault whose window holds it, or outside every fault.
func (e *env) attribute(res *Result) {
	res.FailedOutside = map[ErrorClass]int{}
	for i := range res.Faults {
		res.Faults[i].Failed = map[ErrorClass]int{}
	}
	res.Examples = map[ErrorClass]string{}
	for _, a := range res.Run.Attempts {
		if _, ok := res.Examples[a.Class]; !ok {
			res.Examples[a.Class] = Example(a)
		}
		if a.Class == ClassOther && len(res.Unexplained) < maxUnexplainedKept && !slices.Contains(res.Unexplained, a.Err) {
			res.Unexplained = append(res.Unexplained, a.Err)
		}
		hit := false
		for i := range res.Faults {
			w := res.Faults[i].Window
			if !a.At.Before(w[0]) && !a.At.After(w[1]) {
				res.Faults[i].Failed[a.Class]++
				if a.Create {
					res.Faults[i].FailedCreates++
				}
				hit = true
				break
			}
		}
		if !hit {
			res.FailedOutside[a.Class]++
		}
	}
}

// judgeArena waits for the scheduled runs of ticks up to end to finish
// (bounded), then judges every job's ticks and runs.
func (e *env) judgeArena(ctx context.Context, res *Result, end time.Time) error {
	e.arena.waitFinished(ctx, end, e.cfg.ConvergeTimeout)
	seen, err := e.arena.observe(ctx)
	res.ArenaWorkerFailures = e.arena.workers.Failures()
	e.arena.stop()
	if err != nil {
		return fmt.Errorf("faults: reading the scheduled ArenaJobs: %w", err)
	}
	windows := make([][2]time.Time, 0, len(res.Faults))
	for _, f := range res.Faults {
		windows = append(windows, f.Window)
	}
	for _, job := range seen {
		rep, err := JudgeTicks(job, end, windows)
		if err != nil {
			return err
		}
		e.logf("  ArenaJob %s: %d due, %d run, %d skipped, %d missed (%d excused), ticks %v, duplicates %v, phases %v",
			rep.Job, rep.Due, rep.Run, rep.Skipped, rep.Missed, rep.Excused, rep.Ticks, rep.Duplicates, rep.Phases)
		res.Arena = append(res.Arena, rep)
	}
	return nil
}

// ArenaFailed reports a scheduled job's failure: a duplicate, a tick
// missed outside a failover, or no job observed at all.
func (r *Result) ArenaFailed() bool {
	if len(r.Arena) == 0 {
		return true
	}
	for _, a := range r.Arena {
		if a.Failed() {
			return true
		}
	}
	return false
}

// maxExampleLen bounds an example error's text in the report.
const maxExampleLen = 300

// Example describes a failed attempt for the report: the operation, the
// HTTP status (or none) and the error text, bounded.
func Example(a Attempt) string {
	code := "no HTTP answer"
	if a.Code != 0 {
		code = fmt.Sprintf("HTTP %d", a.Code)
	}
	msg := a.Err
	if len(msg) > maxExampleLen {
		msg = msg[:maxExampleLen] + "…"
	}
	return fmt.Sprintf("%s at %s: %s: %s", a.Op, a.At.Format("15:04:05.0"), code, msg)
}

// stopReplicas stops both replicas and returns their permission refusals.
func (e *env) stopReplicas() []string {
	var out []string
	for _, r := range e.replicas {
		out = append(out, r.Stop()...)
	}
	e.replicas = nil
	return out
}

// teardown stops what up started, the last started first: the replicas,
// the webhook registrations (so nothing calls a stopped operator), the
// front, the components, then kube-apiserver and etcd (restarted ones
// first, then envtest's own, which also removes their directories).
func (e *env) teardown() error {
	if e.arena != nil {
		e.arena.stop()
	}
	e.stopReplicas()
	var errs []error
	if e.cluster != nil {
		controlplane.RemoveWebhooks(e.cluster.Environment)
	}
	if e.front != nil {
		errs = append(errs, e.front.Close())
	}
	if e.cluster != nil {
		e.cluster.Components.Stop()
		if e.apiserver != nil {
			errs = append(errs, e.apiserver.Stop())
		}
		if e.etcd != nil {
			errs = append(errs, e.etcd.Stop())
		}
		errs = append(errs, e.cluster.Environment.Stop())
	}
	if e.backend != nil {
		e.backend.Stop()
	}
	if e.binDir != "" {
		_ = os.RemoveAll(e.binDir)
	}
	return errors.Join(errs...)
}

// QuickConfig is a short run of the given faults (the quick variant in
// make test, and make perf-faults PERF_QUICK=1): three groups, ten
// operations a second, short pauses, and leader-election timings short
// enough for a failover within seconds (6 s lease, as the operator's own
// failover test uses).
func QuickConfig(faultNames ...string) Config {
	return Config{
		Groups:   3,
		Interval: 100 * time.Millisecond,
		Warmup:   5 * time.Second,
		Settle:   5 * time.Second,
		Faults:   faultNames,
		LeaseArgs: []string{
			"--leader-elect-lease-duration=6s",
			"--leader-elect-renew-deadline=4s",
			"--leader-elect-retry-period=1s",
		},
		MinStream:       3 * time.Minute,
		RecoveryTimeout: time.Minute,
		ConvergeTimeout: 2 * time.Minute,
	}
}
