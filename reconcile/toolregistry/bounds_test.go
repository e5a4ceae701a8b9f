package toolregistry

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// storedBeforeBounds is the reconciler's client, returning each ToolRegistry
// with spec.probe as an object stored before the CRD's probe bounds could
// hold it (the API server now refuses these values).
type storedBeforeBounds struct {
	client.Client
	interval, timeout string
}

func (c storedBeforeBounds) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if err := c.Client.Get(ctx, key, obj, opts...); err != nil {
		return err
	}
	if tr, ok := obj.(*v1alpha1.ToolRegistry); ok && tr.Spec.Probe != nil {
		tr.Spec.Probe.Interval, tr.Spec.Probe.Timeout = c.interval, c.timeout
	}
	return nil
}

// deadlineDialer records the deadline of each dial and refuses it.
type deadlineDialer struct {
	mu        sync.Mutex
	deadlines []time.Time
}

func (d *deadlineDialer) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	dl, _ := ctx.Deadline()
	d.mu.Lock()
	d.deadlines = append(d.deadlines, dl)
	d.mu.Unlock()
	return nil, errors.New("refused by the test")
}

// TestReconcileClampsStoredProbeBounds: a registry stored with interval 1ns
// and timeout 100h is probed every 5s (no dial loop) with a dial bounded by
// the clamped timeout (no worker held for 100h).
func TestReconcileClampsStoredProbeBounds(t *testing.T) {
	ns := namespace(t)
	d := &deadlineDialer{}
	r, _ := newDirectReconciler(t, clocktesting.NewFakeClock(t0), d)
	r.client = storedBeforeBounds{Client: r.client, interval: "1ns", timeout: "100h"}
	on := true
	tr := newRegistry(ns, "stored-before-bounds", httpHandler("svc", "http://svc.tools.svc.cluster.local:8080/call"))
	tr.Spec.Probe = &v1alpha1.ToolRegistryProbe{Enabled: &on}
	key := create(t, tr)

	before := time.Now()
	res := reconcileProbed(t, r, key)
	if res.RequeueAfter != MinProbeInterval {
		t.Errorf("RequeueAfter = %v for a stored 1ns interval, want the %v minimum", res.RequeueAfter, MinProbeInterval)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.deadlines) != 1 {
		t.Fatalf("%d dials, want 1", len(d.deadlines))
	}
	if dl := d.deadlines[0]; dl.IsZero() || dl.After(before.Add(MaxProbeTimeout)) {
		t.Errorf("dial deadline %v, want within %v of the reconcile (a stored 100h timeout is clamped)", dl, MaxProbeTimeout)
	}
}

// TestProbeRefusesMetadataAfterResolution: with the production dialer, a
// handler of any type whose endpoint is a link-local or cloud-metadata
// address is never dialled (not only mcp, whose spec rule also reports it).
func TestProbeRefusesMetadataAfterResolution(t *testing.T) {
	ns := namespace(t)
	r, _ := newDirectReconciler(t, clocktesting.NewFakeClock(t0), nil)
	on := true
	tr := newRegistry(ns, "metadata-probe",
		httpHandler("imds", "http://169.254.169.254/latest/meta-data/"),
		v1alpha1.ToolRegistryHandler{Name: "alibaba", Type: "grpc", GRPCConfig: &v1alpha1.ToolRegistryGRPCConfig{Endpoint: "100.100.100.200:80"}, Tool: toolDef("get")},
	)
	tr.Spec.Probe = &v1alpha1.ToolRegistryProbe{Enabled: &on}
	key := create(t, tr)
	reconcileProbed(t, r, key)
	got := get(t, key).Status.DiscoveredTools
	if len(got) != 2 {
		t.Fatalf("tools = %+v", got)
	}
	for _, tool := range got {
		if tool.Status != unavail || !strings.Contains(tool.Error, "egress guard") {
			t.Errorf("tool %s = %s (%q), want Unavailable refused by the egress guard", tool.Name, tool.Status, tool.Error)
		}
	}
}
