package agentruntime

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
)

// istioRecheck is how long a "not served" answer is trusted before the
// RESTMapper is asked again: a cluster without Istio costs one discovery
// request per interval, not one per reconcile, and Istio installed after
// the operator started is picked up within it.
const istioRecheck = time.Minute

// istioAvailability caches whether the VirtualService kind is served
// (like Reconciler.kedaServed): a positive answer is kept until a request
// fails with "no match" (the CRDs were removed); a negative one for
// istioRecheck.
type istioAvailability struct {
	mu        sync.Mutex
	known     bool
	checkedAt time.Time
}

// served reports whether the mesh is available.
func (a *istioAvailability) served(mapper meta.RESTMapper, now time.Time) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.known {
		return true
	}
	if !a.checkedAt.IsZero() && now.Sub(a.checkedAt) < istioRecheck && now.After(a.checkedAt) {
		return false
	}
	a.checkedAt = now
	a.known = clusterfacts.Installed(mapper, workload.VirtualServiceGroupKind)
	return a.known
}

// forgetOnNoMatch drops a positive answer when err says the kind is no
// longer served, and returns err.
func (a *istioAvailability) forgetOnNoMatch(err error) error {
	if meta.IsNoMatchError(err) {
		a.mu.Lock()
		a.known, a.checkedAt = false, time.Time{}
		a.mu.Unlock()
	}
	return err
}
