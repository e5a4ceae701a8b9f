package provider

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/reconcile/prober"
)

// countingVendor answers every request with the status (and Retry-After)
// the test sets, counting requests and remembering the last credential
// header.
type countingVendor struct {
	status     atomic.Int32
	retryAfter atomic.Value
	requests   atomic.Int32
	srv        *httptest.Server
}

func newCountingVendor(t *testing.T) *countingVendor {
	t.Helper()
	v := &countingVendor{}
	v.status.Store(http.StatusOK)
	v.retryAfter.Store("")
	v.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v.requests.Add(1)
		if ra := v.retryAfter.Load().(string); ra != "" {
			w.Header().Set("Retry-After", ra)
		}
		w.WriteHeader(int(v.status.Load()))
	}))
	t.Cleanup(v.srv.Close)
	return v
}

// asyncReconciler is a Reconciler with only what read needs: the HTTP
// prober and a running asynchronous one on clk.
func asyncReconciler(t *testing.T, clk *clocktesting.FakeClock) *Reconciler {
	t.Helper()
	opts := Options{Common: ctrlopts.Common{Clock: clk}, ProbeTimeout: 2 * time.Second}.withDefaults()
	return &Reconciler{
		prober: NewProber(nil, opts.ProbeTimeout),
		probes: startProber(t, prober.Options{Clock: clk}),
		opts:   opts,
	}
}

var testOwner = prober.Owner{Kind: ProberKind, NamespacedName: types.NamespacedName{Namespace: "ns", Name: "p"}}

// readCredential reads the credential probe once, as observe does.
func readCredential(r *Reconciler, base, value, secretID string) probeRead {
	job := r.credentialJob(testOwner, CredentialProbes[v1alpha1.ProviderTypeClaude], base, map[string]string{"X-Team": "a"}, []byte(value), secretID)
	return r.read(job, r.credentialFreshness)
}

// TestCredentialVerdictReuse: the credential-verdict cache works on the
// prober's stored results: the first read is pending and submits; a
// decisive verdict is reused for CredentialRecheckInterval without a
// request; a new Secret version is probed at once; a transient error is
// retried after HealthCheckInterval; a 429's Retry-After holds the next
// request back.
func TestCredentialVerdictReuse(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	vendor := newCountingVendor(t)
	r := asyncReconciler(t, clk)
	settle := func() { t.Helper(); waitIdle(t, r) }

	if got := readCredential(r, vendor.srv.URL, goodKey, "secret@1"); got.outcome != nil || got.wait != 30*time.Second {
		t.Fatalf("first read = %+v, want pending, looked at again after the health interval", got)
	}
	settle()
	got := readCredential(r, vendor.srv.URL, goodKey, "secret@1")
	if got.outcome == nil || got.outcome.StatusCode != 200 || got.wait != 10*time.Minute {
		t.Fatalf("after the probe: %+v, want 200 reused for 10m", got)
	}
	clk.Step(9 * time.Minute)
	if got := readCredential(r, vendor.srv.URL, goodKey, "secret@1"); got.outcome.StatusCode != 200 || got.wait != time.Minute {
		t.Errorf("9m later: %+v, want the verdict reused for 1m more", got)
	}
	settle()
	if n := vendor.requests.Load(); n != 1 {
		t.Fatalf("%d requests, want 1 (the verdict is reused)", n)
	}

	// A new Secret version: its verdict is pending, the probe sent at once.
	vendor.status.Store(http.StatusUnauthorized)
	if got := readCredential(r, vendor.srv.URL, badKey, "secret@2"); got.outcome != nil {
		t.Errorf("new Secret version read %+v, want pending", got)
	}
	settle()
	if got := readCredential(r, vendor.srv.URL, badKey, "secret@2"); got.outcome == nil || got.outcome.StatusCode != 401 {
		t.Errorf("new Secret version: %+v, want 401", got)
	}

	// A transient error is retried after the health interval.
	vendor.status.Store(http.StatusBadGateway)
	readCredential(r, vendor.srv.URL, goodKey, "secret@3")
	settle()
	if got := readCredential(r, vendor.srv.URL, goodKey, "secret@3"); got.outcome.StatusCode != 502 || got.wait != 30*time.Second {
		t.Errorf("transient error: %+v, want retried after 30s", got)
	}

	// A 429 with Retry-After: 120 holds the next request back 120s, past
	// the health interval.
	vendor.status.Store(http.StatusTooManyRequests)
	vendor.retryAfter.Store("120")
	readCredential(r, vendor.srv.URL, goodKey, "secret@4")
	settle()
	before := vendor.requests.Load()
	clk.Step(30 * time.Second)
	if got := readCredential(r, vendor.srv.URL, goodKey, "secret@4"); got.outcome.StatusCode != 429 || got.wait != 90*time.Second {
		t.Errorf("30s after a 429 with Retry-After 120: %+v, want held back 90s more", got)
	}
	settle()
	if n := vendor.requests.Load() - before; n != 0 {
		t.Errorf("%d requests inside the Retry-After, want 0", n)
	}
	clk.Step(90 * time.Second)
	vendor.status.Store(http.StatusOK)
	readCredential(r, vendor.srv.URL, goodKey, "secret@4")
	settle()
	if n := vendor.requests.Load() - before; n != 1 {
		t.Errorf("%d requests after the Retry-After, want 1", n)
	}
}

