package workload

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Role builds the facade's Role, which reaches only its own AgentRuntime:
// get on agentruntimes and get/patch on agentruntimes/status, both limited
// by resourceNames to this agent, so a pod cannot read another agent or
// change its lastUsedAt.
func Role(ar *v1alpha1.AgentRuntime) *rbacv1.Role {
	group := v1alpha1.GroupVersion.Group
	return &rbacv1.Role{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "Role"},
		ObjectMeta: ObjectMeta(ar, RoleName(ar)),
		Rules: []rbacv1.PolicyRule{
			{
				APIGroups:     []string{group},
				Resources:     []string{"agentruntimes"},
				ResourceNames: []string{ar.Name},
				Verbs:         []string{"get"},
			},
			{
				APIGroups:     []string{group},
				Resources:     []string{"agentruntimes/status"},
				ResourceNames: []string{ar.Name},
				Verbs:         []string{"get", "patch"},
			},
		},
	}
}
