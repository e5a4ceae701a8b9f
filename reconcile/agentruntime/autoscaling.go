package agentruntime

import (
	"context"
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
)

// +kubebuilder:rbac:groups=autoscaling,resources=horizontalpodautoscalers,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=keda.sh,resources=scaledobjects,verbs=get;list;watch;create;patch;delete

// DefaultServiceGroup is spec.serviceGroup's default.
const DefaultServiceGroup = "default"

// Autoscaler types (spec.runtime.autoscaling.type).
const (
	autoscalerHPA  v1alpha1.AgentRuntimeAutoscalingType = "hpa"
	autoscalerKEDA v1alpha1.AgentRuntimeAutoscalingType = "keda"
)

// autoscalingFacts is what resolveAutoscaling asks of the cluster.
type autoscalingFacts interface {
	Workspace(namespace string) (*v1alpha1.Workspace, bool)
	CRDInstalled(groupKind string) bool
}

var _ autoscalingFacts = (*clusterfacts.Facts)(nil)

// resolveAutoscaling fills res.DefaultAutoscaling (the agent's Workspace
// service group default, looked up only when the agent sets no
// spec.runtime.autoscaling) and res.KEDAUnavailable (asked only when KEDA
// is the autoscaler in effect, so agents without it cost no discovery).
func resolveAutoscaling(ar *v1alpha1.AgentRuntime, facts autoscalingFacts, res *workload.Resolved) {
	res.DefaultAutoscaling = nil
	if rt := ar.Spec.Runtime; rt == nil || rt.Autoscaling == nil {
		res.DefaultAutoscaling = serviceGroupAutoscaling(ar, facts)
	}
	res.KEDAUnavailable = false
	if a := workload.EffectiveAutoscaling(ar, res); a != nil && a.Type == autoscalerKEDA {
		res.KEDAUnavailable = !facts.CRDInstalled(workload.KEDAGroupKind)
	}
}

// serviceGroupAutoscaling is the autoscaling default of the service group
// the agent selects (spec.serviceGroup, default "default") in the Workspace
// of its namespace; nil without a Workspace, group or default.
func serviceGroupAutoscaling(ar *v1alpha1.AgentRuntime, facts autoscalingFacts) *v1alpha1.AgentRuntimeAutoscaling {
	ws, ok := facts.Workspace(ar.Namespace)
	if !ok || ws == nil {
		return nil
	}
	group := ar.Spec.ServiceGroup
	if group == "" {
		group = DefaultServiceGroup
	}
	for i := range ws.Spec.Services {
		if ws.Spec.Services[i].Name == group {
			return ws.Spec.Services[i].Autoscaling
		}
	}
	return nil
}

// autoscalingOutcome is what the autoscaling step did, for AutoscalingReady.
type autoscalingOutcome struct {
	// applied is the autoscaler applied: autoscalerHPA, autoscalerKEDA, or
	// "" for static replicas.
	applied v1alpha1.AgentRuntimeAutoscalingType
	// kedaNotInstalled: KEDA was asked for and its CRDs are absent.
	kedaNotInstalled bool
	// heldAtZero: the Deployment is held at zero replicas
	// (Resolved.ScaleToZero), so no autoscaler is applied.
	heldAtZero bool
}

// applyAutoscaling applies the agent's autoscaler, after its Deployment:
// the HPA or the ScaledObject the effective autoscaling asks for, its
// bounds capped by the Workspace's maxReplicasPerAgent. The other
// kind (autoscaling switched off, or from one type to the other) is deleted
// first when the agent owns one, so two autoscalers never fight over the
// Deployment. A stale ScaledObject is looked for only once KEDA is known
// to be served (Reconciler.kedaServed).
func (r *Reconciler) applyAutoscaling(ctx context.Context, ar *v1alpha1.AgentRuntime, res *workload.Resolved) (autoscalingOutcome, error) {
	a := capAutoscaling(workload.EffectiveAutoscaling(ar, res), res.ReplicaCap)
	out := autoscalingOutcome{kedaNotInstalled: res.KEDAUnavailable && requestsKEDA(ar, res)}
	if res.ScaleToZero {
		// Held at zero replicas "whatever else the spec asks": an
		// autoscaler (KEDA's above all) would scale the Deployment back up.
		a, out.heldAtZero = nil, true
	}
	if a != nil {
		out.applied = a.Type
	}
	if out.applied != autoscalerHPA {
		if err := r.deleteOwned(ctx, ar, &autoscalingv2.HorizontalPodAutoscaler{}, workload.HPAName(ar)); err != nil {
			return out, err
		}
	}
	if out.applied != autoscalerKEDA && r.kedaServed.Load() {
		if err := r.deleteOwned(ctx, ar, workload.NewScaledObject(), workload.ScaledObjectName(ar)); err != nil {
			return out, err
		}
	}
	switch out.applied {
	case autoscalerHPA:
		return out, r.apply(ctx, workload.HorizontalPodAutoscaler(ar, a))
	case autoscalerKEDA:
		if err := r.apply(ctx, workload.ScaledObject(ar, a)); err != nil {
			return out, err
		}
		r.kedaServed.Store(true)
	}
	return out, nil
}

