// Package arenajob is the ArenaJob controller (arenajob.md § schedule,
// suspend, history limits, status). An ArenaJob executes nothing itself: it
// creates ArenaRuns, each with the job's spec frozen as its template and
// owned by the job, and the ArenaRun controller runs them.
//
//   - Manual (no schedule, or an empty cron): exactly one run, <job>-manual,
//     on the first reconcile. A job whose status names a run
//     (status.lastRunRef) never starts a manual one again, so pruning it
//     does not bring it back.
//   - Schedule: one run per due tick, <job>-<unix minute of the tick>, the
//     cron read in spec.schedule.timezone. Of the ticks due since
//     status.lastScheduleTime (or the job's creation), only the most recent
//     is acted on — as a CronJob without startingDeadlineSeconds — so after
//     an operator restart the missed ticks are dropped (a MissedSchedule
//     event counts them) and the latest runs once. Run names are
//     deterministic and created if absent, so no tick runs twice, whatever
//     the retries and restarts.
//   - Concurrency: Allow starts alongside active runs; Forbid skips the tick
//     (RunSkipped event, recorded as passed in lastScheduleTime); Replace
//     sets spec.cancelled on the active runs, then starts the new one.
//   - The workspace's quotas.arena.maxJobsPerDay: a due tick is skipped
//     (Warning RunSkipped, recorded as passed) when the namespace's runs of
//     the last 24 hours use up the allowance.
//   - Suspend: no run starts, nextScheduleTime is cleared, a Suspended event
//     is recorded.
//   - History: finished runs beyond successfulRunsHistoryLimit (3) and
//     failedRunsHistoryLimit (1; Cancelled counts as failed) are deleted,
//     oldest first.
//
// Validity is the catalog's: each reconcile evaluates the ArenaJob rules
// (facts from clusterfacts, the licence among them). A schedule finding
// (reason InvalidSchedule) or a licence gate's refusal (reason
// LicenseViolation) makes Ready False with that reason and Stalled True,
// and the job starts nothing. The status is computed in memory and written
// once with a merge patch, not at all when unchanged. Time comes from an
// injectable clock; the next tick is a RequeueAfter.
package arenajob

import (
	"context"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/reconcile/internal/statuswrite"
	"github.com/altairalabs/omnia/reconcile/policycheck"
	"github.com/altairalabs/omnia/reconcile/transitions"
	"github.com/altairalabs/omnia/rules"
)

// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=arenajobs,verbs=get;list;watch
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=arenajobs/status,verbs=get;patch
// Owner references with blockOwnerDeletion need update on the owner's finalizers.
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=arenajobs/finalizers,verbs=update
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=arenaruns,verbs=get;list;watch;create;patch;delete
// The licence gates read the namespace's Workspace (maxWorkersPerJob).
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=workspaces,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// ControllerName names the controller and is the reportingController of its
// events.
const ControllerName = "arenajob-controller"

// licenseRecheck is how often a job a licence gate refuses is looked at
// again, so a licence installed later (the licence store has no watch) lets
// it start.
const licenseRecheck = time.Minute

// Options configure the controller. Zero values take the defaults.
type Options struct {
	// Common are the clock, licence, workers and test switch every
	// controller takes (default workers: 2).
	ctrlopts.Common
	// Policies are the platform team's ValidationPolicies in force (the
	// operator's policies.Store): their rules for ArenaJob set policy
	// conditions (policycheck), and a change re-reconciles every job.
	// Nil: no policies.
	Policies policycheck.Policies
}

func (o Options) withDefaults() Options {
	o.Common = o.Common.WithDefaults(2)
	return o
}

// Reconciler reconciles ArenaJobs.
type Reconciler struct {
	client   client.Client
	mapper   meta.RESTMapper
	recorder events.EventRecorder
	opts     Options
}

// NewReconciler returns a Reconciler reading and writing through c and
// emitting events with recorder (events.k8s.io; nil emits none).
func NewReconciler(c client.Client, mapper meta.RESTMapper, recorder events.EventRecorder, opts Options) *Reconciler {
	return &Reconciler{client: c, mapper: mapper, recorder: recorder, opts: opts.withDefaults()}
}

