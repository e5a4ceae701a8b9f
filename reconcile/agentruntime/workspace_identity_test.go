package agentruntime

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// TestWorkspacePodIdentity: an agent of a Workspace that sets
// spec.runtime.serviceAccountName and runtimeClassName runs as that
// ServiceAccount under that RuntimeClass, and its facade Role is bound to
// that ServiceAccount; an agent that sets its own serviceAccountName keeps
// it and still takes the Workspace's RuntimeClass (agentruntime.md §
// podOverrides).
func TestWorkspacePodIdentity(t *testing.T) {
	ctx := context.Background()
	const ns = "ar-workspace-identity"
	ws := &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	ws.Spec.Namespace.Name = ns
	ws.Spec.Runtime = &v1alpha1.WorkspaceRuntime{ServiceAccountName: "team-runner", RuntimeClassName: "gvisor"}
	if err := k8s.Create(ctx, ws); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, ws) })
	r, _ := newCountingReconciler(t)
	key := runnableAgent(t, ns)
	reconcileAgent(t, r, key)

	pod := func() (string, string) {
		t.Helper()
		d := &appsv1.Deployment{}
		if err := k8s.Get(ctx, key, d); err != nil {
			t.Fatal(err)
		}
		rc := ""
		if p := d.Spec.Template.Spec.RuntimeClassName; p != nil {
			rc = *p
		}
		return d.Spec.Template.Spec.ServiceAccountName, rc
	}
	if sa, rc := pod(); sa != "team-runner" || rc != "gvisor" {
		t.Errorf("pod runs as %q under %q, want the Workspace's team-runner and gvisor", sa, rc)
	}
	rb := &rbacv1.RoleBinding{}
	ar := &v1alpha1.AgentRuntime{}
	if err := k8s.Get(ctx, key, ar); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: workload.RoleBindingName(ar)}, rb); err != nil {
		t.Fatal(err)
	}
	if len(rb.Subjects) != 1 || rb.Subjects[0].Name != "team-runner" {
		t.Errorf("facade Role bound to %+v, want the pod's ServiceAccount team-runner", rb.Subjects)
	}

	ar.Spec.PodOverrides = &v1alpha1.PodOverrides{ServiceAccountName: "own-runner"}
	if err := k8s.Update(ctx, ar); err != nil {
		t.Fatal(err)
	}
	reconcileAgent(t, r, key)
	if sa, rc := pod(); sa != "own-runner" || rc != "gvisor" {
		t.Errorf("pod runs as %q under %q, want its own own-runner and still the Workspace's gvisor", sa, rc)
	}
}
