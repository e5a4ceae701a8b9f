package agentruntime

import (
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
)

// requeueAt is the earliest time any step of a reconcile asked to run
// again: a rollout pause ending, a JWKS refresh due. Steps call after; the
// reconcile returns it as RequeueAfter, so a timed transition never waits
// for an unrelated event and no worker is held waiting.
type requeueAt struct {
	// in is the shortest delay asked for; zero when none was.
	in time.Duration
}

// after asks for a reconcile within d; a non-positive d is ignored (the
// caller acts now instead).
func (q *requeueAt) after(d time.Duration) {
	if d <= 0 {
		return
	}
	if q.in == 0 || d < q.in {
		q.in = d
	}
}

// result is the reconcile result asking for the earliest requeue.
func (q requeueAt) result() ctrl.Result {
	return ctrl.Result{RequeueAfter: q.in}
}
