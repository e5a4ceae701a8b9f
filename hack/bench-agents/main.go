// Command bench-agents is `make bench-agents N=<n>`: the AgentRuntime
// controller at scale on the local cluster (test/controlplane
// WithOperatorCluster: kube-apiserver, etcd, kube-controller-manager,
// kube-scheduler, a kwok Node, and the operator binary as `make run` runs
// it). It creates N AgentRuntimes, each with its own Provider and
// PromptPack, and reports
//
//   - the time until every agent is Running (status.phase, which needs a
//     ready replica: real ReplicaSets and Pods, made Ready by kwok);
//   - the operator's peak RSS (VmHWM of its process);
//   - the API writes during a steady state afterwards (-steady, 60 s): the
//     operator's own client requests by method, and the API server's writes
//     by resource (see hack/perf/clusterbench/writes.go for how they are
//     attributed).
//
// It is a benchmark, not a test: it asserts nothing and is not part of
// `make test`. The targets (N = 1000: ≤ 60 s, ≤ 200 MiB, 0 writes)
// are printed beside the figures.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.uber.org/zap/zapcore"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/hack/perf/clusterbench"
	"github.com/altairalabs/omnia/hack/perf/perfreport"
	"github.com/altairalabs/omnia/test/controlplane"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench-agents:", err)
		os.Exit(1)
	}
}

type config struct {
	n           int
	steady      time.Duration
	timeout     time.Duration
	concurrency int
	keep        bool
	// profile is how long a CPU profile of the ramp to take (0: none).
	profile time.Duration
	// operatorArgs are extra operator flags (-operator-arg, repeatable).
	operatorArgs []string
	// operatorEnv are operator environment variables over the manifest's
	// (-operator-env, repeatable).
	operatorEnv []string
	// pprofAddr is the operator's pprof address when profiling.
	pprofAddr string
	dir       string
	// baseline: measure the cluster's own floor, with no operator.
	baseline bool
}

func run() error {
	ctrllog.SetLogger(zap.New(zap.Level(zapcore.ErrorLevel)))
	var cfg config
	flag.IntVar(&cfg.n, "n", 100, "number of AgentRuntimes (each with its own Provider and PromptPack)")
	flag.DurationVar(&cfg.steady, "steady", 60*time.Second, "steady-state window in which API writes are counted, after every agent is Running")
	flag.DurationVar(&cfg.timeout, "timeout", 15*time.Minute, "give up when the agents are not all Running by then")
	flag.IntVar(&cfg.concurrency, "concurrency", 16, "parallel creators (a GitOps tool applying many manifests)")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the logs directory")
	flag.DurationVar(&cfg.profile, "profile", 0, "take a CPU profile of the operator over this long from the first create (and a heap profile once every agent is Running), into the logs directory, which is then kept; 0: none")
	flag.Func("operator-arg", "an extra operator flag, e.g. -operator-arg=--agentruntime-max-concurrent-reconciles=4; repeatable", func(s string) error {
		cfg.operatorArgs = append(cfg.operatorArgs, s)
		return nil
	})
	flag.Func("operator-env", "an operator environment variable over those config/manager/manager.yaml sets, e.g. -operator-env=GOMEMLIMIT=off; repeatable", func(s string) error {
		if !strings.Contains(s, "=") {
			return fmt.Errorf("want NAME=value, got %q", s)
		}
		cfg.operatorEnv = append(cfg.operatorEnv, s)
		return nil
	})
	flag.BoolVar(&cfg.baseline, "baseline", false, "no operator: create each agent's children directly and report when every Deployment is available (the local cluster's own floor; baseline.go)")
	flag.Parse()
	if cfg.n <= 0 {
		return fmt.Errorf("-n must be positive")
	}

	dir, err := os.MkdirTemp("", "omnia-bench-agents-")
	if err != nil {
		return err
	}
	fmt.Printf("bench-agents: N=%d, steady window %s, logs in %s\n", cfg.n, cfg.steady, dir)
	cfg.dir = dir
	args := append([]string{}, cfg.operatorArgs...)
	if cfg.profile > 0 {
		cfg.keep = true
		if cfg.pprofAddr, err = clusterbench.FreeLoopbackAddr(); err != nil {
			return err
		}
		args = append(args, "--pprof-bind-address="+cfg.pprofAddr)
	}
	if len(args) > 0 {
		fmt.Printf("operator flags: %s\n", strings.Join(args, " "))
	}
	start := time.Now()
	if cfg.baseline {
		return runBaseline(cfg, dir)
	}
	manifestEnv, err := controlplane.ManagerEnv()
	if err != nil {
		return err
	}
	fmt.Printf("operator environment: %s\n", strings.Join(append(manifestEnv, cfg.operatorEnv...), " "))
	cluster, op, err := controlplane.WithOperatorCluster(controlplane.Options{OperatorEnv: cfg.operatorEnv}, dir, args...)
	if err != nil {
		return err
	}
	fmt.Printf("local cluster and operator up in %s (operator pid %d)\n", time.Since(start).Round(time.Millisecond), op.Pid())
	failed := true
	defer func() {
		op.Stop()
		controlplane.RemoveWebhooks(cluster.Environment)
		_ = cluster.Stop()
		if failed || cfg.keep {
			fmt.Printf("logs kept in %s\n", dir)
		} else {
			_ = os.RemoveAll(dir)
		}
	}()
	// An interrupt stops the run but still tears the cluster down.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench(ctx, cfg, cluster, op); err != nil {
		return err
	}
	failed = false
	return nil
}

