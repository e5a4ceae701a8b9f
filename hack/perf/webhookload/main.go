// Command webhookload measures the operator's webhook server under load
// (`make perf-webhook`, issue #13 §1): AdmissionReviews of the spec
// examples and of refused objects, sent open-loop over TLS on loopback to
// the operator binary at 500, 1,000 and 2,000 reviews/s, with latency from
// each review's scheduled send time, errors by kind, and the operator's CPU
// and RSS. It writes the "webhook-load" section of docs/performance.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.uber.org/zap/zapcore"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
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
	ctrllog.SetLogger(zap.New(zap.Level(zapcore.ErrorLevel)))
	cfg := config{rates: rates, maxInFlight: maxInFlight}
	flag.StringVar(&cfg.out, "out", "docs/performance", "directory the section JSON is written to")
	flag.BoolVar(&cfg.quick, "quick", false, "smoke run: 5 s per rate instead of 60 s")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the logs directory (operator log, profiles)")
	flag.Parse()
	cfg.stepLength, cfg.warmup = fullStep, fullWarmup
	if cfg.quick {
		cfg.stepLength, cfg.warmup = quickStep, quickWarmup
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "webhookload:", err)
		os.Exit(1)
	}
}

// run starts the environment, measures every step and writes the section.
func run(ctx context.Context, cfg config) error {
	dir, err := os.MkdirTemp("", "omnia-perf-webhook-")
	if err != nil {
		return err
	}
	keep := cfg.keep
	defer func() {
		if keep {
			fmt.Printf("logs kept in %s\n", dir)
		} else {
			_ = os.RemoveAll(dir)
		}
	}()
	loadAvg := currentLoad()
	b, err := startBench(ctx, cfg, dir)
	if err != nil {
		keep = true
		return err
	}
	defer b.stop()
	steps, err := b.measure(ctx)
	if err != nil {
		keep = true
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
