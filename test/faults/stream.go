package faults

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The stream is one deterministic, endless sequence of operations: op(k)
// depends on k and the number of groups only, so the run with faults and
// the reference run without write exactly the same objects in the same
// order (the reference replays as many operations as the fault run did).
// One operation in four writes an invalid object the webhook must refuse:
// alternately a create under a name that must never exist, and an update
// spoiling a stored object.

// Op is one operation of the stream.
type Op struct {
	Kind  string
	Group int
	// Version is the spec version a valid create (0) or update writes.
	Version int
	Update  bool
	Invalid bool
	// Name is the object written.
	Name string
}

// String names the operation in a report.
func (o Op) String() string {
	verb := "create"
	if o.Update {
		verb = "update"
	}
	if o.Invalid {
		verb = "invalid " + verb
	}
	return fmt.Sprintf("%s %s/%s", verb, o.Kind, o.Name)
}

// InvalidEvery is the share of invalid operations: op k is invalid when
// k%InvalidEvery == InvalidEvery-1.
const InvalidEvery = 4

// OpAt returns the k-th operation of a stream over groups groups.
func OpAt(k, groups int) Op {
	if k%InvalidEvery == InvalidEvery-1 {
		j := k / InvalidEvery
		kind := streamKinds[j%len(streamKinds)]
		if j%2 == 0 {
			return Op{Kind: kind, Invalid: true, Name: invalidName(kind, j)}
		}
		// Spoil an object already created: valid ops before k created
		// the first created/3 groups whole.
		created := min(validBefore(k), 3*groups) / len(streamKinds)
		g := j % max(created, 1)
		return Op{Kind: kind, Group: g, Invalid: true, Update: true, Name: objectName(kind, g)}
	}
	m := validBefore(k)
	perRound := len(streamKinds) * groups
	kind := streamKinds[m%len(streamKinds)]
	if m < perRound {
		g := m / len(streamKinds)
		return Op{Kind: kind, Group: g, Name: objectName(kind, g)}
	}
	// Then one valid write in CreateEvery creates another Provider or
	// ToolRegistry (cheap objects: no Deployment), so creates go on through
	// every fault; the others update the first groups round after round.
	u := m - perRound
	if u%CreateEvery == 0 {
		e := u / CreateEvery
		kind, g := KindProvider, groups+e/2
		if e%2 == 1 {
			kind = KindToolRegistry
		}
		return Op{Kind: kind, Group: g, Name: objectName(kind, g)}
	}
	q := u - u/CreateEvery - 1 // updates before this one
	kind = streamKinds[q%len(streamKinds)]
	g := (q % perRound) / len(streamKinds)
	return Op{Kind: kind, Group: g, Version: q/perRound + 1, Update: true, Name: objectName(kind, g)}
}

// CreateEvery: after the first groups, one valid operation in CreateEvery
// is a create.
const CreateEvery = 4

// validBefore is how many valid operations come before op k.
func validBefore(k int) int { return k - (k+1)/InvalidEvery }

// Attempt is one failed attempt of an operation (it is retried).
type Attempt struct {
	At    time.Time
	Class ErrorClass
	Op    string
	// Create: the operation was a create (valid or not).
	Create bool
	// Code is the HTTP status the API server answered (0: no answer, the
	// connection failed or timed out).
	Code int32
	Err  string
}

// maxAttemptsKept bounds the failed attempts a stream keeps (the count
// goes on).
const maxAttemptsKept = 20000

// Stream runs the operations against one namespace.
type Stream struct {
	Client    client.Client
	Namespace string
	Groups    int
	// Interval paces the operations (0: as fast as they complete).
	Interval time.Duration
	// RetryPause is how long a failed attempt waits (0: retryPause).
	RetryPause time.Duration

	mu sync.Mutex
	// Done is how many operations completed.
	done     int
	attempts []Attempt
	failed   int
	// denied counts invalid writes the webhook refused; admitted lists
	// those it let in (must stay empty).
	denied   int
	admitted []string
	// denials keeps one refusal message per kind, to show who refused.
	denials map[string]string
	// landed lists operations one of whose failed attempts was stored all
	// the same (seen on the retry: AlreadyExists, or the spec already
	// written), with the error the writer was told: told an error, written
	// anyway, and retried harmlessly.
	landed []string
}

// maxUnexplained is how many failures of one operation that no fault
// explains (ClassOther) end the stream.
const maxUnexplained = 25

// retryPause is how long a failed attempt waits before the next.
const retryPause = 200 * time.Millisecond

// Run performs the stream's operations with workers writers until stop
// closes or limit operations (when limit > 0) are done, or ctx ends. The
// operations of one object stay in order on one writer (partition), so
// objects end as a sequential run would leave them. When stop closes, the
// writers finish every operation before the last one any of them started,
// so the operations done are always the stream's first Report().Done,
// which a replay repeats. Interval paces the stream, not each writer:
// operation k is due Interval×k after the start, so the writers keep
// together, and one held up by a fault catches up afterwards; after stop
// they finish unpaced.
func (s *Stream) Run(ctx context.Context, stop <-chan struct{}, limit, workers int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := &prefix{end: math.MaxInt, stopped: make(chan struct{})}
	if limit > 0 {
		p.end = limit
	}
	if stop != nil {
		go func() {
			select {
			case <-stop:
				p.close()
			case <-ctx.Done():
			}
		}()
	}
	start := time.Now()
	errs := make(chan error, workers)
	for w := range workers {
		go func() { errs <- s.write(ctx, w, workers, p, start) }()
	}
	var first error
	for range workers {
		if err := <-errs; err != nil && first == nil {
			first = err
			cancel()
		}
	}
	return first
}

