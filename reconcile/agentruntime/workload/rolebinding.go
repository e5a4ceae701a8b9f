package workload

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// RoleBinding binds the facade Role to the account the agent's pod runs
// as (PodServiceAccountName: podOverrides.serviceAccountName, else the
// Workspace's, else `<agentruntime>-facade`), so the facade can read its
// agent and write lastUsedAt whichever account it runs as. The spec says
// only that "RBAC bindings follow serviceAccountName" for session-api and
// memory-api; the agent's binding follows it the same way.
func RoleBinding(ar *v1alpha1.AgentRuntime, r Resolved) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "RoleBinding"},
		ObjectMeta: ObjectMeta(ar, RoleBindingName(ar)),
		RoleRef: rbacv1.RoleRef{
			APIGroup: rbacv1.GroupName,
			Kind:     "Role",
			Name:     RoleName(ar),
		},
		Subjects: []rbacv1.Subject{{
			Kind:      rbacv1.ServiceAccountKind,
			Name:      PodServiceAccountName(ar, &r),
			Namespace: ar.Namespace,
		}},
	}
}
