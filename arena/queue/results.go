package queue

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// Bounds on reading a run's results (docs/arena-queue.md § Reading the
// results). The results list is written by the run's workers, so its
// length and its entries are the tenant's: the controller reads it in
// pages, at most a cap of entries per run, each entry at most
// MaxResultBytes, and never holds more than one page of raw entries.
const (
	// MaxResultBytes bounds one result entry. A longer entry is not sent:
	// the page script replaces it with its length, and it counts as a
	// failed item whose error says so.
	MaxResultBytes = 16 << 10
	// ResultsPageSize is how many entries one read asks for: at most
	// ResultsPageSize × MaxResultBytes (1.6 MiB) per reply, within
	// MaxReplyBytes.
	ResultsPageSize = 100
)

// ResultsRead says what a read of the results list did.
type ResultsRead struct {
	// Listed is the length of the list when the read began.
	Listed int64
	// Read is how many entries were handed on (Unreadable included).
	Read int64
	// Unreadable counts the entries over MaxResultBytes or that are not a
	// result's JSON: each was handed on as a failed result saying so.
	Unreadable int64
	// Unread counts the entries past the cap, not read at all.
	Unread int64
}

// resultsPageScript returns the entries start..stop of the results list,
// each entry longer than ARGV[3] bytes replaced by its length (an integer
// reply), so an oversized entry never crosses the wire.
var resultsPageScript = redis.NewScript(`
local entries = redis.call('LRANGE', KEYS[1], ARGV[1], ARGV[2])
local cap = tonumber(ARGV[3])
for i = 1, #entries do
  if string.len(entries[i]) > cap then
    entries[i] = string.len(entries[i])
  end
end
return entries
`)

// EachResult reads the run's results in report order, in pages of
// ResultsPageSize, and hands each to fn: at most maxEntries of them (0: no
// cap; the controller passes its item cap). fn must not keep the Result's
// maps or strings beyond what it needs: holding every result of a long run
// is what this read avoids.
func (q *Queue) EachResult(ctx context.Context, maxEntries int64, fn func(Result)) (ResultsRead, error) {
	var read ResultsRead
	n, err := q.rdb.LLen(ctx, q.key("results")).Result()
	if err != nil {
		return read, err
	}
	read.Listed = n
	limit := n
	if maxEntries > 0 && limit > maxEntries {
		limit = maxEntries
		read.Unread = n - maxEntries
	}
	for start := int64(0); start < limit; start += ResultsPageSize {
		stop := min(start+ResultsPageSize, limit) - 1
		page, err := resultsPageScript.Run(ctx, q.rdb, []string{q.key("results")},
			start, stop, MaxResultBytes).Slice()
		if err != nil {
			return read, err
		}
		for _, e := range page {
			r, ok := decodeResult(e)
			if !ok {
				read.Unreadable++
			}
			read.Read++
			fn(r)
		}
		if int64(len(page)) < stop-start+1 {
			break // the list was shortened while it was read
		}
	}
	return read, nil
}

// Results is EachResult collecting the results (tests and small runs).
func (q *Queue) Results(ctx context.Context, maxEntries int64) ([]Result, ResultsRead, error) {
	var out []Result
	read, err := q.EachResult(ctx, maxEntries, func(r Result) { out = append(out, r) })
	return out, read, err
}

// decodeResult decodes one page entry; ok is false for an entry that is
// over the cap or not a result, which becomes a failed result with no
// scenario or provider, saying why.
func decodeResult(e any) (Result, bool) {
	switch v := e.(type) {
	case string:
		var r Result
		if err := json.Unmarshal([]byte(v), &r); err == nil {
			return r, true
		}
		return Result{Error: "the worker reported a result that is not a result's JSON; it counts as failed"}, false
	case int64:
		return Result{Error: "the worker reported a result of " + strconv.FormatInt(v, 10) + " bytes, over the " +
			strconv.Itoa(MaxResultBytes) + "-byte cap: not read; it counts as failed"}, false
	}
	return Result{Error: "the queue's Redis answered a results page with an unexpected entry; it counts as failed"}, false
}
