// Package arenaworker is a small Arena worker for tests: it speaks the work
// queue protocol of docs/arena-queue.md (pop an item, execute it, report its
// result, stop when the queue is empty or stopped) with an execute function
// the test supplies. No pod runs in envtest or under kwok, so a test plays
// the worker Job's pods with it, in-process, against the run's real Redis.
package arenaworker

import (
	"context"
	"strconv"
	"sync"

	"k8s.io/utils/clock"

	"github.com/altairalabs/omnia/arena/queue"
)

// Execute runs one item and returns its result (ItemID, Scenario and
// Provider are filled in by the worker when left empty, and EndedAtMs from
// the worker's clock when left 0).
type Execute func(queue.Item) queue.Result

// wallClock stamps the results of Run and RunN (EndedAtMs,
// docs/arena-queue.md), as a worker pod's clock would. Generate takes its
// own clock, so a test can make it step.
var wallClock clock.PassiveClock = clock.RealClock{}

// stamp fills what a worker fills in before it reports.
func stamp(r queue.Result, it queue.Item, clk clock.PassiveClock) queue.Result {
	if r.ItemID == "" {
		r.ItemID = it.ID
	}
	if r.Scenario == "" {
		r.Scenario = it.Scenario
	}
	if r.Provider == "" {
		r.Provider = it.Provider
	}
	if r.EndedAtMs == 0 {
		r.EndedAtMs = clk.Now().UnixMilli()
	}
	return r
}

// Pass is an Execute that passes every item in 10ms of latency.
func Pass(it queue.Item) queue.Result {
	return queue.Result{Passed: true, DurationMs: 12, LatencyMs: 10}
}

// Stats says what one Run did.
type Stats struct {
	Executed int
	// StoppedByQueue: a report answered that the queue is stopped.
	StoppedByQueue bool
}

// Run plays `replicas` workers against q until the queue has nothing more
// to hand out, each popping and reporting sequentially. It returns when every
// worker has finished.
func Run(ctx context.Context, q *queue.Queue, replicas int, exec Execute) (Stats, error) {
	if replicas < 1 {
		replicas = 1
	}
	var (
		mu    sync.Mutex
		stats Stats
		first error
		wg    sync.WaitGroup
	)
	for w := 0; w < replicas; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				it, ok, err := q.Pop(ctx)
				if err != nil || !ok {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
				r := stamp(exec(it), it, wallClock)
				stopped, err := q.Report(ctx, r)
				mu.Lock()
				stats.Executed++
				if stopped {
					stats.StoppedByQueue = true
				}
				if err != nil && first == nil {
					first = err
				}
				mu.Unlock()
				if err != nil || stopped {
					return
				}
			}
		}()
	}
	wg.Wait()
	return stats, first
}

// RunN executes at most n items with one worker and returns, leaving the
// rest queued (a test that cancels a run midway uses it).
func RunN(ctx context.Context, q *queue.Queue, n int, exec Execute) (int, error) {
	done := 0
	for done < n {
		it, ok, err := q.Pop(ctx)
		if err != nil || !ok {
			return done, err
		}
		r := exec(it)
		r.ItemID, r.Scenario, r.Provider = it.ID, it.Scenario, it.Provider
		if _, err := q.Report(ctx, stamp(r, it, wallClock)); err != nil {
			return done, err
		}
		done++
	}
	return done, nil
}

// Generate plays one worker of a duration load test (loadTest.duration): no
// matrix is queued, so it generates items from pool in turn (trial counting
// up per scenario × provider), executes each and reports it with
// ReportGenerated, until it has done n items or a report answers that the
// queue is stopped — the test's stand-in for the clock running out. Each
// result's EndedAtMs is read from clk after exec returns, so a test that
// steps a fake clock inside exec decides which second every item ends in.
func Generate(ctx context.Context, q *queue.Queue, pool []queue.Item, n int, clk clock.PassiveClock, exec Execute) (Stats, error) {
	var stats Stats
	if len(pool) == 0 {
		return stats, nil
	}
	trials := map[int]int{}
	for i := 0; i < n; i++ {
		k := i % len(pool)
		trials[k]++
		it := pool[k]
		it.Trial = trials[k]
		it.ID = it.Scenario + "|" + it.Provider + "|" + strconv.Itoa(it.Trial)
		stopped, err := q.ReportGenerated(ctx, stamp(exec(it), it, clk))
		if err != nil {
			return stats, err
		}
		stats.Executed++
		if stopped {
			stats.StoppedByQueue = true
			break
		}
	}
	return stats, nil
}
