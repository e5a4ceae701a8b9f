package agentruntime

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
	"github.com/altairalabs/omnia/rules"
)

// Progressive rollouts (agentruntime.md § rollout, § rollout (status)): the
// candidate Deployment, the step machine, promotion and rollback, and the
// RolloutActive condition. docs/rollouts.md is the user's account.
//
// The machine's state is status.rollout; each reconcile reads it, does at
// most one transition's writes, and the status patch at the end of
// Reconcile records where it stands. Timed steps ask for a requeue
// (in.requeue), never block a worker. The decisions are pure functions in
// rollout_steps.go and rollout_candidate.go.
//
// Writes to the AgentRuntime's own spec (promotion copies the candidate's
// overrides into it and clears rollout.candidate; rollback sets the
// candidate back to the spec) are merge patches with an optimistic lock: a
// concurrent edit makes the reconcile fail and retry on the new object.
//
// Promotion is two reconciles apart on purpose: status.rollout.promoting is
// written first, and the spec is patched on the next reconcile, so the
// reconcile that the spec write triggers always reads promoting=true (the
// cache delivers the status write before the later spec write) and never
// mistakes a candidate equal to the new spec for an idle rollout.

// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=delete
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=agentruntimes,verbs=update;patch

// RolloutOptions configure the group (cmd/omnia-operator sets them).
type RolloutOptions struct {
	// PromotionRequeue is how soon the reconcile after the one that starts
	// a promotion runs (it writes the candidate into the spec). Default
	// DefaultPromotionRequeue.
	PromotionRequeue time.Duration

	// apiReader reads the agent past the cache (freshRollout); set by
	// setupRollout from the manager. Nil skips the check.
	apiReader client.Reader
}

// staleRequeue is how soon a reconcile that read a stale agent from the
// cache looks again (the status write that made it stale triggers none).
const staleRequeue = 200 * time.Millisecond

// DefaultPromotionRequeue is RolloutOptions.PromotionRequeue's default.
const DefaultPromotionRequeue = time.Second

// Event reasons of a rollout (events.k8s.io, action rolloutAction).
const (
	EventRolloutStarted    = "RolloutStarted"
	EventRolloutStep       = "RolloutStepCompleted"
	EventRolloutPromoting  = "RolloutPromoting"
	EventRolloutPromoted   = "RolloutPromoted"
	EventRolloutRolledBack = "RolloutRolledBack"
	EventRolloutAborted    = "RolloutAborted"
	rolloutAction          = "Rollout"
)

// rolloutOutcome is what the group's apply step did, for the status.
type rolloutOutcome struct {
	// status is status.rollout as it stands after this reconcile.
	status *v1alpha1.AgentRuntimeRolloutStatus
	// active, reason and message are the RolloutActive condition.
	active          bool
	reason, message string
	// traffic is what routeTraffic did this reconcile (nil when it did not
	// run): status.rollout.trafficRoutingMode / trafficWeightEnforced and
	// the TrafficRouting condition (rollout_traffic.go).
	traffic *trafficOutcome
}

// hold stops the machine for this reconcile with the condition's reason
// and the message (also status.rollout.message).
func (o *rolloutOutcome) hold(reason, message string) error {
	o.reason, o.message = reason, message
	o.status.Message = message
	return nil
}

// setupRollout gives the group the API reader it reads the candidate
// through. SetupWithManager watches the promote annotation
// (promoteAnnotationChanged); the candidate Deployment is owned by the
// agent, so Owns(Deployment) already re-reconciles on its status.
func (r *Reconciler) setupRollout(mgr ctrl.Manager) {
	r.opts.Rollout.apiReader = mgr.GetAPIReader()
}

// promoteAnnotationChanged passes an AgentRuntime update that sets or
// changes AgentRuntimeRolloutPromoteAnnotation.
func promoteAnnotationChanged() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			k := v1alpha1.AgentRuntimeRolloutPromoteAnnotation
			return e.ObjectOld.GetAnnotations()[k] != e.ObjectNew.GetAnnotations()[k]
		},
	}
}

