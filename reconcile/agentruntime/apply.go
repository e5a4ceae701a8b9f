package agentruntime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// applyWorkload applies the agent's children in dependency order: the pod's
// identity (ServiceAccount, Role, RoleBinding), the Service, the
// Deployment, then its autoscaler (autoscaling.go). It records in in what was applied, for the status.
func (r *Reconciler) applyWorkload(ctx context.Context, ar *v1alpha1.AgentRuntime, res *Resolved, in *statusInput) error {
	d, dropped, err := Deployment(ar, *res)
	if err != nil {
		return err
	}
	in.dropped = dropped
	for _, o := range []client.Object{ServiceAccount(ar), Role(ar), RoleBinding(ar, *res)} {
		if err := r.apply(ctx, o); err != nil {
			return err
		}
	}
	if err := r.apply(ctx, Service(ar)); err != nil {
		return err
	}
	in.serviceApplied = true
	if err := r.handOffReplicas(ctx, d); err != nil {
		return err
	}
	if err := r.apply(ctx, d); err != nil {
		return err
	}
	in.deployment = d
	as, err := r.applyAutoscaling(ctx, ar, res)
	if err != nil {
		return err
	}
	in.autoscaling = &as
	return nil
}

// apply server-side applies obj unless the live object (from the cache)
// carries the same applied hash; obj is left as the API server has it.
func (r *Reconciler) apply(ctx context.Context, obj client.Object) error {
	raw, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(raw)
	hash := hex.EncodeToString(sum[:])
	live := obj.DeepCopyObject().(client.Object)
	err = r.client.Get(ctx, client.ObjectKeyFromObject(obj), live)
	switch {
	case err == nil && live.GetAnnotations()[AppliedHashAnnotation] == hash:
		// Unchanged: keep the live object's status (a Deployment's replicas).
		if d, ok := live.(*appsv1.Deployment); ok {
			*obj.(*appsv1.Deployment) = *d
		}
		return nil
	case err != nil && !apierrors.IsNotFound(err):
		return fmt.Errorf("reading %s: %w", obj.GetName(), err)
	}
	ann := map[string]string{}
	for k, v := range obj.GetAnnotations() {
		ann[k] = v
	}
	ann[AppliedHashAnnotation] = hash
	obj.SetAnnotations(ann)
	//lint:ignore SA1019 client.Client.Apply takes apply configurations; the builders return typed objects
	if err := r.client.Patch(ctx, obj, client.Apply, client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("applying %s %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), err)
	}
	return nil
}
