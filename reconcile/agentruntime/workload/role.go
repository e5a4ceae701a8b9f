package workload

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// Role builds the facade's Role, which reaches only its own AgentRuntime:
// get on agentruntimes and get/patch on agentruntimes/status, both limited
// by resourceNames to this agent, so a pod cannot read another agent or
// change its lastUsedAt.
//
// With externalAuth.clientKeys on a facade the operator ships (not custom),
// it also lists and watches Secrets in the namespace: "the facade watches
// the Secrets" (agentruntime.md § Client key Secret), by the label selector
// OMNIA_EXTERNAL_AUTH names. RBAC cannot narrow a list or a watch by
// label, and client key names are not known ahead (agent-<agent>-clientkey-
// <id>), so this is the least the spec allows; the grant is confined to the
// facade container, the only one holding the pod's token, and never given
// to a custom facade, whose image is the tenant's.
func Role(ar *v1alpha1.AgentRuntime) *rbacv1.Role {
	group := v1alpha1.GroupVersion.Group
	role := &rbacv1.Role{
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
	if rules.AgentRuntimeFacadeReadsClientKeys(ar) {
		role.Rules = append(role.Rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"list", "watch"}})
	}
	return role
}
