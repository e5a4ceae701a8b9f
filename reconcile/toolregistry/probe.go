package toolregistry

import (
	"context"
	"net"
	"time"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/netguard"
	"github.com/altairalabs/omnia/reconcile/prober"
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

// ProberKind is the owner kind of this controller's probes: the prober
// announces their results on the channel of that name.
const ProberKind = "ToolRegistry"

// retryDropped is when a registry whose probe the prober's full queue
// dropped asks again.
const retryDropped = 10 * time.Second

// previousResults are the probe results the stored status holds, by
// toolKey: they stand for a tool until the prober has a result of its own
// (after a restart or a leader change), so a probed registry does not fall
// back to "not probed yet".
func previousResults(old []v1alpha1.ToolRegistryDiscoveredTool) map[string]v1alpha1.ToolRegistryDiscoveredTool {
	out := map[string]v1alpha1.ToolRegistryDiscoveredTool{}
	for i := range old {
		t := old[i]
		if t.LastChecked != nil && (t.Status == v1alpha1.ToolRegistryToolStatusAvailable || t.Status == v1alpha1.ToolRegistryToolStatusUnavailable) {
			out[toolKey(&t)] = t
		}
	}
	return out
}

// dialAddrs are the distinct addresses the targets dial, in order.
func dialAddrs(targets []resolvedTool) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range targets {
		if t.dialAddr != "" && !seen[t.dialAddr] {
			seen[t.dialAddr] = true
			out = append(out, t.dialAddr)
		}
	}
	return out
}

// untilDue says whether an address is due for a probe at now: it is when it
// has no stored result, or when interval has passed since that result.
// Otherwise it returns how long until it is.
func untilDue(res prober.Result, found bool, interval time.Duration, now time.Time) (time.Duration, bool) {
	if !found {
		return 0, true
	}
	wait := res.At.Add(interval).Sub(now)
	return wait, wait <= 0
}

// requestProbes reads the stored result of each target address and submits
// a dial for those that are due; it never dials itself. It returns the
// results and when the registry should be looked at again without an event
// (the next address due, a backoff's end, or a retry after a drop); a
// submitted probe's result arrives as an event on the prober's channel.
func (r *Reconciler) requestProbes(owner prober.Owner, targets []resolvedTool, s probeSettings, now time.Time) (map[string]prober.Result, time.Duration) {
	addrs := dialAddrs(targets)
	r.prober.Retain(owner, addrs...)
	results := make(map[string]prober.Result, len(addrs))
	var next time.Duration
	for _, addr := range addrs {
		k := prober.Key{Owner: owner, Probe: addr}
		res, found := r.prober.Result(k)
		if found {
			results[addr] = res
		}
		wait, due := untilDue(res, found, s.interval, now)
		if due {
			sub := r.prober.Submit(dialJob(k, r.opts.Dialer, addr, s))
			switch sub.State {
			case prober.BackingOff:
				wait = sub.NotBefore.Sub(now)
			case prober.Dropped:
				wait = retryDropped
			default:
				wait = s.interval
			}
		}
		if wait > 0 && (next == 0 || wait < next) {
			next = wait
		}
	}
	return results, next
}

// dialJob is the prober job that TCP-dials addr once with the probe
// timeout: a reachability check, the connection closed at once and nothing
// sent. The per-host limit counts the address's host, whatever the port. A
// failing address backs off exponentially up to the larger of the probe
// interval and the default interval: with the spec's default interval a dead
// endpoint is still re-probed every interval, while a short interval no
// longer redials a dead one every few seconds.
func dialJob(k prober.Key, d Dialer, addr string, s probeSettings) prober.Job {
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	return prober.Job{Key: k, Host: host, Timeout: s.timeout, MaxBackoff: max(s.interval, DefaultProbeInterval), Run: func(ctx context.Context) prober.Outcome {
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			// The class only: a dial error's text is the network's.
			return prober.Outcome{Failure: FailureTCPConnect, Detail: "TCP connect to " + addr + " failed: " + netguard.Describe(err)}
		}
		_ = conn.Close()
		return prober.Outcome{Detail: "TCP connect to " + addr + " succeeded"}
	}}
}

// FailureTCPConnect is the prober failure of a dial that did not connect.
const FailureTCPConnect = "TCPConnectFailed"
