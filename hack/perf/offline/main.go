// Command offline runs the four ways to check a manifest file against the
// omnia rules side by side, in one run on one generated file,
// and writes the offline-check section of docs/performance.md:
//
//   - omniactl check -o json (every rule of the catalog, offline);
//   - gator test with one ConstraintTemplate + Constraint per rule for the
//     six rules gator can express (policies/gator);
//   - the Kyverno CLI's apply with one ClusterPolicy per rule for the same
//     six (policies/kyverno);
//   - kubectl apply --dry-run=server against a local API server with the
//     CRDs and the webhooks registered and the operator serving them.
//
// Each runs as its own process, measured from start to exit (wall clock) and
// by its peak RSS (wait4's ru_maxrss). Each answer is read back to the set of
// documents flagged per rule and held to the generator's own account of
// where it put the violations (testdata-gen -expected): a tool that misses
// or over-flags is reported, never hidden.
//
// gator and the Kyverno CLI are built from their Go modules by
// hack/perf/tools/build.sh (cached per user); -quick skips a tool whose
// binary is not cached yet rather than spend its build time.
//
//	go run ./hack/perf/offline -out docs/performance [-quick]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/altairalabs/omnia/hack/perf/harness"
	"github.com/altairalabs/omnia/hack/perf/perfreport"
	"github.com/altairalabs/omnia/test/controlplane"
)

// Document counts: the 5,000, and a smoke run's 500 (two documents
// per rule; the generator puts each violation every 250 documents).
const (
	fullDocuments  = 5000
	quickDocuments = 500
)

// Bounds on each measured process: generous for the slowest (the Kyverno
// CLI took minutes on 5,000 documents in the run), so a hung tool
// ends the run instead of holding it.
const (
	toolTimeout  = 40 * time.Minute
	buildTimeout = 60 * time.Minute
)

type config struct {
	out   string
	quick bool
	// build says whether a tool missing from the cache is built (false in
	// a -quick run, or with -build=false).
	build bool
	n     int
	root  string
	dir   string
}

func main() {
	cfg := config{}
	flag.StringVar(&cfg.out, "out", "docs/performance", "directory the section JSON is written to")
	flag.BoolVar(&cfg.quick, "quick", false, "smoke run: 500 documents, and skip a tool whose binary is not cached yet")
	flag.IntVar(&cfg.n, "n", 0, "documents in the generated file (default 5000, or 500 with -quick)")
	flag.BoolVar(&cfg.build, "build", true, "build gator and the Kyverno CLI when they are not cached (never with -quick)")
	flag.Parse()
	if cfg.quick {
		cfg.build = false
	}
	if cfg.n == 0 {
		cfg.n = fullDocuments
		if cfg.quick {
			cfg.n = quickDocuments
		}
	}
	harness.Main("perf-offline", func(ctx context.Context) error { return run(ctx, cfg) })
}

// run measures the four tools and writes the section; an interrupt (ctx)
// stops the tool running and keeps the outputs.
func run(ctx context.Context, cfg config) error {
	root, err := controlplane.RepoRoot()
	if err != nil {
		return err
	}
	cfg.root = root
	if cfg.dir, err = os.MkdirTemp("", "omnia-perf-offline-"); err != nil {
		return err
	}
	sec, err := measureAll(ctx, cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perf-offline: outputs kept in %s\n", cfg.dir)
		return err
	}
	_ = os.RemoveAll(cfg.dir)
	if err := sec.Write(cfg.out); err != nil {
		return err
	}
	fmt.Printf("wrote %s\n", filepath.Join(cfg.out, sec.ID+".json"))
	return nil
}

// measureAll generates the file, runs the four tools on it and builds the
// section.
func measureAll(ctx context.Context, cfg config) (perfreport.Section, error) {
	file := filepath.Join(cfg.dir, "manifests.yaml")
	accPath := filepath.Join(cfg.dir, "expected.json")
	if err := generate(ctx, cfg, file, accPath); err != nil {
		return perfreport.Section{}, err
	}
	acc, err := readAccount(accPath)
	if err != nil {
		return perfreport.Section{}, err
	}
	fmt.Printf("generated %d documents, %d violations of %d rules: %s\n", acc.Documents, len(acc.Violations), len(acc.Rules), file)

	// kubectl runs right after omniactl and gator and Kyverno last, so a
	// tool still building when the run starts (hack/perf/tools/build.sh
	// started by hand) has the most time to finish; the report lists them
	// in the table's order.
	runners := []func(context.Context, config, string, *account) (toolResult, error){runOmniactl, runKubectl, runGator, runKyverno}
	ran := make([]toolResult, 0, len(runners))
	for _, tool := range runners {
		r, err := tool(ctx, cfg, file, acc)
		if err != nil {
			return perfreport.Section{}, err
		}
		ran = append(ran, r)
	}
	results := []toolResult{ran[0], ran[2], ran[3], ran[1]}
	for _, r := range results {
		fmt.Println(r.summaryLine())
	}
	return section(cfg, acc, results), nil
}

// generate writes the manifest file and the generator's account of it.
func generate(ctx context.Context, cfg config, file, accPath string) error {
	bin := filepath.Join(cfg.dir, "testdata-gen")
	if err := goBuild(ctx, cfg, bin, "./cmd/omniactl/testdata-gen"); err != nil {
		return err
	}
	r, err := measure(ctx, cfg.dir, "testdata-gen", toolTimeout, nil, bin, "-n", fmt.Sprint(cfg.n), "-expected", accPath)
	if err != nil {
		return err
	}
	if r.Exit != 0 {
		return fmt.Errorf("testdata-gen exited %d (see %s)", r.Exit, r.Stderr)
	}
	return os.Rename(r.Stdout, file)
}
