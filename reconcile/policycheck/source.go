package policycheck

import (
	"context"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/altairalabs/omnia/rules"
)

// Policies is what a reconciler needs of the policies in force: the
// operator's policies.Store satisfies it (reconcile/ does not import
// policies). Nil means no policies: the built-in catalog, and nothing to
// watch.
type Policies interface {
	// Catalog is the catalog in force, built-in and policy rules.
	Catalog() *rules.Catalog
	// Changes is closed at the next change of the catalog.
	Changes() <-chan struct{}
}

// OnChange is a controller source that re-reconciles every object of kind
// (list returns them, from the cache) when the catalog in force changes in a
// way that may concern kind — a policy for it added, edited or removed — so
// a policy change is answered without waiting for each object's own next
// event. It runs with its controller (on the leader) and stops with it. A
// nil p gives a source that never fires.
func OnChange(p Policies, kind string, list func(context.Context) []reconcile.Request) source.Source {
	return source.Func(func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		if p == nil {
			return nil
		}
		// Take the channel before reading the catalog, so a change made
		// between the two is not missed.
		changed := p.Changes()
		before := p.Catalog()
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-changed:
				}
				changed = p.Changes()
				after := p.Catalog()
				// A kind no policy judged before or after the change
				// has nothing to answer: its objects are left alone.
				if Judges(before, kind) || Judges(after, kind) {
					for _, req := range list(ctx) {
						q.Add(req)
					}
				}
				before = after
			}
		}()
		return nil
	})
}