// capAutoscaling bounds the autoscaler's replicas by the Workspace's
// maxReplicasPerAgent (limit, nil when unset): max and min replicas above
// it run at it (the agent is then ReplicasClamped, a verdict
// rules.AgentRuntimeQuota gives). a is not modified.
func capAutoscaling(a *v1alpha1.AgentRuntimeAutoscaling, limit *int32) *v1alpha1.AgentRuntimeAutoscaling {
	if a == nil || limit == nil {
		return a
	}
	out := a.DeepCopy()
	if maxR := ptr.Deref(out.MaxReplicas, workload.DefaultAutoscalingMaxReplicas); maxR > *limit {
		out.MaxReplicas = ptr.To(*limit)
	}
	if minR := ptr.Deref(out.MinReplicas, workload.DefaultAutoscalingMinReplicas); minR > *limit {
		out.MinReplicas = ptr.To(*limit)
	}
	return out
}

// requestsKEDA reports whether the agent (or its service group) asks for
// KEDA autoscaling, whether or not KEDA is installed.
func requestsKEDA(ar *v1alpha1.AgentRuntime, res *workload.Resolved) bool {
	asked := *res
	asked.KEDAUnavailable = false
	a := workload.EffectiveAutoscaling(ar, &asked)
	return a != nil && a.Type == autoscalerKEDA
}

// deleteOwned deletes the object named name in the agent's namespace when
// it exists and the agent controls it. An absent object, or a kind the API
// server does not serve (no KEDA CRDs), is no API write.
func (r *Reconciler) deleteOwned(ctx context.Context, ar *v1alpha1.AgentRuntime, obj client.Object, name string) error {
	err := r.client.Get(ctx, client.ObjectKey{Namespace: ar.Namespace, Name: name}, obj)
	switch {
	case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		return nil
	case err != nil:
		return fmt.Errorf("reading %s: %w", name, err)
	case !metav1.IsControlledBy(obj, ar):
		return nil
	}
	// The UID precondition: never delete a successor created meanwhile.
	uid := obj.GetUID()
	if err := r.client.Delete(ctx, obj, client.Preconditions{UID: &uid}); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting %s: %w", name, err)
	}
	return nil
}

// autoscalingCondition is AutoscalingReady from what the autoscaling step
// did (pure).
func autoscalingCondition(o autoscalingOutcome, gen int64) metav1.Condition {
	c := metav1.Condition{Type: v1alpha1.AgentRuntimeConditionAutoscalingReady, Status: metav1.ConditionTrue, ObservedGeneration: gen}
	switch {
	case o.applied == autoscalerHPA:
		c.Reason, c.Message = v1alpha1.AgentRuntimeReasonAutoscalingScaling, "a HorizontalPodAutoscaler scales the Deployment"
	case o.applied == autoscalerKEDA:
		c.Reason, c.Message = v1alpha1.AgentRuntimeReasonAutoscalingScaling, "a KEDA ScaledObject scales the Deployment"
	case o.heldAtZero:
		c.Reason, c.Message = v1alpha1.AgentRuntimeReasonAutoscalingDisabled, "the Deployment is held at zero replicas while the runtime's capabilities are not satisfied: no autoscaler applies"
	case o.kedaNotInstalled:
		c.Status, c.Reason = metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonKEDANotInstalled
		c.Message = "autoscaling type keda is requested but the KEDA CRDs are not installed: the Deployment runs static replicas"
	default:
		c.Reason, c.Message = v1alpha1.AgentRuntimeReasonAutoscalingDisabled, "autoscaling is not enabled: the Deployment runs static replicas"
	}
	return c
}

// setupAutoscaling reports whether KEDA's ScaledObject kind is served at
// startup, and remembers it (kedaServed): SetupWithManager owns
// ScaledObjects only then, since a watch on a kind the API server does not
// serve fails the manager.
func (r *Reconciler) setupAutoscaling(mapper meta.RESTMapper) bool {
	if !clusterfacts.Installed(mapper, workload.KEDAGroupKind) {
		return false
	}
	r.kedaServed.Store(true)
	return true
}
