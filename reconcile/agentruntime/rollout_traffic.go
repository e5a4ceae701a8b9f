package agentruntime

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// Traffic routing of a rollout (agentruntime.md § rollout.trafficRouting):
// how a step's weight is delivered. The step machine (rollout.go) calls
// routeTraffic with the weight it wants on the candidate; this file
// resolves the mode and delivers it:
//
//   - mesh: an operator-owned VirtualService and DestinationRule (named
//     after the agent, owned by it, operator-labelled) split the agent
//     Service's traffic between the stable and candidate subsets, which
//     select the pods' LabelRolloutTrack;
//   - external: the named routes of an existing VirtualService get the two
//     weighted destinations, and the existing DestinationRule the two
//     subsets; nothing else of either object changes;
//   - replicaWeighted: nothing here; the step machine sets the replica
//     ratio itself.
//
// A mode that cannot be delivered (Istio's CRDs not served; for external,
// a named object or route missing) degrades to replicaWeighted and the
// TrafficRouting condition says why.

// +kubebuilder:rbac:groups=networking.istio.io,resources=virtualservices;destinationrules,verbs=get;list;watch;create;update;patch;delete

// Traffic routing modes (spec.rollout.trafficRouting.mode).
const (
	TrafficModeMesh            v1alpha1.AgentRuntimeTrafficRoutingMode = "mesh"
	TrafficModeReplicaWeighted v1alpha1.AgentRuntimeTrafficRoutingMode = "replicaWeighted"
	TrafficModeExternal        v1alpha1.AgentRuntimeTrafficRoutingMode = "external"
)

// trafficOutcome is what routeTraffic did.
type trafficOutcome struct {
	// Mode is the mode actually in use (status.rollout.trafficRoutingMode).
	Mode v1alpha1.AgentRuntimeTrafficRoutingMode
	// Requested is the mode the spec asked for, resolved from the spec
	// alone (mode, or external when only istio is set); "" when unset.
	Requested v1alpha1.AgentRuntimeTrafficRoutingMode
	// Enforced is false when the weight is approximated by the replica
	// ratio (status.rollout.trafficWeightEnforced).
	Enforced bool
	// Degraded says why Mode differs from Requested; "" when it does not.
	Degraded string
	// Reason is the TrafficRouting condition's reason for this outcome.
	Reason string
	// Weight is the candidate weight delivered (mesh, external).
	Weight int32
}

// requestedTrafficMode is the mode the spec asks for: mode when set,
// external when only istio is set, "" otherwise (resolved against the
// cluster by resolveTrafficMode).
func requestedTrafficMode(ar *v1alpha1.AgentRuntime) v1alpha1.AgentRuntimeTrafficRoutingMode {
	tr := workload.TrafficRoutingOf(ar)
	switch {
	case tr == nil:
		return ""
	case tr.Mode != "":
		return tr.Mode
	case tr.Istio != nil:
		return TrafficModeExternal
	}
	return ""
}

// resolveTrafficMode resolves the requested mode against whether Istio's
// VirtualService kind is served (pure): unset => mesh when served, else
// replicaWeighted; mesh or external without Istio => replicaWeighted,
// degraded with v1alpha1.AgentRuntimeReasonMeshNotInstalled; external without an istio block =>
// replicaWeighted, degraded with v1alpha1.AgentRuntimeReasonExternalObjectNotFound.
func resolveTrafficMode(requested v1alpha1.AgentRuntimeTrafficRoutingMode, istio bool, tr *v1alpha1.AgentRuntimeRolloutTrafficRouting) trafficOutcome {
	out := trafficOutcome{Requested: requested}
	switch {
	case requested == "" && istio:
		out.Mode, out.Reason = TrafficModeMesh, v1alpha1.AgentRuntimeReasonMeshRouting
	case requested == "" || requested == TrafficModeReplicaWeighted:
		out.Mode, out.Reason = TrafficModeReplicaWeighted, v1alpha1.AgentRuntimeReasonReplicaWeighted
	case !istio:
		out.Mode, out.Reason = TrafficModeReplicaWeighted, v1alpha1.AgentRuntimeReasonMeshNotInstalled
		out.Degraded = fmt.Sprintf("trafficRouting mode %s needs Istio, but the VirtualService kind (networking.istio.io) is not served", requested)
	case requested == TrafficModeExternal && (tr == nil || tr.Istio == nil):
		out.Mode, out.Reason = TrafficModeReplicaWeighted, v1alpha1.AgentRuntimeReasonExternalObjectNotFound
		out.Degraded = "trafficRouting mode external names no VirtualService: set trafficRouting.istio"
	case requested == TrafficModeExternal:
		out.Mode, out.Reason = TrafficModeExternal, v1alpha1.AgentRuntimeReasonExternalRouting
	default:
		out.Mode, out.Reason = TrafficModeMesh, v1alpha1.AgentRuntimeReasonMeshRouting
	}
	out.Enforced = out.Mode != TrafficModeReplicaWeighted
	return out
}

