package toolregistry

import (
	"context"
	"net"
	"sync"
	"time"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Probe defaults: the CRD's (toolregistry.md#probing), used when a field is
// empty or does not parse (the rules report the latter under HandlersValid).
const (
	DefaultProbeInterval = 60 * time.Second
	DefaultProbeTimeout  = 5 * time.Second
)

// Probe bounds: the CRD refuses a spec.probe outside them
// (toolregistry/probe-interval-range, probe-timeout-range,
// probe-timeout-within-interval); a value stored before those rules is
// clamped into them, so 1ns never spins a dial loop and 100h never holds a
// worker.
const (
	MinProbeInterval = 5 * time.Second
	MaxProbeInterval = 24 * time.Hour
	MinProbeTimeout  = 100 * time.Millisecond
	MaxProbeTimeout  = 60 * time.Second
)

// Dialer opens TCP connections for probes; *net.Dialer is one. Production's
// is netguard's (no link-local or cloud-metadata address, whatever a name
// resolves to). Tests inject one that refuses or hangs.
type Dialer interface {
	DialContext(ctx context.Context, network, address string) (net.Conn, error)
}

// probeSettings is spec.probe resolved against the defaults.
type probeSettings struct {
	enabled           bool
	interval, timeout time.Duration
}

// probeSettingsOf resolves spec.probe: probing is on only when
// spec.probe.enabled is true; an empty or unparseable interval or timeout
// (or a non-positive one) takes the default; the result is clamped into the
// probe bounds, the timeout to at most the interval.
func probeSettingsOf(p *v1alpha1.ToolRegistryProbe, defInterval, defTimeout time.Duration) probeSettings {
	s := probeSettings{interval: defInterval, timeout: defTimeout}
	if p != nil && p.Enabled != nil && *p.Enabled {
		s.enabled = true
		if d, err := time.ParseDuration(p.Interval); err == nil && d > 0 {
			s.interval = d
		}
		if d, err := time.ParseDuration(p.Timeout); err == nil && d > 0 {
			s.timeout = d
		}
	}
	s.interval = min(max(s.interval, MinProbeInterval), MaxProbeInterval)
	s.timeout = min(max(s.timeout, MinProbeTimeout), MaxProbeTimeout, s.interval)
	return s
}

// toolKey identifies a tool across reconciles: a tool whose handler, name
// or endpoint changes is a new tool, probed afresh.
func toolKey(t *v1alpha1.ToolRegistryDiscoveredTool) string {
	return t.HandlerName + "\x00" + t.Name + "\x00" + t.Endpoint
}

// probePlan says whether a probe round is due now and, when it is not, what
// each probed tool's last result was and when the next round is due.
type probePlan struct {
	due bool
	// previous results by toolKey, carried over when no round is due.
	previous map[string]v1alpha1.ToolRegistryDiscoveredTool
	// next is how long after now the next round is due (0 when due now).
	next time.Duration
}

// planProbe decides whether to probe now: a round is due when a probed tool
// has no previous result for its endpoint (a new registry, tool or
// endpoint), or when interval has passed since the oldest previous result.
// probed are the tools a round would dial.
func planProbe(old []v1alpha1.ToolRegistryDiscoveredTool, probed []resolvedTool, interval time.Duration, now time.Time) probePlan {
	plan := probePlan{previous: map[string]v1alpha1.ToolRegistryDiscoveredTool{}}
	if len(probed) == 0 {
		return plan
	}
	for i := range old {
		plan.previous[toolKey(&old[i])] = old[i]
	}
	var oldest time.Time
	for i := range probed {
		p, ok := plan.previous[toolKey(&probed[i].tool)]
		if !ok || p.LastChecked == nil ||
			(p.Status != v1alpha1.ToolRegistryToolStatusAvailable && p.Status != v1alpha1.ToolRegistryToolStatusUnavailable) {
			plan.due = true
			return plan
		}
		if oldest.IsZero() || p.LastChecked.Time.Before(oldest) {
			oldest = p.LastChecked.Time
		}
	}
	next := oldest.Add(interval).Sub(now)
	if next <= 0 {
		plan.due = true
		return plan
	}
	plan.next = next
	return plan
}

// probeAddresses TCP-dials every address once, in parallel, each bounded by
// timeout, and returns the error of each that did not accept a connection.
// It is a reachability check: the connection is closed at once, nothing is
// sent.
func probeAddresses(ctx context.Context, d Dialer, addrs []string, timeout time.Duration) map[string]error {
	results := make(map[string]error, len(addrs))
	var mu sync.Mutex
	var wg sync.WaitGroup
	seen := map[string]bool{}
	for _, a := range addrs {
		if seen[a] {
			continue
		}
		seen[a] = true
		wg.Add(1)
		go func(addr string) {
			defer wg.Done()
			dctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			conn, err := d.DialContext(dctx, "tcp", addr)
			if err == nil {
				_ = conn.Close()
			}
			mu.Lock()
			results[addr] = err
			mu.Unlock()
		}(a)
	}
	wg.Wait()
	return results
}
