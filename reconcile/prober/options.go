package prober

import (
	"time"

	"k8s.io/utils/clock"
)

// Defaults of Options.
const (
	DefaultWorkers       = 32
	DefaultPerHost       = 2
	DefaultPerNamespace  = 4
	DefaultQueueSize     = 1024
	DefaultMaxTimeout    = time.Minute
	DefaultBackoffBase   = time.Second
	DefaultBackoffMax    = 5 * time.Minute
	DefaultMaxRetryAfter = 10 * time.Minute
	DefaultMinInterval   = time.Second
	// DefaultQueueShareDivisor and DefaultMinQueuedPerNamespace make the
	// default MaxQueuedPerNamespace: max(QueueSize/8, 16), never above
	// QueueSize (128 of the default 1024 slots).
	DefaultQueueShareDivisor     = 8
	DefaultMinQueuedPerNamespace = 16
)

// Options configure a Prober. Zero values take the defaults.
type Options struct {
	// Workers is the operator-wide cap on probes in flight. Default 32: a
	// probe is a goroutine and a socket, cheap; what the cap bounds is the
	// operator's open connections.
	Workers int
	// PerHost caps the probes in flight to one Job.Host. Default 2.
	PerHost int
	// PerNamespace caps the probes in flight for the owners of one
	// namespace. Default 4 (at most half the workers, at least 1): a
	// namespace's hanging endpoints, on however many hosts, hold at most
	// that many workers, so with the default pool it takes eight namespaces
	// whose endpoints all hang to make a ninth's probes wait — and then for
	// at most MaxTimeout.
	PerNamespace int
	// QueueSize bounds the jobs waiting (queued or waiting for their own
	// in-flight run to end). Default 1024.
	QueueSize int
	// MaxQueuedPerNamespace bounds the jobs of one owner namespace waiting
	// (counted as QueueSize counts): a job of a namespace that has this many
	// waiting is Dropped, counted like a full queue's, while other
	// namespaces' jobs are still queued. Default max(QueueSize/8, 16),
	// capped at QueueSize: it takes eight namespaces each at its share to
	// fill the default queue. Waiting jobs are served round-robin by
	// namespace, so a long backlog delays another namespace's next job by
	// at most one job per waiting namespace.
	MaxQueuedPerNamespace int
	// MaxTimeout cuts every run, whatever its Job.Timeout. Default 1 minute.
	MaxTimeout time.Duration
	// BackoffBase is the wait after a target's first failure; it doubles
	// with each further failure up to BackoffMax. Defaults 1s and 5m.
	BackoffBase, BackoffMax time.Duration
	// MaxRetryAfter caps the wait a 429's Retry-After asks for. Default 10m.
	MaxRetryAfter time.Duration
	// MinInterval is the least time between two probes of a target with the
	// same inputs, whatever its object asks. Default 1s.
	MinInterval time.Duration
	// Clock stamps results and measures backoff. Default the real clock.
	Clock clock.PassiveClock
	// Metrics, when set, receive the prober's series.
	Metrics *Metrics
}

func (o Options) withDefaults() Options {
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	if o.PerHost <= 0 {
		o.PerHost = DefaultPerHost
	}
	if o.PerNamespace <= 0 {
		o.PerNamespace = max(1, min(DefaultPerNamespace, o.Workers/2))
	}
	if o.QueueSize <= 0 {
		o.QueueSize = DefaultQueueSize
	}
	if o.MaxQueuedPerNamespace <= 0 {
		o.MaxQueuedPerNamespace = max(o.QueueSize/DefaultQueueShareDivisor, DefaultMinQueuedPerNamespace)
	}
	o.MaxQueuedPerNamespace = min(o.MaxQueuedPerNamespace, o.QueueSize)
	if o.MaxTimeout <= 0 {
		o.MaxTimeout = DefaultMaxTimeout
	}
	if o.BackoffBase <= 0 {
		o.BackoffBase = DefaultBackoffBase
	}
	if o.BackoffMax <= 0 {
		o.BackoffMax = DefaultBackoffMax
	}
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if o.MinInterval <= 0 {
		o.MinInterval = DefaultMinInterval
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	return o
}
