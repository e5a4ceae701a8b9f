package agentruntime

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/reconcile/internal/ssa"
	"github.com/altairalabs/omnia/reconcile/internal/statuswrite"
	"github.com/altairalabs/omnia/reconcile/policycheck"
	"github.com/altairalabs/omnia/reconcile/transitions"
	"github.com/altairalabs/omnia/rules"
)

// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=agentruntimes,verbs=get;list;watch
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=agentruntimes/status,verbs=get;patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups="",resources=services;serviceaccounts,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=roles;rolebindings,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=toolregistries,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims,verbs=get;list;watch

// ControllerName names the controller and its logger.
const ControllerName = "agentruntime-controller"

// FieldManager is the one field manager every child is applied with.
const FieldManager = "omnia-operator"

// AppliedHashAnnotation holds the sha256 of the object as built, on every
// applied child. The builders are deterministic, so a child whose
// annotation equals the hash of what would be applied now is skipped: no
// API write when nothing changed (chosen over a dry-run apply, which is
// itself a request per child per reconcile).
const AppliedHashAnnotation = ssa.HashAnnotation

// Options configure the controller.
type Options struct {
	// FrameworkImages are the --framework-image=<type>=<image> entries.
	FrameworkImages map[string]string
	// BuiltinRuntimeImage, FacadeImage, PolicyBrokerImage are the
	// operator's built-in images.
	BuiltinRuntimeImage, FacadeImage, PolicyBrokerImage string
	// Common are the clock, licence, workers (default
	// DefaultMaxConcurrentReconciles, concurrency.go) and test switch every
	// controller takes.
	ctrlopts.Common
	// Policies are the platform team's policies in force (the operator's
	// policies.Store): their rules for AgentRuntime set policy conditions
	// (policycheck), and a change re-reconciles every agent. Nil: no
	// policies.
	Policies policycheck.Policies

	// The feature groups, one options type each (rollout.go,
	// exposure.go, externalauth.go, async.go).
	Rollout      RolloutOptions
	Exposure     ExposureOptions
	ExternalAuth ExternalAuthOptions
	Async        AsyncOptions
	// Analysis configures the rollout's analysis step (rollout_analysis.go).
	Analysis AnalysisOptions

	// Platform renders platform handlers' tools (platform_tools.go).
	Platform PlatformOptions

	// PodSecurity are the operator's pod limits the pod checks judge with
	// (--pod-security-level, --agent-runtime-classes): the same the
	// webhook and the deploy API use. Zero: the defaults (baseline, any
	// RuntimeClass).
	PodSecurity rules.PodSecuritySettings
}

// Reconciler reconciles AgentRuntimes.
type Reconciler struct {
	client   client.Client
	mapper   meta.RESTMapper
	recorder events.EventRecorder
	opts     Options
	// kedaServed is set once the KEDA ScaledObject kind is known to be
	// served (at startup, or when a ScaledObject was applied): only then
	// is a stale ScaledObject looked for, so a cluster without KEDA costs
	// no discovery request per reconcile.
	kedaServed atomic.Bool
	// istio caches whether Istio's VirtualService kind is served, for
	// rollout traffic routing (istio_availability.go).
	istio istioAvailability
	// secretKeys remembers the Provider credential Secrets' key names by
	// resourceVersion (secretkeys.go); nil reads the Secret every time.
	secretKeys *clusterfacts.SecretKeyCache
}

// Reconcile runs one pass over an agent, in the order the steps depend on
// each other:
//
//  0. delete the agent when its idle deadline has passed (idle.go), else
//     requeue at the deadline;
//  1. evaluate the AgentRuntime rules against the cluster's facts, and
//     the policy rules in force (policycheck: conditions only);
//  2. resolve the agent's inputs (resolve.go) and decide whether the
//     workload may be applied;
//  3. apply the workload (apply.go), skipping every child that is unchanged;
//  4. compute the status in memory (status.go) and patch it once, emitting an
//     event per condition transition.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ar := &v1alpha1.AgentRuntime{}
	if err := r.client.Get(ctx, req.NamespacedName, ar); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	idle, err := r.reapIfIdle(ctx, ar)
	if err != nil || idle.stop {
		return ctrl.Result{}, err
	}
	facts := clusterfacts.New(ctx, r.client, r.client, r.mapper, r.opts.License).WithSecretKeyCache(r.secretKeys).
		WithExposureBaseDomain(r.exposureBaseDomain())
	findings := rules.Default.Evaluate("AgentRuntime", rules.Input{Object: ar, Facts: rules.WithPodSecuritySettings(facts, r.opts.PodSecurity)}, rules.Options{})
	if err := facts.Err(); err != nil {
		return ctrl.Result{}, fmt.Errorf("evaluating rules: %w", err)
	}
	in := statusInput{findings: findings, now: metav1.NewTime(r.opts.Clock.Now().Truncate(time.Second))}
	if in.policy, err = policycheck.Evaluate(policycheck.Catalog(r.opts.Policies), "AgentRuntime", ar, facts); err != nil {
		return ctrl.Result{}, err
	}
	if err := facts.Err(); err != nil {
		return ctrl.Result{}, fmt.Errorf("evaluating policy rules: %w", err)
	}
	if stop, err := r.triggerRollout(ctx, ar, facts); err != nil || stop {
		return ctrl.Result{}, err
	}
	plan := r.resolve(ar, facts, findings, &in)
	if err := facts.Err(); err != nil {
		// A lookup resolve made failed (not "absent"): building from it
		// could, e.g., set static replicas under a live autoscaler.
		return ctrl.Result{}, fmt.Errorf("resolving: %w", err)
	}
	digest, err := r.compositionDigest(ctx, ar, facts)
	if err != nil {
		return ctrl.Result{}, err
	}
	in.compositionDigest = digest
	if !plan.held {
		if err := r.applyWorkload(ctx, ar, &plan.res, &in); err != nil {
			return ctrl.Result{}, r.reportApplyFailure(ctx, ar, in, err)
		}
	} else {
		// Nothing is built, but the reserved keys the build would drop
		// are reported all the same: ReservedEnvClean must not say True
		// of an agent that names one.
		in.dropped = workload.ReservedEnvDropped(ar)
	}
	if plan.stop {
		if err := r.stopWorkload(ctx, ar); err != nil {
			return ctrl.Result{}, err
		}
	}
	if err := r.writeStatus(ctx, ar, computeStatus(ar, in)); err != nil {
		return ctrl.Result{}, err
	}
	// The idle deadline is one more requeue: the earliest of them wins.
	in.requeue.After(idle.requeueAfter)
	return in.requeue.Result(), nil
}

// writeStatus patches the agent's status when it changed, and records an
// event per condition transition. An unchanged status is no API write.
func (r *Reconciler) writeStatus(ctx context.Context, ar *v1alpha1.AgentRuntime, updated v1alpha1.AgentRuntimeStatus) error {
	old := ar.Status.Conditions
	if wrote, err := statuswrite.Patch(ctx, r.client, ar, &ar.Status, updated); err != nil || !wrote {
		return err
	}
	transitions.EmitPolicy(r.recorder, ar, old, updated.Conditions, eventPolicy)
	return nil
}
