package arenarun

import (
	"context"
	"strconv"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/arena/queue"
)

// readResults reads a done run's results in pages (queue.EachResult), at
// most the operator's item cap of them, folding each into the summary as it
// goes: the controller never holds a run's raw results list. A load test
// also keeps, per result, the numbers its thresholds and time series read
// (keptResult), a few dozen bytes each. Results past the cap are counted in
// the summary's resultsUnread.
func (r *Reconciler) readResults(ctx context.Context, t *v1alpha1.ArenaJobSpec, q *queue.Queue, c queue.Counters) (map[string]string, []queue.Result, error) {
	sum := queue.NewSummarizer()
	keep := t.Type == v1alpha1.ArenaJobTypeLoadTest
	var kept []queue.Result
	read, err := q.EachResult(ctx, int64(r.opts.MaxItems), func(res queue.Result) {
		sum.Add(res)
		if keep {
			kept = append(kept, keptResult(res))
		}
	})
	if err != nil {
		return nil, nil, err
	}
	summary := sum.Summary(c)
	if read.Unread > 0 {
		summary[queue.KeyResultsUnread] = strconv.FormatInt(read.Unread, 10)
	}
	return summary, kept, nil
}

// keptResult is what loadTestMetrics and the time series read of a result:
// its numbers, and whether its error names a rate limit.
func keptResult(r queue.Result) queue.Result {
	k := queue.Result{Passed: r.Passed, DurationMs: r.DurationMs, LatencyMs: r.LatencyMs, TTFTMs: r.TTFTMs,
		Cost: r.Cost, EndedAtMs: r.EndedAtMs}
	if r.Error != "" && rateLimitPattern.MatchString(r.Error) {
		k.Error = "rate limited"
	}
	return k
}