// setRolloutStatus sets status.rollout and the RolloutActive condition from
// what applyRollout did; nothing when it did not run. The traffic part
// (TrafficRouting, trafficRoutingMode, trafficWeightEnforced) follows in
// computeStatus: setTrafficRoutingStatus with in.rollout.trafficOutcome().
func setRolloutStatus(st *v1alpha1.AgentRuntimeStatus, ar *v1alpha1.AgentRuntime, in statusInput) {
	if out := in.rollout; out != nil {
		st.Rollout = out.status
		setRolloutActive(st, ar, out, in.now)
	}
}

// setRolloutActive sets RolloutActive from out; none when out has no reason.
func setRolloutActive(st *v1alpha1.AgentRuntimeStatus, ar *v1alpha1.AgentRuntime, out *rolloutOutcome, now metav1.Time) {
	if out.reason == "" {
		return
	}
	c := metav1.Condition{Type: v1alpha1.AgentRuntimeConditionRolloutActive, Status: metav1.ConditionFalse,
		Reason: out.reason, Message: conditions.Truncate(out.message, 4096), ObservedGeneration: ar.Generation}
	if out.active {
		c.Status = metav1.ConditionTrue
	}
	conditions.Set(&st.Conditions, c, now)
}

// applyRollout runs after the stable Deployment is applied: the candidate
// Deployment, the step machine and the traffic routing.
func (r *Reconciler) applyRollout(ctx context.Context, ar *v1alpha1.AgentRuntime, res *workload.Resolved, in *statusInput) error {
	if stale, err := r.freshRollout(ctx, ar, in); err != nil || stale {
		return err
	}
	switch rolloutPhaseOf(ar) {
	case rolloutNone:
		if _, ok := ar.Annotations[v1alpha1.AgentRuntimeRolloutPromoteAnnotation]; !ok {
			return nil
		}
		return r.patchAgent(ctx, ar, dropPromoteAnnotation)
	case rolloutIdle:
		return r.rolloutIdle(ctx, ar, in)
	case rolloutEnded:
		return r.rolloutEnded(ctx, ar, in)
	case rolloutPromoting:
		return r.rolloutPromoting(ctx, ar, res, in)
	default:
		return r.rolloutRun(ctx, ar, res, in)
	}
}

// freshRollout guards the machine against a stale cache. Its transitions
// write the spec and then the status (at the end of Reconcile), and the
// reconcile the spec write triggers can read the agent from the cache
// before the status write reached it: it would see, e.g., a rolled-back
// candidate equal to the spec with the rollout still active. So for an
// agent with a rollout the agent is read once from the API server; when
// the cache is behind, this reconcile keeps the API server's
// status.rollout and RolloutActive as they are, does nothing else of the
// rollout's, and looks again shortly. One GET per reconcile of an agent
// with spec.rollout or status.rollout; none for any other agent.
func (r *Reconciler) freshRollout(ctx context.Context, ar *v1alpha1.AgentRuntime, in *statusInput) (stale bool, err error) {
	reader := r.opts.Rollout.apiReader
	if reader == nil || (ar.Spec.Rollout == nil && ar.Status.Rollout == nil) {
		return false, nil
	}
	fresh := &v1alpha1.AgentRuntime{}
	if err := reader.Get(ctx, client.ObjectKeyFromObject(ar), fresh); apierrors.IsNotFound(err) {
		return true, nil // deleted since the cache read: nothing to roll out
	} else if err != nil {
		return false, fmt.Errorf("reading the agent for its rollout: %w", err)
	}
	if fresh.ResourceVersion == ar.ResourceVersion {
		return false, nil
	}
	out := &rolloutOutcome{status: fresh.Status.Rollout}
	if c := meta.FindStatusCondition(fresh.Status.Conditions, v1alpha1.AgentRuntimeConditionRolloutActive); c != nil {
		out.active, out.reason, out.message = c.Status == metav1.ConditionTrue, c.Reason, c.Message
	}
	in.rollout = out
	in.requeue.After(staleRequeue)
	return true, nil
}

