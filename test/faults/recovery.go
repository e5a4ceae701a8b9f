package faults

import (
	"context"
	"fmt"
	"net/http"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/hack/perf/perfreport"
	"github.com/altairalabs/omnia/test/controlplane"
)

// How recovery is observed, each from the moment the killed process is
// gone, each the first time its condition holds (polled every
// recoveryPoll):
//   - the API server answers: a read of a Namespace succeeds (a quorum
//     read: etcd answers too);
//   - the webhook answers: a dry-run create of an invalid Provider is
//     refused by the webhook itself (through the API server and the Front:
//     the path every write takes);
//   - a leader holds the Lease: its renewTime is later than the fault (and,
//     after the leader was killed, its holder is another identity);
//   - the first reconcile after: the leading replica's count of successful
//     reconciles (controller_runtime_reconcile_total, result success, every
//     controller but the one each replica runs) grows past what it was when
//     the Lease was held again (from 0 for a new leader).

// recoveryPoll is how often a recovery condition is polled.
const recoveryPoll = 100 * time.Millisecond

// Recovery holds the times from a fault to each sign of recovery (0: not
// observed within the timeout; see Missing).
type Recovery struct {
	APIServer, Webhook, Leader, FirstReconcile time.Duration
	// Holder is the Lease holder once a leader holds it again.
	Holder string
	// Missing names the signs not observed in time.
	Missing []string
}

// watcher observes recovery on one cluster.
type watcher struct {
	admin    client.Client
	probeNS  string
	replicas []*Replica
	token    string
}

// recover measures every sign of recovery from down, concurrently.
// newHolder says the Lease must change hands (the leader was killed).
func (w *watcher) recover(ctx context.Context, down time.Time, oldHolder string, newHolder bool, timeout time.Duration) Recovery {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var r Recovery
	type result struct {
		name string
		at   time.Time
		err  error
	}
	results := make(chan result, 3)
	go func() {
		at, err := w.firstTime(ctx, w.apiAnswers)
		results <- result{"API server answering", at, err}
	}()
	go func() {
		at, err := w.firstTime(ctx, w.webhookAnswers)
		results <- result{"webhook answering", at, err}
	}()
	leaderAt := make(chan time.Time, 1)
	var holder string
	go func() {
		at, err := w.firstTime(ctx, func(ctx context.Context) bool {
			h, ok := w.leaseRenewedAfter(ctx, down, oldHolder, newHolder)
			if ok {
				holder = h
			}
			return ok
		})
		leaderAt <- at
		results <- result{"leader holding the Lease", at, err}
	}()
	for range 3 {
		res := <-results
		if res.err != nil {
			r.Missing = append(r.Missing, res.name)
			continue
		}
		d := res.at.Sub(down)
		switch res.name {
		case "API server answering":
			r.APIServer = d
		case "webhook answering":
			r.Webhook = d
		default:
			r.Leader = d
		}
	}
	if at := <-leaderAt; !at.IsZero() {
		r.Holder = holder
		if at, err := w.firstReconcile(ctx, newHolder); err == nil {
			r.FirstReconcile = at.Sub(down)
		} else {
			r.Missing = append(r.Missing, "first reconcile")
		}
	} else {
		r.Missing = append(r.Missing, "first reconcile")
	}
	return r
}

// firstTime polls cond until it holds and returns when it first did.
func (w *watcher) firstTime(ctx context.Context, cond func(context.Context) bool) (time.Time, error) {
	var at time.Time
	err := wait.PollUntilContextCancel(ctx, recoveryPoll, true, func(ctx context.Context) (bool, error) {
		if cond(ctx) {
			at = time.Now()
			return true, nil
		}
		return false, nil
	})
	return at, err
}

// apiAnswers: a read of the probe Namespace succeeds.
func (w *watcher) apiAnswers(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return w.admin.Get(ctx, client.ObjectKey{Name: w.probeNS}, &corev1.Namespace{}) == nil
}

// webhookAnswers: a dry-run invalid create is refused by the webhook.
func (w *watcher) webhookAnswers(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	obj := invalidObject(w.probeNS, KindProvider, 0, "invalid-probe")
	err := w.admin.Create(ctx, obj, client.DryRunAll)
	return err != nil && isWebhookDenial(err)
}

// leaseRenewedAfter reads the Lease: held, renewed after t, by another
// holder than old when newHolder.
func (w *watcher) leaseRenewedAfter(ctx context.Context, t time.Time, old string, newHolder bool) (string, bool) {
	l := &coordinationv1.Lease{}
	if err := w.admin.Get(ctx, client.ObjectKey{Namespace: controlplane.OperatorNamespace, Name: controlplane.LeaseName}, l); err != nil {
		return "", false
	}
	if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" || l.Spec.RenewTime == nil {
		return "", false
	}
	h := *l.Spec.HolderIdentity
	if newHolder && h == old {
		return "", false
	}
	return h, l.Spec.RenewTime.After(t)
}

// LeaseHolder returns the Lease's holder now.
func (w *watcher) LeaseHolder(ctx context.Context) (string, error) {
	h, ok := w.leaseRenewedAfter(ctx, time.Time{}, "", false)
	if !ok {
		return "", fmt.Errorf("faults: the Lease %s has no holder", controlplane.LeaseName)
	}
	return h, nil
}

// firstReconcile waits for the leading replica's successful reconciles to
// grow: from 0 for a new leader, else from the first reading.
func (w *watcher) firstReconcile(ctx context.Context, newLeader bool) (time.Time, error) {
	baseline := map[int]float64{}
	var at time.Time
	err := wait.PollUntilContextCancel(ctx, recoveryPoll, true, func(context.Context) (bool, error) {
		for _, r := range w.replicas {
			if !r.Leads() {
				continue
			}
			op := r.Operator()
			n, err := w.reconciles(op)
			if err != nil {
				return false, nil
			}
			base, seen := baseline[op.Pid()]
			if !seen {
				if !newLeader {
					baseline[op.Pid()] = n
					return false, nil
				}
				base = 0
			}
			if n > base {
				at = time.Now()
				return true, nil
			}
		}
		return false, nil
	})
	return at, err
}

// everyReplicaController is the controller every replica runs (the policy
// loader), not only the leader.
const everyReplicaController = "validationpolicy-store"

// reconciles sums a replica's successful reconciles of leader controllers.
func (w *watcher) reconciles(op *controlplane.Operator) (float64, error) {
	code, body, err := op.Metrics(w.token)
	if err != nil {
		return 0, err
	}
	if code != http.StatusOK {
		return 0, fmt.Errorf("faults: /metrics answered %d", code)
	}
	samples, err := perfreport.Samples(body, "controller_runtime_reconcile_total")
	if err != nil {
		return 0, err
	}
	var n float64
	for _, s := range samples {
		if s.Labels["result"] == "success" && s.Labels["controller"] != everyReplicaController {
			n += s.Value
		}
	}
	return n, nil
}
