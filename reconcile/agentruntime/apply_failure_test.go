package agentruntime

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// TestApplyFailureIsReportedInStatus: the API server refuses the agent's
// Service (a ResourceQuota of zero Services in the namespace). The
// reconcile returns the error (the workqueue retries with backoff), but
// first writes the status: ServiceReady False ServiceApplyFailed and
// DeploymentReady False DeploymentApplyFailed, each quoting the API error;
// phase Pending, no Deployment. Retrying with the same failure writes no
// status again. Once the quota is gone, the agent's workload is applied
// and the conditions recover.
func TestApplyFailureIsReportedInStatus(t *testing.T) {
	ctx := context.Background()
	ar := createAgent(t, agent(func(a *v1alpha1.AgentRuntime) {
		a.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts"}
	}), "ar-apply-failure")
	key := client.ObjectKeyFromObject(ar)
	createPack(t, key.Namespace, "prompts", "1.0.0", v1alpha1.PromptPackPhaseReady)
	quota := &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "no-services", Namespace: key.Namespace},
		Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourceServices: resource.MustParse("0")}},
	}
	if err := k8s.Create(ctx, quota); err != nil {
		t.Fatal(err)
	}
	// No quota controller runs here: publish its usage as it would.
	quota.Status = corev1.ResourceQuotaStatus{
		Hard: corev1.ResourceList{corev1.ResourceServices: resource.MustParse("0")},
		Used: corev1.ResourceList{corev1.ResourceServices: resource.MustParse("0")},
	}
	if err := k8s.Status().Update(ctx, quota); err != nil {
		t.Fatal(err)
	}
	r, _ := newCountingReconciler(t)

	reconcileFailing := func() *v1alpha1.AgentRuntime {
		t.Helper()
		_, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: key})
		if err == nil || !apierrors.IsForbidden(err) {
			t.Fatalf("reconcile: got %v, want the API server's Forbidden for the Service", err)
		}
		got := &v1alpha1.AgentRuntime{}
		if err := k8s.Get(ctx, key, got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	got := reconcileFailing()
	for _, want := range []struct{ typ, reason string }{
		{v1alpha1.AgentRuntimeConditionServiceReady, v1alpha1.AgentRuntimeReasonServiceApplyFailed},
		{v1alpha1.AgentRuntimeConditionDeploymentReady, v1alpha1.AgentRuntimeReasonDeploymentApplyFailed},
	} {
		c := condition(got, want.typ)
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason != want.reason {
			t.Fatalf("%s: got %+v, want False %s", want.typ, c, want.reason)
		}
		if !strings.Contains(c.Message, "Service "+workload.ServiceName(got)) || !strings.Contains(c.Message, "exceeded quota") {
			t.Errorf("%s message %q does not name the Service and the API error", want.typ, c.Message)
		}
	}
	if got.Status.Phase != v1alpha1.AgentRuntimePhasePending {
		t.Errorf("phase %q, want Pending", got.Status.Phase)
	}
	if err := k8s.Get(ctx, key, &appsv1.Deployment{}); !apierrors.IsNotFound(err) {
		t.Errorf("a Deployment exists (or could not be read: %v) though the Service before it was refused", err)
	}
	if again := reconcileFailing(); again.ResourceVersion != got.ResourceVersion {
		t.Errorf("retrying the same failure wrote the agent again (resourceVersion %s -> %s)", got.ResourceVersion, again.ResourceVersion)
	}

	if err := k8s.Delete(ctx, quota); err != nil {
		t.Fatal(err)
	}
	recovered := reconcileAgent(t, r, key)
	if c := condition(recovered, v1alpha1.AgentRuntimeConditionServiceReady); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("ServiceReady after the quota is gone: %+v, want True", c)
	}
	if c := condition(recovered, v1alpha1.AgentRuntimeConditionDeploymentReady); c == nil || c.Reason != v1alpha1.AgentRuntimeReasonDeploymentUnavailable {
		t.Errorf("DeploymentReady after the quota is gone: %+v, want False %s (applied, no pods here)", c, v1alpha1.AgentRuntimeReasonDeploymentUnavailable)
	}
}
