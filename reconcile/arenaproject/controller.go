// Package arenaproject is the ArenaProject controller: it finds the
// project's repository — hosted on the workspace content volume, or an
// external git URL (spec.git) — with reconcile/arenaproject/source (go-git,
// never a git binary), and sets status.phase (Ready, Pending, Failed),
// status.defaultBranch, status.headCommit, status.repository and the Ready
// condition. ArenaRuns wait in Pending until their project is Ready, then
// pin their commit with source.Opener.ResolveRef.
//
// Each reconcile asks the rule catalog for the project's findings (deny
// findings make it Failed with their reason, and nothing is fetched; among
// them the licence gate arenaproject/license-git-source), then
// looks at the repository once: a hosted one is opened on disk, an external
// one has its refs listed (one request, bounded by Config.ListTimeout and
// MaxFetchBytes, dialled through reconcile/netguard; no objects are
// downloaded here). The listing is a job of the shared source.Fetcher, not
// the reconcile's: a reconcile that finds no listing done for this look
// queues one and returns (Pending, reason Fetching, for a new generation;
// the status stands otherwise), and the fetcher's announcement reconciles
// the project again to read it. The status is computed in memory and
// written once with a merge patch, and not at all when nothing changed;
// each condition transition emits an event.
//
// A failed look is retried with a per-project exponential backoff
// (MinBackoff doubling to MaxBackoff, reset by a success or a spec change):
// a reconcile that comes sooner (another event) does not look again. A Ready
// project is looked at again every RefreshInterval (and not sooner), so a
// moved default branch shows.
package arenaproject

import (
	"context"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	crsource "sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/reconcile/internal/statuswrite"
	"github.com/altairalabs/omnia/reconcile/transitions"
	"github.com/altairalabs/omnia/rules"
)

// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=arenaprojects,verbs=get;list;watch
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=arenaprojects/status,verbs=get;patch
// The credentials Secret of spec.git.secretRef is read uncached, by name.
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// ControllerName names the controller and is the reportingController of its
// events.
const ControllerName = "arenaproject-controller"

// Defaults of Options.
const (
	DefaultRefreshInterval = 5 * time.Minute
	DefaultMinBackoff      = 10 * time.Second
	DefaultMaxBackoff      = 10 * time.Minute
	DefaultFetchPoll       = 15 * time.Second
)

// Options configure the controller. Zero values take the defaults.
type Options struct {
	// Common are the clock, licence, workers and test switch every
	// controller takes (default workers: 2).
	ctrlopts.Common
	// Source is how repositories are reached: the content root, whether
	// http is allowed, the time and size bounds.
	Source source.Config
	// RefreshInterval is how often a Ready project is looked at again.
	// Default 5m.
	RefreshInterval time.Duration
	// MinBackoff and MaxBackoff bound the per-project retry after a failed
	// look. Defaults 10s and 10m.
	MinBackoff, MaxBackoff time.Duration
	// Fetcher lists external repositories' refs outside the reconcile
	// (shared with the ArenaRun controller). Nil: NewReconciler makes one
	// with the default bounds, and SetupWithManager adds it to the
	// manager.
	Fetcher *source.Fetcher
	// FetchPoll is how soon a project whose listing is still running is
	// reconciled again if the fetcher's notification has not come first.
	// Default 15s.
	FetchPoll time.Duration
}

func (o Options) withDefaults() Options {
	o.Common = o.Common.WithDefaults(2)
	ctrlopts.Default(&o.RefreshInterval, DefaultRefreshInterval)
	ctrlopts.Default(&o.MinBackoff, DefaultMinBackoff)
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(DefaultMaxBackoff, o.MinBackoff)
	}
	if o.Fetcher == nil {
		o.Fetcher = source.NewFetcher(source.FetcherOptions{})
	}
	ctrlopts.Default(&o.FetchPoll, DefaultFetchPoll)
	return o
}

// retry is when a project is looked at next, keyed by its name: after a
// failure (its backoff) and after a success (RefreshInterval); uid and
// generation tell a recreated or changed project from the one looked at.
type retry struct {
	uid        types.UID
	generation int64
	failures   int
	next       time.Time
}

// Reconciler reconciles ArenaProjects.
type Reconciler struct {
	client   client.Client
	secrets  client.Reader
	mapper   meta.RESTMapper
	recorder events.EventRecorder
	opener   *source.Opener
	opts     Options

	mu      sync.Mutex
	retries map[types.NamespacedName]retry
}

// NewReconciler returns a Reconciler reading and writing ArenaProjects
// through c, reading credential Secrets through secrets (nil: c) and
// emitting events with recorder (nil emits none).
func NewReconciler(c client.Client, secrets client.Reader, mapper meta.RESTMapper, recorder events.EventRecorder, opts Options) *Reconciler {
	if secrets == nil {
		secrets = c
	}
	opts = opts.withDefaults()
	opener := source.NewOpener(opts.Source, secrets)
	opener.Fetcher = opts.Fetcher
	return &Reconciler{
		client: c, secrets: secrets, mapper: mapper, recorder: recorder, opts: opts,
		opener:  opener,
		retries: map[types.NamespacedName]retry{},
	}
}

