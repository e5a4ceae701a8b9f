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
	"github.com/altairalabs/omnia/reconcile/prober"
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

func TestUntilDue(t *testing.T) {
	cases := []struct {
		name  string
		res   prober.Result
		found bool
		wait  time.Duration
		due   bool
	}{
		{"never probed", prober.Result{}, false, 0, true},
		{"inside the interval", prober.Result{At: t0.Add(-20 * time.Second)}, true, 40 * time.Second, false},
		{"interval passed", prober.Result{At: t0.Add(-time.Minute)}, true, 0, true},
		{"long past", prober.Result{At: t0.Add(-time.Hour)}, true, -59 * time.Minute, true},
	}
	for _, c := range cases {
		wait, due := untilDue(c.res, c.found, time.Minute, t0)
		if wait != c.wait || due != c.due {
			t.Errorf("%s: wait %v due %v, want %v %v", c.name, wait, due, c.wait, c.due)
		}
	}
}

func TestPreviousResults(t *testing.T) {
	lc := metav1.NewTime(t0)
	old := []v1alpha1.ToolRegistryDiscoveredTool{
		{HandlerName: "a", Name: "a", Endpoint: "http://a:1", Status: avail, LastChecked: &lc},
		{HandlerName: "b", Name: "b", Endpoint: "http://b:1", Status: unavail, LastChecked: &lc},
		{HandlerName: "c", Name: "c", Endpoint: "http://c:1", Status: unknown, Error: NotProbedYet},
		{HandlerName: "d", Name: "d", Endpoint: "http://d:1", Status: avail}, // config-level: never probed
	}
	got := previousResults(old)
	if len(got) != 2 || got[toolKey(&old[0])].Status != avail || got[toolKey(&old[1])].Status != unavail {
		t.Errorf("previous results = %+v, want the two probed tools", got)
	}
}

// hangingDialer never connects: it returns when the probe's deadline ends.
type hangingDialer struct{}

func (hangingDialer) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestDialJob: the job connects to an open listener, fails on a closed one,
// and ends with its context on one that hangs; its host (the per-host
// limit's key) is the address without the port.
func TestDialJob(t *testing.T) {
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

	k := prober.Key{Probe: "x"}
	s := probeSettings{enabled: true, interval: 5 * time.Second, timeout: time.Second}
	if j := dialJob(k, &net.Dialer{}, up.Addr().String(), s); j.Host != "127.0.0.1" || j.Timeout != time.Second || j.MaxBackoff != DefaultProbeInterval {
		t.Errorf("job host %q timeout %v max backoff %v", j.Host, j.Timeout, j.MaxBackoff)
	}
	if j := dialJob(k, &net.Dialer{}, up.Addr().String(), probeSettings{interval: 10 * time.Minute}); j.MaxBackoff != 10*time.Minute {
		t.Errorf("max backoff %v with a 10m interval, want the interval", j.MaxBackoff)
	}
	if out := dialJob(k, &net.Dialer{}, up.Addr().String(), s).Run(context.Background()); out.Failure != "" {
		t.Errorf("open listener: %+v", out)
	}
	if out := dialJob(k, &net.Dialer{}, closedAddr, s).Run(context.Background()); out.Failure != FailureTCPConnect || out.Detail == "" {
		t.Errorf("closed listener: %+v", out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if out := dialJob(k, hangingDialer{}, "a:1", probeSettings{timeout: time.Hour}).Run(ctx); out.Failure != FailureTCPConnect {
		t.Errorf("hanging endpoint: %+v", out)
	}
}

// TestDefaultDialerRefusesMetadata: the production dialer refuses a
// link-local or cloud-metadata address before connecting, for every handler
// type (every probe goes through it).
func TestDefaultDialerRefusesMetadata(t *testing.T) {
	d := Options{}.withDefaults().Dialer
	for _, addr := range []string{"169.254.169.254:80", "[fd00:ec2::254]:80", "100.100.100.200:80"} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		conn, err := d.DialContext(ctx, "tcp", addr)
		cancel()
		if conn != nil {
			_ = conn.Close()
		}
		var be *netguard.BlockedError
		if !errors.As(err, &be) {
			t.Errorf("%s: %v, want the egress guard's refusal", addr, err)
		}
	}
}
