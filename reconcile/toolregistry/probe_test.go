package toolregistry

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/netguard"
)

func TestProbeSettingsOf(t *testing.T) {
	on, off := true, false
	cases := []struct {
		name string
		in   *v1alpha1.ToolRegistryProbe
		want probeSettings
	}{
		{"absent", nil, probeSettings{false, time.Minute, 5 * time.Second}},
		{"disabled", &v1alpha1.ToolRegistryProbe{Enabled: &off, Interval: "1s"}, probeSettings{false, time.Minute, 5 * time.Second}},
		{"enabled, defaults", &v1alpha1.ToolRegistryProbe{Enabled: &on}, probeSettings{true, time.Minute, 5 * time.Second}},
		{"enabled, set", &v1alpha1.ToolRegistryProbe{Enabled: &on, Interval: "10s", Timeout: "250ms"}, probeSettings{true, 10 * time.Second, 250 * time.Millisecond}},
		{"unparseable and non-positive take defaults", &v1alpha1.ToolRegistryProbe{Enabled: &on, Interval: "soon", Timeout: "0s"}, probeSettings{true, time.Minute, 5 * time.Second}},
		// Stored before the CRD bounds: clamped.
		{"1ns interval never spins", &v1alpha1.ToolRegistryProbe{Enabled: &on, Interval: "1ns", Timeout: "1ns"}, probeSettings{true, 5 * time.Second, 100 * time.Millisecond}},
		{"100h timeout never holds a worker", &v1alpha1.ToolRegistryProbe{Enabled: &on, Interval: "1000h", Timeout: "100h"}, probeSettings{true, 24 * time.Hour, time.Minute}},
		{"timeout longer than the interval", &v1alpha1.ToolRegistryProbe{Enabled: &on, Interval: "5s", Timeout: "30s"}, probeSettings{true, 5 * time.Second, 5 * time.Second}},
		{"bounds themselves", &v1alpha1.ToolRegistryProbe{Enabled: &on, Interval: "24h", Timeout: "60s"}, probeSettings{true, 24 * time.Hour, time.Minute}},
	}
	for _, c := range cases {
		if got := probeSettingsOf(c.in, time.Minute, 5*time.Second); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestPlanProbe(t *testing.T) {
	target := resolvedTool{tool: v1alpha1.ToolRegistryDiscoveredTool{HandlerName: "a", Name: "a", Endpoint: "http://a:1"}, network: true, dialAddr: "a:1"}
	checked := func(at time.Time, endpoint string, st v1alpha1.ToolRegistryToolStatus) []v1alpha1.ToolRegistryDiscoveredTool {
		lc := metav1.NewTime(at)
		return []v1alpha1.ToolRegistryDiscoveredTool{{HandlerName: "a", Name: "a", Endpoint: endpoint, Status: st, LastChecked: &lc}}
	}
	cases := []struct {
		name    string
		old     []v1alpha1.ToolRegistryDiscoveredTool
		targets []resolvedTool
		due     bool
		next    time.Duration
	}{
		{"nothing to probe", nil, nil, false, 0},
		{"first round", nil, []resolvedTool{target}, true, 0},
		{"inside the interval", checked(t0.Add(-20*time.Second), "http://a:1", avail), []resolvedTool{target}, false, 40 * time.Second},
		{"interval passed", checked(t0.Add(-time.Minute), "http://a:1", unavail), []resolvedTool{target}, true, 0},
		{"endpoint changed", checked(t0.Add(-time.Second), "http://a:2", avail), []resolvedTool{target}, true, 0},
		{"previous result unknown", checked(t0.Add(-time.Second), "http://a:1", unknown), []resolvedTool{target}, true, 0},
	}
	for _, c := range cases {
		got := planProbe(c.old, c.targets, time.Minute, t0)
		if got.due != c.due || got.next != c.next {
			t.Errorf("%s: due %v next %v, want due %v next %v", c.name, got.due, got.next, c.due, c.next)
		}
	}
}

// hangingDialer never connects: it returns when the probe's deadline ends.
type hangingDialer struct{}

func (hangingDialer) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestProbeAddresses(t *testing.T) {
	up, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	go func() {
		for {
			c, err := up.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	_ = closed.Close()

	res := probeAddresses(context.Background(), &net.Dialer{}, []string{up.Addr().String(), closedAddr, up.Addr().String()}, time.Second)
	if len(res) != 2 {
		t.Fatalf("results = %v, want one per address", res)
	}
	if res[up.Addr().String()] != nil {
		t.Errorf("open listener: %v", res[up.Addr().String()])
	}
	if res[closedAddr] == nil {
		t.Errorf("closed listener reported reachable")
	}

	start := time.Now()
	res = probeAddresses(context.Background(), hangingDialer{}, []string{"a:1", "b:1"}, 100*time.Millisecond)
	if res["a:1"] == nil || res["b:1"] == nil {
		t.Errorf("hanging endpoints reported reachable: %v", res)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("probes took %v: the timeout did not bound them (or they ran one after another)", d)
	}
}

// TestDefaultDialerRefusesMetadata: the production dialer refuses a
// link-local or cloud-metadata address before connecting, for every handler
// type (every probe goes through it).
func TestDefaultDialerRefusesMetadata(t *testing.T) {
	d := Options{}.withDefaults().Dialer
	res := probeAddresses(context.Background(), d, []string{"169.254.169.254:80", "[fd00:ec2::254]:80", "100.100.100.200:80"}, 30*time.Second)
	for addr, err := range res {
		var be *netguard.BlockedError
		if !errors.As(err, &be) {
			t.Errorf("%s: %v, want the egress guard's refusal", addr, err)
		}
	}
}