func bench(ctx context.Context, cfg config, cluster *controlplane.Cluster, op *controlplane.Operator) error {
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	// The benchmark's own client must not be what limits the run.
	admin, c, err := clusterbench.AdminClient(cluster.Config)
	if err != nil {
		return err
	}
	vendor := clusterbench.LocalVendor()
	defer vendor.Close()

	for i := 0; i < cfg.n; i += agentsPerNamespace {
		if err := createNamespace(ctx, c, i); err != nil {
			return err
		}
	}

	tracker, err := trackPhases(ctx, admin)
	if err != nil {
		return err
	}
	rampBefore, err := clusterbench.APIRequests(ctx, admin)
	if err != nil {
		return err
	}
	t0 := time.Now()
	var cpuProfile <-chan error
	if cfg.profile > 0 {
		cpuProfile = clusterbench.ProfileCPU(ctx, cfg.pprofAddr, cfg.dir, cfg.profile)
	}
	var created atomic.Int64
	createdAt := make(chan time.Duration, 1)
	errs := make(chan error, cfg.concurrency)
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < cfg.concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := createAgent(ctx, c, i, vendor.URL); err != nil {
					select {
					case errs <- err:
					default:
					}
					cancel()
					return
				}
				if created.Add(1) == int64(cfg.n) {
					createdAt <- time.Since(t0)
				}
			}
		}()
	}
	go func() {
		defer close(next)
		for i := 0; i < cfg.n; i++ {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()

	// Follow the agents' phases through a watch (phases.go).
	var allCreated time.Duration
	lastReport := time.Now()
	for {
		select {
		case err := <-errs:
			return fmt.Errorf("creating: %w", err)
		case d := <-createdAt:
			allCreated = d
		default:
		}
		phases := tracker.counts()
		if phases[v1alpha1.AgentRuntimePhaseRunning] == cfg.n {
			break
		}
		if time.Since(lastReport) > 5*time.Second {
			fmt.Printf("  %6.1fs created %d, phases %v\n", time.Since(t0).Seconds(), created.Load(), phases)
			lastReport = time.Now()
		}
		select {
		case <-tracker.changed:
		case <-time.After(time.Second):
		case <-ctx.Done():
			return fmt.Errorf("waiting for Running: %w (%d of %d created)", ctx.Err(), created.Load(), cfg.n)
		}
	}
	toRunning := time.Since(t0)
	wg.Wait()
	if allCreated == 0 {
		allCreated = <-createdAt
	}
	hwmAtRunning, _, err := perfreport.Memory(op.Pid())
	if err != nil {
		return err
	}
	rampAfter, err := clusterbench.APIRequests(ctx, admin)
	if err != nil {
		return err
	}
	if cfg.profile > 0 {
		if err := clusterbench.SaveProfile(ctx, cfg.pprofAddr, "heap", "gc=1", cfg.dir, "heap.pprof"); err != nil {
			return fmt.Errorf("heap profile: %w", err)
		}
		if err := <-cpuProfile; err != nil {
			return fmt.Errorf("CPU profile: %w", err)
		}
		fmt.Printf("profiles: %s/cpu.pprof (first %s), %s/heap.pprof (all Running)\n", cfg.dir, cfg.profile, cfg.dir)
	}

	// Steady state: every agent Running, nothing changes; count writes.
	token, err := controlplane.ServiceAccountToken(cluster.Config, controlplane.OperatorNamespace, controlplane.MetricsScraper)
	if err != nil {
		return err
	}
	apiBefore, opBefore, err := clusterbench.ScrapeWrites(ctx, admin, op, token)
	if err != nil {
		return err
	}
	loads, err := clusterbench.OperatorLoads(op, token)
	if err != nil {
		return err
	}
	select {
	case <-time.After(cfg.steady):
	case <-ctx.Done():
		return ctx.Err()
	}
	apiAfter, opAfter, err := clusterbench.ScrapeWrites(ctx, admin, op, token)
	if err != nil {
		return err
	}
	hwm, rss, err := perfreport.Memory(op.Pid())
	if err != nil {
		return err
	}
	anon, file, err := perfreport.Resident(op.Pid())
	if err != nil {
		return err
	}
	apiDelta, opDelta := clusterbench.Delta(apiBefore, apiAfter), clusterbench.Delta(opBefore, opAfter)

	var opTotal float64
	for _, v := range opDelta {
		opTotal += v
	}
	fmt.Printf("\nresults (N=%d, %d namespaces of up to %d agents, %d creators)\n", cfg.n, (cfg.n+agentsPerNamespace-1)/agentsPerNamespace, agentsPerNamespace, cfg.concurrency)
	fmt.Printf("  all objects created after          %s\n", allCreated.Round(time.Millisecond))
	fmt.Printf("  every agent Running after          %s   (target at N=1000: <= 60s)\n", toRunning.Round(time.Millisecond))
	fmt.Printf("  operator peak RSS (VmHWM)          %.1f MiB (%.1f MiB when all were Running; VmRSS now %.1f MiB)   (target: <= 200 MiB)\n",
		float64(hwm)/1024, float64(hwmAtRunning)/1024, float64(rss)/1024)
	fmt.Printf("  operator resident set now          %.1f MiB anonymous (the Go runtime's; GOMEMLIMIT bounds it), %.1f MiB file pages (the binary)\n",
		float64(anon)/1024, float64(file)/1024)
	var rampWrites float64
	for _, v := range opBefore {
		rampWrites += v
	}
	fmt.Printf("  operator write requests until then %.0f (%.1f per agent)\n", rampWrites, rampWrites/float64(cfg.n))
	fmt.Printf("  API requests until then (every client; by resource and verb, at least N/2; mean server time):\n")
	ramp := clusterbench.RequestDelta(rampBefore, rampAfter)
	for _, l := range clusterbench.RequestLines(ramp, float64(cfg.n)/2) {
		fmt.Printf("    %s\n", l)
	}
	fmt.Printf("  ClusterIP allocations              %s\n", clusterbench.ClusterIPLine(ramp))
	names := make([]string, 0, len(loads))
	for name := range loads {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		l := loads[name]
		if l.Reconciles == 0 {
			continue
		}
		fmt.Printf("  %-34s %.0f reconciles, %.1fs reconciling on %.0f worker(s) (%.1f ms each)\n",
			name, l.Reconciles, l.Seconds, l.Workers, 1000*l.Seconds/l.Reconciles)
	}
	fmt.Printf("  steady state %s: operator writes to Omnia objects and agent children %.0f   (target: 0)\n",
		cfg.steady, clusterbench.OperatorObjectWrites(apiDelta))
	fmt.Printf("  steady state %s: every write request the operator sent %.0f (%s; leader-election Lease renewals included)\n",
		cfg.steady, opTotal, strings.Join(clusterbench.SortedLines(opDelta), ", "))
	fmt.Printf("  steady state %s: API server writes by resource (every client):\n", cfg.steady)
	for _, l := range clusterbench.SortedLines(apiDelta) {
		fmt.Printf("    %s\n", l)
	}
	return nil
}

// runBaseline starts the local cluster without the operator and runs
// baseline on it.
func runBaseline(cfg config, dir string) error {
	start := time.Now()
	cluster, err := controlplane.StartCluster(controlplane.Options{}, dir)
	if err != nil {
		return err
	}
	fmt.Printf("local cluster up in %s (no operator)\n", time.Since(start).Round(time.Millisecond))
	defer func() {
		_ = cluster.Stop()
		_ = os.RemoveAll(dir)
	}()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return baseline(ctx, cfg, cluster)
}
