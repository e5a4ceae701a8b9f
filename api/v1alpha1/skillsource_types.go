package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SkillSourceType is where a SkillSource's skills are fetched from.
// +kubebuilder:validation:Enum=git;oci;configmap
type SkillSourceType string

const (
	// SkillSourceTypeGit fetches skills from a Git repository.
	SkillSourceTypeGit SkillSourceType = "git"
	// SkillSourceTypeOCI fetches skills from an OCI artifact.
	SkillSourceTypeOCI SkillSourceType = "oci"
	// SkillSourceTypeConfigMap reads skills from a ConfigMap.
	SkillSourceTypeConfigMap SkillSourceType = "configmap"
)

// SkillSourceSpec declares where skills come from. Only the source type the
// contracts reference is modelled.
type SkillSourceSpec struct {
	// type is the source kind: git, oci or configmap.
	// +required
	Type SkillSourceType `json:"type"`
}

// SkillSourceStatus is the observed state of a SkillSource.
type SkillSourceStatus struct {
	// observedGeneration is the last generation the controller observed.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions describe the source's state.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// SkillSource is a source of agent skills.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=skills,categories=omnia
// +kubebuilder:printcolumn:name="TYPE",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type SkillSource struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec declares the source.
	// +required
	Spec SkillSourceSpec `json:"spec"`
	// status is the source's observed state.
	// +optional
	Status SkillSourceStatus `json:"status,omitempty"`
}

// SkillSourceList is a list of SkillSources.
// +kubebuilder:object:root=true
type SkillSourceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SkillSource `json:"items"`
}

func init() {
	SchemeBuilder.Register(&SkillSource{}, &SkillSourceList{})
}
