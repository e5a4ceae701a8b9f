package prober

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// start runs p until the test ends.
func start(t *testing.T, p *Prober) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = p.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

func key(ns, name, probe string) Key {
	return Key{Owner: Owner{Kind: "Test", NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}, Probe: probe}
}

// gate counts the runs in flight (overall and per host) and holds each
// until released or its context ends.
type gate struct {
	mu       sync.Mutex
	running  map[string]int
	total    int
	maxTotal int
	maxHost  map[string]int
	release  chan struct{}
}

func newGate() *gate {
	return &gate{running: map[string]int{}, maxHost: map[string]int{}, release: make(chan struct{})}
}

func (g *gate) job(k Key, host string) Job {
	return Job{Key: k, Host: host, Run: func(ctx context.Context) Outcome {
		g.mu.Lock()
		g.running[host]++
		g.total++
		g.maxTotal = max(g.maxTotal, g.total)
		g.maxHost[host] = max(g.maxHost[host], g.running[host])
		g.mu.Unlock()
		defer func() {
			g.mu.Lock()
			g.running[host]--
			g.total--
			g.mu.Unlock()
		}()
		select {
		case <-g.release:
			return Outcome{StatusCode: 200, Detail: "released"}
		case <-ctx.Done():
			return Outcome{Failure: "ProbeTimeout", Detail: ctx.Err().Error()}
		}
	}}
}

func (g *gate) snapshot() (total, maxTotal int, maxHost map[string]int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	m := map[string]int{}
	for h, n := range g.maxHost {
		m[h] = n
	}
	return g.total, g.maxTotal, m
}

// answered returns a job that answers at once with out.
func answered(k Key, host string, out Outcome, runs *atomic.Int32) Job {
	return Job{Key: k, Host: host, Run: func(context.Context) Outcome {
		if runs != nil {
			runs.Add(1)
		}
		return out
	}}
}

func waitResult(t *testing.T, p *Prober, k Key) Result {
	t.Helper()
	var r Result
	gomega.NewWithT(t).Eventually(func() bool {
		var ok bool
		r, ok = p.Result(k)
		return ok
	}, 10*time.Second, 5*time.Millisecond).Should(gomega.BeTrue(), "a result for %v", k)
	return r
}

// TestConcurrencyLimits: hanging runs never exceed the global cap, the
// per-host cap or the per-namespace cap, and a job of another host and
// namespace still runs while they hang.
func TestConcurrencyLimits(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		// hosts gives the host of hanging job i in namespace "a".
		hosts    func(i int) string
		wantMax  int
		wantHost int // max per host, 0 to skip
	}{
		{"global cap", Options{Workers: 3, PerHost: 100, PerNamespace: 100}, func(i int) string { return fmt.Sprintf("h%d", i) }, 3, 0},
		{"per-host cap", Options{Workers: 8, PerHost: 2, PerNamespace: 100}, func(int) string { return "dead.example:443" }, 2, 2},
		{"per-namespace cap", Options{Workers: 8, PerHost: 100, PerNamespace: 3}, func(i int) string { return fmt.Sprintf("h%d", i) }, 3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(tc.opts)
			start(t, p)
			g := newGate()
			for i := range 10 {
				if s := p.Submit(g.job(key("a", fmt.Sprintf("o%d", i), "endpoint"), tc.hosts(i))); s.State != Queued {
					t.Fatalf("submit %d: %v", i, s.State)
				}
			}
			gm := gomega.NewWithT(t)
			gm.Eventually(func() int { n, _, _ := g.snapshot(); return n }, 10*time.Second, 5*time.Millisecond).Should(gomega.Equal(tc.wantMax))

			// Another namespace and host is probed while those hang (only
			// the global cap, by definition, holds it back).
			other := key("b", "fine", "endpoint")
			p.Submit(answered(other, "up.example:443", Outcome{StatusCode: 200}, nil))
			if tc.name != "global cap" {
				if r := waitResult(t, p, other); r.StatusCode != 200 {
					t.Errorf("other tenant's result = %+v", r)
				}
			}
			close(g.release)
			for i := range 10 {
				waitResult(t, p, key("a", fmt.Sprintf("o%d", i), "endpoint"))
			}
			waitResult(t, p, other)
			_, maxTotal, maxHost := g.snapshot()
			if maxTotal != tc.wantMax {
				t.Errorf("at most %d ran at once, want %d", maxTotal, tc.wantMax)
			}
			if tc.wantHost > 0 && maxHost["dead.example:443"] != tc.wantHost {
				t.Errorf("at most %d ran at once on one host, want %d", maxHost["dead.example:443"], tc.wantHost)
			}
		})
	}
}

