// Command faults is `make perf-faults`: on the local cluster
// with two operator replicas behind a TCP front (test/faults), a steady
// stream of creates and updates, valid and invalid, runs while
// kube-apiserver is killed and restarted, etcd is restarted and the
// operator leader is killed; the same stream is then replayed without
// faults and every object's status compared. It writes the "faults"
// section of docs/performance.md (-out DIR).
//
// It is a benchmark, not a test: it asserts nothing. A run with
// differences or invalid objects admitted still writes its section, with
// those targets missed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/altairalabs/omnia/hack/perf/harness"
	"github.com/altairalabs/omnia/test/faults"
)

func main() {
	out := flag.String("out", "docs/performance", "directory the section JSON is written to")
	quick := flag.Bool("quick", false, "a short run (every fault once, short pauses, the stream stretched to 3 minutes for the scheduled ArenaJobs' ticks)")
	keep := flag.Bool("keep", false, "keep the logs directory")
	flag.Parse()

	cfg := FullConfig()
	if *quick {
		cfg = faults.QuickConfig(faults.FaultAPIServer, faults.FaultEtcd, faults.FaultLeader)
	}
	cfg.Log, cfg.Keep = os.Stdout, *keep
	harness.Main("perf-faults", func(ctx context.Context) error { return run(ctx, cfg, *out, *quick) })
}

// run is the scenario and its section; an interrupt (ctx) ends it and
// tears the cluster down.
func run(ctx context.Context, cfg faults.Config, out string, quick bool) error {
	res, err := faults.Run(ctx, cfg)
	if err != nil {
		return err
	}
	section := Section(cfg, res, quick)
	if err := section.Write(out); err != nil {
		return err
	}
	fmt.Printf("wrote %s/%s.json (%s)\n", out, section.ID, res.Elapsed.Round(time.Second))
	return nil
}

// FullConfig is `make perf-faults`: ten groups (30 objects) updated round
// after round, and more Providers and ToolRegistries created, at 10
// operations a second, 20 s of steady stream before the
// first fault and after each recovery, the operator's own leader-election
// timings.
func FullConfig() faults.Config {
	return faults.Config{
		Groups:          10,
		Interval:        100 * time.Millisecond,
		Warmup:          20 * time.Second,
		Settle:          20 * time.Second,
		Faults:          []string{faults.FaultAPIServer, faults.FaultEtcd, faults.FaultLeader},
		MinStream:       5 * time.Minute,
		RecoveryTimeout: 3 * time.Minute,
		ConvergeTimeout: 5 * time.Minute,
	}
}
