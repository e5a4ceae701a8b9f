package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// LocalObjectReference names an object in the referring object's namespace.
type LocalObjectReference struct {
	// name of the referenced object.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name"`
}

// NamespacedObjectReference names an object, optionally in another namespace.
// Most Omnia references refuse a namespace other than the referrer's own; the
// field says so where that applies.
type NamespacedObjectReference struct {
	// name of the referenced object.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name"`

	// namespace of the referenced object. Defaults to the referrer's namespace.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

// PodOverrides customises a pod the operator builds: scheduling, service
// account, labels, annotations and volumes, plus container-level environment
// and mounts applied to every container except operator-injected sidecars.
// Every field is optional.
type PodOverrides struct {
	// serviceAccountName replaces the operator's default ServiceAccount when non-empty.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// priorityClassName replaces the operator's default PriorityClass when non-empty.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	PriorityClassName string `json:"priorityClassName,omitempty"`

	// runtimeClassName sets spec.runtimeClassName on the pod when non-empty; empty
	// leaves the cluster default. The operator does not check that the
	// RuntimeClass exists.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +optional
	RuntimeClassName string `json:"runtimeClassName,omitempty"`

	// labels are merged into the pod's labels; operator-set keys win on collision.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// annotations are merged into the pod's annotations; your values win on collision.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`

	// nodeSelector is merged by key into the pod's node selector; your values win.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// tolerations are appended to the pod's tolerations.
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// imagePullSecrets are appended to the pod's image pull secrets.
	// +optional
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`

	// extraVolumes are appended to the pod's volumes (each a core/v1 Volume).
	// The schema does not validate a volume; the API server does when the
	// Deployment is applied.
	// +optional
	ExtraVolumes []runtime.RawExtension `json:"extraVolumes,omitempty"`

	// extraEnv is appended to the env of each container (not operator-injected
	// sidecars). Reserved Omnia keys are dropped on AgentRuntime pods.
	// +kubebuilder:validation:MaxItems=128
	// +optional
	ExtraEnv []corev1.EnvVar `json:"extraEnv,omitempty"`

	// extraEnvFrom is appended to the envFrom of each container.
	// +optional
	ExtraEnvFrom []corev1.EnvFromSource `json:"extraEnvFrom,omitempty"`

	// extraVolumeMounts are appended to the volumeMounts of each container.
	// +optional
	ExtraVolumeMounts []corev1.VolumeMount `json:"extraVolumeMounts,omitempty"`
}
