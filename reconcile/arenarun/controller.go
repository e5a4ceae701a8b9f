// Package arenarun is the ArenaRun controller (arenajob.md § ArenaRun): it
// pins the run's source (from its ArenaProject, through a SourceResolver)
// and its queue (a service group's redis or the operator-wide one), writes
// the work matrix to that Redis (arena/queue, docs/arena-queue.md), creates
// the batch/v1 worker Job, reads progress back into status.progress, and
// ends the run: the summary (status.result.summary), thresholds, the budget
// stop, and spec.cancelled (delete the Job, drain the queue, Cancelled).
// A default output goes on the workspace content volume, behind a finalizer
// that removes it with the run (output.go).
//
// Validity decisions are the rule catalog's (rules.Full on the run: the
// frozen template's provider entries, the licence gates against the
// workspace-capped worker count, the scenario limit once the arena file is
// read); findings of condition Ready fail the run with their reason, and
// findings of condition JobCreated hold the Job back (JobCreationFailed,
// retried with backoff).
//
// The queue's Redis URL is a Secret value and never appears in status,
// events or logs. The controller decides it from what the operator controls
// (its flag, the Workspace) and never reads it back from the Secret it
// writes for the workers (<run>-queue-redis, in the tenant's namespace): a
// Secret that is not what the operator wrote is refused with reason
// QueueSecretConflict (queuesecret.go). Every connection it opens reads
// through the queue package's reply guard, results are read in bounded
// pages, and a run's Redis client is released when the run ends
// (queueclients.go).
package arenarun

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	crsource "sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/arena/queue"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/reconcile/enqueue"
	"github.com/altairalabs/omnia/reconcile/internal/ssa"
	"github.com/altairalabs/omnia/reconcile/internal/statuswrite"
	"github.com/altairalabs/omnia/reconcile/netguard"
	"github.com/altairalabs/omnia/reconcile/policycheck"
	"github.com/altairalabs/omnia/reconcile/transitions"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
)

// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=arenaruns,verbs=get;list;watch
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=arenaruns/status,verbs=get;patch
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=arenaprojects,verbs=get;list;watch
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=workspaces,verbs=get;list;watch
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;create
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// ControllerName names the controller and is the reportingController of its events.
const ControllerName = "arenarun-controller"

// FieldManager owns the fields the controller applies.
const FieldManager = "omnia-arenarun"

// AppliedHashAnnotation records the hash of the applied worker Job.
const AppliedHashAnnotation = ssa.HashAnnotation

// TenantCredentials turns the operator's admin URL of a Redis into the
// URL of a namespace's own user on it (redisacl.Provisioner.TenantURL).
type TenantCredentials interface {
	TenantURL(ctx context.Context, adminURL, namespace string) (string, error)
}

// Options configure the controller. Zero values take the defaults.
type Options struct {
	// Common are the clock, licence, workers and test switch every
	// controller takes (default workers: 4).
	ctrlopts.Common
	// Resolver resolves a run's ref on its ArenaProject. Nil: runs whose
	// project is Ready wait with SourceResolverUnavailable.
	Resolver SourceResolver
	// SourceEvents announces an ArenaProject whose resolution the resolver
	// finished outside the reconcile (ProjectResolver.Events): the runs of
	// its namespace are reconciled. Nil: none.
	SourceEvents <-chan event.GenericEvent
	// DefaultRedisURL is the operator-wide arena queue
	// (--arena-queue-redis-url), used when the run's service group sets no
	// redis. Empty: such runs cannot create their Job (JobCreationFailed).
	DefaultRedisURL string
	// TenantCredentials, when set, gives each namespace its own credential
	// on the operator-wide arena queue (redisacl.Provisioner): the run's
	// Secret, its workers and the operator's own client use the
	// namespace's Redis user, which reaches only that namespace's keys.
	// Nil: every namespace gets DefaultRedisURL itself
	// (--redis-tenant-credentials=false).
	TenantCredentials TenantCredentials
	// WorkerImage is the worker Job's image. Default DefaultWorkerImage.
	WorkerImage string
	// MaxItems caps a run's work matrix. Default queue.DefaultMaxItems.
	MaxItems int
	// PollInterval is how often a Running run's queue is read. Default 5s.
	PollInterval time.Duration
	// ProjectRetry is how often a run waiting for its project is retried. Default 30s.
	ProjectRetry time.Duration
	// JobDoneGrace is how long after the worker Job completed a run whose
	// queue is not done waits before it fails (WorkersFailed). Default 30s.
	JobDoneGrace time.Duration
	// QuotaRetry is how often a run waiting for the workspace quota looks
	// again. Default 15s.
	QuotaRetry time.Duration
	// ResultTTL bounds how long a finished run's queue keys stay. Default 24h.
	ResultTTL time.Duration
	// RedisResolver resolves the host names of queue Redis URLs (a
	// serviceRef group's <name>.<namespace>.svc); the egress guard checks the
	// addresses it returns. Nil: the system resolver. Tests point it at a
	// local DNS server.
	RedisResolver *net.Resolver
	// SecretReader reads the queue Secret, the workspace content
	// claim's metadata and, before a first pin of an existingSecret, the
	// run's own status (uncached). SetupWithManager
	// defaults it to the manager's APIReader.
	SecretReader client.Reader
	// ContentRoot is the workspace content volume's mount
	// (--workspace-content-path): where runs keep their default output
	// (output.go). Empty: every run's default output is scratch and no
	// run is marked.
	ContentRoot string
	// OutputRemovalTimeout bounds the retries of a deleted run's failing
	// output removal. Default DefaultOutputRemovalTimeout.
	OutputRemovalTimeout time.Duration
	// MaxQueueClients bounds the Redis clients open at once (one per queue
	// URL in use). Default DefaultMaxQueueClients.
	MaxQueueClients int
	// QueueClientIdle closes a client unused for this long. Default
	// DefaultQueueClientIdle.
	QueueClientIdle time.Duration
	// Policies are the platform team's ValidationPolicies in force (the
	// operator's policies.Store): their rules for ArenaRun set policy
	// conditions on a run until it finishes (policycheck), and a change
	// re-reconciles every unfinished run. Nil: no policies.
	Policies policycheck.Policies
}

