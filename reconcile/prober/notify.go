package prober

import (
	"context"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"
)

// eventBuffer is the capacity of each kind's event channel.
const eventBuffer = 256

// Events returns the channel on which every stored result of kind's owners
// is announced, for a controller's source.Channel: the event's object
// carries only the owner's namespace and name, enough for
// handler.EnqueueRequestForObject. Call it once per kind.
//
// Announcements never hold up a worker: owners with a result not yet
// announced are kept in a set (one entry per owner however many results
// arrive) that a goroutine drains into the channel.
func (p *Prober) Events(kind string) <-chan event.GenericEvent {
	p.mu.Lock()
	defer p.mu.Unlock()
	n, ok := p.notifiers[kind]
	if !ok {
		n = NewNotifier(eventBuffer)
		p.notifiers[kind] = n
		if p.runCtx != nil {
			go n.Run(p.runCtx)
		}
	}
	return n.out
}

// Notifier announces one kind's owners as events on a channel (the
// prober's results; the Arena fetcher's answers), for a controller's
// source.Channel. Notify never blocks: owners not yet announced are kept
// in a set (one entry per owner however often it is notified) that Run
// drains into the channel.
type Notifier struct {
	out  chan event.GenericEvent
	wake chan struct{}

	mu    sync.Mutex
	owing map[types.NamespacedName]bool
	order []types.NamespacedName
}

// NewNotifier returns a Notifier whose channel holds buffer events; start
// it with Run.
func NewNotifier(buffer int) *Notifier {
	return &Notifier{out: make(chan event.GenericEvent, buffer), wake: make(chan struct{}, 1), owing: map[types.NamespacedName]bool{}}
}

// Events is the channel the owners are announced on.
func (n *Notifier) Events() <-chan event.GenericEvent { return n.out }

// Notify queues owner's announcement.
func (n *Notifier) Notify(owner types.NamespacedName) {
	n.mu.Lock()
	if !n.owing[owner] {
		n.owing[owner] = true
		n.order = append(n.order, owner)
	}
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// Run announces the queued owners until ctx is done.
func (n *Notifier) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-n.wake:
		}
		for {
			n.mu.Lock()
			if len(n.order) == 0 {
				n.mu.Unlock()
				break
			}
			owner := n.order[0]
			n.order = n.order[1:]
			delete(n.owing, owner)
			n.mu.Unlock()
			ev := event.GenericEvent{Object: &metav1.PartialObjectMetadata{
				ObjectMeta: metav1.ObjectMeta{Namespace: owner.Namespace, Name: owner.Name},
			}}
			select {
			case n.out <- ev:
			case <-ctx.Done():
				return
			}
		}
	}
}
