package arenarun

import (
	"context"
	"errors"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/arena/queue"
	"github.com/altairalabs/omnia/reconcile/netguard"
	testredis "github.com/altairalabs/omnia/test/redis"
)

// TestQueueDialsThroughTheEgressGuard: a queue URL naming a cloud metadata
// address (as a Workspace's service-group redis may) is never dialled: the
// connection is refused by the egress guard, not attempted; a loopback
// Redis is reached as usual.
func TestQueueDialsThroughTheEgressGuard(t *testing.T) {
	r := &Reconciler{clients: newQueueClients(DefaultMaxQueueClients, DefaultQueueClientIdle, clock.RealClock{}, dialQueue(nil))}
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

// The controller's own clients read through the reply guard: a "Redis" that
// answers the "*2\r\n$1073741824\r\n" makes State fail with
// ErrReplyTooLarge, reported without the address, and the operator
// allocates a bounded amount (go-redis alone allocates the declared GiB).
func TestQueueRefusesAHostileReplyHeader(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer func() { _ = c.Close() }()
				if _, err := c.Read(make([]byte, 4096)); err == nil {
					_, _ = c.Write([]byte("*2\r\n$1073741824\r\n"))
				}
			}()
		}
	}()
	r := &Reconciler{clients: newQueueClients(DefaultMaxQueueClients, DefaultQueueClientIdle, clock.RealClock{}, dialQueue(nil))}
	defer r.Close()
	run := &v1alpha1.ArenaRun{ObjectMeta: metav1.ObjectMeta{Namespace: "arena", Name: "nightly"}}
	q, err := r.queue(run, "redis://"+l.Addr().String()+"/0")
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, _, err = q.State(context.Background())
	runtime.ReadMemStats(&after)
	if !errors.Is(err, queue.ErrReplyTooLarge) {
		t.Fatalf("State against a hostile reply: %v, want ErrReplyTooLarge", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Fatalf("the operator allocated %d MiB for a refused reply", grew>>20)
	}
	if msg := queueErr("reading the run's queue", err).Error(); !strings.Contains(msg, "size limit") || strings.Contains(msg, l.Addr().String()) {
		t.Fatalf("queueErr = %q", msg)
	}
}