// DefaultWorkerImage is the arena worker image (not built in this repository).
const DefaultWorkerImage = "ghcr.io/altairalabs/omnia-arena-worker:latest"

func (o Options) withDefaults() Options {
	o.Common = o.Common.WithDefaults(4)
	if o.WorkerImage == "" {
		o.WorkerImage = DefaultWorkerImage
	}
	ctrlopts.Default(&o.MaxItems, queue.DefaultMaxItems)
	ctrlopts.Default(&o.PollInterval, 5*time.Second)
	ctrlopts.Default(&o.ProjectRetry, 30*time.Second)
	ctrlopts.Default(&o.JobDoneGrace, 30*time.Second)
	ctrlopts.Default(&o.QuotaRetry, 15*time.Second)
	ctrlopts.Default(&o.ResultTTL, 24*time.Hour)
	ctrlopts.Default(&o.OutputRemovalTimeout, DefaultOutputRemovalTimeout)
	ctrlopts.Default(&o.MaxQueueClients, DefaultMaxQueueClients)
	ctrlopts.Default(&o.QueueClientIdle, DefaultQueueClientIdle)
	return o
}

// Reconciler reconciles ArenaRuns.
type Reconciler struct {
	client   client.Client
	secrets  client.Reader
	mapper   meta.RESTMapper
	recorder events.EventRecorder
	schema   *schema.Validator
	opts     Options

	clients *queueClients
}

// NewReconciler returns a Reconciler.
func NewReconciler(c client.Client, mapper meta.RESTMapper, recorder events.EventRecorder, opts Options) (*Reconciler, error) {
	sv, err := schema.Default()
	if err != nil {
		return nil, fmt.Errorf("arenarun controller: compiling the CRD schemas: %w", err)
	}
	opts = opts.withDefaults()
	secrets := opts.SecretReader
	if secrets == nil {
		secrets = c
	}
	return &Reconciler{client: c, secrets: secrets, mapper: mapper, recorder: recorder, schema: sv, opts: opts,
		clients: newQueueClients(opts.MaxQueueClients, opts.QueueClientIdle, opts.Clock, dialQueue(opts.RedisResolver))}, nil
}

// dialQueue opens a queue client: through the egress guard (the URL may come
// from a Workspace's service group), reading through the reply guard, named
// QueueClientName.
func dialQueue(resolver *net.Resolver) func(string) (*redis.Client, error) {
	return func(url string) (*redis.Client, error) {
		return queue.ConnectWith(url, queue.ConnectOptions{Dialer: netguard.NewDialer(resolver), ClientName: QueueClientName})
	}
}

// SetupWithManager registers the controller: runs, their worker Jobs, and
// the ArenaProjects and Workspaces they wait on.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if opts.SecretReader == nil {
		opts.SecretReader = mgr.GetAPIReader()
	}
	r, err := NewReconciler(mgr.GetClient(), mgr.GetRESTMapper(), mgr.GetEventRecorder(ControllerName), opts)
	if err != nil {
		return err
	}
	copts := r.opts.Controller()
	b := ctrl.NewControllerManagedBy(mgr).
		Named("arenarun").
		For(&v1alpha1.ArenaRun{}, builder.WithPredicates(predicate.Or[client.Object](predicate.GenerationChangedPredicate{},
			policycheck.Relabelled(opts.Policies, "ArenaRun")))).
		Owns(&batchv1.Job{}).
		Watches(&v1alpha1.ArenaProject{}, handler.EnqueueRequestsFromMapFunc(r.runsInNamespace)).
		Watches(&v1alpha1.Workspace{}, handler.EnqueueRequestsFromMapFunc(r.runsOfWorkspace))
	if opts.SourceEvents != nil {
		b = b.WatchesRawSource(crsource.Channel(opts.SourceEvents, handler.EnqueueRequestsFromMapFunc(r.runsInNamespace)))
	}
	return policycheck.Watch(b, opts.Policies, "ArenaRun", r.client, func() client.ObjectList { return &v1alpha1.ArenaRunList{} }).
		WithOptions(copts).
		Complete(r)
}

func (r *Reconciler) runsInNamespace(ctx context.Context, obj client.Object) []reconcile.Request {
	return enqueue.Listed(ctx, r.client, &v1alpha1.ArenaRunList{}, "listing ArenaRuns", client.InNamespace(obj.GetNamespace()))
}

func (r *Reconciler) runsOfWorkspace(ctx context.Context, obj client.Object) []reconcile.Request {
	ws, ok := obj.(*v1alpha1.Workspace)
	if !ok {
		return nil
	}
	return enqueue.Listed(ctx, r.client, &v1alpha1.ArenaRunList{}, "listing ArenaRuns", client.InNamespace(ws.Spec.Namespace.Name))
}

