// Command admission measures what the webhooks add to a create on the real
// API server (`make perf-admission`): creates of the spec
// examples through client-go, with the operator's
// ValidatingWebhookConfigurations registered and without them (the
// operator running in both modes, so the only difference is admission),
// sequential and at 8 in flight, the modes interleaved in blocks. It writes
// the "admission-overhead" section of docs/performance.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"k8s.io/client-go/rest"

	"github.com/altairalabs/omnia/hack/perf/harness"
	"github.com/altairalabs/omnia/hack/perf/loadgen"
	"github.com/altairalabs/omnia/test/controlplane"
)

// The plan, and the -quick smoke run's.
var (
	concurrencies   = []int{1, 8}
	fullPerMode     = 2000
	quickPerMode    = 200
	fullBlock       = 250
	quickBlock      = 50
	warmupCreates   = 50
	warmupFirst     = 1_000_000
	targetAddedP99  = 2 * time.Millisecond
	verdictsTimeout = time.Minute
)

// namespace holds the registration probe; each block gets its own.
const namespace = "perf-admission"

type config struct {
	out       string
	quick     bool
	keep      bool
	perMode   int
	blockSize int
}

func main() {
	var cfg config
	flag.StringVar(&cfg.out, "out", "docs/performance", "directory the section JSON is written to")
	flag.BoolVar(&cfg.quick, "quick", false, "smoke run: 200 creates per mode and concurrency instead of 2,000")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the logs directory (operator log)")
	flag.Parse()
	cfg.perMode, cfg.blockSize = fullPerMode, fullBlock
	if cfg.quick {
		cfg.perMode, cfg.blockSize = quickPerMode, quickBlock
	}
	harness.Main("admission", func(ctx context.Context) error { return run(ctx, cfg) })
}

func run(ctx context.Context, cfg config) (err error) {
	blocks, err := plan(concurrencies, cfg.perMode, cfg.blockSize)
	if err != nil {
		return err
	}
	dir, finish, err := harness.LogsDir("admission", cfg.keep)
	if err != nil {
		return err
	}
	defer func() { finish(err != nil) }()
	loadAvg := loadgen.LoadAverage()
	start := time.Now()
	env, err := loadgen.StartLicensed(dir)
	if err != nil {
		return err
	}
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "admission: stopping:", err)
		}
	}()
	fmt.Printf("API server and operator up in %s\n", time.Since(start).Round(time.Millisecond))
	m, err := measure(ctx, env, blocks, cfg)
	if err != nil {
		return err
	}
	sec := section(cfg, m, loadAvg)
	if err := sec.Write(cfg.out); err != nil {
		return err
	}
	fmt.Printf("wrote %s/%s.json\n", cfg.out, sec.ID)
	return nil
}

// key names one series of creates.
type key struct {
	mode        mode
	concurrency int
}

// measurement is every create's duration per series.
type measurement struct {
	durations map[key][]time.Duration
	examples  int
	blocks    int
	// calls are the API server's calls to the Omnia webhooks during the
	// measured blocks (the registration probes included).
	calls webhookCalls
}

// measure waits until the operator's verdicts are the expected ones (the
// licence is in force), then runs a warm-up and the blocks.
func measure(ctx context.Context, env *loadgen.Environment, blocks []block, cfg config) (*measurement, error) {
	root, err := controlplane.RepoRoot()
	if err != nil {
		return nil, err
	}
	valid, invalid, err := loadgen.LoadCases(root, namespace)
	if err != nil {
		return nil, err
	}
	if err := waitOperator(ctx, env, valid, invalid); err != nil {
		return nil, err
	}
	// The creates go through client-go with its client-side rate limiter
	// off (QPS < 0): a create must wait for the API server only.
	rc := rest.CopyConfig(env.Env.Config)
	rc.QPS = -1
	c, err := controlplane.NewClient(rc)
	if err != nil {
		return nil, err
	}
	reg := &registrar{admin: c, hooks: env.Env.WebhookInstallOptions.ValidatingWebhooks, probe: &invalid[0]}
	cr := &creator{c: c, examples: valid}
	if err := createNamespace(ctx, c, namespace); err != nil {
		return nil, err
	}
	// Warm-up, not recorded: connections, the API server's caches and the
	// operator's informers see each kind once in each mode.
	// Their names are numbered past the plan's.
	warm := []block{{mode: withWebhooks, concurrency: 8, first: warmupFirst, count: warmupCreates}, {mode: withoutWebhooks, concurrency: 8, first: warmupFirst + warmupCreates, count: warmupCreates}}
	m := &measurement{durations: map[key][]time.Duration{}, examples: len(valid), blocks: len(blocks)}
	var before webhookCalls
	for i, b := range append(warm, blocks...) {
		if i == len(warm) {
			if before, err = readWebhookCalls(ctx, rc); err != nil {
				return nil, err
			}
		}
		if err := reg.set(ctx, b.mode); err != nil {
			return nil, err
		}
		ns := fmt.Sprintf("%s-%d", namespace, i)
		d, err := cr.runBlock(ctx, b, ns)
		if err != nil {
			return nil, err
		}
		if i >= len(warm) {
			k := key{b.mode, b.concurrency}
			m.durations[k] = append(m.durations[k], d...)
		}
		if err := cr.cleanUp(ctx, ns); err != nil {
			return nil, err
		}
		fmt.Printf("block %d/%d: %s, %d in flight, %d creates\n", i+1, len(warm)+len(blocks), b.mode, b.concurrency, b.count)
	}
	after, err := readWebhookCalls(ctx, rc)
	if err != nil {
		return nil, err
	}
	m.calls = webhookCalls{seconds: after.seconds - before.seconds, count: after.count - before.count}
	// Leave the webhooks registered, as the environment installed them:
	// its teardown removes them.
	return m, reg.set(ctx, withWebhooks)
}

// waitOperator sends every case straight to the operator's webhook server
// until each gets its expected verdict: until the operator has loaded the
// licence, the spec examples that use enterprise features are refused.
func waitOperator(ctx context.Context, env *loadgen.Environment, valid, invalid []loadgen.Case) error {
	routes, err := loadgen.WebhookRoutes()
	if err != nil {
		return err
	}
	wc, err := loadgen.NewWebhookClient(env.Operator.WebhookAddr, env.Env.WebhookInstallOptions.LocalServingCAData, 1, false)
	if err != nil {
		return err
	}
	defer wc.Close()
	reqs, err := wc.Prepare(append(append([]loadgen.Case{}, valid...), invalid...), routes)
	if err != nil {
		return err
	}
	return loadgen.WaitVerdicts(ctx, wc, reqs, verdictsTimeout)
}
