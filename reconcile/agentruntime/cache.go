package agentruntime

import (
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// CacheByObject is what the manager's cache should hold of the kinds the
// controller builds (cmd/omnia-operator sets it): only the operator's own
// objects, selected by LabelManagedBy=ManagedByValue, which every builder
// sets (workload/meta.go). Without it the operator caches every Deployment,
// Service, ServiceAccount, Role, RoleBinding and HPA of the cluster; the
// other components' objects are of no use to it and are most of a real
// cluster's. No other controller in the operator reads these kinds.
//
// What this changes for an object of the agent's name that the operator
// did not build (say, a Service created by hand): the cache does not see
// it, so apply finds no applied hash and applies, taking the object over
// with ForceOwnership and labelling it, exactly as it did when the hash
// differed. An object whose label is removed leaves the cache, which is a
// delete event for the Owns watch: the agent is reconciled and the label
// applied again.
//
// Managed fields are dropped from the cached copies (the manager's
// DefaultTransform strips them for every kind): only handOffReplicas reads
// them, and only the operator's own entry of a Deployment, so a
// Deployment keeps that entry and no other.
func CacheByObject() map[client.Object]cache.ByObject {
	own := labels.SelectorFromSet(labels.Set{workload.LabelManagedBy: workload.ManagedByValue})
	out := map[client.Object]cache.ByObject{}
	for _, o := range []client.Object{
		&corev1.Service{}, &corev1.ServiceAccount{}, &rbacv1.Role{}, &rbacv1.RoleBinding{},
		&autoscalingv2.HorizontalPodAutoscaler{},
	} {
		out[o] = cache.ByObject{Label: own}
	}
	out[&appsv1.Deployment{}] = cache.ByObject{Label: own, Transform: deploymentCacheTransform}
	return out
}

// deploymentCacheTransform is the cache transform of Deployments: the
// managed fields cut down by keepOwnManagedFields, and no pod spec. The
// controller reads a cached Deployment for its applied-hash annotation (the
// hash stands for the whole applied object, template included), its
// replicas, its status and the managed fields handOffReplicas reads; never
// its pod template. The pod specs were a third of the operator's live heap
// with 1,000 agents (make bench-agents -profile: 18 of 54 MB), every
// container with its variables, ports, probes and resources held again for
// every agent.
var deploymentCacheTransform toolscache.TransformFunc = func(in any) (any, error) {
	if d, ok := in.(*appsv1.Deployment); ok {
		d.Spec.Template.Spec = corev1.PodSpec{}
	}
	return keepOwnManagedFields(in)
}

// keepOwnManagedFields is the cache transform of Deployments: of the
// managed fields, only what managerOwnsReplicas asks — whether
// FieldManager's entries hold spec.replicas. Each such entry is kept with
// its field set cut down to spec.replicas, or to nothing: the full set
// (every container, variable and port the operator applies) is kilobytes
// per Deployment, and the cache would hold it for every agent.
var keepOwnManagedFields toolscache.TransformFunc = func(in any) (any, error) {
	obj, ok := in.(metav1.Object)
	if !ok {
		return in, nil
	}
	mf := obj.GetManagedFields()
	if mf == nil {
		return in, nil
	}
	kept := make([]metav1.ManagedFieldsEntry, 0, 1)
	for _, e := range mf {
		if e.Manager != FieldManager {
			continue
		}
		fields := noFields
		if entryOwnsReplicas(e) {
			fields = replicasOnly
		}
		e.FieldsV1 = metav1.NewFieldsV1(fields)
		kept = append(kept, e)
	}
	obj.SetManagedFields(kept)
	return in, nil
}

// The field sets keepOwnManagedFields keeps.
const (
	noFields     = `{}`
	replicasOnly = `{"f:spec":{"f:replicas":{}}}`
)