// rolloutIdle: no rollout in progress. A candidate Deployment left behind
// (an operator restart mid-cleanup) is removed; the last rollout's ending
// (promoted, rolled back, aborted) stays on the condition.
func (r *Reconciler) rolloutIdle(ctx context.Context, ar *v1alpha1.AgentRuntime, in *statusInput) error {
	st := &v1alpha1.AgentRuntimeRolloutStatus{}
	if ar.Status.Rollout != nil {
		st = ar.Status.Rollout.DeepCopy()
	}
	st.Active, st.Promoting = false, false
	st.StableVersion = in.activeVersion
	out := &rolloutOutcome{status: st}
	in.rollout = out
	live, err := r.candidateLive(ctx, ar)
	if err != nil {
		return err
	}
	if live != nil {
		if err := r.removeCandidate(ctx, ar, in); err != nil {
			return err
		}
	}
	if c := meta.FindStatusCondition(ar.Status.Conditions, v1alpha1.AgentRuntimeConditionRolloutActive); c != nil && c.Status == metav1.ConditionFalse {
		switch c.Reason {
		case v1alpha1.AgentRuntimeReasonRolloutPromoted, v1alpha1.AgentRuntimeReasonRolloutRolledBack, v1alpha1.AgentRuntimeReasonRolloutAborted:
			out.reason, out.message = c.Reason, c.Message
			return r.patchAgent(ctx, ar, dropPromoteAnnotation)
		}
	}
	_ = out.hold(v1alpha1.AgentRuntimeReasonRolloutIdle, "no rollout in progress: spec.rollout.candidate is unset or matches the spec")
	return r.patchAgent(ctx, ar, dropPromoteAnnotation)
}

// rolloutEnded: a rollout was active and its candidate is gone or now
// equals the spec. Removing the candidate by hand is the manual abort.
func (r *Reconciler) rolloutEnded(ctx context.Context, ar *v1alpha1.AgentRuntime, in *statusInput) error {
	prior := ar.Status.Rollout
	st := prior.DeepCopy()
	st.StableVersion = in.activeVersion
	out := &rolloutOutcome{status: st}
	in.rollout = out
	if err := r.removeCandidate(ctx, ar, in); err != nil {
		return err
	}
	var reason, msg string
	switch {
	case prior.Promoting:
		reason, msg = v1alpha1.AgentRuntimeReasonRolloutPromoted, "promoted: the candidate's overrides are the spec; every request is on the stable Deployment"
	case rolloutCandidate(ar) == nil:
		reason, msg = v1alpha1.AgentRuntimeReasonRolloutAborted, "aborted: spec.rollout.candidate was removed; every request is back on the stable Deployment"
		r.event(ar, corev1.EventTypeNormal, EventRolloutAborted, msg)
	default:
		reason, msg = v1alpha1.AgentRuntimeReasonRolloutIdle, "ended: spec.rollout.candidate now matches the spec"
	}
	endRollout(st, msg)
	_ = out.hold(reason, msg)
	return r.patchAgent(ctx, ar, dropPromoteAnnotation)
}

