package source

// The Fetcher takes the network and the disk out of the Arena controllers'
// reconcile workers. A reconcile never waits on a git server (nor on a
// snapshot written to the content volume): it asks the Opener, which reads
// the answer the Fetcher stored for that question, or queues the job that
// will answer it and returns ErrFetching at once; the reconcile says so in
// its status and requeues. When the job ends, the controllers that asked
// are told through a controller-runtime source.Channel (Events), and their
// next reconcile reads the answer.
//
// The pool is bounded as the prober's is (reconcile/prober), so one
// tenant's slow or hostile servers cannot take the operator's fetches, nor
// its memory:
//
//   - FetcherOptions.Workers jobs run at once in the whole operator (each
//     holds at most Config.MaxObjectBytes of objects and a pack on disk);
//   - at most PerHost of them to one host:port, and at most PerNamespace
//     for the projects of one namespace;
//   - at most QueueSize jobs wait, and at most NamespaceQueue of one
//     namespace: a namespace that asks for more is told the queue is full
//     (still ErrFetching; it asks again at its next requeue), and leaves
//     the others their place;
//   - the same question asked again while its job waits or runs is not
//     queued twice;
//   - every job is cut at its time bound (Config.ListTimeout for a refs
//     listing, Config.FetchTimeout for a fetch);
//   - answers are kept ResultTTL, at most MaxResults of them and
//     MaxResultBytes in all, oldest first out.
//
// A question is named by what decides its answer: the project (namespace,
// name, UID, generation), the URL, an identity of the credentials (an HMAC
// under a key of this process, never the credentials), and for a snapshot
// the ref and arena file. Credentials reach the job only in its closure,
// for the time it waits and runs.

import (
	"container/list"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/prober"
)

// Defaults of FetcherOptions.
const (
	DefaultFetchWorkers        = 2
	DefaultFetchPerHost        = 1
	DefaultFetchPerNamespace   = 1
	DefaultFetchQueueSize      = 64
	DefaultFetchNamespaceQueue = 8
	DefaultFetchResultTTL      = 30 * time.Second
	DefaultFetchMaxResults     = 256
	DefaultFetchMaxResultBytes = 16 << 20
)

// Kinds a Fetcher announces finished jobs to (Events).
const (
	// KindArenaProject: the ArenaProject controller's refs listings; the
	// event names the project.
	KindArenaProject = "ArenaProject"
	// KindArenaRun: the ArenaRun controller's snapshots; the event names
	// the project (the controller maps it to its runs).
	KindArenaRun = "ArenaRun"
)

// FetcherOptions bound a Fetcher. Zero values take the defaults.
type FetcherOptions struct {
	// Workers is the operator-wide cap on fetch jobs running. Default 2.
	Workers int
	// PerHost caps the jobs running against one host:port. Default 1.
	PerHost int
	// PerNamespace caps the jobs running for the projects of one
	// namespace. Default 1.
	PerNamespace int
	// QueueSize bounds the jobs waiting. Default 64.
	QueueSize int
	// NamespaceQueue bounds the jobs of one namespace waiting. Default 8.
	NamespaceQueue int
	// ResultTTL is how long an answer is kept (and given again to whoever
	// asks the same question). Default 30s.
	ResultTTL time.Duration
	// MaxResults and MaxResultBytes bound the answers kept. Defaults 256
	// and 16 MiB.
	MaxResults     int
	MaxResultBytes int64
	// Clock stamps the answers. Default: the real clock.
	Clock clock.PassiveClock
}

