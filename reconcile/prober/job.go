package prober

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Owner is the object a probe reports on. Kind selects the controller the
// result is announced to (see Prober.Events).
type Owner struct {
	Kind string
	types.NamespacedName
}

// Key names one probe target: an owner and a probe within it (e.g.
// "endpoint", "credential", or a tool's dial address). Deduplication,
// backoff and results are per Key.
type Key struct {
	Owner
	Probe string
}

// Job is one probe to run.
type Job struct {
	Key Key
	// Fingerprint identifies the probe's inputs (URL, headers, Secret
	// version; never a credential value). A Result answers the fingerprint
	// of the job that produced it, so a controller can tell a result about
	// its current spec from one about a previous spec. Backoff is reset when
	// the fingerprint changes: a corrected endpoint is probed at once.
	Fingerprint string
	// Host is what the per-host limit counts (a URL's host:port or a dial
	// address).
	Host string
	// Timeout bounds the run (capped by Options.MaxTimeout; 0 means the cap).
	Timeout time.Duration
	// MaxBackoff, when positive and below Options.BackoffMax, caps this
	// target's exponential backoff (e.g. a Provider's health interval, which
	// the spec fixes). A 429's Retry-After is not capped by it.
	MaxBackoff time.Duration
	// Run performs the probe. It must return when ctx is done.
	Run func(ctx context.Context) Outcome
}

// Outcome is what one probe observed.
type Outcome struct {
	// StatusCode is the HTTP status of the response; 0 when there was none
	// (or for a TCP dial).
	StatusCode int
	// Failure names why there was no answer (a condition reason such as
	// ConnectionFailed or ProbeTimeout); empty when the probe got one.
	Failure string
	// Detail describes the outcome for a condition message. It never holds a
	// credential.
	Detail string
	// RetryAfter is the Retry-After header of a 429 response, as sent.
	RetryAfter string
}

// failed reports whether the outcome backs the target off: no answer, a
// 429, or a server error.
func (o Outcome) failed() bool {
	return o.Failure != "" || o.StatusCode == 429 || o.StatusCode >= 500
}

// Result is a stored outcome.
type Result struct {
	Outcome
	// Fingerprint is the Job's.
	Fingerprint string
	// At is when the probe finished, on the prober's clock.
	At time.Time
}

// State is what Submit did with a job.
type State int

const (
	// Queued: the job waits for a worker.
	Queued State = iota
	// AlreadyPending: the target was already queued (the waiting job now has
	// the newer inputs) or is in flight with the same fingerprint.
	AlreadyPending
	// BackingOff: the target failed recently; it is not probed before
	// Submission.NotBefore.
	BackingOff
	// Dropped: the queue is full. Nothing will run; submit again later.
	Dropped
)

func (s State) String() string {
	switch s {
	case Queued:
		return "Queued"
	case AlreadyPending:
		return "AlreadyPending"
	case BackingOff:
		return "BackingOff"
	case Dropped:
		return "Dropped"
	}
	return "Unknown"
}

// Submission is Submit's answer.
type Submission struct {
	State State
	// NotBefore is when a BackingOff target may be probed again.
	NotBefore time.Time
}