// Opener is the controller's source.Opener (the same content root and
// bounds), for the ArenaRun controller to share.
func (r *Reconciler) Opener() *source.Opener { return r.opener }

// SetupWithManager registers the controller: it reconciles ArenaProjects on
// a spec change, when the fetcher finished a listing it asked for, and
// again on its own schedule (refresh, backoff). A fetcher it makes itself
// (opts.Fetcher nil) is added to the manager.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if opts.Fetcher == nil {
		opts.Fetcher = source.NewFetcher(source.FetcherOptions{})
		if err := mgr.Add(opts.Fetcher); err != nil {
			return err
		}
	}
	r := NewReconciler(mgr.GetClient(), mgr.GetAPIReader(), mgr.GetRESTMapper(), mgr.GetEventRecorder(ControllerName), opts)
	copts := r.opts.Controller()
	return ctrl.NewControllerManagedBy(mgr).
		Named("arenaproject").
		For(&v1alpha1.ArenaProject{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesRawSource(crsource.Channel(opts.Fetcher.Events(source.KindArenaProject), &handler.EnqueueRequestForObject{})).
		WithOptions(copts).
		Complete(r)
}

// due reports how long p must still wait before its repository is looked
// at again (0: now). A spec change clears the backoff.
func (r *Reconciler) due(p *v1alpha1.ArenaProject, now time.Time) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := client.ObjectKeyFromObject(p)
	rt, ok := r.retries[key]
	if !ok || rt.uid != p.UID || rt.generation != p.Generation {
		delete(r.retries, key)
		return 0
	}
	if wait := rt.next.Sub(now); wait > 0 {
		return wait
	}
	return 0
}

// record notes a look's outcome and returns when to look again: after
// RefreshInterval, or the failure's backoff.
func (r *Reconciler) record(p *v1alpha1.ArenaProject, failed bool, now time.Time) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := client.ObjectKeyFromObject(p)
	rt := r.retries[key]
	if rt.uid != p.UID || rt.generation != p.Generation || !failed {
		rt = retry{uid: p.UID, generation: p.Generation}
	}
	d := r.opts.RefreshInterval
	if failed {
		rt.failures++
		d = backoffDelay(rt.failures, r.opts.MinBackoff, r.opts.MaxBackoff)
	}
	rt.next = now.Add(d)
	r.retries[key] = rt
	return d
}

func (r *Reconciler) forget(key types.NamespacedName) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.retries, key)
}

// Reconcile looks at the project's repository and writes the status when it
// changed.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)
	p := &v1alpha1.ArenaProject{}
	if err := r.client.Get(ctx, req.NamespacedName, p); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(req.NamespacedName)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	if !p.DeletionTimestamp.IsZero() {
		r.forget(req.NamespacedName)
		return ctrl.Result{}, nil
	}

	facts := clusterfacts.New(ctx, r.client, r.secrets, r.mapper, r.opts.License)
	findings := rules.Default.Evaluate("ArenaProject", rules.Input{Object: p, Facts: facts}, rules.Options{})
	if err := facts.Err(); err != nil {
		return ctrl.Result{}, fmt.Errorf("evaluating rules: %w", err)
	}

	now := r.opts.Clock.Now()
	var obs *observation
	var requeue time.Duration
	if len(denyFindings(findings)) == 0 {
		if wait := r.due(p, now); wait > 0 && p.Status.ObservedGeneration == p.Generation {
			return ctrl.Result{RequeueAfter: wait}, nil
		}
		opened, err := r.opener.Head(ctx, p)
		switch {
		case source.IsFetching(err):
			// The fetcher lists the refs outside this worker and tells
			// the controller when it is done. Until then a status that
			// answers this generation stands; a new generation says it
			// is being fetched.
			requeue = r.opts.FetchPoll
			if p.Status.ObservedGeneration == p.Generation && p.Status.Phase != "" {
				return ctrl.Result{RequeueAfter: requeue}, nil
			}
			obs = &observation{opened: opened, err: err}
		default:
			obs = &observation{opened: opened, err: err}
			requeue = r.record(p, err != nil, now)
			if err != nil {
				log.V(1).Info("project repository not usable", "reason", source.ReasonOf(err), "error", err.Error(), "retryIn", requeue)
			}
		}
	} else {
		// A refused spec is judged again every RefreshInterval (nothing
		// is fetched), so a licence installed later (a licence gate's
		// finding) is seen without touching the project.
		r.forget(req.NamespacedName)
		requeue = r.opts.RefreshInterval
	}

	st := computeStatus(p, findings, obs, metav1.NewTime(now).Rfc3339Copy())
	old := p.Status
	wrote, err := statuswrite.Patch(ctx, r.client, p, &p.Status, st)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !wrote {
		return ctrl.Result{RequeueAfter: requeue}, nil
	}
	log.V(1).Info("status written", "phase", st.Phase, "defaultBranch", st.DefaultBranch)
	transitions.Emit(r.recorder, p, old.Conditions, st.Conditions)
	return ctrl.Result{RequeueAfter: requeue}, nil
}
