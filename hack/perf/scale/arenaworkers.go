package main

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"

	"github.com/altairalabs/omnia/arena/queue"
	"github.com/altairalabs/omnia/test/arenaworker"
)

// arenaWorkers play the worker Job's pods of every run: kwok runs no
// container, so, as the Arena e2e suites do, the harness executes each
// run's queued items in-process (test/arenaworker, every item passing)
// against the run's real Redis queue, as soon as the run is Running. A
// bounded pool: at most `workers` runs are worked at once.
type arenaWorkers struct {
	rdb      *redis.Client
	runs     chan [2]string
	executed atomic.Int64
	failures atomic.Int64
	wg       sync.WaitGroup
	// mu guards closed: an informer event may still arrive after stop.
	mu     sync.Mutex
	closed bool
}

// startArenaWorkers starts the pool; capacity bounds the runs waiting for
// a worker (one per planned ArenaJob: each starts one run).
func startArenaWorkers(ctx context.Context, redisURL string, workers, capacity int) (*arenaWorkers, error) {
	rdb, err := queue.Connect(redisURL)
	if err != nil {
		return nil, err
	}
	w := &arenaWorkers{rdb: rdb, runs: make(chan [2]string, max(1, capacity))}
	for i := 0; i < workers; i++ {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			for r := range w.runs {
				st, err := arenaworker.Run(ctx, queue.New(rdb, r[0], r[1]), 1, arenaworker.Pass)
				w.executed.Add(int64(st.Executed))
				if err != nil {
					w.failures.Add(1)
				}
			}
		}()
	}
	return w, nil
}

// enqueue hands run namespace/name to the pool. It never blocks the
// informer that calls it: a run beyond the capacity is counted as a
// failure (its run then fails WorkersFailed, which the report shows).
func (w *arenaWorkers) enqueue(namespace, name string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	select {
	case w.runs <- [2]string{namespace, name}:
	default:
		w.failures.Add(1)
	}
}

// stop ends the pool once the queued runs are worked, and closes Redis.
func (w *arenaWorkers) stop() {
	w.mu.Lock()
	w.closed = true
	close(w.runs)
	w.mu.Unlock()
	w.wg.Wait()
	_ = w.rdb.Close()
}