// rolloutRun: the candidate differs from the spec; start the rollout if it
// is not in progress, and run its steps from status.rollout.currentStep.
func (r *Reconciler) rolloutRun(ctx context.Context, ar *v1alpha1.AgentRuntime, res *workload.Resolved, in *statusInput) error {
	prior := ar.Status.Rollout
	var st *v1alpha1.AgentRuntimeRolloutStatus
	if prior == nil || !prior.Active {
		st = startRollout(in.now)
	} else {
		st = prior.DeepCopy()
	}
	st.StableVersion = in.activeVersion
	out := &rolloutOutcome{status: st, active: true}
	in.rollout = out
	built, version, held, err := r.buildCandidate(ctx, ar, res)
	if err != nil {
		return err
	}
	st.CandidateVersion = version
	if prior == nil || !prior.Active {
		r.event(ar, corev1.EventTypeNormal, EventRolloutStarted, fmt.Sprintf("rollout of candidate %s started", orUnknown(version)))
	}
	if held {
		return out.hold(v1alpha1.AgentRuntimeReasonRolloutCandidateHeld,
			"the candidate's inputs do not resolve (its PromptPack, Providers or ToolRegistry): no candidate Deployment yet")
	}
	automatic := rollbackAutomatic(ar)
	live, err := r.candidateLive(ctx, ar)
	if err != nil {
		return err
	}
	if progressDeadlineExceeded(live) {
		return r.candidateUnhealthy(ctx, ar, built, in, automatic, "the candidate Deployment exceeded its progress deadline (ProgressDeadlineExceeded)")
	}
	if promoteRequested(ar) {
		return r.startPromotion(ctx, ar, built, in, "promotion requested by annotation")
	}
	steps := ar.Spec.Rollout.Steps
	weight := ptr.Deref(st.CurrentWeight, 0)
	// A setWeight step applies the candidate itself, so a new candidate
	// Deployment is created at its first weight's replicas: created at 0
	// and then scaled, Kubernetes would count it complete and never judge
	// its progress deadline.
	var d *appsv1.Deployment
	applied := false
	if i := ptr.Deref(st.CurrentStep, 0); int(i) >= len(steps) || steps[i].SetWeight == nil {
		if d, err = r.applyCandidate(ctx, ar, built, weight, in); err != nil {
			return err
		}
		applied = true
	}
	for range len(steps) + 1 {
		i := ptr.Deref(st.CurrentStep, 0)
		if int(i) >= len(steps) {
			return r.startPromotion(ctx, ar, built, in, "every step passed")
		}
		step, label := steps[i], stepLabel(steps, i)
		switch {
		case step.SetWeight != nil:
			if w := *step.SetWeight; w != weight || !applied {
				weight = w
				st.CurrentWeight = ptr.To(w)
				if d, err = r.applyCandidate(ctx, ar, built, w, in); err != nil {
					return err
				}
				applied = true
			}
			if d != nil && !deploymentRolledOut(d) {
				exceeded, remaining := stepDeadline(ar, st.StepStartedAt, in.now.Time)
				if exceeded {
					return r.candidateUnhealthy(ctx, ar, built, in, automatic,
						fmt.Sprintf("%s: the candidate Deployment did not run its replicas within the progress deadline", label))
				}
				in.requeue.After(remaining)
				return out.hold(v1alpha1.AgentRuntimeReasonRolloutProgressing,
					fmt.Sprintf("%s: waiting for the candidate Deployment to run its replicas at weight %d", label, weight))
			}
		case step.Pause != nil:
			manual, remaining := pauseDecision(step.Pause, st.StepStartedAt, in.now.Time)
			if manual {
				return out.hold(v1alpha1.AgentRuntimeReasonRolloutPaused, label+": paused until promoted; "+promoteHint)
			}
			if remaining > 0 {
				in.requeue.After(remaining)
				return out.hold(v1alpha1.AgentRuntimeReasonRolloutPaused,
					fmt.Sprintf("%s: paused until %s", label, in.now.Add(remaining).UTC().Format(time.RFC3339)))
			}
		case step.Analysis != nil:
			if !automatic && analysisSettledFailed(st.Analysis) {
				return out.hold(v1alpha1.AgentRuntimeReasonRolloutAnalysisFailed,
					fmt.Sprintf("%s: analysis %s: %s; %s", label, st.Analysis.Phase, st.Analysis.Message, promoteHint))
			}
			v, err := r.analyze(ctx, ar, step.Analysis, &st.Analysis, in)
			if err != nil {
				return err
			}
			switch analysisActionOf(v.Phase, automatic) {
			case analysisWait:
				return out.hold(v1alpha1.AgentRuntimeReasonRolloutProgressing, fmt.Sprintf("%s: analysis running: %s", label, v.Message))
			case analysisRollback:
				return r.rollback(ctx, ar, in, fmt.Sprintf("%s: analysis %s: %s", label, v.Phase, v.Message))
			case analysisHold:
				if !analysisSettledFailed(st.Analysis) {
					st.Analysis = &v1alpha1.AgentRuntimeRolloutAnalysisStatus{TemplateName: step.Analysis.TemplateName,
						Phase: string(v.Phase), StartedAt: ptr.To(in.now), Message: v.Message}
				}
				return out.hold(v1alpha1.AgentRuntimeReasonRolloutAnalysisFailed,
					fmt.Sprintf("%s: analysis %s: %s; %s", label, v.Phase, v.Message, promoteHint))
			}
		}
		r.event(ar, corev1.EventTypeNormal, EventRolloutStep, label+" completed")
		advanceStep(st, in.now)
	}
	return nil
}

