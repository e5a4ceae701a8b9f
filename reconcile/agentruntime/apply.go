package agentruntime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// applyWorkload applies the agent's children: the pod's identity
// (ServiceAccount, Role, RoleBinding) and the Service, then the Deployment,
// then its autoscaler (autoscaling.go). It records in in what was applied,
// for the status.
//
// The identity and the Service are applied in parallel: none needs another,
// except the RoleBinding, which follows its Role (the API server reads the
// Role's rules to check the binding grants nothing the operator lacks). That
// check is the slowest request an agent costs (about 0.3 s each for the Role
// and the RoleBinding with 1,000 agents starting), so in sequence the
// identity alone held a worker for most of a reconcile (make bench-agents).
// The Deployment waits for all of them, so its pods never start without
// their ServiceAccount or permissions.
func (r *Reconciler) applyWorkload(ctx context.Context, ar *v1alpha1.AgentRuntime, res *Resolved, in *statusInput) error {
	// What the pod reads must exist before it is built: the OIDC JWKS
	// Secret and the async queue's Secret copy.
	if err := r.prepareExternalAuth(ctx, ar, res, in); err != nil {
		return err
	}
	if err := r.prepareAsync(ctx, ar, res, in); err != nil {
		return err
	}
	d, dropped, err := Deployment(ar, *res)
	if err != nil {
		return err
	}
	in.dropped = dropped
	// Each branch runs to its end (a refusal does not cancel the others), so
	// the status says exactly which objects were applied.
	var identityErr, roleErr, serviceErr error
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); identityErr = r.apply(ctx, ServiceAccount(ar)) }()
	go func() {
		defer wg.Done()
		if roleErr = r.apply(ctx, Role(ar)); roleErr == nil {
			roleErr = r.apply(ctx, RoleBinding(ar, *res))
		}
	}()
	go func() { defer wg.Done(); serviceErr = r.apply(ctx, Service(ar)) }()
	wg.Wait()
	in.serviceApplied = serviceErr == nil
	if err := errors.Join(identityErr, roleErr, serviceErr); err != nil {
		return err
	}
	if err := r.applyExposure(ctx, ar, in); err != nil {
		return err
	}
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
	return r.applyRollout(ctx, ar, res, in)
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
