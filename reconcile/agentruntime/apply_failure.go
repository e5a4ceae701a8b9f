package agentruntime

import (
	"context"
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
)

// When a child cannot be applied (the API server refuses it: a
// ResourceQuota, an admission webhook, a validation error, a conflict), the
// agent still gets a status naming the failure, and the reconcile then
// returns the error, so the workqueue retries with backoff. The condition's reason is the child's
// AgentRuntimeReason*ApplyFailed.

// maxApplyFailureMessage bounds the API error quoted in a condition.
const maxApplyFailureMessage = 2048

// reportApplyFailure writes the status with the failure applyWorkload
// returned, then returns that error (joined with a failed status write).
// The message is the API server's error: the objects applied hold no
// Secret value (credentials reach the pod through secretKeyRef), so
// neither does the error.
func (r *Reconciler) reportApplyFailure(ctx context.Context, ar *v1alpha1.AgentRuntime, in statusInput, applyErr error) error {
	in.applyErr = applyErr
	return errors.Join(applyErr, r.writeStatus(ctx, ar, computeStatus(ar, in)))
}

// setApplyFailureConditions overrides the workload conditions with the
// failure in in.applyErr, at the step applyWorkload reached (it records the
// Service and the Deployment as it applies them). Pure; no-op without a
// failure.
func setApplyFailureConditions(set func(metav1.Condition), in statusInput, gen int64) {
	if in.applyErr == nil {
		return
	}
	msg := conditions.Truncate(in.applyErr.Error(), maxApplyFailureMessage)
	failed := func(typ, reason, what string) {
		set(metav1.Condition{Type: typ, Status: metav1.ConditionFalse, Reason: reason,
			Message: what + " is not applied: " + msg, ObservedGeneration: gen})
	}
	switch {
	case !in.serviceApplied:
		failed(v1alpha1.AgentRuntimeConditionServiceReady, v1alpha1.AgentRuntimeReasonServiceApplyFailed, "the Service")
		failed(v1alpha1.AgentRuntimeConditionDeploymentReady, v1alpha1.AgentRuntimeReasonDeploymentApplyFailed, "the Deployment")
	case in.deployment == nil:
		failed(v1alpha1.AgentRuntimeConditionDeploymentReady, v1alpha1.AgentRuntimeReasonDeploymentApplyFailed, "the Deployment")
	default:
		failed(v1alpha1.AgentRuntimeConditionAutoscalingReady, v1alpha1.AgentRuntimeReasonAutoscalerApplyFailed, "the autoscaler")
	}
}
