package agentruntime

import (
	"context"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/reconcile/internal/ssa"
)

// ReplicasHandoffFieldManager co-owns a Deployment's spec.replicas while an
// autoscaler takes it over from the operator.
//
// Why: when the operator's apply stops setting spec.replicas (an
// autoscaler became effective), server-side apply removes the field it
// alone owned, and the API server defaults it back to 1: a 3-replica agent
// would drop to 1 pod until the HPA or KEDA scaled it up again. Applying
// the live value once under this second manager first leaves the field
// owned by someone, so it keeps its value; the autoscaler's own updates
// then take it over (Kubernetes' "transferring ownership" recipe).
const ReplicasHandoffFieldManager = "omnia-operator-replicas-handoff"

// handOffReplicas runs before d is applied: when d leaves spec.replicas to
// an autoscaler and the live Deployment's replicas are still the
// operator's, it applies the live value under ReplicasHandoffFieldManager.
// One write, on the transition only.
func (r *Reconciler) handOffReplicas(ctx context.Context, d *appsv1.Deployment) error {
	if d.Spec.Replicas != nil {
		return nil
	}
	live := &appsv1.Deployment{}
	if err := r.client.Get(ctx, client.ObjectKeyFromObject(d), live); err != nil {
		return client.IgnoreNotFound(err)
	}
	if live.Spec.Replicas == nil || !managerOwnsReplicas(live, FieldManager) {
		return nil
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{"replicas": int64(*live.Spec.Replicas)},
	}}
	u.SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind("Deployment"))
	u.SetName(live.Name)
	u.SetNamespace(live.Namespace)
	handoff := ssa.Applier{Client: r.client, FieldManager: ReplicasHandoffFieldManager, NoForce: true}
	if err := handoff.Apply(ctx, u); err != nil {
		return fmt.Errorf("handing the replicas of Deployment %s to its autoscaler: %w", live.Name, err)
	}
	return nil
}

// managerOwnsReplicas reports whether the field manager named manager owns
// the Deployment's spec.replicas.
func managerOwnsReplicas(d *appsv1.Deployment, manager string) bool {
	for _, mf := range d.ManagedFields {
		if mf.Manager == manager && entryOwnsReplicas(mf) {
			return true
		}
	}
	return false
}

// entryOwnsReplicas reports whether a managed fields entry holds
// spec.replicas.
func entryOwnsReplicas(mf metav1.ManagedFieldsEntry) bool {
	if mf.FieldsV1 == nil {
		return false
	}
	var fields struct {
		Spec map[string]json.RawMessage `json:"f:spec"`
	}
	if json.Unmarshal(mf.FieldsV1.GetRawBytes(), &fields) != nil {
		return false
	}
	_, ok := fields.Spec["f:replicas"]
	return ok
}