// Close closes the Redis clients the controller opened.
func (r *Reconciler) Close() { r.clients.closeAll() }

// step is what one reconcile decided beyond the status.
type step struct {
	requeue time.Duration
	// events are phase transitions to record (type, reason, note).
	events [][3]string
}

func (s *step) after(d time.Duration) {
	if d > 0 && (s.requeue == 0 || d < s.requeue) {
		s.requeue = d
	}
}

// Reconcile advances the run and writes its status once.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)
	run := &v1alpha1.ArenaRun{}
	if err := r.client.Get(ctx, req.NamespacedName, run); err != nil {
		if apierrors.IsNotFound(err) {
			r.clients.release(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !run.DeletionTimestamp.IsZero() {
		r.clients.release(req.NamespacedName)
		return r.releaseOutput(ctx, run)
	}
	if rules.ArenaRunPhaseFinal(run.Status.Phase) {
		r.clients.release(req.NamespacedName)
		return ctrl.Result{}, nil
	}
	now := metav1.NewTime(r.opts.Clock.Now()).Rfc3339Copy()
	st := run.Status.DeepCopy()
	st.ObservedGeneration = run.Generation
	if st.Phase == "" {
		st.Phase = v1alpha1.ArenaRunPhasePending
	}
	var s step
	var err error
	if run.Spec.Cancelled {
		err = r.cancel(ctx, run, st, now, &s)
	} else {
		err = r.advance(ctx, run, st, now, &s)
	}
	if apierrors.IsConflict(err) {
		// Marking the run for its output (a stale read): look again.
		return ctrl.Result{RequeueAfter: 200 * time.Millisecond}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.setPolicyConditions(ctx, run, st, now); err != nil {
		return ctrl.Result{}, err
	}
	// Optimistic lock: a reconcile that read a stale run (the cache
	// behind an earlier write) must not pin source or queue a second
	// time; it conflicts and looks again.
	old := run.Status
	wrote, err := statuswrite.Patch(ctx, r.client, run, &run.Status, *st, statuswrite.WithOptimisticLock())
	if apierrors.IsConflict(err) {
		return ctrl.Result{RequeueAfter: 200 * time.Millisecond}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	if wrote {
		log.V(1).Info("status updated", "phase", st.Phase)
		transitions.Emit(r.recorder, run, old.Conditions, eventConditions(st))
		if old.Phase != st.Phase && r.recorder != nil {
			for _, e := range s.events {
				r.recorder.Eventf(run, nil, e[0], e[1], "Phase", "%s", e[2])
			}
		}
	}
	if rules.ArenaRunPhaseFinal(st.Phase) {
		// The run ended: its Redis client closes with its last run.
		r.clients.release(req.NamespacedName)
		return ctrl.Result{}, nil
	}
	return ctrl.Result{RequeueAfter: s.requeue}, nil
}

// setPolicyConditions sets the conditions of the ValidationPolicy rules in
// force on the run (policycheck), after the run's own step: they never
// change its phase, Ready or Job.
func (r *Reconciler) setPolicyConditions(ctx context.Context, run *v1alpha1.ArenaRun, st *v1alpha1.ArenaRunStatus, now metav1.Time) error {
	facts := clusterfacts.New(ctx, r.client, r.secrets, r.mapper, r.opts.License)
	v, err := policycheck.Evaluate(policycheck.Catalog(r.opts.Policies), "ArenaRun", run, facts)
	if err != nil {
		return err
	}
	if err := facts.Err(); err != nil {
		return fmt.Errorf("evaluating policy rules: %w", err)
	}
	v.Set(&st.Conditions, conditionTypes, run.Generation, now)
	return nil
}

// conditionTypes are every condition type the controller sets: a policy
// rule naming one reports to PolicyCompliant instead (policycheck).
var conditionTypes = []string{
	v1alpha1.ArenaRunConditionReady, v1alpha1.ArenaRunConditionSourceValid, v1alpha1.ArenaRunConditionJobCreated,
	v1alpha1.ArenaRunConditionProgressing, v1alpha1.ArenaRunConditionQueueRedisDrifted,
	v1alpha1.ArenaRunConditionWithinWorkspaceQuota, v1alpha1.ArenaRunConditionOutputPersisted,
}

// eventConditions are the conditions whose transitions make events: all of
// them, except Progressing turning False because the run ended (the phase
// event says that; a Warning "Progressing is False" would read as a fault).
func eventConditions(st *v1alpha1.ArenaRunStatus) []metav1.Condition {
	if !rules.ArenaRunPhaseFinal(st.Phase) {
		return st.Conditions
	}
	out := make([]metav1.Condition, 0, len(st.Conditions))
	for _, c := range st.Conditions {
		if c.Type == v1alpha1.ArenaRunConditionProgressing && (c.Reason == v1alpha1.ArenaRunReasonCompleted || c.Reason == v1alpha1.ArenaRunReasonCancelled) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// fail ends the run as Failed with reason.
func fail(st *v1alpha1.ArenaRunStatus, reason, msg string, gen int64, now metav1.Time, s *step) {
	finish(st, v1alpha1.ArenaRunPhaseFailed, reason, msg, gen, now)
	s.events = append(s.events, [3]string{corev1.EventTypeWarning, reason, "run failed: " + msg})
}

// advance moves a run that is not cancelled one step on.
func (r *Reconciler) advance(ctx context.Context, run *v1alpha1.ArenaRun, st *v1alpha1.ArenaRunStatus, now metav1.Time, s *step) error {
	gen := run.Generation
	t := &run.Spec.Template
	facts := clusterfacts.New(ctx, r.client, r.secrets, r.mapper, r.opts.License)
	ws, _ := facts.Workspace(run.Namespace)

	// 1. The source, pinned once.
	resolved, err := r.pinSource(ctx, run, st, now, s)
	if err != nil || st.Source == nil || rules.ArenaRunPhaseFinal(st.Phase) {
		return err
	}

	// Until the run starts, the arena file of the pinned commit is read
	// (a SHA resolves to itself) so the scenario limit is judged and the
	// matrix built from it.
	if resolved == nil && st.StartTime == nil {
		rs, err := r.resolve(ctx, run, st.Source.Commit)
		if errors.Is(err, ErrSourcePending) {
			s.after(r.opts.ProjectRetry)
			return nil
		}
		if err != nil {
			return err
		}
		resolved = &rs
	}

	// 2. The rules: the template's provider entries, the licence gates, the
	// scenario limit (known while the arena file is read).
	var selected []string
	if resolved != nil {
		selected = selectScenarios(resolved.Scenarios, t.Scenarios)
	}
	findings, err := Evaluate(ctx, r.schema, run, scenarioFacts{Facts: facts, run: run, n: len(selected), known: resolved != nil})
	if err != nil {
		return err
	}
	if err := facts.Err(); err != nil {
		return fmt.Errorf("evaluating rules: %w", err)
	}
	var jobBlock []rules.Finding
	for _, f := range findings {
		switch {
		case f.Condition == v1alpha1.ArenaRunConditionReady && f.Severity == rules.SeverityDeny && f.Reason != "":
			fail(st, f.Reason, f.String(), gen, now, s)
			return nil
		case f.Condition == v1alpha1.ArenaRunConditionJobCreated:
			jobBlock = append(jobBlock, f)
		}
	}

	// 3. The workspace quota: workers capped by maxWorkersPerJob.
	workers := st.Workers
	if workers == 0 {
		workers = rules.ArenaJobCappedWorkers(t, ws)
	}
	requested := int32(1)
	if t.Workers != nil && t.Workers.Replicas != nil {
		requested = *t.Workers.Replicas
	}
	var others []v1alpha1.ArenaRun
	if ws != nil && ws.Spec.Quotas != nil && ws.Spec.Quotas.Arena != nil && st.StartTime == nil {
		list := &v1alpha1.ArenaRunList{}
		if err := r.client.List(ctx, list, client.InNamespace(run.Namespace)); err != nil {
			return fmt.Errorf("listing the namespace's ArenaRuns for the workspace quota: %w", err)
		}
		others = list.Items
	}
	qv := rules.ArenaRunQuota(runWithStatus(run, st), others, ws, requested, workers, now.Time)
	setWithinWorkspaceQuota(st, qv.Present, qv.Admitted, qv.Reason, qv.Message, gen, now)
	if !qv.Admitted {
		setReady(st, v1alpha1.ArenaRunReasonWaitingForWorkspaceQuota, qv.Message, gen, now)
		s.after(r.opts.QuotaRetry)
		s.after(qv.Retry)
		return nil
	}

	// 4. The service group and the queue, pinned once. The pin holds for
	// the run's life, so the Workspace it is decided from is read fresh
	// from the API server: a Workspace applied together with the run (as a
	// GitOps tool applies both) may not be in the cache yet, and the run
	// would be pinned to the default queue for good. A failed read holds
	// the Job and retries.
	if st.Queue == nil {
		fresh := clusterfacts.New(ctx, r.secrets, r.secrets, r.mapper, r.opts.License)
		fw, _ := fresh.Workspace(run.Namespace)
		if err := fresh.Err(); err != nil {
			r.holdJob(st, "reading the namespace's Workspace: "+err.Error(), gen, now, s)
			return nil
		}
		ws = fw
	}
	gr := rules.ArenaRunServiceGroup(t, ws)
	if gr.FailReason != "" && st.Queue == nil {
		fail(st, gr.FailReason, gr.Message, gen, now, s)
		return nil
	}
	if len(jobBlock) > 0 || (gr.RetryMessage != "" && st.StartTime == nil) {
		msg := gr.RetryMessage
		if len(jobBlock) > 0 {
			msg = jobBlock[0].String()
		}
		r.holdJob(st, msg, gen, now, s)
		return nil
	}
	if st.Queue == nil {
		if err := r.pinQueue(run, st, gr); err != nil {
			r.holdJob(st, err.Error(), gen, now, s)
			return nil
		}
	}
	url, err := r.queueURL(ctx, run, st, ws)
	if conflict := (*queueSecretConflict)(nil); errors.As(err, &conflict) {
		return r.refuseQueueSecret(ctx, run, st, conflict, now, s)
	}
	if err != nil {
		if st.StartTime != nil {
			return err
		}
		r.holdJob(st, err.Error(), gen, now, s)
		return nil
	}
	if gr.Group != nil {
		setQueueRedisDrifted(st, currentRedisHash(st.Queue.ConfigHash, gr.Group.Redis, run.Namespace), gen, now)
	} else {
		setQueueRedisDrifted(st, "", gen, now)
	}
	q, err := r.queue(run, url)
	if err != nil {
		r.holdJob(st, err.Error(), gen, now, s)
		return nil
	}

	// 5. The work matrix, written once.
	meta, _, err := q.State(ctx)
	if err != nil {
		if st.StartTime == nil {
			// Until the Job exists, a queue Redis that cannot be reached
			// holds it back, said in JobCreated, with the queue kept pinned.
			r.holdJob(st, queueErr("reading the run's queue", err).Error(), gen, now, s)
			return nil
		}
		return queueErr("reading the run's queue", err)
	}
	if !meta.Enqueued {
		if resolved == nil {
			// The commit was pinned by an earlier reconcile: read its arena
			// file again (a SHA resolves to itself).
			rs, err := r.resolve(ctx, run, st.Source.Commit)
			if errors.Is(err, ErrSourcePending) {
				s.after(r.opts.ProjectRetry)
				return nil
			}
			if err != nil {
				return err
			}
			resolved = &rs
			selected = selectScenarios(rs.Scenarios, t.Scenarios)
		}
		if done, err := r.enqueue(ctx, run, st, q, selected, resolved.Providers, now, s); err != nil || done {
			return err
		}
	}

	// 6. The worker Job.
	// The Job reads the queue and source this reconcile pinned; its
	// content mounts and output come from prepareOutput (output.go).
	cv, err := r.prepareOutput(ctx, run, st)
	if err != nil {
		return err
	}
	job, err := WorkerJob(runWithStatus(run, st), r.opts.WorkerImage, workers, cv)
	if err != nil {
		r.holdJob(st, err.Error(), gen, now, s)
		return nil
	}
	if err := r.apply(ctx, job); err != nil {
		r.holdJob(st, err.Error(), gen, now, s)
		return nil
	}
	if st.Workers == 0 {
		// A Job that predates the field gives its parallelism.
		st.Workers = workers
		if job.Spec.Parallelism != nil {
			st.Workers = *job.Spec.Parallelism
		}
	}
	setJobCreated(st, true, v1alpha1.ArenaRunReasonJobCreated, "worker Job "+job.Name+" created with "+strconv.Itoa(int(workers))+" workers", gen, now)
	if st.StartTime == nil {
		st.StartTime = &now
	}
	if st.Phase == v1alpha1.ArenaRunPhasePending {
		st.Phase = v1alpha1.ArenaRunPhaseRunning
		s.events = append(s.events, [3]string{corev1.EventTypeNormal, "Started", fmt.Sprintf("worker Job %s started with %d workers", job.Name, workers)})
	}
	st.ActiveWorkers = job.Status.Active

	// 7. Progress and the end.
	return r.observeQueue(ctx, run, st, q, job, now, s)
}

// queueErr reports a Redis failure without the server's address (part of
// the queue URL, a Secret value): a network error says only that the
// queue's Redis does not answer.
func queueErr(what string, err error) error {
	var blocked *netguard.BlockedError
	if errors.As(err, &blocked) {
		return errors.New(what + ": the queue's Redis address is refused by the operator's egress guard (a link-local or cloud metadata address)")
	}
	if errors.Is(err, queue.ErrReplyTooLarge) {
		return errors.New(what + ": the queue's Redis sent a reply over the operator's size limit")
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return errors.New(what + ": the queue's Redis host name does not resolve")
	}
	var nerr net.Error
	if errors.As(err, &nerr) {
		return errors.New(what + ": the queue's Redis does not answer")
	}
	// A Redis error reply is the server's text (a service group's Redis
	// is the platform's, but a reply may echo what was sent): its class
	// only, as for the dial errors above.
	var rerr redis.Error
	if errors.As(err, &rerr) {
		class := "an error"
		if f := strings.Fields(rerr.Error()); len(f) > 0 {
			class = f[0]
		}
		return errors.New(what + ": the queue's Redis answered " + class)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// runWithStatus is run with the status computed so far.
func runWithStatus(run *v1alpha1.ArenaRun, st *v1alpha1.ArenaRunStatus) *v1alpha1.ArenaRun {
	c := run.DeepCopy()
	c.Status = *st
	return c
}

// holdJob leaves the worker Job uncreated: JobCreated=False
// (JobCreationFailed), retried with a backoff that doubles with the time the
// condition has been False (5s to 5m).
func (r *Reconciler) holdJob(st *v1alpha1.ArenaRunStatus, msg string, gen int64, now metav1.Time, s *step) {
	r.holdJobWith(st, v1alpha1.ArenaRunReasonJobCreationFailed, msg, gen, now, s)
}

// holdJobWith is holdJob with its own reason.
func (r *Reconciler) holdJobWith(st *v1alpha1.ArenaRunStatus, reason, msg string, gen int64, now metav1.Time, s *step) {
	setJobCreated(st, false, reason, msg, gen, now)
	if st.Phase == v1alpha1.ArenaRunPhasePending {
		setReady(st, reason, msg, gen, now)
	}
	backoff := 5 * time.Second
	if c := meta.FindStatusCondition(st.Conditions, v1alpha1.ArenaRunConditionJobCreated); c != nil {
		if since := now.Sub(c.LastTransitionTime.Time); since > backoff {
			backoff = since
		}
	}
	s.after(min(backoff, 5*time.Minute))
}

// pinSource pins status.source once from the run's ArenaProject. It returns
// what the resolver read when it resolved in this reconcile.
func (r *Reconciler) pinSource(ctx context.Context, run *v1alpha1.ArenaRun, st *v1alpha1.ArenaRunStatus, now metav1.Time, s *step) (*Resolved, error) {
	gen := run.Generation
	if st.Source != nil {
		return nil, nil
	}
	wait := func(reason, msg string) {
		setSourceValid(st, false, reason, msg, gen, now)
		setReady(st, v1alpha1.ArenaRunReasonWaitingForSource, msg, gen, now)
		s.after(r.opts.ProjectRetry)
	}
	project := &v1alpha1.ArenaProject{}
	name := run.Spec.Template.SourceRef.Name
	if err := r.client.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: name}, project); err != nil {
		if apierrors.IsNotFound(err) {
			wait(v1alpha1.ArenaRunReasonProjectNotFound, "ArenaProject "+name+" does not exist")
			return nil, nil
		}
		return nil, err
	}
	if project.Status.Phase != v1alpha1.ArenaProjectPhaseReady {
		wait(v1alpha1.ArenaRunReasonProjectNotReady, "ArenaProject "+name+" is not Ready")
		return nil, nil
	}
	if r.opts.Resolver == nil {
		wait(v1alpha1.ArenaRunReasonSourceResolverUnavailable, "the operator has no ArenaProject ref resolver yet")
		return nil, nil
	}
	rs, err := r.opts.Resolver.Resolve(ctx, project, run.Spec.Template.Ref, run.Spec.Template.ArenaFile)
	if errors.Is(err, ErrSourcePending) {
		wait(v1alpha1.ArenaRunReasonSourceFetching, "ArenaProject "+name+"'s repository is being read")
		return nil, nil
	}
	if err != nil {
		if reason := resolutionReason(err); reason != "" {
			msg := source.StatusMessage(err)
			setSourceValid(st, false, reason, msg, gen, now)
			fail(st, reason, msg, gen, now, s)
			return nil, nil
		}
		return nil, fmt.Errorf("resolving %s of ArenaProject %s: %w", run.Spec.Template.Ref, name, err)
	}
	src := rs.Source
	st.Source = &src
	setSourceValid(st, true, v1alpha1.ArenaRunReasonSourcePinned, "commit "+src.Commit+" of "+src.Ref+" pinned", gen, now)
	return &rs, nil
}

func (r *Reconciler) resolve(ctx context.Context, run *v1alpha1.ArenaRun, ref string) (Resolved, error) {
	if r.opts.Resolver == nil {
		return Resolved{}, errors.New("no ArenaProject ref resolver")
	}
	project := &v1alpha1.ArenaProject{}
	if err := r.client.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: run.Spec.Template.SourceRef.Name}, project); err != nil {
		return Resolved{}, err
	}
	return r.opts.Resolver.Resolve(ctx, project, ref, run.Spec.Template.ArenaFile)
}

// queue returns the run's queue on url, through the run's shared client.
func (r *Reconciler) queue(run *v1alpha1.ArenaRun, url string) (*queue.Queue, error) {
	c, err := r.clients.get(client.ObjectKeyFromObject(run), url)
	if err != nil {
		return nil, err
	}
	return queue.New(c, run.Namespace, run.Name), nil
}

// refuseQueueSecret is the run's answer to a queue Secret it does not use
// (QueueSecretConflict). Before the worker Job exists the Job is held back
// (JobCreated=False), retried with backoff: a stray Secret (a deleted run's
// of the same name, until it is collected) may go. After, workers that
// start would read a URL the operator did not decide: the run fails and its
// worker Job is deleted.
func (r *Reconciler) refuseQueueSecret(ctx context.Context, run *v1alpha1.ArenaRun, st *v1alpha1.ArenaRunStatus, c *queueSecretConflict, now metav1.Time, s *step) error {
	gen := run.Generation
	if st.StartTime == nil {
		r.holdJobWith(st, v1alpha1.ArenaRunReasonQueueSecretConflict, c.msg, gen, now, s)
		return nil
	}
	if err := r.deleteJob(ctx, run); err != nil {
		return err
	}
	if c.trustedURL != "" {
		if q, err := r.queue(run, c.trustedURL); err == nil {
			_ = q.Expire(ctx, r.opts.ResultTTL)
		}
	}
	fail(st, v1alpha1.ArenaRunReasonQueueSecretConflict, c.msg+"; the worker Job was deleted", gen, now, s)
	return nil
}

// deleteJob deletes the run's worker Job (its pods with it, in the background).
func (r *Reconciler) deleteJob(ctx context.Context, run *v1alpha1.ArenaRun) error {
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: JobName(run), Namespace: run.Namespace}}
	if err := r.client.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting the worker Job: %w", err)
	}
	return nil
}

// enqueue writes the matrix. It reports done when the run ended (over the cap).
func (r *Reconciler) enqueue(ctx context.Context, run *v1alpha1.ArenaRun, st *v1alpha1.ArenaRunStatus, q *queue.Queue, scenarios, fileProviders []string, now metav1.Time, s *step) (bool, error) {
	t := &run.Spec.Template
	gen := run.Generation
	var items []queue.Item
	if !(t.Type == v1alpha1.ArenaJobTypeLoadTest && t.LoadTest != nil && t.LoadTest.Duration != "") {
		providers := matrixProviders(t, fileProviders)
		trials := 1
		if t.Trials != nil {
			trials = int(*t.Trials)
		}
		if n := queue.MatrixSize(len(scenarios), len(providers), trials); n > int64(r.opts.MaxItems) {
			fail(st, v1alpha1.ArenaRunReasonWorkMatrixTooLarge, fmt.Sprintf("the work matrix has %d items (%d scenarios × %d providers × %d trials), over the cap of %d",
				n, len(scenarios), len(providers), trials, r.opts.MaxItems), gen, now, s)
			return true, nil
		}
		items = queue.Matrix(scenarios, providers, trials)
	}
	var budget float64
	if t.BudgetLimit != "" {
		budget, _ = strconv.ParseFloat(t.BudgetLimit, 64)
	}
	total, err := q.Enqueue(ctx, items, r.opts.MaxItems, budget)
	if errors.Is(err, queue.ErrOverCap) {
		fail(st, v1alpha1.ArenaRunReasonWorkMatrixTooLarge, err.Error(), gen, now, s)
		return true, nil
	}
	if err != nil {
		return false, queueErr("writing the work matrix", err)
	}
	st.Progress = &v1alpha1.ArenaRunProgress{Total: int32(total), Pending: int32(total)}
	return false, nil
}

// observeQueue copies progress and ends the run when the queue is done.
func (r *Reconciler) observeQueue(ctx context.Context, run *v1alpha1.ArenaRun, st *v1alpha1.ArenaRunStatus, q *queue.Queue, job *batchv1.Job, now metav1.Time, s *step) error {
	gen := run.Generation
	m, c, err := q.State(ctx)
	if err != nil {
		return queueErr("reading the run's queue", err)
	}
	st.Progress = progressOf(m, c)
	duration := run.Spec.Template.Type == v1alpha1.ArenaJobTypeLoadTest && run.Spec.Template.LoadTest != nil && run.Spec.Template.LoadTest.Duration != ""
	jobDone, jobFailed := jobFinished(job)
	done := c.Done(m) && !duration || (duration && (jobDone || m.Stopped && c.InFlight <= 0))
	if !done {
		if jobFailed {
			fail(st, v1alpha1.ArenaRunReasonWorkersFailed, "the worker Job failed before the queue was done", gen, now, s)
			return nil
		}
		// Every worker exited with work left and nothing in flight: no one
		// will finish it. A grace lets reports already sent land first.
		if jobDone && c.InFlight <= 0 && job.Status.CompletionTime != nil {
			if left := now.Sub(job.Status.CompletionTime.Time); left >= r.opts.JobDoneGrace {
				fail(st, v1alpha1.ArenaRunReasonWorkersFailed, fmt.Sprintf("the worker Job completed with %d of %d items not done", m.Total-c.Completed-c.Failed, m.Total), gen, now, s)
				return nil
			} else {
				s.after(r.opts.JobDoneGrace - left)
			}
		}
		setProgressing(st, true, v1alpha1.ArenaRunReasonWorkersRunning, fmt.Sprintf("%d of %d items done", c.Completed+c.Failed, m.Total), gen, now)
		setReady(st, v1alpha1.ArenaRunReasonRunning, "the workers are executing", gen, now)
		s.after(r.opts.PollInterval)
		return nil
	}
	summary, kept, err := r.readResults(ctx, &run.Spec.Template, q, c)
	if err != nil {
		return queueErr("reading the run's results", err)
	}
	phase, reason, msg, summary := outcomeOf(&run.Spec.Template, m, c, summary, kept)
	st.Result = &v1alpha1.ArenaRunResult{Summary: summary}
	if phase == v1alpha1.ArenaRunPhaseFailed {
		fail(st, reason, msg, gen, now, s)
	} else {
		finish(st, phase, reason, msg, gen, now)
		s.events = append(s.events, [3]string{corev1.EventTypeNormal, reason, msg})
	}
	_ = q.Expire(ctx, r.opts.ResultTTL)
	return nil
}

// outcome is the end of a run whose queue is done: the summary, and the
// phase with its reason (a budget stop, a failed threshold, a failed item of
// an enumerated load test).
func outcome(t *v1alpha1.ArenaJobSpec, m queue.Meta, c queue.Counters, results []queue.Result) (v1alpha1.ArenaRunPhase, string, string, map[string]string) {
	return outcomeOf(t, m, c, queue.Summarize(results, c), results)
}

// outcomeOf is outcome from the summary of the results and the results a
// load test's thresholds and time series read (keptResult's).
func outcomeOf(t *v1alpha1.ArenaJobSpec, m queue.Meta, c queue.Counters, summary map[string]string, results []queue.Result) (v1alpha1.ArenaRunPhase, string, string, map[string]string) {
	if durationLoadTest(t) {
		for k, v := range timeSeriesSummary(results) {
			summary[k] = v
		}
	}
	if m.Stopped && m.StopReason == queue.StopBudgetExceeded {
		summary[queue.KeyBudgetBreached] = "true"
		summary[queue.KeyDrainedItems] = strconv.FormatInt(m.Drained, 10)
		summary[queue.KeyTotalCost] = queue.FormatCost(c.Cost)
		return v1alpha1.ArenaRunPhaseFailed, v1alpha1.ArenaRunReasonBudgetExceeded,
			fmt.Sprintf("the run spent %s %s, over its budgetLimit %s; %d queued items were discarded",
				queue.FormatCost(c.Cost), t.BudgetCurrency, t.BudgetLimit, m.Drained), summary
	}
	if t.Type == v1alpha1.ArenaJobTypeLoadTest {
		var ths []v1alpha1.ArenaJobLoadTestThreshold
		if t.LoadTest != nil {
			ths = t.LoadTest.Thresholds
		}
		entries, failed := evaluateThresholds(ths, loadTestMetrics(t.LoadTest, results, c))
		for k, v := range entries {
			summary[k] = v
		}
		if failed {
			return v1alpha1.ArenaRunPhaseFailed, v1alpha1.ArenaRunReasonTestsFailed, "load-test thresholds failed: " + entries["thresholds_passed"], summary
		}
		enumerated := t.LoadTest == nil || t.LoadTest.Duration == ""
		if failedItems := summary[queue.KeyFailedItems]; enumerated && failedItems != "0" {
			return v1alpha1.ArenaRunPhaseFailed, v1alpha1.ArenaRunReasonTestsFailed, failedItems + " load-test items failed", summary
		}
	}
	return v1alpha1.ArenaRunPhaseSucceeded, v1alpha1.ArenaRunReasonSucceeded,
		fmt.Sprintf("%s items, pass rate %s%%", summary[queue.KeyTotalItems], summary[queue.KeyPassRate]), summary
}

func progressOf(m queue.Meta, c queue.Counters) *v1alpha1.ArenaRunProgress {
	total := m.Total
	if done := c.Completed + c.Failed; done > total {
		total = done // a duration load test has no matrix
	}
	pending := total - c.Completed - c.Failed
	if pending < 0 || m.Stopped {
		pending = max(0, c.InFlight)
	}
	return &v1alpha1.ArenaRunProgress{Total: int32(total), Completed: int32(c.Completed), Failed: int32(c.Failed), Pending: int32(pending)}
}

func jobFinished(job *batchv1.Job) (done, failed bool) {
	for _, c := range job.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			done = true
		case batchv1.JobFailed:
			failed = true
		}
	}
	return done || failed, failed
}