// write is writer w's loop: its operations, in order, until the prefix
// ends.
func (s *Stream) write(ctx context.Context, w, workers int, p *prefix, start time.Time) error {
	for k := 0; ; k++ {
		op := OpAt(k, s.Groups)
		if partition(op, k)%workers != w {
			if p.past(k) {
				return nil
			}
			continue
		}
		if !p.start(k) {
			return nil
		}
		if wait := time.Until(start.Add(time.Duration(k) * s.Interval)); s.Interval > 0 && wait > 0 {
			select {
			case <-time.After(wait):
			case <-p.stopped:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if err := s.do(ctx, op); err != nil {
			return err
		}
		s.mu.Lock()
		s.done++
		s.mu.Unlock()
	}
}

// prefix is the end of the operations a run performs: unbounded (or its
// limit) until stop, then one past the last operation any writer started.
type prefix struct {
	mu      sync.Mutex
	end     int
	started int
	stopped chan struct{}
	once    sync.Once
}

// start reports whether operation k is in the run, and records it started.
func (p *prefix) start(k int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k >= p.end {
		return false
	}
	p.started = max(p.started, k+1)
	return true
}

// past reports whether operation k is beyond the run.
func (p *prefix) past(k int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return k >= p.end
}

// close ends the run after the operations started so far.
func (p *prefix) close() {
	p.once.Do(func() {
		p.mu.Lock()
		p.end = min(p.end, p.started)
		p.mu.Unlock()
		close(p.stopped)
	})
}

// partition says which writer performs op k: its group's, or, for
// an invalid create (an object of its own), its position's.
func partition(op Op, k int) int {
	if op.Invalid && !op.Update {
		return k
	}
	return op.Group
}

// do performs one operation, retrying until it has its outcome: a valid
// write stored, an invalid write refused by the webhook (or, a failure of
// the run, stored).
func (s *Stream) do(ctx context.Context, op Op) error {
	unexplained := 0
	var lastErr error
	for {
		already, err := s.attempt(ctx, op)
		if lastErr != nil && (already || (!op.Update && apierrors.IsAlreadyExists(err))) {
			s.mu.Lock()
			if len(s.landed) < maxAttemptsKept {
				s.landed = append(s.landed, fmt.Sprintf("%s, stored although told %s: %v", op, classify(lastErr), lastErr))
			}
			s.mu.Unlock()
			lastErr = nil
		}
		if op.Invalid {
			switch {
			case err == nil:
				s.mu.Lock()
				s.admitted = append(s.admitted, op.String())
				s.mu.Unlock()
				return nil
			case isWebhookDenial(err):
				s.mu.Lock()
				s.denied++
				if s.denials == nil {
					s.denials = map[string]string{}
				}
				if _, ok := s.denials[op.Kind]; !ok {
					s.denials[op.Kind] = err.Error()
				}
				s.mu.Unlock()
				return nil
			}
		} else if err == nil || (!op.Update && apierrors.IsAlreadyExists(err)) {
			// AlreadyExists: an earlier attempt was stored although its
			// answer was lost.
			return nil
		}
		s.record(op, err)
		lastErr = err
		// A fault explains connection errors, timeouts and an
		// unreachable webhook; anything else, again and again, is a bug
		// the stream must not hide by retrying for ever.
		if c := classify(err); c == ClassOther || c == ClassWebhookDenied {
			if unexplained++; unexplained >= maxUnexplained {
				return fmt.Errorf("faults: %s failed %d times: %w", op, unexplained, err)
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (last error: %v)", op, ctx.Err(), err)
		case <-time.After(cmp.Or(s.RetryPause, retryPause)):
		}
	}
}

// attempt sends one write of op. already reports that an update found
// its spec already stored (an earlier attempt landed).
func (s *Stream) attempt(ctx context.Context, op Op) (already bool, err error) {
	var want client.Object
	if op.Invalid {
		want = invalidObject(s.Namespace, op.Kind, op.Group, op.Name)
	} else {
		want = validObject(s.Namespace, op.Kind, op.Group, op.Version)
	}
	if !op.Update {
		return false, s.Client.Create(ctx, want)
	}
	// An update writes the wanted spec over the stored object; when an
	// earlier attempt was stored, writing the same spec again changes
	// nothing (no new generation).
	stored := newObject(op.Kind)
	if err := s.Client.Get(ctx, client.ObjectKeyFromObject(want), stored); err != nil {
		return false, err
	}
	if already, err = SpecHolds(stored, want); err != nil {
		return false, err
	}
	if err := copySpec(stored, want); err != nil {
		return already, err
	}
	return already, s.Client.Update(ctx, stored)
}

// record keeps a failed attempt.
func (s *Stream) record(op Op, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failed++
	if len(s.attempts) < maxAttemptsKept {
		s.attempts = append(s.attempts, Attempt{At: time.Now(), Class: classify(err), Op: op.String(), Create: !op.Update,
			Code: httpCode(err), Err: err.Error()})
	}
}

// StreamReport is what a stream did.
type StreamReport struct {
	Done     int
	Failed   int
	Attempts []Attempt
	Denied   int
	Admitted []string
	Denials  map[string]string
	// Landed lists operations a failed attempt of which was stored anyway.
	Landed []string
}

// Report returns a copy of the stream's counts.
func (s *Stream) Report() StreamReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	denials := map[string]string{}
	for k, v := range s.denials {
		denials[k] = v
	}
	return StreamReport{Done: s.done, Failed: s.failed, Attempts: append([]Attempt(nil), s.attempts...),
		Denied: s.denied, Admitted: append([]string(nil), s.admitted...), Denials: denials,
		Landed: append([]string(nil), s.landed...)}
}
