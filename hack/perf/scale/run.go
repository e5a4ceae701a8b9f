package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/hack/perf/clusterbench"
	"github.com/altairalabs/omnia/hack/perf/perfreport"
	"github.com/altairalabs/omnia/test/controlplane"
)

// result is what one size measured.
type result struct {
	n          int
	plan       Plan
	allCreated time.Duration
	converged  time.Duration
	// peakAtConverged, peak and rss are the operator's VmHWM when every
	// object had converged, VmHWM after the steady state, and VmRSS then
	// (KiB).
	peakAtConverged, peak, rss int64
	// peakBefore is the operator's VmHWM before the first create: what it
	// reached starting up, with no object of the mix (KiB).
	peakBefore int64
	// heapInuse is the operator's Go heap in use at convergence
	// (go_memstats_heap_inuse_bytes), beside its RSS.
	heapInuse float64
	// cpuSeconds is the operator's CPU time from the first create to
	// convergence.
	cpuSeconds float64
	// requests are the operator's own API requests by method from the first
	// create to convergence (rest_client_requests_total).
	requests map[string]float64
	// apiLines are the API server's requests in that window by resource and
	// verb (every client), the largest.
	apiLines []string
	loads    map[string]*clusterbench.ControllerLoad
	steady   time.Duration
	// writes are the API server's writes in the steady state, attributed;
	// operatorWrites the operator's own write requests then, by method.
	writes         clusterbench.Writes
	operatorWrites map[string]float64
	runs           map[v1alpha1.ArenaRunPhase]int
	itemsExecuted  int64
	workerFailures int64
	// cpuTop and heapTop are `go tool pprof -top` of the operator's
	// profiles, read while the size's directory (which holds the profiles
	// and is removed after the size unless -keep) still exists; each is
	// the error text when the profile could not be read.
	cpuTop, heapTop profileTop
}

// profileTop is the top lines of one profile, or why there are none.
type profileTop struct {
	lines []string
	err   error
}

func readTop(ctx context.Context, path string) profileTop {
	lines, err := clusterbench.Top(ctx, path, 12)
	return profileTop{lines: lines, err: err}
}

// runSize starts a local cluster with the operator, creates n mixed
// objects, waits for them to converge and measures a steady state.
func runSize(ctx context.Context, cfg config, n int) (*result, error) {
	dir, err := os.MkdirTemp("", fmt.Sprintf("omnia-perf-scale-%d-", n))
	if err != nil {
		return nil, err
	}
	failed := true
	defer func() {
		if failed || cfg.keep {
			fmt.Printf("logs and profiles kept in %s\n", dir)
		} else {
			_ = os.RemoveAll(dir)
		}
	}()
	arena, err := clusterbench.StartArenaBackend(dir)
	if err != nil {
		return nil, err
	}
	defer arena.Stop()
	pprofAddr, err := clusterbench.FreeLoopbackAddr()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	args := append(append(arena.OperatorArgs(), "--pprof-bind-address="+pprofAddr), cfg.operatorArgs...)
	cluster, op, err := controlplane.WithOperatorCluster(controlplane.Options{}, dir, args...)
	if err != nil {
		return nil, err
	}
	defer func() {
		op.Stop()
		_ = controlplane.StopEnvironment(cluster.Environment, cluster.Stop)
	}()
	fmt.Printf("N=%d: local cluster and operator up in %s (operator pid %d), logs in %s\n", n, time.Since(start).Round(time.Millisecond), op.Pid(), dir)
	r, err := measure(ctx, cfg, n, cluster, op, arena.RedisURL, arena.ContentRoot, pprofAddr, dir)
	if err != nil {
		return nil, err
	}
	failed = false
	return r, nil
}