// cancel stops the run: delete the Job, drain the queue, Cancelled.
func (r *Reconciler) cancel(ctx context.Context, run *v1alpha1.ArenaRun, st *v1alpha1.ArenaRunStatus, now metav1.Time, s *step) error {
	if err := r.deleteJob(ctx, run); err != nil {
		return err
	}
	msg := "cancelled by spec.cancelled"
	if st.Queue != nil {
		ws, found := clusterfacts.New(ctx, r.client, r.secrets, r.mapper, r.opts.License).Workspace(run.Namespace)
		if !found {
			ws = nil
		}
		url, err := r.queueURL(ctx, run, st, ws)
		if conflict := (*queueSecretConflict)(nil); errors.As(err, &conflict) {
			// The Secret is refused; the queue is drained where the operator
			// decided it is, when it still knows where that is.
			if conflict.trustedURL == "" {
				msg = "cancelled by spec.cancelled; the queue was not drained: " + conflict.msg
				finish(st, v1alpha1.ArenaRunPhaseCancelled, v1alpha1.ArenaRunReasonCancelled, msg, run.Generation, now)
				s.events = append(s.events, [3]string{corev1.EventTypeNormal, v1alpha1.ArenaRunReasonCancelled, msg})
				return nil
			}
			url, err = conflict.trustedURL, nil
		}
		if err != nil {
			return err
		}
		q, err := r.queue(run, url)
		if err != nil {
			return err
		}
		drained, err := q.Drain(ctx, queue.StopCancelled)
		if err != nil {
			return queueErr("draining the run's queue", err)
		}
		m, c, err := q.State(ctx)
		if err != nil {
			return queueErr("reading the run's queue", err)
		}
		st.Progress = progressOf(m, c)
		msg = fmt.Sprintf("cancelled by spec.cancelled; %d queued items drained", drained)
		_ = q.Expire(ctx, r.opts.ResultTTL)
	}
	finish(st, v1alpha1.ArenaRunPhaseCancelled, v1alpha1.ArenaRunReasonCancelled, msg, run.Generation, now)
	s.events = append(s.events, [3]string{corev1.EventTypeNormal, v1alpha1.ArenaRunReasonCancelled, msg})
	return nil
}

