package prober

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// backoffState is a failing target's wait. It belongs to the fingerprint
// that failed: a job with other inputs is not held back by it.
type backoffState struct {
	fingerprint string
	failures    int
	notBefore   time.Time
}

// nextBackoff is the wait after a target's n-th consecutive failure:
// base·2^(n-1), capped at limit.
func nextBackoff(n int, base, limit time.Duration) time.Duration {
	d := base
	for i := 1; i < n; i++ {
		if d >= limit/2 {
			return limit
		}
		d *= 2
	}
	return min(d, limit)
}

// ParseRetryAfter reads a Retry-After header (RFC 9110 §10.2.3): a number
// of seconds, or an HTTP date, taken relative to now. It returns false when
// the value is empty or malformed; a date in the past is a zero wait.
func ParseRetryAfter(value string, now time.Time) (time.Duration, bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(value, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		// Beyond this the multiplication would overflow; any cap is lower.
		if secs > int64(365*24*time.Hour/time.Second) {
			secs = int64(365 * 24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(value)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}

// backoffAfter is the wait after a failed outcome: the capped Retry-After of
// a 429 that carries a valid one, else the exponential backoff.
func (o Options) backoffAfter(out Outcome, failures int, jobMax time.Duration, now time.Time) time.Duration {
	if out.StatusCode == http.StatusTooManyRequests {
		if d, ok := ParseRetryAfter(out.RetryAfter, now); ok {
			return min(d, o.MaxRetryAfter)
		}
	}
	limit := o.BackoffMax
	if jobMax > 0 && jobMax < limit {
		limit = jobMax
	}
	return nextBackoff(failures, o.BackoffBase, limit)
}