// candidateUnhealthy is a candidate past its progress deadline: the
// automatic rollback, or under manual/disabled a hold at the current weight.
func (r *Reconciler) candidateUnhealthy(ctx context.Context, ar *v1alpha1.AgentRuntime, built *appsv1.Deployment, in *statusInput, automatic bool, why string) error {
	if automatic {
		return r.rollback(ctx, ar, in, why)
	}
	if _, err := r.applyCandidate(ctx, ar, built, ptr.Deref(in.rollout.status.CurrentWeight, 0), in); err != nil {
		return err
	}
	return in.rollout.hold(v1alpha1.AgentRuntimeReasonRolloutCandidateUnhealthy, why+"; "+promoteHint)
}

// startPromotion marks the rollout promoting and sends 100% to the
// candidate; the next reconcile (rolloutPromoting) writes the spec.
func (r *Reconciler) startPromotion(ctx context.Context, ar *v1alpha1.AgentRuntime, built *appsv1.Deployment, in *statusInput, why string) error {
	out := in.rollout
	out.status.Promoting = true
	out.status.CurrentWeight = ptr.To[int32](100)
	if _, err := r.applyCandidate(ctx, ar, built, 100, in); err != nil {
		return err
	}
	r.event(ar, corev1.EventTypeNormal, EventRolloutPromoting, fmt.Sprintf("promoting candidate %s: %s", orUnknown(out.status.CandidateVersion), why))
	in.requeue.After(r.promotionRequeue())
	return out.hold(v1alpha1.AgentRuntimeReasonRolloutPromoting, "promoting ("+why+"): every request goes to the candidate; its overrides are written into the spec next")
}

// rolloutPromoting: status.rollout.promoting is recorded. Copy the
// candidate's overrides into the spec; once the stable Deployment runs
// them at every replica, release the traffic, delete the candidate and
// clear spec.rollout.candidate.
func (r *Reconciler) rolloutPromoting(ctx context.Context, ar *v1alpha1.AgentRuntime, res *workload.Resolved, in *statusInput) error {
	st := ar.Status.Rollout.DeepCopy()
	st.StableVersion = in.activeVersion
	out := &rolloutOutcome{status: st, active: true}
	in.rollout = out
	st.CurrentWeight = ptr.To[int32](100)
	built, _, held, err := r.buildCandidate(ctx, ar, res)
	if err != nil {
		return err
	}
	if !held {
		if _, err := r.applyCandidate(ctx, ar, built, 100, in); err != nil {
			return err
		}
	}
	if !candidateMatchesSpec(ar) {
		cand := rolloutCandidate(ar)
		if err := r.patchAgent(ctx, ar, func(a *v1alpha1.AgentRuntime) {
			a.Spec = withCandidateSpec(a.Spec, cand)
			dropPromoteAnnotation(a)
		}); err != nil {
			return err
		}
		return out.hold(v1alpha1.AgentRuntimeReasonRolloutPromoting,
			"promoting: the candidate's overrides are written into the spec; waiting for the stable Deployment to run them")
	}
	if !deploymentRolledOut(in.deployment) {
		return out.hold(v1alpha1.AgentRuntimeReasonRolloutPromoting,
			"promoting: waiting for the stable Deployment to run the promoted spec at every replica")
	}
	if err := r.removeCandidate(ctx, ar, in); err != nil {
		return err
	}
	if err := r.patchAgent(ctx, ar, func(a *v1alpha1.AgentRuntime) {
		a.Spec.Rollout.Candidate = nil
		dropPromoteAnnotation(a)
	}); err != nil {
		return err
	}
	msg := fmt.Sprintf("promoted: candidate %s is the spec and runs on the stable Deployment", orUnknown(st.CandidateVersion))
	endRollout(st, msg)
	out.active = false
	r.event(ar, corev1.EventTypeNormal, EventRolloutPromoted, msg)
	return out.hold(v1alpha1.AgentRuntimeReasonRolloutPromoted, msg)
}

