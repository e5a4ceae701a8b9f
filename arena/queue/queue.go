// Package queue is the Arena work queue: one ArenaRun's work matrix
// (scenarios × providers × trials) in Redis, popped by the run's workers,
// who report each item's result back. The ArenaRun controller enqueues the
// matrix, reads progress and results, and drains the queue on cancel. The
// protocol (keys, scripts, JSON shapes) is docs/arena-queue.md; a worker in
// any language that follows it interoperates with this package.
//
// Every state change a worker and the controller may race on is one Lua
// script, so Redis runs it atomically: enqueue-once, pop-unless-stopped,
// report-and-check-budget, drain.
package queue

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Reasons a run's queue is stopped (meta field stopReason).
const (
	// StopBudgetExceeded: a reported cost crossed budgetLimit.
	StopBudgetExceeded = "BudgetExceeded"
	// StopCancelled: the run's spec.cancelled drained the queue.
	StopCancelled = "Cancelled"
)

// DefaultMaxItems is the item cap the controller applies when none is
// configured: a matrix larger than this is refused (reason
// WorkMatrixTooLarge) instead of being written to Redis.
const DefaultMaxItems = 100000

// ErrOverCap is returned by Enqueue when the matrix has more items than the cap.
var ErrOverCap = errors.New("work matrix over the item cap")

// Item is one unit of work: one trial of one scenario against one provider.
type Item struct {
	ID       string `json:"id"`
	Scenario string `json:"scenario"`
	Provider string `json:"provider"`
	Trial    int    `json:"trial"`
}

// Result is what a worker reports for one item.
type Result struct {
	ItemID   string `json:"itemId"`
	Scenario string `json:"scenario"`
	Provider string `json:"provider"`
	// Passed: the item ran and every assertion held. An item that did not
	// pass is a failed item (Error says why when it did not run).
	Passed bool `json:"passed"`
	// DurationMs is the whole item, worker overhead included (itemDurationMs).
	DurationMs float64 `json:"durationMs"`
	// LatencyMs is the time the system under test spent answering; 0 when
	// unknown (DurationMs is used instead).
	LatencyMs float64 `json:"latencyMs,omitempty"`
	// TTFTMs is the time to first token; 0 when the provider reported none.
	TTFTMs float64 `json:"ttftMs,omitempty"`
	Tokens int64   `json:"tokens,omitempty"`
	// Cost in the job's budgetCurrency.
	Cost       float64         `json:"cost,omitempty"`
	Error      string          `json:"error,omitempty"`
	Assertions map[string]bool `json:"assertions,omitempty"`
	// EndedAtMs is when the item finished, in Unix milliseconds, set by
	// the worker from its own clock just before it reports. A duration
	// load test's per-second timeSeries is built from it; 0 (a worker
	// older than the field) leaves the result out of the series.
	EndedAtMs int64 `json:"endedAtMs,omitempty"`
}

// Meta is a run queue's header.
type Meta struct {
	// Enqueued: the matrix was written (Enqueue is idempotent on it).
	Enqueued bool
	Total    int64
	// BudgetLimit is the cap on the accumulated cost; 0 means none.
	BudgetLimit float64
	// Stopped: no further item is handed out. StopReason says why.
	Stopped    bool
	StopReason string
	// Drained is how many queued items the stop discarded.
	Drained int64
}

// Counters are the run's accumulators.
type Counters struct {
	Completed int64
	Failed    int64
	InFlight  int64
	Queued    int64
	Tokens    int64
	Cost      float64
	// DurationMsSum is the sum of the reported items' DurationMs.
	DurationMsSum float64
	// ArrivalsOffered and ArrivalsMissed are reported by open-model
	// (rate) load-test workers; both 0 otherwise.
	ArrivalsOffered int64
	ArrivalsMissed  int64
}

// Done reports whether every item has an outcome, or the queue was stopped
// and nothing is in flight.
func (c Counters) Done(m Meta) bool {
	if !m.Enqueued {
		return false
	}
	if m.Stopped {
		return c.InFlight <= 0
	}
	return c.Completed+c.Failed >= m.Total && c.InFlight <= 0
}

// Queue is the work queue of one run.
type Queue struct {
	rdb    redis.UniversalClient
	prefix string
}

// KeyPrefix is the prefix of every key of the run namespace/name. The
// braces are a Redis Cluster hash tag: all of a run's keys share a slot,
// so the scripts work on a cluster too.
func KeyPrefix(namespace, name string) string {
	return "arena:{" + namespace + "/" + name + "}:"
}

// New opens the queue of run namespace/name on rdb.
func New(rdb redis.UniversalClient, namespace, name string) *Queue {
	return &Queue{rdb: rdb, prefix: KeyPrefix(namespace, name)}
}

// Connect parses a redis:// or rediss:// URL and returns a client whose
// connections read through the reply guard (MaxReplyBytes).
func Connect(url string) (*redis.Client, error) {
	return ConnectWith(url, ConnectOptions{})
}