// TestBackoff: a failing target is held back for 1s, 2s, 4s, then the cap;
// a success resets it; new inputs (fingerprint) are not held back; a job's
// MaxBackoff lowers the cap.
func TestBackoff(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	p := New(Options{Clock: clk, BackoffBase: time.Second, BackoffMax: 4 * time.Second, MinInterval: 100 * time.Millisecond})
	start(t, p)
	k := key("ns", "p", "endpoint")
	fail := Outcome{Failure: "ConnectionFailed"}
	var runs atomic.Int32

	probe := func(out Outcome, fp string) {
		t.Helper()
		j := answered(k, "h", out, &runs)
		j.Fingerprint = fp
		before := runs.Load()
		if s := p.Submit(j); s.State != Queued {
			t.Fatalf("submit: %v, want Queued", s.State)
		}
		gomega.NewWithT(t).Eventually(func() bool { r, ok := p.Result(k); return ok && runs.Load() == before+1 && r.Fingerprint == fp }, 10*time.Second, 5*time.Millisecond).Should(gomega.BeTrue())
	}
	heldFor := func(fp string) time.Duration {
		t.Helper()
		j := answered(k, "h", fail, &runs)
		j.Fingerprint = fp
		s := p.Submit(j)
		if s.State != BackingOff {
			return 0
		}
		return s.NotBefore.Sub(clk.Now())
	}

	for _, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second} {
		probe(fail, "v1")
		if got := heldFor("v1"); got != want {
			t.Fatalf("after a failure held for %v, want %v", got, want)
		}
		clk.Step(want / 2)
		if got := heldFor("v1"); got != want/2 {
			t.Fatalf("half-way: held for %v more, want %v", got, want/2)
		}
		clk.Step(want / 2)
	}
	// New inputs are probed at once, and their failure starts a new series.
	probe(fail, "v2")
	if got := heldFor("v2"); got != time.Second {
		t.Errorf("new fingerprint held for %v, want 1s", got)
	}
	clk.Step(time.Second)
	// A success resets the backoff: only the MinInterval floor holds it.
	probe(Outcome{StatusCode: 200}, "v2")
	if got := heldFor("v2"); got != 100*time.Millisecond {
		t.Errorf("after a success held for %v, want the 100ms floor", got)
	}
	clk.Step(100 * time.Millisecond)
	if got := heldFor("v2"); got != 0 {
		t.Errorf("after the floor held for %v, want not held", got)
	}
	// A 5xx backs off; a job's MaxBackoff caps the series.
	k2 := key("ns", "capped", "endpoint")
	var capped atomic.Int32
	for round := int32(1); round <= 4; round++ {
		j := answered(k2, "h", Outcome{StatusCode: 503}, &capped)
		j.MaxBackoff = 1500 * time.Millisecond
		if s := p.Submit(j); s.State != Queued {
			t.Fatalf("round %d: %v, want Queued", round, s.State)
		}
		gomega.NewWithT(t).Eventually(func() bool { _, ok := p.Result(k2); return ok && capped.Load() == round }, 10*time.Second, 5*time.Millisecond).Should(gomega.BeTrue())
		s := p.Submit(answered(k2, "h", Outcome{}, nil))
		want := min(time.Second<<(round-1), 1500*time.Millisecond)
		if s.State != BackingOff || s.NotBefore.Sub(clk.Now()) != want {
			t.Fatalf("503 round %d with MaxBackoff 1.5s: %v for %v, want BackingOff for %v", round, s.State, s.NotBefore.Sub(clk.Now()), want)
		}
		clk.Step(want)
	}
}

// TestMinInterval: a target that answered is not probed again within
// MinInterval, however often it is submitted; other inputs are.
func TestMinInterval(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	p := New(Options{Clock: clk})
	start(t, p)
	k := key("ns", "spin", "endpoint")
	var runs atomic.Int32
	p.Submit(answered(k, "h", Outcome{StatusCode: 200}, &runs))
	waitResult(t, p, k)
	for range 5 {
		if s := p.Submit(answered(k, "h", Outcome{StatusCode: 200}, &runs)); s.State != BackingOff || !s.NotBefore.Equal(t0.Add(DefaultMinInterval)) {
			t.Fatalf("resubmitted at once: %v until %v, want BackingOff until the 1s floor", s.State, s.NotBefore)
		}
	}
	other := answered(k, "h", Outcome{StatusCode: 200}, &runs)
	other.Fingerprint = "edited"
	if s := p.Submit(other); s.State != Queued {
		t.Errorf("new inputs: %v, want Queued", s.State)
	}
	clk.Step(DefaultMinInterval)
	gomega.NewWithT(t).Eventually(p.Busy, 10*time.Second, 5*time.Millisecond).Should(gomega.BeZero())
	if s := p.Submit(other); s.State != BackingOff {
		t.Errorf("edited inputs resubmitted: %v", s.State)
	}
	if n := runs.Load(); n != 2 {
		t.Errorf("%d runs, want 2", n)
	}
}

