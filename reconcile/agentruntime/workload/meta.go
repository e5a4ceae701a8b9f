package workload

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Label keys the operator sets on every object it builds for an agent.
const (
	// LabelName is the workload kind; always LabelNameValue.
	LabelName = "app.kubernetes.io/name"
	// LabelInstance is the AgentRuntime's name.
	LabelInstance = "app.kubernetes.io/instance"
	// LabelManagedBy says the operator owns the object.
	LabelManagedBy = "app.kubernetes.io/managed-by"
	// LabelComponent is which part of the agent the object is (facade pod, RBAC).
	LabelComponent = "app.kubernetes.io/component"
	// LabelAgent is the AgentRuntime's name under the Omnia prefix, the
	// label the spec already uses for an agent's client-key Secrets.
	LabelAgent = "omnia.altairalabs.ai/agent"

	// LabelNameValue is LabelName's value on every agent object.
	LabelNameValue = "omnia-agent"
	// ManagedByValue is LabelManagedBy's value.
	ManagedByValue = "omnia-operator"
	// ComponentAgent is LabelComponent's value on the workload (Deployment,
	// pods, Service) and the agent's RBAC objects.
	ComponentAgent = "agent"
)

// LabelRolloutTrack is on every agent pod: RolloutTrackStable on the
// stable Deployment's, RolloutTrackCandidate on a rollout candidate's. The
// mesh's DestinationRule subsets select on it; it is in neither
// Deployment's selector (the stable one is immutable).
const (
	LabelRolloutTrack     = "omnia.altairalabs.ai/rollout-track"
	RolloutTrackStable    = "stable"
	RolloutTrackCandidate = "candidate"
)

// SelectorLabels are the labels the Deployment and the Service select the
// agent's pods by. They depend on the agent's name only: a Deployment's
// selector is immutable, so nothing the spec can change may enter it.
func SelectorLabels(ar *v1alpha1.AgentRuntime) map[string]string {
	return map[string]string{
		LabelName:     LabelNameValue,
		LabelInstance: ar.Name,
	}
}

// Labels are the labels on every object built for the agent (and on its
// pods): the selector labels plus who manages the object and which agent it
// belongs to.
func Labels(ar *v1alpha1.AgentRuntime) map[string]string {
	l := SelectorLabels(ar)
	l[LabelManagedBy] = ManagedByValue
	l[LabelComponent] = ComponentAgent
	l[LabelAgent] = ar.Name
	return l
}

// PropagatedLabels are the agent's own labels copied onto every object
// built for it (not onto its pods, so toggling them never rolls the pods,
// and never into a selector): whether it is hidden from lists, and the dev
// intent identity the deploy API stamps on an Arena project's objects.
// A list of Deployments or Services then filters the same way a list of
// agents does.
var PropagatedLabels = []string{
	"omnia.altairalabs.ai/hidden",
	"omnia.altairalabs.ai/dev",
	"omnia.altairalabs.ai/arena-project",
	"omnia.altairalabs.ai/arena-user",
}

// objectLabels are Labels plus the agent's PropagatedLabels.
func objectLabels(ar *v1alpha1.AgentRuntime) map[string]string {
	l := Labels(ar)
	for _, k := range PropagatedLabels {
		if v, ok := ar.Labels[k]; ok {
			l[k] = v
		}
	}
	return l
}

// Names of the objects built for an agent. The Service carries the agent's
// own name, so status.serviceEndpoint is {name}.{namespace}.svc.cluster.local;
// the Deployment shares it (the spec names no other). The ServiceAccount is
// the spec's `<agentruntime>-facade`, and the Role and RoleBinding that give
// it its rights share that name.

// DeploymentName is the agent's Deployment name: the agent's own name.
func DeploymentName(ar *v1alpha1.AgentRuntime) string { return ar.Name }

// ServiceName is the agent's Service name: the agent's own name.
func ServiceName(ar *v1alpha1.AgentRuntime) string { return ar.Name }

// ServiceAccountName is the operator's default pod ServiceAccount,
// `<agentruntime>-facade`.
func ServiceAccountName(ar *v1alpha1.AgentRuntime) string { return ar.Name + "-facade" }

// RoleName is the facade Role's name, `<agentruntime>-facade`.
func RoleName(ar *v1alpha1.AgentRuntime) string { return ar.Name + "-facade" }

// RoleBindingName is the facade RoleBinding's name, `<agentruntime>-facade`.
func RoleBindingName(ar *v1alpha1.AgentRuntime) string { return ar.Name + "-facade" }

// ObjectMeta is the metadata every built object carries: name, the agent's
// namespace, objectLabels and the controlling owner reference to the agent, so
// garbage collection removes the object with the agent.
func ObjectMeta(ar *v1alpha1.AgentRuntime, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:            name,
		Namespace:       ar.Namespace,
		Labels:          objectLabels(ar),
		OwnerReferences: []metav1.OwnerReference{OwnerReference(ar)},
	}
}

// OwnerReference is the controlling owner reference to the agent:
// controller=true (one controller per object) and blockOwnerDeletion=true
// (foreground deletion of the agent waits for its workload).
func OwnerReference(ar *v1alpha1.AgentRuntime) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion:         v1alpha1.GroupVersion.String(),
		Kind:               "AgentRuntime",
		Name:               ar.Name,
		UID:                ar.UID,
		Controller:         ptr.To(true),
		BlockOwnerDeletion: ptr.To(true),
	}
}