// ConnectOptions are how ConnectWith opens connections.
type ConnectOptions struct {
	// Dialer makes every TCP connection (nil: a plain net.Dialer). The
	// operator passes its egress guard's dialer: a Workspace's redis URL
	// must not make it dial a link-local or cloud metadata address.
	Dialer *net.Dialer
	// ClientName is sent with CLIENT SETNAME on every connection, so the
	// server's CLIENT LIST shows whose connection it is ("" sends none).
	ClientName string
}

// ConnectWith is Connect with o. Whatever the dialer, a rediss:// URL is
// dialled with TLS (verified against the system roots and the URL's host),
// and every connection reads through the reply guard: a reply declaring
// more than MaxReplyBytes fails with ErrReplyTooLarge instead of being
// allocated.
func ConnectWith(url string, o ConnectOptions) (*redis.Client, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		// The URL is a Secret value: never repeat it in an error.
		return nil, errors.New("the queue's Redis URL does not parse")
	}
	dialer := o.Dialer
	if dialer == nil {
		dialer = &net.Dialer{Timeout: opts.DialTimeout}
	}
	tlsConfig := opts.TLSConfig
	opts.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if tlsConfig != nil {
			tc := tls.Client(c, tlsConfig.Clone())
			if err := tc.HandshakeContext(ctx); err != nil {
				_ = c.Close()
				return nil, err
			}
			c = tc
		}
		return guardReplies(c), nil
	}
	if o.ClientName != "" {
		opts.ClientName = o.ClientName
	}
	return redis.NewClient(opts), nil
}

func (q *Queue) key(k string) string { return q.prefix + k }

func (q *Queue) keys() []string {
	return []string{q.key("meta"), q.key("pending"), q.key("counters"), q.key("results")}
}

// enqueueScript writes the matrix once: a second call (the controller
// reconciling again) changes nothing and returns the first total.
var enqueueScript = redis.NewScript(`
if redis.call('HEXISTS', KEYS[1], 'total') == 1 then
  return tonumber(redis.call('HGET', KEYS[1], 'total'))
end
for i = 2, #ARGV do
  redis.call('RPUSH', KEYS[2], ARGV[i])
end
redis.call('HSET', KEYS[1], 'total', #ARGV - 1, 'budgetLimit', ARGV[1], 'state', 'running')
redis.call('HSET', KEYS[3], 'queued', #ARGV - 1)
return #ARGV - 1
`)

// Enqueue writes items once, with the run's budget limit (0: none). It
// refuses a matrix over maxItems with ErrOverCap, writing nothing. It
// returns the queue's total, which is the first call's when the matrix was
// already written.
func (q *Queue) Enqueue(ctx context.Context, items []Item, maxItems int, budgetLimit float64) (int64, error) {
	if maxItems > 0 && len(items) > maxItems {
		return 0, fmt.Errorf("%w: %d items, cap %d", ErrOverCap, len(items), maxItems)
	}
	args := make([]any, 0, len(items)+1)
	args = append(args, strconv.FormatFloat(budgetLimit, 'f', -1, 64))
	for _, it := range items {
		b, err := json.Marshal(it)
		if err != nil {
			return 0, err
		}
		args = append(args, string(b))
	}
	return enqueueScript.Run(ctx, q.rdb, q.keys(), args...).Int64()
}

// popScript hands out the next item unless the queue is stopped.
var popScript = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'state') ~= 'running' then
  return false
end
local item = redis.call('LPOP', KEYS[2])
if not item then
  return false
end
redis.call('HINCRBY', KEYS[3], 'inflight', 1)
redis.call('HINCRBY', KEYS[3], 'queued', -1)
return item
`)

// Pop takes the next item. ok is false when the queue is empty or stopped:
// the worker then finishes.
func (q *Queue) Pop(ctx context.Context) (item Item, ok bool, err error) {
	s, err := popScript.Run(ctx, q.rdb, q.keys()).Text()
	if errors.Is(err, redis.Nil) {
		return Item{}, false, nil
	}
	if err != nil {
		return Item{}, false, err
	}
	if err := json.Unmarshal([]byte(s), &item); err != nil {
		return Item{}, false, fmt.Errorf("queue item: %w", err)
	}
	return item, true, nil
}

// reportScript records one result and enforces the budget: the report that
// takes the accumulated cost above budgetLimit stops the queue and discards
// every queued item. It returns 1 when the queue is stopped after the report.
var reportScript = redis.NewScript(`
local counter = ARGV[2]
redis.call('HINCRBY', KEYS[3], counter, 1)
if tonumber(ARGV[3]) == 1 then
  redis.call('HINCRBY', KEYS[3], 'inflight', -1)