// TestRetryAfter: a 429 from a local server holds the target back for its
// Retry-After, in seconds or as an HTTP date, capped at MaxRetryAfter; a
// 429 without one backs off as a failure.
func TestRetryAfter(t *testing.T) {
	var header atomic.Value
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		if v := header.Load().(string); v != "" {
			w.Header().Set("Retry-After", v)
		}
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	t.Cleanup(srv.Close)

	clk := clocktesting.NewFakeClock(t0)
	p := New(Options{Clock: clk, BackoffBase: time.Second, MaxRetryAfter: 10 * time.Minute})
	start(t, p)
	get := func(ctx context.Context) Outcome {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		resp, err := srv.Client().Do(req)
		if err != nil {
			return Outcome{Failure: "ConnectionFailed", Detail: err.Error()}
		}
		_ = resp.Body.Close()
		return Outcome{StatusCode: resp.StatusCode, RetryAfter: resp.Header.Get("Retry-After")}
	}

	for i, tc := range []struct {
		header string
		want   time.Duration
	}{
		{"120", 120 * time.Second},
		{t0.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{"86400", 10 * time.Minute}, // capped
		{"", time.Second},           // no header: the first backoff step
		{"soon", time.Second},       // malformed: likewise
	} {
		header.Store(tc.header)
		k := key("ns", fmt.Sprintf("p%d", i), "credential")
		before := requests.Load()
		p.Submit(Job{Key: k, Host: srv.Listener.Addr().String(), Run: get})
		if r := waitResult(t, p, k); r.StatusCode != 429 {
			t.Fatalf("%q: result %+v", tc.header, r)
		}
		s := p.Submit(Job{Key: k, Host: srv.Listener.Addr().String(), Run: get})
		if s.State != BackingOff || s.NotBefore.Sub(clk.Now()) != tc.want {
			t.Errorf("Retry-After %q: %v for %v, want BackingOff for %v", tc.header, s.State, s.NotBefore.Sub(clk.Now()), tc.want)
		}
		if n := requests.Load() - before; n != 1 {
			t.Errorf("Retry-After %q: %d requests, want 1 (the held-back submission sends none)", tc.header, n)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true},
		{" 30 ", 30 * time.Second, true},
		{t0.Add(time.Minute).Format(http.TimeFormat), time.Minute, true},
		{t0.Add(-time.Minute).Format(http.TimeFormat), 0, true},
		{"-5", 0, false},
		{"", 0, false},
		{"1.5", 0, false},
		{"99999999999999999", 365 * 24 * time.Hour, true},
	} {
		got, ok := ParseRetryAfter(tc.in, t0)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestDedup: a target queued or in flight is not queued twice; a queued job
// takes the newer inputs; new inputs for a target in flight run after it.
func TestDedup(t *testing.T) {
	p := New(Options{Workers: 1})
	start(t, p)
	g := newGate()
	busy := key("ns", "busy", "endpoint")
	if s := p.Submit(g.job(busy, "h")); s.State != Queued {
		t.Fatal(s.State)
	}
	gm := gomega.NewWithT(t)
	gm.Eventually(func() int { n, _, _ := g.snapshot(); return n }, 10*time.Second, 5*time.Millisecond).Should(gomega.Equal(1))
	// In flight, same inputs: not queued again.
	if s := p.Submit(g.job(busy, "h")); s.State != AlreadyPending {
		t.Errorf("in-flight resubmit: %v, want AlreadyPending", s.State)
	}
	// Queued behind it: the second submission replaces the first's inputs.
	k := key("ns", "queued", "endpoint")
	var first, second atomic.Int32
	if s := p.Submit(answered(k, "h2", Outcome{StatusCode: 500}, &first)); s.State != Queued {
		t.Fatal(s.State)
	}
	if s := p.Submit(answered(k, "h2", Outcome{StatusCode: 200}, &second)); s.State != AlreadyPending {
		t.Errorf("queued resubmit: %v, want AlreadyPending", s.State)
	}
	// New inputs for the target in flight wait for it.
	var rerun atomic.Int32
	j := answered(busy, "h", Outcome{StatusCode: 204}, &rerun)
	j.Fingerprint = "v2"
	if s := p.Submit(j); s.State != Queued {
		t.Errorf("new inputs while in flight: %v, want Queued", s.State)
	}
	close(g.release)
	if r := waitResult(t, p, k); r.StatusCode != 200 || first.Load() != 0 || second.Load() != 1 {
		t.Errorf("queued target: result %+v, runs %d/%d; want one run with the newer inputs", r, first.Load(), second.Load())
	}
	gm.Eventually(func() string { r, _ := p.Result(busy); return r.Fingerprint }, 10*time.Second, 5*time.Millisecond).Should(gomega.Equal("v2"))
	if rerun.Load() != 1 {
		t.Errorf("the in-flight target's new inputs ran %d times, want 1", rerun.Load())
	}
}

// TestQueueBound: with the queue full, Submit returns Dropped at once and
// the drop is counted; the dropped target has no result.
func TestQueueBound(t *testing.T) {
	m := NewMetrics(nil)
	p := New(Options{Workers: 1, QueueSize: 2, Metrics: m})
	start(t, p)
	g := newGate()
	p.Submit(g.job(key("ns", "running", "e"), "h"))
	gomega.NewWithT(t).Eventually(func() int { n, _, _ := g.snapshot(); return n }, 10*time.Second, 5*time.Millisecond).Should(gomega.Equal(1))
	for i, want := range []State{Queued, Queued, Dropped, Dropped} {
		if s := p.Submit(answered(key("ns", fmt.Sprintf("w%d", i), "e"), "h", Outcome{StatusCode: 200}, nil)); s.State != want {
			t.Errorf("submit %d: %v, want %v", i, s.State, want)
		}
	}
	if n := testutil.ToFloat64(m.Dropped); n != 2 {
		t.Errorf("omnia_prober_dropped_total = %v, want 2", n)
	}
	close(g.release)
	waitResult(t, p, key("ns", "w1", "e"))
	if _, ok := p.Result(key("ns", "w2", "e")); ok {
		t.Error("a dropped job has a result")
	}
}

// TestEvents: a stored result is announced on its kind's channel with the
// owner's namespace and name.
func TestEvents(t *testing.T) {
	p := New(Options{})
	events := p.Events("Test")
	start(t, p)
	p.Submit(answered(key("ns", "owner", "endpoint"), "h", Outcome{StatusCode: 200}, nil))
	select {
	case ev := <-events:
		if ev.Object.GetNamespace() != "ns" || ev.Object.GetName() != "owner" {
			t.Errorf("event about %s/%s", ev.Object.GetNamespace(), ev.Object.GetName())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
	}
}

// TestRetain: a forgotten target loses its result and backoff, and a run in
// flight when it was forgotten is not recorded.
func TestRetain(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	p := New(Options{Clock: clk})
	start(t, p)
	keep, gone := key("ns", "o", "keep"), key("ns", "o", "gone")
	p.Submit(answered(keep, "h", Outcome{StatusCode: 200}, nil))
	p.Submit(answered(gone, "h", Outcome{Failure: "ConnectionFailed"}, nil))
	waitResult(t, p, keep)
	waitResult(t, p, gone)
	p.Retain(keep.Owner, "keep")
	if _, ok := p.Result(gone); ok {
		t.Error("forgotten target still has a result")
	}
	if s := p.Submit(answered(gone, "h", Outcome{StatusCode: 200}, nil)); s.State != Queued {
		t.Errorf("forgotten target still backing off: %v", s.State)
	}
	waitResult(t, p, gone)

	g := newGate()
	flying := key("ns", "o2", "e")
	p.Submit(g.job(flying, "h3"))
	gomega.NewWithT(t).Eventually(func() int { n, _, _ := g.snapshot(); return n }, 10*time.Second, 5*time.Millisecond).Should(gomega.Equal(1))
	p.Retain(flying.Owner)
	close(g.release)
	gomega.NewWithT(t).Eventually(func() int { n, _, _ := g.snapshot(); return n }, 10*time.Second, 5*time.Millisecond).Should(gomega.Equal(0))
	gomega.NewWithT(t).Consistently(func() bool { _, ok := p.Result(flying); return ok }, 200*time.Millisecond, 20*time.Millisecond).Should(gomega.BeFalse())

	// Once every owner is forgotten, nothing is left behind.
	p.Retain(keep.Owner)
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.owned) != 0 || len(p.results) != 0 || len(p.backoff) != 0 || len(p.pending) != 0 {
		t.Errorf("left behind: owned %v, results %d, backoff %d, pending %d", p.owned, len(p.results), len(p.backoff), len(p.pending))
	}
}

// TestRunsOnTheLeader: the prober runs where the controllers run.
func TestRunsOnTheLeader(t *testing.T) {
	if !New(Options{}).NeedLeaderElection() {
		t.Error("the prober must be a leader-election runnable")
	}
}

// TestMaxTimeout: a run is cut at MaxTimeout whatever the job asks.
func TestMaxTimeout(t *testing.T) {
	p := New(Options{MaxTimeout: 50 * time.Millisecond})
	start(t, p)
	g := newGate()
	j := g.job(key("ns", "slow", "e"), "h")
	j.Timeout = time.Hour
	p.Submit(j)
	if r := waitResult(t, p, j.Key); r.Failure != "ProbeTimeout" {
		t.Errorf("result %+v, want the run cut by MaxTimeout", r)
	}
}
