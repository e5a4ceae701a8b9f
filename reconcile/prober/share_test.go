package prober

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestNamespaceCannotStarveOthers is the starvation attack:
// one namespace submits a whole queue's worth of probes while the only
// worker is busy. Only its share is queued, the rest is dropped and counted,
// and another namespace's probe is still queued and run.
func TestNamespaceCannotStarveOthers(t *testing.T) {
	m := NewMetrics(nil)
	p := New(Options{Workers: 1, Metrics: m})
	start(t, p)
	g := newGate()
	p.Submit(g.job(key("hog", "running", "endpoint"), "hog.example:443"))
	waitRunning(t, g, 1)

	share := p.opts.MaxQueuedPerNamespace
	if share != DefaultQueueSize/DefaultQueueShareDivisor {
		t.Fatalf("default share %d, want %d", share, DefaultQueueSize/DefaultQueueShareDivisor)
	}
	counts := map[State]int{}
	for i := range DefaultQueueSize {
		s := p.Submit(answered(key("hog", fmt.Sprintf("o%d", i), "endpoint"), "hog.example:443", Outcome{StatusCode: 200}, nil))
		counts[s.State]++
	}
	victim := key("victim", "provider", "endpoint")
	if s := p.Submit(answered(victim, "victim.example:443", Outcome{StatusCode: 204}, nil)); s.State != Queued {
		t.Fatalf("another namespace's probe: %v, want Queued", s.State)
	}
	if counts[Queued] != share || counts[Dropped] != DefaultQueueSize-share {
		t.Fatalf("the hog's submissions: %v, want %d Queued and %d Dropped", counts, share, DefaultQueueSize-share)
	}
	if n := testutil.ToFloat64(m.Dropped); n != float64(DefaultQueueSize-share) {
		t.Errorf("omnia_prober_dropped_total = %v, want %d", n, DefaultQueueSize-share)
	}

	close(g.release)
	if r := waitResult(t, p, victim); r.StatusCode != 204 {
		t.Errorf("victim's result %+v, want its own probe's 204", r)
	}
}

// TestFairDequeue: waiting jobs are served round-robin by namespace, so a
// namespace's one job runs after at most one job of a namespace with a long
// backlog, not after the whole backlog.
func TestFairDequeue(t *testing.T) {
	p := New(Options{Workers: 1})
	start(t, p)
	g := newGate()
	p.Submit(g.job(key("hog", "running", "endpoint"), "h"))
	waitRunning(t, g, 1)

	var mu sync.Mutex
	var order []string
	job := func(k Key) Job {
		return Job{Key: k, Host: "h", Run: func(context.Context) Outcome {
			mu.Lock()
			order = append(order, k.Namespace+"/"+k.Name)
			mu.Unlock()
			return Outcome{StatusCode: 200}
		}}
	}
	for i := range 5 {
		p.Submit(job(key("hog", fmt.Sprintf("o%d", i), "e")))
	}
	p.Submit(job(key("victim", "v", "e")))
	p.Submit(job(key("third", "t", "e")))
	close(g.release)
	waitResult(t, p, key("hog", "o4", "e"))
	waitResult(t, p, key("victim", "v", "e"))
	waitResult(t, p, key("third", "t", "e"))
	mu.Lock()
	defer mu.Unlock()
	want := []string{"hog/o0", "victim/v", "third/t", "hog/o1", "hog/o2", "hog/o3", "hog/o4"}
	if !slices.Equal(order, want) {
		t.Errorf("run order %v, want %v", order, want)
	}
}

// TestQueueShare: the share each namespace gets, by table — a namespace at
// its share is dropped while another is queued, and the whole queue's bound
// still holds.
func TestQueueShare(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   Options
		submit []string // the namespace of each submission, in order
		want   []State
	}{
		{"under the share: queued", Options{QueueSize: 8, MaxQueuedPerNamespace: 3},
			[]string{"a", "a", "a"}, []State{Queued, Queued, Queued}},
		{"over the share: dropped, another namespace still queued", Options{QueueSize: 8, MaxQueuedPerNamespace: 3},
			[]string{"a", "a", "a", "a", "b"}, []State{Queued, Queued, Queued, Dropped, Queued}},
		{"the whole queue still bounds the sum", Options{QueueSize: 4, MaxQueuedPerNamespace: 3},
			[]string{"a", "a", "b", "b", "c"}, []State{Queued, Queued, Queued, Queued, Dropped}},
		{"a share above the queue is the queue", Options{QueueSize: 2, MaxQueuedPerNamespace: 100},
			[]string{"a", "a", "a"}, []State{Queued, Queued, Dropped}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMetrics(nil)
			tc.opts.Metrics = m
			p := New(tc.opts) // not started: every accepted job waits
			var got []State
			for i, ns := range tc.submit {
				got = append(got, p.Submit(answered(key(ns, fmt.Sprintf("o%d", i), "e"), "h", Outcome{}, nil)).State)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("states %v, want %v", got, tc.want)
			}
			dropped := 0
			for _, s := range tc.want {
				if s == Dropped {
					dropped++
				}
			}
			if n := testutil.ToFloat64(m.Dropped); n != float64(dropped) {
				t.Errorf("omnia_prober_dropped_total = %v, want %d", n, dropped)
			}
		})
	}
}

// TestQueueShareDefault: MaxQueuedPerNamespace defaults to
// max(QueueSize/8, 16), never above QueueSize; a set value is kept.
func TestQueueShareDefault(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		want int
	}{
		{Options{}, 128},
		{Options{QueueSize: 4096}, 512},
		{Options{QueueSize: 64}, 16},
		{Options{QueueSize: 10}, 10},
		{Options{QueueSize: 1024, MaxQueuedPerNamespace: 5}, 5},
		{Options{QueueSize: 8, MaxQueuedPerNamespace: 50}, 8},
	} {
		if got := tc.opts.withDefaults().MaxQueuedPerNamespace; got != tc.want {
			t.Errorf("QueueSize %d, MaxQueuedPerNamespace %d: share %d, want %d", tc.opts.QueueSize, tc.opts.MaxQueuedPerNamespace, got, tc.want)
		}
	}
}

// TestRetainKeepsTheShare: a forgotten waiting job frees its namespace's
// share.
func TestRetainKeepsTheShare(t *testing.T) {
	p := New(Options{QueueSize: 8, MaxQueuedPerNamespace: 1})
	a := key("a", "o", "e")
	if s := p.Submit(answered(a, "h", Outcome{}, nil)).State; s != Queued {
		t.Fatal(s)
	}
	if s := p.Submit(answered(key("a", "o2", "e"), "h", Outcome{}, nil)).State; s != Dropped {
		t.Fatalf("over the share: %v", s)
	}
	p.Retain(a.Owner)
	if s := p.Submit(answered(key("a", "o2", "e"), "h", Outcome{}, nil)).State; s != Queued {
		t.Errorf("after Retain freed the share: %v, want Queued", s)
	}
	if p.queue.len() != 1 || len(p.nsPending) != 1 || p.nsPending["a"] != 1 {
		t.Errorf("queue %d, nsPending %v: want one job of a", p.queue.len(), p.nsPending)
	}
}

// waitRunning waits until n of the gate's runs are in flight.
func waitRunning(t *testing.T, g *gate, n int) {
	t.Helper()
	gomega.NewWithT(t).Eventually(func() int { m, _, _ := g.snapshot(); return m }, 10*time.Second, 5*time.Millisecond).Should(gomega.Equal(n))
}
