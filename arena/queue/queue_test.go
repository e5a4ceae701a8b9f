package queue_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/altairalabs/omnia/arena/queue"
	"github.com/altairalabs/omnia/test/arenaworker"
	testredis "github.com/altairalabs/omnia/test/redis"
)

func newQueue(t *testing.T, name string) *queue.Queue {
	t.Helper()
	srv := testredis.Start(t)
	rdb, err := queue.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rdb.Close() })
	return queue.New(rdb, "ns", name)
}

func TestEnqueueOnceAndCap(t *testing.T) {
	ctx := context.Background()
	q := newQueue(t, "run-a")
	items := queue.Matrix([]string{"s1", "s2"}, []string{"p1", "p2", "p3"}, 2)
	if len(items) != 12 {
		t.Fatalf("matrix has %d items, want 12", len(items))
	}
	if _, err := q.Enqueue(ctx, items, 11, 0); !errors.Is(err, queue.ErrOverCap) {
		t.Fatalf("enqueue over the cap: err %v, want ErrOverCap", err)
	}
	if m, _, _ := q.State(ctx); m.Enqueued {
		t.Fatal("a refused matrix was written")
	}
	n, err := q.Enqueue(ctx, items, 12, 0)
	if err != nil || n != 12 {
		t.Fatalf("enqueue: %d, %v", n, err)
	}
	// A second enqueue (the controller reconciling again) changes nothing.
	if n, err := q.Enqueue(ctx, items[:3], 12, 0); err != nil || n != 12 {
		t.Fatalf("re-enqueue: %d, %v", n, err)
	}
	_, c, _ := q.State(ctx)
	if c.Queued != 12 {
		t.Fatalf("queued %d, want 12", c.Queued)
	}
}

func TestWorkersDrainMatrixAndSummary(t *testing.T) {
	ctx := context.Background()
	q := newQueue(t, "run-b")
	items := queue.Matrix([]string{"greet", "refund"}, []string{"gpt", "claude"}, 5)
	if _, err := q.Enqueue(ctx, items, 0, 0); err != nil {
		t.Fatal(err)
	}
	exec := func(it queue.Item) queue.Result {
		ok := !(it.Scenario == "refund" && it.Provider == "claude" && it.Trial == 1)
		r := queue.Result{Passed: ok, DurationMs: 100, Tokens: 10, Cost: 0.00125,
			Assertions: map[string]bool{"polite": ok}}
		if !ok {
			r.Error = "assertion polite failed"
		}
		return r
	}
	st, err := arenaworker.Run(ctx, q, 3, exec)
	if err != nil || st.Executed != 20 {
		t.Fatalf("workers executed %d, err %v", st.Executed, err)
	}
	m, c, err := q.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Done(m) || c.Completed != 19 || c.Failed != 1 || c.InFlight != 0 {
		t.Fatalf("counters %+v meta %+v", c, m)
	}
	res, _, err := q.Results(ctx, 0)
	if err != nil || len(res) != 20 {
		t.Fatalf("results %d, %v", len(res), err)
	}
	s := queue.Summarize(res, c)
	want := map[string]string{
		"passRate": "95.0", "totalItems": "20", "passedItems": "19", "failedItems": "1",
		"avgDurationMs": "100", "totalTokens": "200", "totalCost": "0.0250",
	}
	for k, v := range want {
		if s[k] != v {
			t.Errorf("summary[%s] = %q, want %q", k, s[k], v)
		}
	}
	var d queue.Details
	if err := json.Unmarshal([]byte(s["details"]), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Cells) != 4 || d.Scenarios["refund"].Failed != 1 || d.Assertions["polite"].Passed != 19 || len(d.Errors) != 1 {
		t.Fatalf("details %+v", d)
	}
}

func TestBudgetStopsAndDiscardsQueued(t *testing.T) {
	ctx := context.Background()
	q := newQueue(t, "run-c")
	if _, err := q.Enqueue(ctx, queue.Matrix([]string{"s"}, []string{"p"}, 10), 0, 0.25); err != nil {
		t.Fatal(err)
	}
	st, err := arenaworker.Run(ctx, q, 1, func(queue.Item) queue.Result {
		return queue.Result{Passed: true, DurationMs: 1, Cost: 0.1}
	})
	if err != nil {
		t.Fatal(err)
	}
	// 0.1, 0.2 stay within 0.25; the third report crosses it.
	if st.Executed != 3 || !st.StoppedByQueue {
		t.Fatalf("executed %d stopped %v, want 3 true", st.Executed, st.StoppedByQueue)
	}
	m, c, _ := q.State(ctx)
	if !m.Stopped || m.StopReason != queue.StopBudgetExceeded || m.Drained != 7 || !c.Done(m) {
		t.Fatalf("meta %+v counters %+v", m, c)
	}
	if _, ok, _ := q.Pop(ctx); ok {
		t.Fatal("a stopped queue handed out an item")
	}
}