// measure is one size's run on a started cluster.
func measure(ctx context.Context, cfg config, n int, cluster *controlplane.Cluster, op *controlplane.Operator, redisURL, contentRoot, pprofAddr, dir string) (*result, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	admin, c, err := clusterbench.AdminClient(cluster.Config)
	if err != nil {
		return nil, err
	}
	plan := NewPlan(n)
	r := &result{n: n, plan: plan, steady: cfg.steady}

	vendor := clusterbench.LocalVendor()
	defer vendor.Close()
	v := vendors{providerURL: vendor.URL, toolEndpoint: vendor.URL + "/lookup"}

	for _, ns := range plan.Namespaces {
		if err := clusterbench.SetUpArenaNamespace(ctx, c, ns, contentRoot); err != nil {
			return nil, err
		}
	}
	if err := clusterbench.WaitArenaProjectsReady(ctx, c, len(plan.Namespaces)); err != nil {
		return nil, err
	}

	workers, err := clusterbench.StartArenaWorkers(ctx, redisURL, cfg.arenaWorkers, plan.Count[KindArenaJob], nil)
	if err != nil {
		return nil, err
	}
	defer workers.Stop()
	tr, err := startTracker(ctx, admin, workers.Enqueue)
	if err != nil {
		return nil, err
	}
	token, err := controlplane.ServiceAccountToken(cluster.Config, controlplane.OperatorNamespace, controlplane.MetricsScraper)
	if err != nil {
		return nil, err
	}
	opBefore, err := operatorRequests(op, token)
	if err != nil {
		return nil, err
	}
	apiBefore, err := clusterbench.APIRequests(ctx, admin)
	if err != nil {
		return nil, err
	}
	cpuBefore, err := perfreport.CPUSeconds(op.Pid())
	if err != nil {
		return nil, err
	}
	if r.peakBefore, _, err = perfreport.Memory(op.Pid()); err != nil {
		return nil, err
	}

	t0 := time.Now()
	cpuProfile := clusterbench.ProfileCPU(ctx, pprofAddr, dir, cfg.profile)
	created, createErr := createAll(ctx, c, plan, v, cfg.concurrency, t0)
	lastReport := time.Now()
	for {
		p := tr.progress()
		if p.done(plan.Count) {
			break
		}
		select {
		case err := <-createErr:
			if err != nil {
				return nil, fmt.Errorf("creating: %w", err)
			}
			createErr = nil
		default:
		}
		// The process is gone from /proc once it exited (its Wait reaps
		// it): e.g. leader election lost, the API server not answering a
		// Lease renewal within the renew deadline. Exited() is not read
		// here: Stop reads it.
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", op.Pid())); err != nil {
			return nil, fmt.Errorf("the operator exited during the ramp (log %s): %s", op.LogPath, lastLogLine(op.LogPath, "manager stopped"))
		}
		if time.Since(lastReport) > 10*time.Second {
			fmt.Printf("  %6.1fs created %d/%d, converged: %s\n", time.Since(t0).Seconds(), created.count.Load(), n, p)
			lastReport = time.Now()
		}
		select {
		case <-tr.changed:
			// Counting walks every object: at most four times a second.
			time.Sleep(250 * time.Millisecond)
		case <-time.After(time.Second):
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for convergence: %w (%s)", ctx.Err(), p)
		}
	}
	r.converged = time.Since(t0)
	r.allCreated = created.at()
	if r.peakAtConverged, _, err = perfreport.Memory(op.Pid()); err != nil {
		return nil, err
	}
	cpuAfter, err := perfreport.CPUSeconds(op.Pid())
	if err != nil {
		return nil, err
	}
	r.cpuSeconds = cpuAfter - cpuBefore
	opBody, err := clusterbench.OperatorMetrics(op, token)
	if err != nil {
		return nil, err
	}
	opAfter, err := clusterbench.ClientRequests(opBody)
	if err != nil {
		return nil, err
	}
	r.requests = clusterbench.Delta(opBefore, opAfter)
	if r.heapInuse, err = gauge(opBody, "go_memstats_heap_inuse_bytes"); err != nil {
		return nil, err
	}
	if r.loads, err = clusterbench.ControllerLoads(opBody); err != nil {
		return nil, err
	}
	apiAfter, err := clusterbench.APIRequests(ctx, admin)
	if err != nil {
		return nil, err
	}
	r.apiLines = clusterbench.RequestLines(clusterbench.RequestDelta(apiBefore, apiAfter), float64(n)/4)
	fmt.Printf("  converged after %s (all created after %s)\n", r.converged.Round(time.Millisecond), r.allCreated.Round(time.Millisecond))
	if err := clusterbench.SaveProfile(ctx, pprofAddr, "heap", "gc=1", dir, "heap.pprof"); err != nil {
		return nil, fmt.Errorf("heap profile: %w", err)
	}
	r.heapTop = readTop(ctx, filepath.Join(dir, "heap.pprof"))

	// Steady state: everything converged, nothing changes; count writes.
	apiW0, opW0, err := clusterbench.ScrapeWrites(ctx, admin, op, token)
	if err != nil {
		return nil, err
	}
	select {
	case <-time.After(cfg.steady):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	apiW1, opW1, err := clusterbench.ScrapeWrites(ctx, admin, op, token)
	if err != nil {
		return nil, err
	}
	r.writes = clusterbench.Attribute(clusterbench.Delta(apiW0, apiW1))
	r.operatorWrites = clusterbench.Delta(opW0, opW1)
	if r.peak, r.rss, err = perfreport.Memory(op.Pid()); err != nil {
		return nil, err
	}
	r.runs = tr.progress().Runs
	r.itemsExecuted, r.workerFailures = workers.Executed(), workers.Failures()
	// The CPU profile covers the first cfg.profile of the ramp: wait for it
	// if the run converged sooner.
	if err := <-cpuProfile; err != nil {
		return nil, fmt.Errorf("CPU profile: %w", err)
	}
	r.cpuTop = readTop(ctx, filepath.Join(dir, "cpu.pprof"))
	return r, nil
}

