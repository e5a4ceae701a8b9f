package arenarun

import (
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
)

// Bounds on the Redis clients the controller keeps open (Options
// MaxQueueClients, QueueClientIdle).
const (
	// DefaultMaxQueueClients bounds the clients open at once: one per
	// distinct queue URL in use (every Default run shares one).
	DefaultMaxQueueClients = 64
	// DefaultQueueClientIdle closes a client no reconcile used for this
	// long, whoever still holds it (a run deleted while the operator was
	// down is never released).
	DefaultQueueClientIdle = 10 * time.Minute
)

// QueueClientName is the CLIENT SETNAME of the controller's connections:
// CLIENT LIST on a queue's Redis shows which are the operator's.
const QueueClientName = "omnia-arenarun"

// queueClients holds one Redis client per queue URL, shared by the runs on
// it. A run's reference is dropped when the run ends (finished, cancelled,
// deleted) and the client is closed with its last run; a client idle for
// the idle timeout is closed whoever holds it, and the least recently used
// one makes room when max are open. A run whose client was closed gets a new
// one at its next reconcile.
type queueClients struct {
	max   int
	idle  time.Duration
	clock clock.PassiveClock
	dial  func(url string) (*redis.Client, error)

	mu    sync.Mutex
	byURL map[string]*queueClient
	// urlOf is the URL each run holds.
	urlOf map[types.NamespacedName]string
}

type queueClient struct {
	c        *redis.Client
	runs     map[types.NamespacedName]struct{}
	lastUsed time.Time
}

func newQueueClients(max int, idle time.Duration, clk clock.PassiveClock, dial func(string) (*redis.Client, error)) *queueClients {
	return &queueClients{max: max, idle: idle, clock: clk, dial: dial,
		byURL: map[string]*queueClient{}, urlOf: map[types.NamespacedName]string{}}
}

// get returns the client of url for run, opening it when none is.
func (p *queueClients) get(run types.NamespacedName, url string) (*redis.Client, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock.Now()
	if held, ok := p.urlOf[run]; ok && held != url {
		p.dropLocked(run)
	}
	p.evictIdleLocked(now)
	qc := p.byURL[url]
	if qc == nil {
		for len(p.byURL) >= p.max {
			p.evictOldestLocked()
		}
		c, err := p.dial(url)
		if err != nil {
			return nil, err
		}
		qc = &queueClient{c: c, runs: map[types.NamespacedName]struct{}{}}
		p.byURL[url] = qc
	}
	qc.runs[run] = struct{}{}
	qc.lastUsed = now
	p.urlOf[run] = url
	return qc.c, nil
}

// release drops run's reference; the client closes with its last run.
func (p *queueClients) release(run types.NamespacedName) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropLocked(run)
}

// len is the number of open clients.
func (p *queueClients) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.byURL)
}

// closeAll closes every client.
func (p *queueClients) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for url := range p.byURL {
		p.closeLocked(url)
	}
}

func (p *queueClients) dropLocked(run types.NamespacedName) {
	url, ok := p.urlOf[run]
	if !ok {
		return
	}
	delete(p.urlOf, run)
	qc := p.byURL[url]
	if qc == nil {
		return
	}
	delete(qc.runs, run)
	if len(qc.runs) == 0 {
		p.closeLocked(url)
	}
}

func (p *queueClients) evictIdleLocked(now time.Time) {
	for url, qc := range p.byURL {
		if now.Sub(qc.lastUsed) >= p.idle {
			p.closeLocked(url)
		}
	}
}

func (p *queueClients) evictOldestLocked() {
	var oldest string
	var at time.Time
	for url, qc := range p.byURL {
		if oldest == "" || qc.lastUsed.Before(at) {
			oldest, at = url, qc.lastUsed
		}
	}
	p.closeLocked(oldest)
}

// closeLocked closes the client of url and forgets every run holding it.
func (p *queueClients) closeLocked(url string) {
	qc := p.byURL[url]
	if qc == nil {
		return
	}
	for run := range qc.runs {
		delete(p.urlOf, run)
	}
	delete(p.byURL, url)
	_ = qc.c.Close()
}