end
redis.call('HINCRBYFLOAT', KEYS[3], 'durationMsSum', ARGV[4])
redis.call('HINCRBY', KEYS[3], 'tokens', ARGV[5])
local cost = tonumber(redis.call('HINCRBYFLOAT', KEYS[3], 'cost', ARGV[6]))
redis.call('RPUSH', KEYS[4], ARGV[1])
local limit = tonumber(redis.call('HGET', KEYS[1], 'budgetLimit') or '0')
if redis.call('HGET', KEYS[1], 'state') == 'running' and limit and limit > 0 and cost > limit then
  local drained = redis.call('LLEN', KEYS[2])
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[3], 'queued', 0)
  redis.call('HSET', KEYS[1], 'state', 'stopped', 'stopReason', 'BudgetExceeded', 'drained', drained)
end
if redis.call('HGET', KEYS[1], 'state') == 'running' then
  return 0
end
return 1
`)

// Report records the result of a popped item. stopped is true when the
// queue no longer hands out work (the worker finishes after its in-flight
// items).
func (q *Queue) Report(ctx context.Context, r Result) (stopped bool, err error) {
	return q.report(ctx, r, true)
}

// ReportGenerated records the result of an item a duration-based load test
// generated itself (never popped from the queue).
func (q *Queue) ReportGenerated(ctx context.Context, r Result) (stopped bool, err error) {
	return q.report(ctx, r, false)
}

func (q *Queue) report(ctx context.Context, r Result, popped bool) (bool, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return false, err
	}
	counter := "failed"
	if r.Passed {
		counter = "completed"
	}
	poppedArg := 0
	if popped {
		poppedArg = 1
	}
	n, err := reportScript.Run(ctx, q.rdb, q.keys(), string(b), counter, poppedArg,
		strconv.FormatFloat(r.DurationMs, 'f', -1, 64), r.Tokens, strconv.FormatFloat(r.Cost, 'f', -1, 64)).Int()
	return n == 1, err
}

// ReportArrivals adds to the open-model arrival counters (rate load tests).
func (q *Queue) ReportArrivals(ctx context.Context, offered, missed int64) error {
	pipe := q.rdb.TxPipeline()
	pipe.HIncrBy(ctx, q.key("counters"), "arrivalsOffered", offered)
	pipe.HIncrBy(ctx, q.key("counters"), "arrivalsMissed", missed)
	_, err := pipe.Exec(ctx)
	return err
}

// drainScript stops the queue and discards every queued item; it returns
// how many it discarded. A queue already stopped keeps its first reason.
var drainScript = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'state') == 'stopped' then
  return tonumber(redis.call('HGET', KEYS[1], 'drained') or '0')
end
local drained = redis.call('LLEN', KEYS[2])
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[3], 'queued', 0)
redis.call('HSET', KEYS[1], 'state', 'stopped', 'stopReason', ARGV[1], 'drained', drained)
return drained
`)

// Drain stops the queue with reason and discards the queued items: workers
// find it empty and finish. It returns the number of items discarded.
func (q *Queue) Drain(ctx context.Context, reason string) (int64, error) {
	return drainScript.Run(ctx, q.rdb, q.keys(), reason).Int64()
}

// State reads the queue's header and counters in one round trip.
func (q *Queue) State(ctx context.Context) (Meta, Counters, error) {
	pipe := q.rdb.Pipeline()
	metaCmd := pipe.HGetAll(ctx, q.key("meta"))
	cntCmd := pipe.HGetAll(ctx, q.key("counters"))
	if _, err := pipe.Exec(ctx); err != nil {
		return Meta{}, Counters{}, err
	}
	m, c := metaCmd.Val(), cntCmd.Val()
	meta := Meta{
		Total:       atoi(m["total"]),
		BudgetLimit: atof(m["budgetLimit"]),
		Stopped:     m["state"] == "stopped",
		StopReason:  m["stopReason"],
		Drained:     atoi(m["drained"]),
	}
	_, meta.Enqueued = m["total"]
	cnt := Counters{
		Completed:       atoi(c["completed"]),
		Failed:          atoi(c["failed"]),
		InFlight:        atoi(c["inflight"]),
		Queued:          atoi(c["queued"]),
		Tokens:          atoi(c["tokens"]),
		Cost:            atof(c["cost"]),
		DurationMsSum:   atof(c["durationMsSum"]),
		ArrivalsOffered: atoi(c["arrivalsOffered"]),
		ArrivalsMissed:  atoi(c["arrivalsMissed"]),
	}
	return meta, cnt, nil
}

// Expire bounds how long a finished run's keys stay in Redis.
func (q *Queue) Expire(ctx context.Context, ttl time.Duration) error {
	pipe := q.rdb.Pipeline()
	for _, k := range q.keys() {
		pipe.Expire(ctx, k, ttl)
	}
	_, err := pipe.Exec(ctx)
	return err
}

// Delete removes every key of the run.
func (q *Queue) Delete(ctx context.Context) error {
	return q.rdb.Del(ctx, q.keys()...).Err()
}

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

func atof(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}
