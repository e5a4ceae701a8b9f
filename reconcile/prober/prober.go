package prober

import (
	"context"
	"sync"
	"time"
)

// Prober runs probe jobs on a bounded pool. Create it with New, add it to
// the manager (it is a leader-election runnable) and hand it to the
// controllers. Submit, Result, Retain and Events may be called before Start:
// jobs then wait for the workers.
type Prober struct {
	opts Options

	mu   sync.Mutex
	cond *sync.Cond
	// pending are the jobs waiting, by key: those in queue, and those whose
	// target is in flight with older inputs (queued when that run ends).
	pending map[Key]*Job
	// nsPending counts pending per owner namespace: what
	// Options.MaxQueuedPerNamespace bounds.
	nsPending map[string]int
	// queue is the keys waiting for a worker, served round-robin across
	// namespaces.
	queue *fairQueue
	// inFlight are the targets being probed.
	inFlight map[Key]*flight
	// hostBusy and nsBusy count the probes in flight per host and per owner
	// namespace.
	hostBusy, nsBusy map[string]int
	backoff          map[Key]backoffState
	results          map[Key]Result
	// owned are the probe keys each owner has anything under (a waiting
	// job, a run, a result or a backoff), so Retain touches only its own.
	owned   map[Owner]map[string]bool
	stopped bool

	notifiers map[string]*Notifier
	// runCtx is Start's context, for notifiers created after Start.
	runCtx context.Context
}

// flight is one running probe.
type flight struct {
	job *Job
	// discard is set when the owner forgot the target while it ran.
	discard bool
}

// New returns a Prober with opts.
func New(opts Options) *Prober {
	p := &Prober{
		opts:      opts.withDefaults(),
		pending:   map[Key]*Job{},
		nsPending: map[string]int{},
		queue:     newFairQueue(),
		inFlight:  map[Key]*flight{},
		hostBusy:  map[string]int{},
		nsBusy:    map[string]int{},
		backoff:   map[Key]backoffState{},
		results:   map[Key]Result{},
		owned:     map[Owner]map[string]bool{},
		notifiers: map[string]*Notifier{},
	}
	p.cond = sync.NewCond(&p.mu)
	return p
}

// NeedLeaderElection makes the prober run on the leader only, with the
// controllers that submit to it.
func (p *Prober) NeedLeaderElection() bool { return true }

// Start runs the workers and the notifiers until ctx is done, then waits for
// the runs in flight, which ctx cancels, to return.
func (p *Prober) Start(ctx context.Context) error {
	p.mu.Lock()
	p.runCtx = ctx
	for _, n := range p.notifiers {
		go n.Run(ctx)
	}
	p.mu.Unlock()

	var wg sync.WaitGroup
	for range p.opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.work(ctx)
		}()
	}
	<-ctx.Done()
	p.mu.Lock()
	p.stopped = true
	p.cond.Broadcast()
	p.mu.Unlock()
	wg.Wait()
	return nil
}

// Submit asks for job to run. It never blocks: the answer says whether the
// job was queued, was already pending, is held back by its target's
// backoff, or was dropped because the queue is full or its namespace
// already has its share of it (Options.MaxQueuedPerNamespace) waiting.
func (p *Prober) Submit(job Job) Submission {
	now := p.opts.Clock.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	k := job.Key
	var notBefore time.Time
	if b, ok := p.backoff[k]; ok && b.fingerprint == job.Fingerprint {
		notBefore = b.notBefore
	}
	if r, ok := p.results[k]; ok && r.Fingerprint == job.Fingerprint {
		// The floor between two probes of a target, whatever its object's
		// interval says (an interval of 1ns stored before the CRD bounded
		// it must not spin).
		if floor := r.At.Add(p.opts.MinInterval); floor.After(notBefore) {
			notBefore = floor
		}
	}
	if now.Before(notBefore) {
		p.opts.Metrics.deferred()
		return Submission{State: BackingOff, NotBefore: notBefore}
	}
	if _, ok := p.pending[k]; ok {
		// Already waiting: keep its place, take the newer inputs.
		p.pending[k] = &job
		return Submission{State: AlreadyPending}
	}
	if f, ok := p.inFlight[k]; ok && !f.discard && f.job.Fingerprint == job.Fingerprint {
		return Submission{State: AlreadyPending}
	}
	// The namespace's share first: one namespace that filled its share
	// leaves the rest of the queue to the others.
	if p.nsPending[k.Namespace] >= p.opts.MaxQueuedPerNamespace || len(p.pending) >= p.opts.QueueSize {
		p.opts.Metrics.dropped()
		return Submission{State: Dropped}
	}
	p.addPending(k, &job)
	p.own(k)
	if _, running := p.inFlight[k]; !running {
		p.queue.push(k)
		p.cond.Signal()
	}
	p.opts.Metrics.setQueued(len(p.pending))
	return Submission{State: Queued}
}

// Busy counts the jobs waiting or running.
func (p *Prober) Busy() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.pending) + len(p.inFlight)
}

// Result returns the latest stored result of a target.
func (p *Prober) Result(k Key) (Result, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.results[k]
	return r, ok
}