// SetupWithManager registers the controller: it reconciles an ArenaJob on a
// spec change and whenever one of its runs changes (a run finishing frees a
// Forbid tick and may be pruned).
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	r := NewReconciler(mgr.GetClient(), mgr.GetRESTMapper(), mgr.GetEventRecorder(ControllerName), opts)
	copts := r.opts.Controller()
	b := ctrl.NewControllerManagedBy(mgr).
		Named("arenajob").
		For(&v1alpha1.ArenaJob{}, builder.WithPredicates(predicate.Or[client.Object](predicate.GenerationChangedPredicate{},
			policycheck.Relabelled(opts.Policies, "ArenaJob")))).
		Owns(&v1alpha1.ArenaRun{})
	return policycheck.Watch(b, opts.Policies, "ArenaJob", r.client, func() client.ObjectList { return &v1alpha1.ArenaJobList{} }).
		WithOptions(copts).
		Complete(r)
}

// Reconcile starts the job's due run, prunes its history and writes its status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)
	job := &v1alpha1.ArenaJob{}
	if err := r.client.Get(ctx, req.NamespacedName, job); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !job.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // its runs go with it (owner references)
	}

	facts := clusterfacts.New(ctx, r.client, r.client, r.mapper, r.opts.License)
	g := groupFindings(rules.Default.Evaluate("ArenaJob", rules.Input{Object: job, Facts: facts}, rules.Options{}))
	var err error
	if g.policy, err = policycheck.Evaluate(policycheck.Catalog(r.opts.Policies), "ArenaJob", job, facts); err != nil {
		return ctrl.Result{}, err
	}
	if err := facts.Err(); err != nil {
		return ctrl.Result{}, fmt.Errorf("evaluating rules: %w", err)
	}
	runs, all, err := r.listRuns(ctx, job)
	if err != nil {
		return ctrl.Result{}, err
	}
	now := r.opts.Clock.Now()
	o := outcome{runs: runs}
	var result ctrl.Result
	var skipped, missed int
	var quota rules.ArenaDailyRunQuota

	scheduled := job.Spec.Schedule != nil && job.Spec.Schedule.Cron != ""
	switch {
	case len(g.blocking()) > 0:
		// Refused: nothing starts. A licence may be installed later.
		if len(g.schedule) == 0 {
			result.RequeueAfter = licenseRecheck
		}
	case job.Spec.Suspend:
		// Nothing starts; nextScheduleTime is cleared.
	case !scheduled:
		if job.Status.LastRunRef == nil {
			run, err := r.startRun(ctx, job, NewRun(job, time.Time{}))
			if err != nil {
				return ctrl.Result{}, err
			}
			o.started, o.runs = run.Name, upsert(o.runs, run)
		}
	default:
		sched, err := ParseSchedule(job.Spec.Schedule)
		if err != nil {
			// The rules accepted it; a parser disagreement reads as invalid.
			g.schedule = append(g.schedule, rules.Finding{RuleID: "arenajob/schedule-cron-invalid",
				Severity: rules.SeverityWarn, Reason: v1alpha1.ArenaJobReasonInvalidSchedule, Message: err.Error()})
			break
		}
		since := job.CreationTimestamp.Time
		if job.Status.LastScheduleTime != nil {
			since = job.Status.LastScheduleTime.Time
		}
		active := Active(runs)
		d := Decide(TickInput{Schedule: sched, Policy: job.Spec.Schedule.ConcurrencyPolicy,
			Active: len(active), Since: since, Now: now})
		o.next, missed = d.Next, d.Missed
		if !d.Next.IsZero() {
			result.RequeueAfter = max(d.Next.Sub(now), time.Second)
		}
		if d.Action != TickNone {
			if run := find(runs, RunName(job.Name, d.Tick)); run != nil {
				// The tick already has its run: the job read here is older
				// than the reconcile that started it (a cache not yet
				// caught up). Record it; skip, cancel or start nothing.
				o.tick, o.started, missed = d.Tick, run.Name, 0
				break
			}
		}
		if d.Action == TickStart {
			ws, _ := facts.Workspace(job.Namespace)
			if err := facts.Err(); err != nil {
				return ctrl.Result{}, fmt.Errorf("reading the Workspace: %w", err)
			}
			if quota = dailyRunQuota(ws, all, now); quota.Exhausted() {
				d.Action, d.Replace = TickSkip, false
			}
		}
		switch d.Action {
		case TickSkip:
			o.tick, skipped = d.Tick, max(len(active), 1)
		case TickStart:
			if d.Replace {
				if err := r.cancel(ctx, job, active); err != nil {
					return ctrl.Result{}, err
				}
			}
			run, err := r.startRun(ctx, job, NewRun(job, d.Tick))
			if err != nil {
				return ctrl.Result{}, err
			}
			o.tick, o.started, o.runs = d.Tick, run.Name, upsert(o.runs, run)
		}
	}

	pruned, err := r.prune(ctx, job, o.runs)
	if err != nil {
		return ctrl.Result{}, err
	}
	o.runs = pruned

	st := computeStatus(job, g, o, metav1.NewTime(now).Rfc3339Copy())
	old := job.Status
	wrote, err := statuswrite.Patch(ctx, r.client, job, &job.Status, st)
	if err != nil {
		return ctrl.Result{}, err
	}
	if wrote {
		log.V(1).Info("status written", "active", len(st.Active), "next", st.NextScheduleTime)
		transitions.Emit(r.recorder, job, readyOnly(old.Conditions), readyOnly(st.Conditions))
		if suspendedNow(old.Conditions, st.Conditions) {
			r.event(job, corev1.EventTypeNormal, EventSuspended, "Suspend", SuspendedMessage)
		}
	}
	if skipped > 0 && quota.Exhausted() {
		r.event(job, corev1.EventTypeWarning, EventRunSkipped, "Schedule",
			"the tick of "+o.tick.UTC().Format(time.RFC3339)+" was skipped: the workspace's quotas.arena.maxJobsPerDay ("+
				strconv.Itoa(quota.Limit)+") is used up by the "+strconv.Itoa(quota.Used)+" run(s) of the last 24 hours in namespace "+
				job.Namespace+"; it is recorded as passed")
	} else if skipped > 0 {
		r.event(job, corev1.EventTypeNormal, EventRunSkipped, "Schedule",
			"the tick of "+o.tick.UTC().Format(time.RFC3339)+" was skipped: concurrencyPolicy Forbid and "+
				strconv.Itoa(skipped)+" run(s) still active; it is recorded as passed")
	}
	if missed > 0 && (o.started != "" || skipped > 0) {
		r.event(job, corev1.EventTypeNormal, EventMissedTicks, "Schedule",
			strconv.Itoa(missed)+" earlier due tick(s) were not run: only the most recent due tick is acted on (as a CronJob without startingDeadlineSeconds)")
	}
	return result, nil
}