func (o FetcherOptions) withDefaults() FetcherOptions {
	if o.Workers <= 0 {
		o.Workers = DefaultFetchWorkers
	}
	if o.PerHost <= 0 {
		o.PerHost = DefaultFetchPerHost
	}
	if o.PerNamespace <= 0 {
		o.PerNamespace = DefaultFetchPerNamespace
	}
	if o.QueueSize <= 0 {
		o.QueueSize = DefaultFetchQueueSize
	}
	if o.NamespaceQueue <= 0 {
		o.NamespaceQueue = min(DefaultFetchNamespaceQueue, o.QueueSize)
	}
	if o.ResultTTL <= 0 {
		o.ResultTTL = DefaultFetchResultTTL
	}
	if o.MaxResults <= 0 {
		o.MaxResults = DefaultFetchMaxResults
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = DefaultFetchMaxResultBytes
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	return o
}

// errFetchQueueFull: the job could not be queued.
var errFetchQueueFull = errors.New("the operator's fetch queue is full")

// Fetcher runs fetch jobs on a bounded pool and keeps their answers. Create
// it with NewFetcher; add it to the manager (it is a leader-election
// runnable: Start cancels the jobs in flight when the manager stops) and
// hand it to both Arena controllers' Openers.
type Fetcher struct {
	opts FetcherOptions
	// idKey keys the HMAC that names credentials.
	idKey [32]byte

	ctx    context.Context
	cancel context.CancelFunc

	mu sync.Mutex
	// waiting is the FIFO of queued jobs; jobs are the jobs queued or
	// running, by key.
	waiting  []*fetchJob
	jobs     map[string]*fetchJob
	running  int
	hostBusy map[string]int
	nsBusy   map[string]int
	nsQueued map[string]int
	// results are the answers, oldest at the front of order.
	results     map[string]*list.Element
	order       *list.List
	resultBytes int64

	notifiers map[string]*prober.Notifier
}

// fetchJob is one question being answered.
type fetchJob struct {
	key       string
	namespace string
	// host is what PerHost counts ("" for a hosted project: no host).
	host    string
	owner   types.NamespacedName
	kinds   map[string]bool
	timeout time.Duration
	running bool
	run     func(ctx context.Context) []keyedAnswer
}

// keyedAnswer is one answer a job stores: its own key's, and others it
// answers as well (a snapshot's commit).
type keyedAnswer struct {
	key   string
	value any
	err   error
	// size is what the answer holds, for MaxResultBytes.
	size int64
}

// fetchResult is a stored answer.
type fetchResult struct {
	key   string
	value any
	err   error
	at    time.Time
	size  int64
}

// NewFetcher returns a Fetcher with opts. It runs jobs as soon as they are
// submitted; Start only ties their lifetime to the manager's.
func NewFetcher(opts FetcherOptions) *Fetcher {
	ctx, cancel := context.WithCancel(context.Background())
	f := &Fetcher{
		opts: opts.withDefaults(), ctx: ctx, cancel: cancel,
		jobs: map[string]*fetchJob{}, hostBusy: map[string]int{}, nsBusy: map[string]int{}, nsQueued: map[string]int{},
		results: map[string]*list.Element{}, order: list.New(), notifiers: map[string]*prober.Notifier{},
	}
	_, _ = rand.Read(f.idKey[:])
	return f
}

// NeedLeaderElection: the fetcher runs with the controllers that use it.
func (f *Fetcher) NeedLeaderElection() bool { return true }

// Start waits for ctx to end, then cancels the jobs in flight.
func (f *Fetcher) Start(ctx context.Context) error {
	<-ctx.Done()
	f.cancel()
	return nil
}

// credentialsID names creds for a question's key without holding them: an
// HMAC under this process's key ("" for none).
func (f *Fetcher) credentialsID(c *Credentials) string {
	if c == nil {
		return ""
	}
	m := hmac.New(sha256.New, f.idKey[:])
	m.Write([]byte(c.Username))
	m.Write([]byte{0})
	m.Write([]byte(c.Password))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// questionKey names a question by its parts.
func questionKey(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// lookup returns key's answer if one younger than ResultTTL is kept; take
// removes it (the question will be asked anew next time).
func (f *Fetcher) lookup(key string, take bool) (fetchResult, bool) {
	now := f.opts.Clock.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	el, ok := f.results[key]
	if !ok {
		return fetchResult{}, false
	}
	r := el.Value.(*fetchResult)
	if now.Sub(r.at) > f.opts.ResultTTL {
		f.dropLocked(el)
		return fetchResult{}, false
	}
	if take {
		f.dropLocked(el)
	}
	return *r, true
}

// submit queues job unless a job of its key is already queued or running
// (then kind is added to those told when it ends). errFetchQueueFull when
// the queue, or the namespace's share of it, is full.
func (f *Fetcher) submit(job *fetchJob, kind string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if j, ok := f.jobs[job.key]; ok {
		j.kinds[kind] = true
		return nil
	}
	if len(f.waiting) >= f.opts.QueueSize || f.nsQueued[job.namespace] >= f.opts.NamespaceQueue {
		return errFetchQueueFull
	}
	job.kinds = map[string]bool{kind: true}
	f.jobs[job.key] = job
	f.waiting = append(f.waiting, job)
	f.nsQueued[job.namespace]++
	f.dispatchLocked()
	return nil
}

// dispatchLocked starts the waiting jobs the limits allow, oldest first.
func (f *Fetcher) dispatchLocked() {
	for i := 0; i < len(f.waiting) && f.running < f.opts.Workers; {
		job := f.waiting[i]
		if (job.host != "" && f.hostBusy[job.host] >= f.opts.PerHost) || f.nsBusy[job.namespace] >= f.opts.PerNamespace {
			i++
			continue
		}
		f.waiting = append(f.waiting[:i], f.waiting[i+1:]...)
		f.nsQueued[job.namespace]--
		if f.nsQueued[job.namespace] <= 0 {
			delete(f.nsQueued, job.namespace)
		}
		job.running = true
		f.running++
		f.nsBusy[job.namespace]++
		if job.host != "" {
			f.hostBusy[job.host]++
		}
		go f.run(job)
	}
}

// run runs one job under its time bound, stores its answers, frees its
// slots and tells the controllers that asked.
func (f *Fetcher) run(job *fetchJob) {
	answers := f.runJob(job)
	now := f.opts.Clock.Now()

	f.mu.Lock()
	stopped := f.ctx.Err() != nil
	if !stopped {
		// A job cut short by the operator stopping says nothing about the
		// repository.
		for _, a := range answers {
			f.storeLocked(&fetchResult{key: a.key, value: a.value, err: a.err, at: now, size: a.size})
		}
	}
	delete(f.jobs, job.key)
	f.running--
	if f.nsBusy[job.namespace]--; f.nsBusy[job.namespace] <= 0 {
		delete(f.nsBusy, job.namespace)
	}
	if job.host != "" {
		if f.hostBusy[job.host]--; f.hostBusy[job.host] <= 0 {
			delete(f.hostBusy, job.host)
		}
	}
	var tell []*prober.Notifier
	if !stopped {
		for kind := range job.kinds {
			tell = append(tell, f.notifierLocked(kind))
		}
	}
	f.dispatchLocked()
	f.mu.Unlock()

	for _, n := range tell {
		n.Notify(job.owner)
	}
}

// runJob runs job under its time bound. A panic in it (go-git on a
// repository it did not expect) is the job's failure, not the operator's.
func (f *Fetcher) runJob(job *fetchJob) (answers []keyedAnswer) {
	ctx, cancel := context.WithTimeout(f.ctx, job.timeout)
	defer cancel()
	defer func() {
		if recover() != nil {
			answers = []keyedAnswer{{key: job.key, err: newError(v1alpha1.ArenaProjectReasonFetchFailed, nil, "reading the repository failed unexpectedly")}}
		}
	}()
	return job.run(ctx)
}

// storeLocked keeps r, replacing an older answer of its key, and drops the
// oldest answers past the bounds.
func (f *Fetcher) storeLocked(r *fetchResult) {
	if el, ok := f.results[r.key]; ok {
		f.dropLocked(el)
	}
	f.results[r.key] = f.order.PushBack(r)
	f.resultBytes += r.size
	for f.order.Len() > 0 && (f.order.Len() > f.opts.MaxResults || f.resultBytes > f.opts.MaxResultBytes ||
		r.at.Sub(f.order.Front().Value.(*fetchResult).at) > f.opts.ResultTTL) {
		f.dropLocked(f.order.Front())
	}
}

func (f *Fetcher) dropLocked(el *list.Element) {
	r := el.Value.(*fetchResult)
	f.order.Remove(el)
	delete(f.results, r.key)
	f.resultBytes -= r.size
}

// Pending counts the jobs waiting or running.
func (f *Fetcher) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.jobs)
}

// Events returns the channel on which the end of every job asked by a
// controller of kind (KindArenaProject, KindArenaRun) is announced, for a
// controller-runtime source.Channel: the event's object carries the
// project's namespace and name. Call it once per kind.
func (f *Fetcher) Events(kind string) <-chan event.GenericEvent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.notifierLocked(kind).Events()
}

func (f *Fetcher) notifierLocked(kind string) *prober.Notifier {
	n, ok := f.notifiers[kind]
	if !ok {
		n = prober.NewNotifier(notifyBuffer)
		f.notifiers[kind] = n
		go n.Run(f.ctx)
	}
	return n
}

// notifyBuffer is the capacity of each kind's event channel.
const notifyBuffer = 64