// TestCredentialNeverStored: the value reaches the vendor, but neither the
// stored result nor its fingerprint holds it.
func TestCredentialNeverStored(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	var seen atomic.Value
	seen.Store("")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.Header.Get("x-api-key"))
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = fmt.Fprintf(w, "bad key %s", r.Header.Get("x-api-key"))
	}))
	t.Cleanup(srv.Close)
	r := asyncReconciler(t, clk)
	job := r.credentialJob(testOwner, CredentialProbes[v1alpha1.ProviderTypeClaude], srv.URL, nil, []byte(goodKey+"\n"), "secret@1")
	r.read(job, r.credentialFreshness)
	waitIdle(t, r)
	if seen.Load() != goodKey {
		t.Fatalf("vendor saw key %q", seen.Load())
	}
	res, ok := r.probes.Result(job.Key)
	if !ok || res.StatusCode != 401 {
		t.Fatalf("result %+v", res)
	}
	if text := fmt.Sprintf("%+v", res); strings.Contains(text, goodKey) {
		t.Errorf("stored result holds the credential: %s", text)
	}
}

// TestEndpointJob: the health check as a prober job: keyed per Provider, its
// host the URL's host name, its fingerprint changing with the URL and
// headers, its backoff capped at the health interval.
func TestEndpointJob(t *testing.T) {
	r := asyncReconciler(t, clocktesting.NewFakeClock(time.Now()))
	a := r.endpointJob(testOwner, "https://api.example.com:8443/v1", map[string]string{"X": "1"})
	if a.Key.Probe != probeEndpoint || a.Host != "api.example.com" || a.MaxBackoff != r.opts.HealthCheckInterval || a.Timeout != r.opts.ProbeTimeout {
		t.Errorf("job = %+v", a)
	}
	for _, b := range []prober.Job{
		r.endpointJob(testOwner, "https://api.example.com:8443/v2", map[string]string{"X": "1"}),
		r.endpointJob(testOwner, "https://api.example.com:8443/v1", map[string]string{"X": "2"}),
	} {
		if b.Fingerprint == a.Fingerprint {
			t.Errorf("fingerprint unchanged for a changed endpoint or header")
		}
	}
	if r.endpointJob(testOwner, "https://api.example.com:8443/v1", map[string]string{"X": "1"}).Fingerprint != a.Fingerprint {
		t.Error("fingerprint not stable")
	}
	if strings.Contains(r.credentialJob(testOwner, CredentialProbe{}, "https://x", nil, []byte(goodKey), "s").Fingerprint, goodKey) {
		t.Error("credential fingerprint holds the value")
	}
}
