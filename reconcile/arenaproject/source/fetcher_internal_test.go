package source

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// blockingJobs are jobs that say when they start and end when released.
type blockingJobs struct {
	started  chan string
	releases map[string]chan struct{}
}

func newBlocking() *blockingJobs {
	return &blockingJobs{started: make(chan string, 16), releases: map[string]chan struct{}{}}
}

func (b *blockingJobs) job(name, namespace, host string) *fetchJob {
	rel, ok := b.releases[name]
	if !ok {
		rel = make(chan struct{})
		b.releases[name] = rel
	}
	return &fetchJob{
		key: name, namespace: namespace, host: host, timeout: time.Minute,
		owner: types.NamespacedName{Namespace: namespace, Name: name},
		run: func(ctx context.Context) []keyedAnswer {
			b.started <- name
			select {
			case <-rel:
			case <-ctx.Done():
			}
			return []keyedAnswer{{key: name, value: name}}
		},
	}
}

func (b *blockingJobs) release(name string) {
	if c, ok := b.releases[name]; ok {
		close(c)
		delete(b.releases, name)
	}
}

func (b *blockingJobs) releaseAll() {
	for name := range b.releases {
		b.release(name)
	}
}

func (f *Fetcher) waitingKeys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, j := range f.waiting {
		out = append(out, j.key)
	}
	return out
}

// TestFetcherLimits: the pool runs at most Workers jobs, at most PerHost
// against one host and PerNamespace for one namespace; a namespace's
// waiting jobs beyond NamespaceQueue, and any beyond QueueSize, are
// refused; the jobs held back run, oldest first, as slots free.
func TestFetcherLimits(t *testing.T) {
	f := NewFetcher(FetcherOptions{Workers: 2, PerHost: 1, PerNamespace: 1, QueueSize: 4, NamespaceQueue: 2})
	b := newBlocking()
	for _, j := range []*fetchJob{
		b.job("a1", "a", "h1"), // runs
		b.job("a2", "a", "h2"), // waits: namespace a is busy
		b.job("b1", "b", "h1"), // waits: host h1 is busy
		b.job("c1", "c", ""),   // runs: a second worker, no host (hosted)
	} {
		if err := f.submit(j, KindArenaRun); err != nil {
			t.Fatalf("submit %s: %v", j.key, err)
		}
	}
	started := []string{<-b.started, <-b.started}
	slices.Sort(started)
	if !slices.Equal(started, []string{"a1", "c1"}) {
		t.Fatalf("started %v, want a1 and c1", started)
	}
	if got := f.waitingKeys(); !slices.Equal(got, []string{"a2", "b1"}) {
		t.Fatalf("waiting %v, want a2, b1", got)
	}

	// Namespace a's share of the queue is 2: a3 waits, a4 is refused; the
	// queue (4) then takes d1 and refuses d2... after it is full.
	if err := f.submit(b.job("a3", "a", "h3"), KindArenaRun); err != nil {
		t.Fatalf("a3: %v", err)
	}
	if err := f.submit(b.job("a4", "a", "h4"), KindArenaRun); !errors.Is(err, errFetchQueueFull) {
		t.Fatalf("a4 over the namespace's share: %v, want the queue full", err)
	}
	if err := f.submit(b.job("d1", "d", "h1"), KindArenaRun); err != nil {
		t.Fatalf("d1: %v", err)
	}
	if err := f.submit(b.job("e1", "e", "h5"), KindArenaRun); !errors.Is(err, errFetchQueueFull) {
		t.Fatalf("e1 over the queue: %v, want the queue full", err)
	}
	// The same question again is not a second job.
	if err := f.submit(b.job("a2", "a", "h2"), KindArenaProject); err != nil {
		t.Fatalf("a2 again: %v", err)
	}
	if got := f.Pending(); got != 6 {
		t.Fatalf("%d jobs pending, want 6 (a1 c1 running; a2 b1 a3 d1 waiting)", got)
	}

	// a1 ends: a2 (namespace a free again) takes its worker; b1 (h1 free
	// now) waits for a worker, behind it.
	b.release("a1")
	if got := <-b.started; got != "a2" {
		t.Fatalf("after a1: %s started, want a2", got)
	}
	if got := f.waitingKeys(); !slices.Equal(got, []string{"b1", "a3", "d1"}) {
		t.Fatalf("waiting %v, want b1, a3, d1", got)
	}
	b.releaseAll()
	for range 3 { // b1, a3, d1
		<-b.started
	}
}

