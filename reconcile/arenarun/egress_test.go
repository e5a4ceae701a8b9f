package arenarun

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/netguard"
	testredis "github.com/altairalabs/omnia/test/redis"
)

// TestQueueDialsThroughTheEgressGuard: a queue URL naming a cloud metadata
// address (as a Workspace's service-group redis may) is never dialled: the
// connection is refused by the egress guard, not attempted; a loopback
// Redis is reached as usual.
func TestQueueDialsThroughTheEgressGuard(t *testing.T) {
	r := &Reconciler{clients: map[string]*redis.Client{}}
	defer r.Close()
	run := &v1alpha1.ArenaRun{ObjectMeta: metav1.ObjectMeta{Namespace: "arena", Name: "nightly"}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	q, err := r.queue(run, "redis://169.254.169.254:6379/0")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = q.State(ctx)
	var blocked *netguard.BlockedError
	if !errors.As(err, &blocked) {
		t.Fatalf("State on a metadata address: %v, want the egress guard's refusal", err)
	}

	srv := testredis.Start(t)
	q, err = r.queue(run, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := q.State(ctx); err != nil {
		t.Fatalf("State on the loopback Redis: %v", err)
	}
}
