package workload

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// ServiceAccount builds the operator's default pod ServiceAccount,
// `<agentruntime>-facade`. It is built for every agent, also when
// podOverrides or the Workspace name another account for the pod, so the
// agent's set of objects does not change shape with those fields.
func ServiceAccount(ar *v1alpha1.AgentRuntime) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: ObjectMeta(ar, ServiceAccountName(ar)),
	}
}
