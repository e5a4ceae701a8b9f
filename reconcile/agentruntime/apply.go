package agentruntime

import (
	"context"
	"errors"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/reconcile/internal/ssa"
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
func (r *Reconciler) applyWorkload(ctx context.Context, ar *v1alpha1.AgentRuntime, res *workload.Resolved, in *statusInput) error {
	// What the pod reads must exist before it is built: the OIDC JWKS
	// Secret, the async queue's Secret copy, and the tools ConfigMap and
	// Secret (tools.go).
	if err := r.prepareExternalAuth(ctx, ar, res, in); err != nil {
		return err
	}
	if err := r.prepareAsync(ctx, ar, res, in); err != nil {
		return err
	}
	if err := r.prepareTools(ctx, ar, res); err != nil {
		return err
	}
	d, dropped, err := workload.Deployment(ar, *res)
	if err != nil {
		return err
	}
	in.dropped = dropped
	// Each branch runs to its end (a refusal does not cancel the others), so
	// the status says exactly which objects were applied.
	var identityErr, roleErr, serviceErr error
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); identityErr = r.apply(ctx, workload.ServiceAccount(ar)) }()
	go func() {
		defer wg.Done()
		if roleErr = r.apply(ctx, workload.Role(ar)); roleErr == nil {
			roleErr = r.apply(ctx, workload.RoleBinding(ar, *res))
		}
	}()
	go func() { defer wg.Done(); serviceErr = r.apply(ctx, workload.Service(ar)) }()
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

// apply server-side applies obj as the controller's field manager unless
// the live object (from the cache) carries the same applied hash; obj is
// left as the API server has it (a Deployment keeps its live replicas and
// status).
func (r *Reconciler) apply(ctx context.Context, obj client.Object) error {
	return r.applier().ApplyIfChanged(ctx, obj)
}

// applier applies as the controller's field manager, taking fields over.
func (r *Reconciler) applier() ssa.Applier {
	return ssa.Applier{Client: r.client, FieldManager: FieldManager}
}