// Retain forgets every target of owner whose probe is not in keep: its
// result, backoff and waiting job; a run in flight finishes unrecorded.
// Controllers call it with the probes an object still has, and with none
// when the object is gone.
func (p *Prober) Retain(owner Owner, keep ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	probes := p.owned[owner]
	if len(probes) == 0 {
		return
	}
	kept := make(map[string]bool, len(keep))
	for _, k := range keep {
		kept[k] = true
	}
	droppedWaiting := false
	for probe := range probes {
		if kept[probe] {
			continue
		}
		k := Key{Owner: owner, Probe: probe}
		delete(p.results, k)
		delete(p.backoff, k)
		if _, ok := p.pending[k]; ok {
			p.removePending(k)
			droppedWaiting = true
		}
		if f, ok := p.inFlight[k]; ok {
			f.discard = true
		} else {
			delete(probes, probe)
		}
	}
	if len(probes) == 0 {
		delete(p.owned, owner)
	}
	if droppedWaiting {
		p.queue.filter(func(k Key) bool { _, ok := p.pending[k]; return ok })
		p.opts.Metrics.setQueued(len(p.pending))
	}
}

// addPending records a waiting job of a target not waiting yet. Called
// with the lock held.
func (p *Prober) addPending(k Key, job *Job) {
	p.pending[k] = job
	p.nsPending[k.Namespace]++
}

// removePending forgets a target's waiting job. Called with the lock held.
func (p *Prober) removePending(k Key) {
	delete(p.pending, k)
	if p.nsPending[k.Namespace]--; p.nsPending[k.Namespace] <= 0 {
		delete(p.nsPending, k.Namespace)
	}
}

// own records that k's owner has something under k. Called with the lock
// held.
func (p *Prober) own(k Key) {
	probes := p.owned[k.Owner]
	if probes == nil {
		probes = map[string]bool{}
		p.owned[k.Owner] = probes
	}
	probes[k.Probe] = true
}

// disown forgets k in owned when nothing is left under it. Called with the
// lock held.
func (p *Prober) disown(k Key) {
	if _, ok := p.results[k]; ok {
		return
	}
	if _, ok := p.backoff[k]; ok {
		return
	}
	if _, ok := p.pending[k]; ok {
		return
	}
	if _, ok := p.inFlight[k]; ok {
		return
	}
	if probes := p.owned[k.Owner]; probes != nil {
		delete(probes, k.Probe)
		if len(probes) == 0 {
			delete(p.owned, k.Owner)
		}
	}
}

// work is one worker: it takes the next queued job, round-robin across
// namespaces, whose host and namespace are under their limits, runs it and
// records the result.
func (p *Prober) work(ctx context.Context) {
	for {
		job, f, ok := p.next()
		if !ok {
			return
		}
		out := p.run(ctx, job)
		p.finish(ctx, job, f, out)
	}
}

// next blocks until a job may run, or the prober stops.
func (p *Prober) next() (*Job, *flight, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if p.stopped {
			return nil, nil, false
		}
		k, ok := p.queue.take(func(k Key) bool {
			return p.hostBusy[p.pending[k].Host] < p.opts.PerHost && p.nsBusy[k.Namespace] < p.opts.PerNamespace
		})
		if ok {
			job := p.pending[k]
			p.removePending(k)
			f := &flight{job: job}
			p.inFlight[k] = f
			p.hostBusy[job.Host]++
			p.nsBusy[k.Namespace]++
			p.opts.Metrics.setQueued(len(p.pending))
			p.opts.Metrics.setInFlight(len(p.inFlight))
			return job, f, true
		}
		p.cond.Wait()
	}
}

// run calls the job's function under its timeout, capped by MaxTimeout.
func (p *Prober) run(ctx context.Context, job *Job) Outcome {
	timeout := p.opts.MaxTimeout
	if job.Timeout > 0 && job.Timeout < timeout {
		timeout = job.Timeout
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return job.Run(rctx)
}

// finish records a run: the result (unless the prober is stopping, when a
// cut-short probe says nothing about the target, or the owner forgot it),
// the target's backoff, and frees the run's host and namespace slots.
func (p *Prober) finish(ctx context.Context, job *Job, f *flight, out Outcome) {
	now := p.opts.Clock.Now()
	k := job.Key
	p.mu.Lock()
	delete(p.inFlight, k)
	p.hostBusy[job.Host]--
	if p.hostBusy[job.Host] <= 0 {
		delete(p.hostBusy, job.Host)
	}
	p.nsBusy[k.Namespace]--
	if p.nsBusy[k.Namespace] <= 0 {
		delete(p.nsBusy, k.Namespace)
	}
	if _, waiting := p.pending[k]; waiting {
		p.queue.push(k)
	}
	record := ctx.Err() == nil && !f.discard
	if record {
		p.results[k] = Result{Outcome: out, Fingerprint: job.Fingerprint, At: now}
		p.updateBackoff(k, job, out, now)
	}
	p.disown(k)
	n := p.notifiers[k.Kind]
	p.opts.Metrics.setInFlight(len(p.inFlight))
	p.cond.Broadcast()
	p.mu.Unlock()

	if record {
		p.opts.Metrics.probed(out)
		if n != nil {
			n.Notify(k.NamespacedName)
		}
	}
}

// updateBackoff resets a target's backoff on success and extends it on
// failure. Called with the lock held.
func (p *Prober) updateBackoff(k Key, job *Job, out Outcome, now time.Time) {
	if !out.failed() {
		delete(p.backoff, k)
		return
	}
	b := p.backoff[k]
	if b.fingerprint != job.Fingerprint {
		b = backoffState{fingerprint: job.Fingerprint}
	}
	b.failures++
	b.notBefore = now.Add(p.opts.backoffAfter(out, b.failures, job.MaxBackoff, now))
	p.backoff[k] = b
}
