package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/prober"
)

// The controller never probes inside Reconcile: it submits the due probes to
// the operator-wide prober (reconcile/prober) and reads the results the
// prober stored; each new result reconciles the Provider again through the
// prober's channel source. This file holds that exchange.

// ProberKind is the owner kind of this controller's probes: the prober
// announces their results on the channel of that name.
const ProberKind = "Provider"

// Probe keys of a Provider's two probes.
const (
	probeEndpoint   = "endpoint"
	probeCredential = "credential"
)

// retryDropped is when a Provider whose probe the prober's full queue
// dropped asks again.
const retryDropped = 10 * time.Second

// probeRead is what the controller knows of one probe: the latest outcome for
// the current inputs (nil before the first), and when to look again.
type probeRead struct {
	outcome *ProbeOutcome
	// wait is how long until the probe is due again, a backoff ends, or a
	// dropped submission is retried; 0 when nothing is scheduled.
	wait time.Duration
}

// read returns the stored result of job's target when it answers job's
// fingerprint, and submits job when no such result exists or the one there
// is older than fresh (fresh is computed from the stored outcome: a
// decisive credential verdict is reused longer than a transient error).
func (r *Reconciler) read(job prober.Job, fresh func(ProbeOutcome) time.Duration) probeRead {
	now := r.opts.Clock.Now()
	var out probeRead
	due := true
	if res, ok := r.probes.Result(job.Key); ok && res.Fingerprint == job.Fingerprint {
		o := fromProber(res.Outcome)
		out.outcome = &o
		out.wait = res.At.Add(fresh(o)).Sub(now)
		due = out.wait <= 0
	}
	if due {
		sub := r.probes.Submit(job)
		switch sub.State {
		case prober.BackingOff:
			out.wait = sub.NotBefore.Sub(now)
		case prober.Dropped:
			out.wait = retryDropped
		default:
			// The result's event reconciles sooner; this is the fallback.
			out.wait = r.opts.HealthCheckInterval
		}
	}
	return out
}

// endpointJob is the EndpointReachable health check of endpoint as a prober
// job. Its fingerprint covers the URL and the headers: a Provider edited to
// another endpoint is not shown the old one's result.
func (r *Reconciler) endpointJob(owner prober.Owner, endpoint string, headers map[string]string) prober.Job {
	return prober.Job{
		Key:         prober.Key{Owner: owner, Probe: probeEndpoint},
		Fingerprint: fingerprint(endpoint, headers),
		Host:        hostOf(endpoint),
		Timeout:     r.opts.ProbeTimeout,
		// The spec re-checks a failing endpoint every health interval.
		MaxBackoff: r.opts.HealthCheckInterval,
		Run: func(ctx context.Context) prober.Outcome {
			return toProber(r.prober.CheckEndpoint(ctx, endpoint, headers))
		},
	}
}

// credentialJob is the vendor probe of a credential as a prober job. The
// value lives only in this closure, in memory, while the job waits and
// runs; the fingerprint names the Provider generation and the Secret's UID,
// resourceVersion and key (secretID), never the value.
func (r *Reconciler) credentialJob(owner prober.Owner, probe CredentialProbe, base string, headers map[string]string, value []byte, secretID string) prober.Job {
	v := append([]byte(nil), value...)
	return prober.Job{
		Key:         prober.Key{Owner: owner, Probe: probeCredential},
		Fingerprint: secretID + "/" + fingerprint(base, headers),
		Host:        hostOf(base),
		Timeout:     r.opts.ProbeTimeout,
		MaxBackoff:  r.opts.HealthCheckInterval,
		Run: func(ctx context.Context) prober.Outcome {
			return toProber(r.prober.CheckCredential(ctx, probe, base, headers, v))
		},
	}
}

// credentialFreshness is how long a credential verdict is reused: a decisive
// one (accepted or rejected) for CredentialRecheckInterval, a transient
// validation error for HealthCheckInterval.
func (r *Reconciler) credentialFreshness(o ProbeOutcome) time.Duration {
	if decisive(o) {
		return r.opts.CredentialRecheckInterval
	}
	return r.opts.HealthCheckInterval
}

func (r *Reconciler) endpointFreshness(ProbeOutcome) time.Duration {
	return r.opts.HealthCheckInterval
}

func decisive(o ProbeOutcome) bool {
	return (o.StatusCode >= 200 && o.StatusCode < 300) || o.StatusCode == 401 || o.StatusCode == 403
}

// fingerprint hashes a URL and headers (header values may be sensitive too:
// only their hash is kept).
func fingerprint(target string, headers map[string]string) string {
	keys := make([]string, 0, len(headers))
	for k := range headers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	fmt.Fprintf(h, "%q", target)
	for _, k := range keys {
		fmt.Fprintf(h, "\x00%q=%q", k, headers[k])
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// hostOf is the per-host limit's key of a URL: its host name, any port.
func hostOf(target string) string {
	if u, err := url.Parse(target); err == nil && u.Hostname() != "" {
		return u.Hostname()
	}
	return target
}

func toProber(o ProbeOutcome) prober.Outcome {
	return prober.Outcome{StatusCode: o.StatusCode, Failure: o.Failure, Detail: o.Detail, RetryAfter: o.RetryAfter}
}

func fromProber(o prober.Outcome) ProbeOutcome {
	return ProbeOutcome{StatusCode: o.StatusCode, Failure: o.Failure, Detail: o.Detail, RetryAfter: o.RetryAfter}
}

// probeOwner is a Provider's owner in the prober.
func probeOwner(p *v1alpha1.Provider) prober.Owner {
	return prober.Owner{Kind: ProberKind, NamespacedName: nameOf(p)}
}

func nameOf(p *v1alpha1.Provider) types.NamespacedName {
	return types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
}