func TestDrainOnCancel(t *testing.T) {
	ctx := context.Background()
	q := newQueue(t, "run-d")
	if _, err := q.Enqueue(ctx, queue.Matrix([]string{"s"}, []string{"p"}, 6), 0, 0); err != nil {
		t.Fatal(err)
	}
	if n, err := arenaworker.RunN(ctx, q, 2, arenaworker.Pass); err != nil || n != 2 {
		t.Fatalf("ran %d, %v", n, err)
	}
	drained, err := q.Drain(ctx, queue.StopCancelled)
	if err != nil || drained != 4 {
		t.Fatalf("drained %d, %v; want 4", drained, err)
	}
	// Draining again keeps the first answer.
	if again, _ := q.Drain(ctx, queue.StopBudgetExceeded); again != 4 {
		t.Fatalf("second drain %d", again)
	}
	m, c, _ := q.State(ctx)
	if m.StopReason != queue.StopCancelled || c.Queued != 0 || !c.Done(m) {
		t.Fatalf("meta %+v counters %+v", m, c)
	}
	if st, _ := arenaworker.Run(ctx, q, 2, arenaworker.Pass); st.Executed != 0 {
		t.Fatalf("workers executed %d after a drain", st.Executed)
	}
}

func TestRunsAreIsolated(t *testing.T) {
	ctx := context.Background()
	srv := testredis.Start(t)
	rdb, _ := queue.Connect(srv.URL())
	defer func() { _ = rdb.Close() }()
	a, b := queue.New(rdb, "ns", "a"), queue.New(rdb, "ns", "b")
	_, _ = a.Enqueue(ctx, queue.Matrix([]string{"s"}, []string{"p"}, 3), 0, 0)
	if _, err := b.Drain(ctx, queue.StopCancelled); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := a.Pop(ctx); !ok {
		t.Fatal("draining run b emptied run a")
	}
}

// endedAtMs is part of a result: a duration worker stamps each generated
// item from its clock, a popping worker from the real one, and a result
// written by a worker older than the field reads back with 0.
func TestResultsCarryEndedAt(t *testing.T) {
	ctx := context.Background()
	q := newQueue(t, "run-e")
	// A duration load test's queue: the controller enqueues no matrix.
	if _, err := q.Enqueue(ctx, nil, 0, 0); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakePassiveClock(start)
	pool := []queue.Item{{Scenario: "s", Provider: "p"}}
	st, err := arenaworker.Generate(ctx, q, pool, 3, clk, func(queue.Item) queue.Result {
		clk.SetTime(clk.Now().Add(700 * time.Millisecond))
		return queue.Result{Passed: true, LatencyMs: 5}
	})
	if err != nil || st.Executed != 3 {
		t.Fatalf("generated %d: %v", st.Executed, err)
	}
	if _, err := q.ReportGenerated(ctx, queue.Result{ItemID: "old", Passed: true}); err != nil {
		t.Fatal(err)
	}
	res, _, err := q.Results(ctx, 0)
	if err != nil || len(res) != 4 {
		t.Fatalf("results %d: %v", len(res), err)
	}
	for i, want := range []int64{700, 1400, 2100} {
		if got := res[i].EndedAtMs - start.UnixMilli(); got != want || res[i].ItemID != "s|p|"+strconv.Itoa(i+1) {
			t.Errorf("generated result %d: %s ended at +%dms, want s|p|%d at +%dms", i, res[i].ItemID, got, i+1, want)
		}
	}
	if res[3].EndedAtMs != 0 {
		t.Errorf("an unstamped result reads back with endedAtMs %d", res[3].EndedAtMs)
	}

	popped := newQueue(t, "run-f")
	if _, err := popped.Enqueue(ctx, queue.Matrix([]string{"s"}, []string{"p"}, 2), 0, 0); err != nil {
		t.Fatal(err)
	}
	before := time.Now().UnixMilli()
	if n, err := arenaworker.RunN(ctx, popped, 1, arenaworker.Pass); err != nil || n != 1 {
		t.Fatalf("ran %d: %v", n, err)
	}
	if _, err := arenaworker.Run(ctx, popped, 1, arenaworker.Pass); err != nil {
		t.Fatal(err)
	}
	res, _, err = popped.Results(ctx, 0)
	if err != nil || len(res) != 2 {
		t.Fatalf("results %d: %v", len(res), err)
	}
	for _, r := range res {
		if r.EndedAtMs < before {
			t.Errorf("popped result %s ended at %d, before %d", r.ItemID, r.EndedAtMs, before)
		}
	}
}

func TestFormats(t *testing.T) {
	cases := []struct{ got, want string }{
		{queue.FormatPassRate(1, 3), "33.3"},
		{queue.FormatPassRate(2, 3), "66.7"},
		{queue.FormatPassRate(5, 5), "100.0"},
		{queue.FormatPassRate(0, 0), "0.0"},
		{queue.FormatCost(0.00005), "0.0001"},
		{queue.FormatCost(12.3), "12.3000"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q want %q", c.got, c.want)
		}
	}
	if s := queue.Summarize(nil, queue.Counters{}); s["totalCost"] != "" || s["totalTokens"] != "" {
		t.Errorf("zero cost/tokens are set: %v", s)
	}
	if _, err := queue.Connect("redis://user:hunter2@[bad"); err == nil || contains(err.Error(), "hunter2") {
		t.Errorf("Connect error leaks or is nil: %v", err)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
