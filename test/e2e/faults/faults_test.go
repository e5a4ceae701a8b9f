//go:build faultse2e

// Package faults is the quick variant of `make perf-faults`
// (issue #13 §5): on the local cluster with two operator replicas behind a
// TCP front, a short stream of creates and updates (a quarter of them
// invalid) runs while kube-apiserver is killed and restarted and the
// operator leader is killed; then it is replayed without faults. Every
// object must end with the status the replay gives it, no invalid object
// may have got in, and each fault must have recovered. Only outcomes are
// asserted, never a duration: the times are `make perf-faults`'s report.
//
// It is left out of make test (build tag faultse2e) because it does not
// fit the two minutes on the 2-core machine: 3 min 56 s measured
// (cluster start 41 s, operator build and two replicas 66 s, stream and
// faults 38 s, replay and convergence 87 s) at load average ~35. Run it
// with
//
//	go test -tags faultse2e -count=1 -v ./test/e2e/faults/
package faults

import (
	"context"
	"os"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/altairalabs/omnia/test/faults"
)

func TestFaultsLoseNothing(t *testing.T) {
	ctrllog.SetLogger(zap.New(zap.Level(zapcore.ErrorLevel)))
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cfg := faults.QuickConfig(faults.FaultAPIServer, faults.FaultLeader)
	cfg.Log = os.Stdout
	res, err := faults.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d operations, %d objects compared, %d stored objects re-checked, run took %s",
		res.Ops, res.Compared, res.Recheck.Checked, res.Elapsed.Round(time.Second))

	// The groups' objects, plus the Providers and ToolRegistries the
	// stream creates afterwards.
	if res.Compared <= 3*cfg.Groups {
		t.Errorf("compared %d objects, want more than the groups' %d", res.Compared, 3*cfg.Groups)
	}
	for _, d := range res.Differences {
		t.Errorf("status differs from the run without faults: %s: %s", d.Object, d.Detail)
	}
	for _, name := range append(res.Run.Admitted, res.Reference.Admitted...) {
		t.Errorf("the webhook admitted an invalid write: %s", name)
	}
	for _, inv := range res.Recheck.Invalid {
		t.Errorf("an invalid object is stored: %s", inv)
	}
	if res.Run.Denied == 0 || res.Reference.Denied != res.Run.Denied {
		t.Errorf("invalid writes denied: %d with faults, %d in the replay; want the same, more than 0", res.Run.Denied, res.Reference.Denied)
	}
	if len(res.Faults) != len(cfg.Faults) {
		t.Fatalf("%d faults reported, want %d", len(res.Faults), len(cfg.Faults))
	}
	for _, f := range res.Faults {
		if len(f.Recovery.Missing) > 0 {
			t.Errorf("%s: not observed after the fault: %v", f.Name, f.Recovery.Missing)
		}
	}
	if n := res.FailedOutside[faults.ClassOther]; n > 0 {
		t.Errorf("%d writes failed for a reason that is not a fault's", n)
	}
	for _, f := range res.Faults {
		if n := f.Failed[faults.ClassOther]; n > 0 {
			t.Errorf("%s: %d writes failed for a reason that is not the fault's", f.Name, n)
		}
	}
	for _, msg := range res.Unexplained {
		t.Logf("a failed attempt no fault explains: %s", msg)
	}
	for _, line := range res.Forbidden {
		t.Errorf("the API server refused the operator a permission: %s", line)
	}
}