// TestFetcherAnswers: an answer is kept ResultTTL and given to whoever asks
// (take removes it); each kind that asked is told, once, when the job ends.
func TestFetcherAnswers(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	f := NewFetcher(FetcherOptions{ResultTTL: time.Minute, Clock: clk})
	runs := events(f)
	b := newBlocking()
	if err := f.submit(b.job("q", "ns", "h"), KindArenaRun); err != nil {
		t.Fatal(err)
	}
	if err := f.submit(b.job("q", "ns", "h"), KindArenaProject); err != nil {
		t.Fatal(err)
	}
	<-b.started
	if _, ok := f.lookup("q", false); ok {
		t.Fatal("an answer before the job ended")
	}
	b.release("q")
	for _, kind := range []string{KindArenaRun, KindArenaProject} {
		ev := <-runs[kind]
		if ev.Namespace != "ns" || ev.Name != "q" {
			t.Errorf("%s told about %s", kind, ev)
		}
	}
	if r, ok := f.lookup("q", false); !ok || r.value != "q" {
		t.Fatalf("lookup = %+v, %v", r, ok)
	}
	if _, ok := f.lookup("q", true); !ok {
		t.Fatal("take found nothing")
	}
	if _, ok := f.lookup("q", false); ok {
		t.Fatal("a taken answer is still there")
	}

	old := b.job("old", "ns", "h")
	b.release("old")
	if err := f.submit(old, KindArenaRun); err != nil {
		t.Fatal(err)
	}
	<-b.started
	<-runs[KindArenaRun]
	clk.Step(61 * time.Second)
	if _, ok := f.lookup("old", false); ok {
		t.Fatal("an answer older than ResultTTL was given")
	}
}

// events drains the two kinds' announcements into channels of names.
func events(f *Fetcher) map[string]chan types.NamespacedName {
	out := map[string]chan types.NamespacedName{}
	for _, kind := range []string{KindArenaRun, KindArenaProject} {
		c := make(chan types.NamespacedName, 16)
		out[kind] = c
		in := f.Events(kind)
		go func() {
			for ev := range in {
				c <- types.NamespacedName{Namespace: ev.Object.GetNamespace(), Name: ev.Object.GetName()}
			}
		}()
	}
	return out
}

// TestFetcherAnswersAreBounded: at most MaxResults answers and
// MaxResultBytes of them are kept, the oldest dropped first.
func TestFetcherAnswersAreBounded(t *testing.T) {
	f := NewFetcher(FetcherOptions{MaxResults: 3, MaxResultBytes: 1000})
	now := time.Now()
	for i, size := range []int64{100, 100, 100, 100} {
		f.storeLocked(&fetchResult{key: string(rune('a' + i)), at: now, size: size})
	}
	if _, ok := f.results["a"]; ok || len(f.results) != 3 {
		t.Fatalf("kept %d answers (a kept: %v), want the 3 newest", len(f.results), ok)
	}
	f.storeLocked(&fetchResult{key: "big", at: now, size: 950})
	if len(f.results) != 1 || f.resultBytes != 950 {
		t.Fatalf("kept %d answers of %d bytes, want only the 950-byte one", len(f.results), f.resultBytes)
	}
}

// TestCredentialsID: a question's key names its credentials without
// holding them.
func TestCredentialsID(t *testing.T) {
	f := NewFetcher(FetcherOptions{})
	a := f.credentialsID(&Credentials{Username: "bot", Password: "s3cret-token"})
	if a == "" || a != f.credentialsID(&Credentials{Username: "bot", Password: "s3cret-token"}) {
		t.Fatalf("id %q is not stable", a)
	}
	if a == f.credentialsID(&Credentials{Username: "bot", Password: "other"}) || a == f.credentialsID(nil) {
		t.Error("different credentials share an id")
	}
	if strings.Contains(a, "s3cret") || a == NewFetcher(FetcherOptions{}).credentialsID(&Credentials{Username: "bot", Password: "s3cret-token"}) {
		t.Error("the id is the same in another process (not keyed), or holds the password")
	}
}

// TestFetcherSurvivesAPanickingJob: a job that panics (go-git on a
// repository it did not expect) is that question's failure; the pool goes
// on.
func TestFetcherSurvivesAPanickingJob(t *testing.T) {
	f := NewFetcher(FetcherOptions{Workers: 1})
	done := events(f)[KindArenaRun]
	if err := f.submit(&fetchJob{key: "boom", namespace: "ns", timeout: time.Minute,
		run: func(context.Context) []keyedAnswer { panic("unexpected") }}, KindArenaRun); err != nil {
		t.Fatal(err)
	}
	<-done
	r, ok := f.lookup("boom", false)
	if !ok || ReasonOf(r.err) != v1alpha1.ArenaProjectReasonFetchFailed {
		t.Fatalf("answer %+v, %v; want FetchFailed", r, ok)
	}
	b := newBlocking()
	next := b.job("next", "ns", "")
	b.release("next")
	if err := f.submit(next, KindArenaRun); err != nil {
		t.Fatal(err)
	}
	if got := <-b.started; got != "next" {
		t.Fatalf("started %s", got)
	}
}