// apply server-side applies the Job when it does not exist yet (recording
// the applied hash); job is left as the API server has it.
func (r *Reconciler) apply(ctx context.Context, job *batchv1.Job) error {
	live := &batchv1.Job{}
	err := r.client.Get(ctx, client.ObjectKeyFromObject(job), live)
	switch {
	case err == nil:
		// Applied already (same hash), or applied from an earlier spec: a
		// Job's pod template is immutable and a run's template frozen, so
		// the first Job stays.
		*job = *live
		return nil
	case !apierrors.IsNotFound(err):
		return fmt.Errorf("reading the worker Job: %w", err)
	}
	if _, err := ssa.Stamp(job); err != nil {
		return err
	}
	if err := (ssa.Applier{Client: r.client, FieldManager: FieldManager}).Apply(ctx, job); err != nil {
		return fmt.Errorf("creating the worker Job: %w", err)
	}
	return nil
}

// Evaluate returns every rule finding on the run, as the webhook and
// omniactl would report them.
func Evaluate(ctx context.Context, sv *schema.Validator, run *v1alpha1.ArenaRun, facts rules.Facts) ([]rules.Finding, error) {
	return rules.FullStored(ctx, sv, "ArenaRun", run, facts)
}

// scenarioFacts adds the run's scenario count (rules.ScenarioCountFacts)
// once the arena file was read.
type scenarioFacts struct {
	*clusterfacts.Facts
	run   *v1alpha1.ArenaRun
	n     int
	known bool
}

// ArenaRunScenarioCount implements rules.ScenarioCountFacts.
func (f scenarioFacts) ArenaRunScenarioCount(namespace, name string) (int, bool) {
	if !f.known || namespace != f.run.Namespace || name != f.run.Name {
		return 0, false
	}
	return f.n, true
}

// AdmissionTimeout is how long an admitted run may go without starting its
// workers before it gives its slot back (rules.ArenaRunQuota decides it).
const AdmissionTimeout = rules.ArenaRunAdmissionTimeout
