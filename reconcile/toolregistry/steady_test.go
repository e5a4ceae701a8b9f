package toolregistry

import (
	"net"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/prober"
)

// TestSteadyProbingWritesNothing: probe rounds that find the endpoint as the
// status already says write nothing (0 writes in steady state),
// whether the endpoint stays up or stays down; a round that flips it writes
// once, with lastChecked at that round's time.
func TestSteadyProbingWritesNothing(t *testing.T) {
	const rounds = 5
	ns := namespace(t)
	clk := clocktesting.NewFakeClock(t0)
	up := listen(t)
	r, writes := newDirectReconciler(t, clk, &net.Dialer{})
	on := true
	tr := newRegistry(ns, "steady", httpHandler("svc", "http://"+up.addr+"/call"))
	tr.Spec.Probe = &v1alpha1.ToolRegistryProbe{Enabled: &on, Interval: "30s", Timeout: "300ms"}
	key := create(t, tr)
	probeKey := prober.Key{Owner: prober.Owner{Kind: ProberKind, NamespacedName: key}, Probe: up.addr}

	// round steps the clock by d and runs a probe round to its end; it
	// checks the round really dialled (the prober holds a result of now),
	// so "no write" below is never "no probe".
	round := func(d time.Duration) *v1alpha1.ToolRegistry {
		t.Helper()
		clk.Step(d)
		reconcileProbed(t, r, key)
		if res, ok := r.prober.Result(probeKey); !ok || !res.At.Equal(clk.Now()) {
			t.Fatalf("no probe result at %v (have %+v, %v)", clk.Now(), res, ok)
		}
		return get(t, key)
	}
	expectTool := func(got *v1alpha1.ToolRegistry, phase v1alpha1.ToolRegistryPhase, status v1alpha1.ToolRegistryToolStatus, checked time.Time) {
		t.Helper()
		tool := got.Status.DiscoveredTools[0]
		if got.Status.Phase != phase || tool.Status != status || tool.LastChecked == nil || !tool.LastChecked.Time.Equal(checked) {
			t.Fatalf("phase %s, tool %s checked %v; want %s, %s checked %v", got.Status.Phase, tool.Status, tool.LastChecked, phase, status, checked)
		}
	}

	reconcileOnce(t, r, key) // Pending: the first probe is submitted
	settled := round(0)
	expectTool(settled, v1alpha1.ToolRegistryPhaseReady, avail, t0)
	if n := writes.take(); n != 2 {
		t.Fatalf("%d writes to settle, want 2 (Pending, then the result)", n)
	}

	for i := 1; i <= rounds; i++ {
		got := round(30 * time.Second)
		if n := writes.take(); n != 0 || got.ResourceVersion != settled.ResourceVersion {
			t.Fatalf("round %d with the endpoint up: %d writes, resourceVersion %s → %s; want none", i, n, settled.ResourceVersion, got.ResourceVersion)
		}
	}

	// The endpoint stops listening: one write, Unavailable, checked now.
	up.close()
	down := round(30 * time.Second)
	expectTool(down, v1alpha1.ToolRegistryPhaseFailed, unavail, clk.Now())
	if n := writes.take(); n != 1 {
		t.Fatalf("the flip to Unavailable wrote %d times, want 1", n)
	}
	downAt := clk.Now()

	// Still down a round later (60s: past the failure backoff's cap): nothing.
	still := round(60 * time.Second)
	if n := writes.take(); n != 0 || still.ResourceVersion != down.ResourceVersion {
		t.Fatalf("a round still down: %d writes, resourceVersion %s → %s; want none", n, down.ResourceVersion, still.ResourceVersion)
	}
	expectTool(still, v1alpha1.ToolRegistryPhaseFailed, unavail, downAt)

	// Back up: one write, Available, checked at that round.
	up.reopen()
	back := round(60 * time.Second)
	expectTool(back, v1alpha1.ToolRegistryPhaseReady, avail, clk.Now())
	if n := writes.take(); n != 1 {
		t.Fatalf("the flip back to Available wrote %d times, want 1", n)
	}
}
