package clusterbench

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"

	"github.com/altairalabs/omnia/arena/queue"
	"github.com/altairalabs/omnia/test/arenaworker"
)

// ArenaWorkers play the worker Job's pods of every run: kwok runs no
// container, so, as the Arena e2e suites do, the harness executes each
// run's queued items in-process (test/arenaworker, every item passing)
// against the run's real Redis queue, as soon as the run is Running. A
// bounded pool: at most `workers` runs are worked at once.
type ArenaWorkers struct {
	rdb      *redis.Client
	runs     chan [2]string
	executed atomic.Int64
	failures atomic.Int64
	// onItem, when set, sees every item executed (run namespace, name,
	// item ID) before its result is reported: a harness counting
	// executions per item finds one executed twice.
	onItem func(namespace, name, itemID string)
	wg     sync.WaitGroup
	// mu guards closed: an informer event may still arrive after Stop.
	mu     sync.Mutex
	closed bool
}

// StartArenaWorkers starts the pool; capacity bounds the runs waiting for
// a worker (one per ArenaJob the harness expects to start a run at once).
// onItem may be nil.
func StartArenaWorkers(ctx context.Context, redisURL string, workers, capacity int, onItem func(namespace, name, itemID string)) (*ArenaWorkers, error) {
	rdb, err := queue.Connect(redisURL)
	if err != nil {
		return nil, err
	}
	w := &ArenaWorkers{rdb: rdb, runs: make(chan [2]string, max(1, capacity)), onItem: onItem}
	for i := 0; i < workers; i++ {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			for r := range w.runs {
				st, err := arenaworker.Run(ctx, queue.New(rdb, r[0], r[1]), 1, func(it queue.Item) queue.Result {
					if w.onItem != nil {
						w.onItem(r[0], r[1], it.ID)
					}
					return arenaworker.Pass(it)
				})
				w.executed.Add(int64(st.Executed))
				if err != nil {
					w.failures.Add(1)
				}
			}
		}()
	}
	return w, nil
}

// Enqueue hands run namespace/name to the pool. It never blocks the
// informer that calls it: a run beyond the capacity is counted as a
// failure (its run then fails WorkersFailed, which the report shows).
func (w *ArenaWorkers) Enqueue(namespace, name string) {
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

// Executed is how many items the pool executed; Failures how many runs
// it could not work to the end (or had no room for).
func (w *ArenaWorkers) Executed() int64 { return w.executed.Load() }

// Failures: see Executed.
func (w *ArenaWorkers) Failures() int64 { return w.failures.Load() }

// Queue opens run namespace/name's queue on the pool's Redis connection
// (to read its state).
func (w *ArenaWorkers) Queue(namespace, name string) *queue.Queue {
	return queue.New(w.rdb, namespace, name)
}

// Stop ends the pool once the queued runs are worked, and closes Redis.
func (w *ArenaWorkers) Stop() {
	w.mu.Lock()
	w.closed = true
	close(w.runs)
	w.mu.Unlock()
	w.wg.Wait()
	_ = w.rdb.Close()
}
