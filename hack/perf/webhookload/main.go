// Command webhookload measures the operator's webhook server under load
// (`make perf-webhook`): AdmissionReviews of the spec
// examples and of refused objects, sent open-loop over TLS on loopback to
// the operator binary at 500, 1,000 and 2,000 reviews/s, with latency from
// each review's scheduled send time, errors by kind, and the operator's CPU
// and RSS. It writes the "webhook-load" section of docs/performance.
package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/altairalabs/omnia/hack/perf/harness"
	"github.com/altairalabs/omnia/hack/perf/loadgen"
)

// config is the run's plan.
type config struct {
	out         string
	quick       bool
	keep        bool
	rates       []float64
	stepLength  time.Duration
	warmup      time.Duration
	maxInFlight int
}

// The rates and step length; -quick keeps the rates and shortens
// the steps, so the smoke run takes the same code paths.
var (
	rates          = []float64{500, 1000, 2000}
	fullStep       = 60 * time.Second
	quickStep      = 5 * time.Second
	fullWarmup     = 10 * time.Second
	quickWarmup    = 2 * time.Second
	warmupRate     = 200.0
	maxInFlight    = 512
	targetRate     = 2000.0
	targetP99      = 5 * time.Millisecond
	verdictTimeout = time.Minute
)

func main() {
	cfg := config{rates: rates, maxInFlight: maxInFlight}
	flag.StringVar(&cfg.out, "out", "docs/performance", "directory the section JSON is written to")
	flag.BoolVar(&cfg.quick, "quick", false, "smoke run: 5 s per rate instead of 60 s")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the logs directory (operator log, profiles)")
	flag.Parse()
	cfg.stepLength, cfg.warmup = fullStep, fullWarmup
	if cfg.quick {
		cfg.stepLength, cfg.warmup = quickStep, quickWarmup
	}
	harness.Main("webhookload", func(ctx context.Context) error { return run(ctx, cfg) })
}

// run starts the environment, measures every step and writes the section.
func run(ctx context.Context, cfg config) (err error) {
	dir, finish, err := harness.LogsDir("webhook", cfg.keep)
	if err != nil {
		return err
	}
	defer func() { finish(err != nil) }()
	loadAvg := loadgen.LoadAverage()
	b, err := startBench(ctx, cfg, dir)
	if err != nil {
		return err
	}
	defer b.stop()
	steps, err := b.measure(ctx)
	if err != nil {
		return err
	}
	var profile []string
	if missed := firstMissed(steps); missed != nil {
		profile, err = b.profileStep(ctx, missed)
		if err != nil {
			profile = []string{"The CPU profile of the 2,000/s step could not be taken: " + err.Error()}
		}
	}
	sec := section(cfg, b, steps, profile, loadAvg)
	if err := sec.Write(cfg.out); err != nil {
		return err
	}
	fmt.Printf("wrote %s/%s.json\n", cfg.out, sec.ID)
	return nil
}
