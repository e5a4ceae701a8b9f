// Command scale is `make perf-scale`: the operator's
// controllers at 1,000 and 10,000 mixed objects on the local cluster
// (test/controlplane WithOperatorCluster: kube-apiserver, etcd,
// kube-controller-manager, kube-scheduler, a kwok Node, and the operator
// binary as `make run` runs it, with the Arena controllers and a real Redis
// queue). For each size it creates the mix of mix.go, waits until every
// object has converged (converge.go, followed through watches), and
// reports the time to converge, the operator's peak RSS, its API requests
// per object by verb, and the writes during a steady state afterwards,
// into docs/performance/reconcile-scale.json.
//
// It is a benchmark, not a test: it asserts nothing and is not part of
// `make test`.
package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/altairalabs/omnia/hack/perf/harness"
)

type config struct {
	sizes        []int
	steady       time.Duration
	timeout      time.Duration
	concurrency  int
	arenaWorkers int
	profile      time.Duration
	keep         bool
	quick        bool
	out          string
	// operatorArgs are extra operator flags (-operator-arg, repeatable).
	operatorArgs []string
}

func main() {
	var cfg config
	sizes := flag.String("sizes", "1000,10000", "numbers of mixed objects, one local cluster each")
	flag.StringVar(&cfg.out, "out", "docs/performance", "directory the section JSON is written to")
	flag.BoolVar(&cfg.quick, "quick", false, "a smoke run: 100 objects (unless -sizes is given), a 20 s steady state, a 10 s profile")
	flag.DurationVar(&cfg.steady, "steady", 5*time.Minute, "steady-state window after convergence in which writes are counted")
	flag.DurationVar(&cfg.timeout, "timeout", time.Hour, "give up on a size whose objects have not converged by then")
	flag.IntVar(&cfg.concurrency, "concurrency", 16, "parallel creators (a GitOps tool applying many manifests)")
	flag.IntVar(&cfg.arenaWorkers, "arena-workers", 8, "runs whose queues the harness works at once, playing their worker pods")
	flag.DurationVar(&cfg.profile, "profile", 60*time.Second, "CPU profile of the operator over the first this-long of each ramp")
	flag.Func("operator-arg", "an extra operator flag, e.g. -operator-arg=--leader-elect-renew-deadline=45s on a machine so loaded that the API server misses Lease renewals; repeatable", func(v string) error {
		cfg.operatorArgs = append(cfg.operatorArgs, v)
		return nil
	})
	flag.BoolVar(&cfg.keep, "keep", false, "keep each size's logs and profiles directory")
	flag.Parse()
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if cfg.quick {
		if !set["sizes"] {
			*sizes = "100"
		}
		if !set["steady"] {
			cfg.steady = 20 * time.Second
		}
		if !set["profile"] {
			cfg.profile = 10 * time.Second
		}
	}
	harness.Main("perf scale", func(ctx context.Context) error { return run(ctx, cfg, *sizes) })
}

// run measures every size in turn; an interrupt (ctx) stops the run but
// still tears the cluster down.
func run(ctx context.Context, cfg config, sizes string) error {
	var err error
	if cfg.sizes, err = parseSizes(sizes); err != nil {
		return err
	}
	var results []*result
	var runErr error
	for _, n := range cfg.sizes {
		r, err := runSize(ctx, cfg, n)
		if err != nil {
			if ctx.Err() != nil {
				err = fmt.Errorf("interrupted before it completed (%w)", err)
			}
			runErr = fmt.Errorf("size %d: %w", n, err)
			break
		}
		printResult(r)
		results = append(results, r)
		// Written after every size, so a later size that fails or is
		// interrupted does not lose the ones that completed.
		if err := writeSection(ctx, cfg, results, nil); err != nil {
			return err
		}
	}
	if runErr != nil && len(results) > 0 {
		if err := writeSection(context.Background(), cfg, results, runErr); err != nil {
			return err
		}
	}
	return runErr
}

// writeSection writes the section of the completed sizes.
func writeSection(ctx context.Context, cfg config, results []*result, runErr error) error {
	sec := section(ctx, cfg, results, runErr)
	if err := sec.Write(cfg.out); err != nil {
		return err
	}
	fmt.Printf("wrote %s/%s.json (sizes %s)\n", cfg.out, sec.ID, sizesText(results))
	return nil
}

// sizesText is "1000, 10000".
func sizesText(results []*result) string {
	var parts []string
	for _, r := range results {
		parts = append(parts, strconv.Itoa(r.n))
	}
	return strings.Join(parts, ", ")
}

// parseSizes reads "-sizes 1000,10000".
func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("-sizes: %q is not a positive number", f)
		}
		out = append(out, n)
	}
	return out, nil
}