// rollback is the automatic rollback: traffic back to stable, the candidate
// Deployment deleted, spec.rollout.candidate set back to match the spec.
func (r *Reconciler) rollback(ctx context.Context, ar *v1alpha1.AgentRuntime, in *statusInput, why string) error {
	out := in.rollout
	if err := r.removeCandidate(ctx, ar, in); err != nil {
		return err
	}
	reverted := revertedCandidate(ar)
	if err := r.patchAgent(ctx, ar, func(a *v1alpha1.AgentRuntime) {
		a.Spec.Rollout.Candidate = reverted
		dropPromoteAnnotation(a)
	}); err != nil {
		return err
	}
	msg := "rolled back: " + why
	endRollout(out.status, msg)
	out.active = false
	r.event(ar, corev1.EventTypeWarning, EventRolloutRolledBack, msg)
	return out.hold(v1alpha1.AgentRuntimeReasonRolloutRolledBack, msg)
}

// buildCandidate builds the candidate Deployment with the shared builder
// from candidateAgent, its inputs resolved as the stable agent's are
// (r.resolve on the copy): the PromptPack, Providers and ToolRegistry come
// from the copy; everything else (prepared Secrets, images, quota) is the
// stable agent's res. held is true when the candidate's inputs do not
// resolve; version is the candidate's PromptPack version.
func (r *Reconciler) buildCandidate(ctx context.Context, ar *v1alpha1.AgentRuntime, res *workload.Resolved) (*appsv1.Deployment, string, bool, error) {
	cp := candidateAgent(ar)
	facts := clusterfacts.New(ctx, r.client, r.client, r.mapper, r.opts.License).WithSecretKeyCache(r.secretKeys)
	findings := rules.Default.Evaluate("AgentRuntime", rules.Input{Object: cp, Facts: facts}, rules.Options{})
	var cin statusInput
	plan := r.resolve(cp, facts, findings, &cin)
	if err := facts.Err(); err != nil {
		return nil, "", false, fmt.Errorf("resolving the rollout candidate: %w", err)
	}
	if plan.held {
		return nil, cin.activeVersion, true, nil
	}
	cres := *res
	cres.PromptPack, cres.Providers, cres.ToolRegistryName = plan.res.PromptPack, plan.res.Providers, plan.res.ToolRegistryName
	// The tools ConfigMap and Secret are the agent's, rendered from the
	// stable registry: a candidate naming another registry gets none of
	// them rather than the stable one's tools.
	if cres.ToolRegistryName != res.ToolRegistryName {
		cres.Tools = nil
	}
	built, _, err := workload.Deployment(cp, cres)
	if err != nil {
		return nil, "", false, fmt.Errorf("building the rollout candidate: %w", err)
	}
	return built, cin.activeVersion, false, nil
}