// degrade turns an outcome into replicaWeighted with reason and message.
func (o trafficOutcome) degrade(reason, msg string) trafficOutcome {
	o.Mode, o.Enforced, o.Reason, o.Degraded, o.Weight = TrafficModeReplicaWeighted, false, reason, msg, 0
	return o
}

// routeTraffic delivers weight (0–100) to the candidate. With
// replicaWeighted it only reports the mode: the step machine sets the
// replica ratio itself.
func (r *Reconciler) routeTraffic(ctx context.Context, ar *v1alpha1.AgentRuntime, weight int32, _ *statusInput) (trafficOutcome, error) {
	weight = min(max(weight, 0), 100)
	tr := workload.TrafficRoutingOf(ar)
	requested := requestedTrafficMode(ar)
	istio := false
	if requested != TrafficModeReplicaWeighted {
		istio = r.istio.served(r.mapper, r.opts.Clock.Now())
	}
	out := resolveTrafficMode(requested, istio, tr)
	switch out.Mode {
	case TrafficModeMesh:
		if err := r.applyMeshRouting(ctx, ar, weight); err != nil {
			return out, r.istio.forgetOnNoMatch(err)
		}
		out.Weight = weight
	case TrafficModeExternal:
		missing, err := r.patchExternalRouting(ctx, ar, tr.Istio, weight)
		if err != nil {
			return out, r.istio.forgetOnNoMatch(err)
		}
		if missing != "" {
			return out.degrade(v1alpha1.AgentRuntimeReasonExternalObjectNotFound, missing+": the weight is approximated by the replica ratio"), nil
		}
		out.Weight = weight
	}
	return out, nil
}

// releaseTraffic returns every request to stable and removes what
// routeTraffic created (end of a rollout: promotion or rollback): the
// operator-owned VirtualService and DestinationRule are deleted, and the
// managed routes of an external VirtualService send 100% to stable (its
// subsets stay: other routes may name them).
func (r *Reconciler) releaseTraffic(ctx context.Context, ar *v1alpha1.AgentRuntime, _ *statusInput) error {
	if !r.istio.served(r.mapper, r.opts.Clock.Now()) {
		return nil
	}
	if tr := workload.TrafficRoutingOf(ar); requestedTrafficMode(ar) == TrafficModeExternal && tr != nil && tr.Istio != nil {
		if _, err := r.patchExternalRouting(ctx, ar, tr.Istio, 0); err != nil {
			return r.istio.forgetOnNoMatch(err)
		}
	}
	for _, o := range []*unstructured.Unstructured{workload.NewVirtualService(), workload.NewDestinationRule()} {
		if err := r.deleteOwnedRouting(ctx, ar, o); err != nil {
			return r.istio.forgetOnNoMatch(err)
		}
	}
	return nil
}

// applyMeshRouting applies the operator-owned DestinationRule, then the
// VirtualService with the weight (the subsets exist before a route names
// them).
func (r *Reconciler) applyMeshRouting(ctx context.Context, ar *v1alpha1.AgentRuntime, weight int32) error {
	if err := r.apply(ctx, workload.MeshDestinationRule(ar)); err != nil {
		return err
	}
	return r.apply(ctx, workload.MeshVirtualService(ar, weight))
}

// deleteOwnedRouting deletes the agent's own routing object of obj's kind
// when it exists and the agent controls it.
func (r *Reconciler) deleteOwnedRouting(ctx context.Context, ar *v1alpha1.AgentRuntime, obj *unstructured.Unstructured) error {
	err := r.client.Get(ctx, client.ObjectKey{Namespace: ar.Namespace, Name: workload.ServiceName(ar)}, obj)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("reading %s %s: %w", obj.GetKind(), workload.ServiceName(ar), err)
	case !metav1.IsControlledBy(obj, ar):
		return nil
	}
	uid := obj.GetUID()
	if err := r.client.Delete(ctx, obj, client.Preconditions{UID: &uid}); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting %s %s: %w", obj.GetKind(), obj.GetName(), err)
	}
	return nil
}

