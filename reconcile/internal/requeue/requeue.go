// Package requeue keeps the earliest of the delays the steps of one
// reconcile ask for, so a controller returns a single RequeueAfter and a
// timed transition never waits for an unrelated event.
package requeue

import (
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
)

// Earliest is the shortest delay asked for; its zero value asks for none.
type Earliest struct {
	in time.Duration
}

// After asks for a reconcile within d; a non-positive d is ignored (the
// caller acts now instead).
func (q *Earliest) After(d time.Duration) {
	if d <= 0 {
		return
	}
	if q.in == 0 || d < q.in {
		q.in = d
	}
}

// Merge asks for what res asks for (its RequeueAfter).
func (q *Earliest) Merge(res ctrl.Result) {
	q.After(res.RequeueAfter)
}

// Duration is the earliest delay asked for; zero when none was.
func (q Earliest) Duration() time.Duration {
	return q.in
}

// Result is the reconcile result asking for the earliest requeue.
func (q Earliest) Result() ctrl.Result {
	return ctrl.Result{RequeueAfter: q.in}
}