// operatorRequests reads the operator's client requests by method.
func operatorRequests(op *controlplane.Operator, token string) (map[string]float64, error) {
	body, err := clusterbench.OperatorMetrics(op, token)
	if err != nil {
		return nil, err
	}
	return clusterbench.ClientRequests(body)
}

// lastLogLine is the last line of the log at path holding substr, or "".
func lastLogLine(path, substr string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(data), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], substr) {
			return lines[i][:min(len(lines[i]), 300)]
		}
	}
	return ""
}

// gauge is the value of a metric with one sample (a Go runtime gauge).
func gauge(body, name string) (float64, error) {
	samples, err := perfreport.Samples(body, name)
	if err != nil {
		return 0, err
	}
	if len(samples) != 1 {
		return 0, fmt.Errorf("operator /metrics: %d samples of %s, want 1", len(samples), name)
	}
	return samples[0].Value, nil
}

// creation counts the created items and when the last one was.
type creation struct {
	count atomic.Int64
	last  atomic.Int64 // nanoseconds after t0
}

func (c *creation) at() time.Duration { return time.Duration(c.last.Load()) }

// createAll creates the plan's items with `concurrency` creators (a GitOps
// tool applying many manifests) in the background. The channel yields nil
// once every item is created, or the first error.
func createAll(ctx context.Context, c client.Client, plan Plan, v vendors, concurrency int, t0 time.Time) (*creation, <-chan error) {
	cr := &creation{}
	done := make(chan error, 1)
	next := make(chan Item)
	var once sync.Once
	fail := func(err error) { once.Do(func() { done <- err }) }
	var wg sync.WaitGroup
	for w := 0; w < concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range next {
				if err := createItem(ctx, c, it, v); err != nil {
					fail(err)
					continue
				}
				cr.count.Add(1)
				cr.last.Store(int64(time.Since(t0)))
			}
		}()
	}
	go func() {
		for _, it := range plan.Items {
			select {
			case next <- it:
			case <-ctx.Done():
			}
		}
		close(next)
		wg.Wait()
		fail(nil)
	}()
	return cr, done
}