// readyOnly keeps the Ready condition: Stalled turning False is the good
// news, so the generic transition events (a Warning when a condition turns
// False) are only about Ready.
func readyOnly(conds []metav1.Condition) []metav1.Condition {
	if c := meta.FindStatusCondition(conds, v1alpha1.ArenaJobConditionReady); c != nil {
		return []metav1.Condition{*c}
	}
	return nil
}

func (r *Reconciler) event(job *v1alpha1.ArenaJob, typ, reason, action, note string) {
	if r.recorder != nil {
		r.recorder.Eventf(job, nil, typ, reason, action, "%s", note)
	}
}

// listRuns returns the runs the job controls and every run of its
// namespace (the daily quota counts them all).
func (r *Reconciler) listRuns(ctx context.Context, job *v1alpha1.ArenaJob) (mine, all []*v1alpha1.ArenaRun, err error) {
	list := &v1alpha1.ArenaRunList{}
	if err := r.client.List(ctx, list, client.InNamespace(job.Namespace)); err != nil {
		return nil, nil, fmt.Errorf("listing ArenaRuns: %w", err)
	}
	for i := range list.Items {
		all = append(all, &list.Items[i])
		if owned(&list.Items[i], job) {
			mine = append(mine, &list.Items[i])
		}
	}
	return mine, all, nil
}