// patchExternalRouting sets the weight on the managed routes of the
// user's VirtualService and ensures the two subsets on the user's
// DestinationRule. Each object is read, changed in memory and written
// with an update carrying the read resourceVersion (a concurrent writer
// makes it a conflict, retried on the next reconcile), only when it
// changed. missing names what does not exist (nothing is written then).
func (r *Reconciler) patchExternalRouting(ctx context.Context, ar *v1alpha1.AgentRuntime, is *v1alpha1.AgentRuntimeRolloutIstio, weight int32) (missing string, err error) {
	stable, canary := workload.SubsetNames(is.DestinationRule.StableSubset, is.DestinationRule.CandidateSubset)
	vs, dr := workload.NewVirtualService(), workload.NewDestinationRule()
	for _, o := range []struct {
		obj  *unstructured.Unstructured
		name string
	}{{vs, is.VirtualService.Name}, {dr, is.DestinationRule.Name}} {
		err := r.client.Get(ctx, client.ObjectKey{Namespace: ar.Namespace, Name: o.name}, o.obj)
		if apierrors.IsNotFound(err) {
			return fmt.Sprintf("%s %q not found", o.obj.GetKind(), o.name), nil
		}
		if err != nil {
			return "", fmt.Errorf("reading %s %s: %w", o.obj.GetKind(), o.name, err)
		}
	}
	newVS, missingRoutes, err := workload.PatchVirtualServiceRoutes(vs, is.VirtualService.Routes, workload.ServiceHost(ar), stable, canary, weight)
	if err != nil {
		return "", err
	}
	if len(missingRoutes) > 0 {
		return fmt.Sprintf("VirtualService %q has no route named %v", vs.GetName(), missingRoutes), nil
	}
	newDR, err := workload.EnsureDestinationRuleSubsets(dr, stable, canary, workload.StickyHeader(ar))
	if err != nil {
		return "", err
	}
	// Subsets first: the routes name them.
	for _, p := range []struct{ old, updated *unstructured.Unstructured }{{dr, newDR}, {vs, newVS}} {
		if equality.Semantic.DeepEqual(p.old.Object, p.updated.Object) {
			continue
		}
		if err := r.client.Update(ctx, p.updated, client.FieldOwner(FieldManager)); err != nil {
			return "", fmt.Errorf("updating %s %s: %w", p.updated.GetKind(), p.updated.GetName(), err)
		}
	}
	return "", nil
}

// TrafficStatus is the traffic part of status.rollout: the mode in use and
// whether the weight is enforced.
func TrafficStatus(o trafficOutcome) (v1alpha1.AgentRuntimeTrafficRoutingMode, *bool) {
	enforced := o.Enforced
	return o.Mode, &enforced
}

// trafficOutcome is what routeTraffic did this reconcile; nil when it did
// not run (or the rollout step did not run at all).
func (o *rolloutOutcome) trafficOutcome() *trafficOutcome {
	if o == nil {
		return nil
	}
	return o.traffic
}

// setTrafficRoutingStatus sets the TrafficRouting condition, and
// status.rollout.trafficRoutingMode / trafficWeightEnforced when
// status.rollout is set, from what routeTraffic did (out; nil when it did
// not run this reconcile, which leaves both as they were). An agent with no
// spec.rollout carries no TrafficRouting condition. computeStatus calls it
// right after setRolloutStatus, which sets status.rollout.
func setTrafficRoutingStatus(st *v1alpha1.AgentRuntimeStatus, ar *v1alpha1.AgentRuntime, out *trafficOutcome, now metav1.Time) {
	if ar.Spec.Rollout == nil {
		meta.RemoveStatusCondition(&st.Conditions, v1alpha1.AgentRuntimeConditionTrafficRouting)
		return
	}
	if out == nil {
		return
	}
	conditions.Set(&st.Conditions, trafficRoutingCondition(*out, ar.Generation), now)
	if st.Rollout != nil {
		st.Rollout.TrafficRoutingMode, st.Rollout.TrafficWeightEnforced = TrafficStatus(*out)
	}
}

// trafficRoutingCondition is TrafficRouting (pure): True with the mode in
// use, False when the requested mode degraded to replicaWeighted.
func trafficRoutingCondition(o trafficOutcome, gen int64) metav1.Condition {
	c := metav1.Condition{Type: v1alpha1.AgentRuntimeConditionTrafficRouting, Status: metav1.ConditionTrue, Reason: o.Reason, ObservedGeneration: gen}
	if c.Reason == "" {
		c.Reason = v1alpha1.AgentRuntimeReasonReplicaWeighted
	}
	switch {
	case o.Degraded != "":
		c.Status = metav1.ConditionFalse
		c.Message = fmt.Sprintf("requested mode %s degraded to replicaWeighted: %s", o.Requested, o.Degraded)
	case o.Mode == TrafficModeMesh:
		c.Message = fmt.Sprintf("mode mesh: the operator's VirtualService sends %d%% to the candidate", o.Weight)
	case o.Mode == TrafficModeExternal:
		c.Message = fmt.Sprintf("mode external: the managed routes send %d%% to the candidate", o.Weight)
	default:
		c.Message = "mode replicaWeighted: the weight is approximated by the ratio of candidate to stable replicas"
	}
	return c
}