// applyCandidate routes weight to the candidate and applies its Deployment
// with the replicas that weight needs (candidateReplicas); it returns the
// Deployment as the API server has it.
func (r *Reconciler) applyCandidate(ctx context.Context, ar *v1alpha1.AgentRuntime, built *appsv1.Deployment, weight int32, in *statusInput) (*appsv1.Deployment, error) {
	t, err := r.routeTraffic(ctx, ar, weight, in)
	if err != nil {
		return nil, err
	}
	in.rollout.traffic = &t
	replicas := candidateReplicas(stableReplicas(in.deployment), weight, !t.Enforced)
	if replicas == 0 {
		// No pods wanted: a missing candidate is not created (see rolloutRun).
		if live, err := r.candidateLive(ctx, ar); err != nil || live == nil {
			return nil, err
		}
	}
	d := workload.CandidateDeployment(ar, built, replicas)
	if err := r.apply(ctx, d); err != nil {
		return nil, err
	}
	return d, nil
}

// candidateLive is the candidate Deployment from the cache; nil when none.
func (r *Reconciler) candidateLive(ctx context.Context, ar *v1alpha1.AgentRuntime) (*appsv1.Deployment, error) {
	d := &appsv1.Deployment{}
	err := r.client.Get(ctx, client.ObjectKey{Namespace: ar.Namespace, Name: workload.CandidateDeploymentName(ar)}, d)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the candidate Deployment: %w", err)
	}
	return d, nil
}

// removeCandidate returns every request to stable (releaseTraffic) and
// deletes the candidate Deployment, its pods with it.
func (r *Reconciler) removeCandidate(ctx context.Context, ar *v1alpha1.AgentRuntime, in *statusInput) error {
	if err := r.releaseTraffic(ctx, ar, in); err != nil {
		return err
	}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ar.Namespace, Name: workload.CandidateDeploymentName(ar)}}
	if err := r.client.Delete(ctx, d, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting the candidate Deployment: %w", err)
	}
	return nil
}

// patchAgent merge-patches the agent's spec and metadata as mut changes a
// copy of it, with an optimistic lock; no write when mut changes nothing.
// ar itself is left as read (the status is computed from it).
func (r *Reconciler) patchAgent(ctx context.Context, ar *v1alpha1.AgentRuntime, mut func(*v1alpha1.AgentRuntime)) error {
	cp := ar.DeepCopy()
	mut(cp)
	if equality.Semantic.DeepEqual(cp.Spec, ar.Spec) && equality.Semantic.DeepEqual(cp.Annotations, ar.Annotations) {
		return nil
	}
	if err := r.client.Patch(ctx, cp, client.MergeFromWithOptions(ar, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("writing the rollout into the AgentRuntime: %w", err)
	}
	return nil
}

// dropPromoteAnnotation removes AgentRuntimeRolloutPromoteAnnotation.
func dropPromoteAnnotation(a *v1alpha1.AgentRuntime) {
	if _, ok := a.Annotations[v1alpha1.AgentRuntimeRolloutPromoteAnnotation]; !ok {
		return
	}
	ann := make(map[string]string, len(a.Annotations))
	for k, v := range a.Annotations {
		if k != v1alpha1.AgentRuntimeRolloutPromoteAnnotation {
			ann[k] = v
		}
	}
	a.Annotations = ann
}

// event records a rollout event on the agent (nil recorder: none).
func (r *Reconciler) event(ar *v1alpha1.AgentRuntime, typ, reason, note string) {
	if r.recorder == nil {
		return
	}
	r.recorder.Eventf(ar, nil, typ, reason, rolloutAction, "%s", note)
}

func (r *Reconciler) promotionRequeue() time.Duration {
	if d := r.opts.Rollout.PromotionRequeue; d > 0 {
		return d
	}
	return DefaultPromotionRequeue
}

// orUnknown is v, or "(unversioned)" when empty.
func orUnknown(v string) string {
	if v == "" {
		return "(unversioned)"
	}
	return v
}