func owned(run *v1alpha1.ArenaRun, job *v1alpha1.ArenaJob) bool {
	ref := metav1.GetControllerOf(run)
	return ref != nil && ref.UID == job.UID
}

// startRun creates run if absent. A run of that name the job already owns is
// the same tick's (a retry, a restart, a stale cache): it is not started
// again. One the job does not own is an error.
func (r *Reconciler) startRun(ctx context.Context, job *v1alpha1.ArenaJob, run *v1alpha1.ArenaRun) (*v1alpha1.ArenaRun, error) {
	err := r.client.Create(ctx, run)
	if err == nil {
		r.event(job, corev1.EventTypeNormal, EventRunCreated, "Create", "started ArenaRun "+run.Name+" (trigger "+string(run.Spec.Trigger)+")")
		return run, nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("creating ArenaRun %s: %w", run.Name, err)
	}
	existing := &v1alpha1.ArenaRun{}
	if err := r.client.Get(ctx, client.ObjectKeyFromObject(run), existing); err != nil {
		return nil, fmt.Errorf("reading ArenaRun %s: %w", run.Name, err)
	}
	if !owned(existing, job) {
		return nil, fmt.Errorf("ArenaRun %s exists and is not this job's: rename it or the job", run.Name)
	}
	return existing, nil
}

// cancel sets spec.cancelled on the active runs (Replace).
func (r *Reconciler) cancel(ctx context.Context, job *v1alpha1.ArenaJob, active []*v1alpha1.ArenaRun) error {
	for _, run := range active {
		if run.Spec.Cancelled {
			continue
		}
		orig := run.DeepCopy()
		run.Spec.Cancelled = true
		if err := r.client.Patch(ctx, run, client.MergeFrom(orig)); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("cancelling ArenaRun %s: %w", run.Name, err)
		}
		r.event(job, corev1.EventTypeNormal, EventRunReplaced, "Cancel",
			"cancelled ArenaRun "+run.Name+" (concurrencyPolicy Replace) to start the new tick's run")
	}
	return nil
}

// prune deletes the finished runs beyond the history limits and returns the
// runs left.
func (r *Reconciler) prune(ctx context.Context, job *v1alpha1.ArenaJob, runs []*v1alpha1.ArenaRun) ([]*v1alpha1.ArenaRun, error) {
	doomed := ToPrune(&job.Spec, runs)
	if len(doomed) == 0 {
		return runs, nil
	}
	gone := map[string]bool{}
	var names []string
	for _, run := range doomed {
		uid := run.UID
		err := r.client.Delete(ctx, run, client.Preconditions{UID: &uid}, client.PropagationPolicy(metav1.DeletePropagationBackground))
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("pruning ArenaRun %s: %w", run.Name, err)
		}
		gone[run.Name] = true
		names = append(names, run.Name)
	}
	r.event(job, corev1.EventTypeNormal, EventRunsPruned, "Delete",
		fmt.Sprintf("deleted %d finished run(s) beyond the history limits: %v", len(names), names))
	var left []*v1alpha1.ArenaRun
	for _, run := range runs {
		if !gone[run.Name] {
			left = append(left, run)
		}
	}
	return left, nil
}

// find returns the run named name, or nil.
func find(runs []*v1alpha1.ArenaRun, name string) *v1alpha1.ArenaRun {
	for _, r := range runs {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// upsert puts run into runs, replacing one of the same name.
func upsert(runs []*v1alpha1.ArenaRun, run *v1alpha1.ArenaRun) []*v1alpha1.ArenaRun {
	for i, r := range runs {
		if r.Name == run.Name {
			runs[i] = run
			return runs
		}
	}
	return append(runs, run)
}
