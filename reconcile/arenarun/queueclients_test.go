package arenarun

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
)

// lazyClients is a queueClients whose clients never dial (go-redis connects
// on first use), with a fake clock.
func lazyClients(max int, idle time.Duration) (*queueClients, *clocktesting.FakeClock) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	return newQueueClients(max, idle, clk, func(url string) (*redis.Client, error) {
		return redis.NewClient(&redis.Options{Addr: url}), nil
	}), clk
}

func closed(c *redis.Client) bool {
	return errors.Is(c.Ping(context.Background()).Err(), redis.ErrClosed)
}

func runKey(name string) types.NamespacedName {
	return types.NamespacedName{Namespace: "ns", Name: name}
}

// The runs on one URL share its client; it is closed with the last of them
// (a run that ends releases it), and a run moving to another URL releases
// the first.
func TestQueueClientsCloseWithTheirLastRun(t *testing.T) {
	p, _ := lazyClients(8, time.Hour)
	a, err := p.get(runKey("a"), "127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := p.get(runKey("b"), "127.0.0.1:1")
	if a != b || p.len() != 1 {
		t.Fatalf("two runs on one URL got %d clients", p.len())
	}
	p.release(runKey("a"))
	if p.len() != 1 || closed(a) {
		t.Fatal("the client closed while run b still holds it")
	}
	p.release(runKey("b"))
	if p.len() != 0 || !closed(a) {
		t.Fatalf("after its last run ended: %d clients, closed %v", p.len(), closed(a))
	}
	p.release(runKey("b")) // releasing twice is harmless

	c, _ := p.get(runKey("c"), "127.0.0.1:2")
	if _, err := p.get(runKey("c"), "127.0.0.1:3"); err != nil {
		t.Fatal(err)
	}
	if p.len() != 1 || !closed(c) {
		t.Fatalf("a run that moved URL left %d clients (first closed %v)", p.len(), closed(c))
	}
}

// At most max clients are open (the least recently used makes room), and
// a client unused for the idle timeout is closed whoever holds it.
func TestQueueClientsAreBounded(t *testing.T) {
	p, clk := lazyClients(2, time.Minute)
	first, _ := p.get(runKey("1"), "127.0.0.1:1")
	clk.Step(time.Second)
	second, _ := p.get(runKey("2"), "127.0.0.1:2")
	clk.Step(time.Second)
	if _, err := p.get(runKey("3"), "127.0.0.1:3"); err != nil {
		t.Fatal(err)
	}
	if p.len() != 2 || !closed(first) || closed(second) {
		t.Fatalf("%d clients open (max 2); oldest closed %v, second closed %v", p.len(), closed(first), closed(second))
	}
	// Run 1's next reconcile gets a client again.
	again, _ := p.get(runKey("1"), "127.0.0.1:1")
	if again == first || closed(again) {
		t.Fatal("the evicted run got its closed client back")
	}

	clk.Step(2 * time.Minute)
	if _, err := p.get(runKey("4"), "127.0.0.1:4"); err != nil {
		t.Fatal(err)
	}
	if p.len() != 1 || !closed(again) {
		t.Fatalf("after the idle timeout %d clients are open, want only the new one", p.len())
	}
	p.closeAll()
	if p.len() != 0 {
		t.Fatal("closeAll left clients")
	}
}
