package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PromptPackSourceType says what a PromptPackSource materializes its pack
// from. Only project (an Arena project's current source, for a dev agent)
// exists.
// +kubebuilder:validation:Enum=project
type PromptPackSourceType string

// PromptPackSourceTypeProject materializes a live PromptPack from an Arena
// project (deploy-intent.md § Deploying a project to a dev agent).
const PromptPackSourceTypeProject PromptPackSourceType = "project"

// PromptPackSourceSpec declares where a live pack comes from and which pack
// it materializes. The deploy API writes it for a pack.project intent; it
// is the minimal shape that intent needs.
type PromptPackSourceSpec struct {
	// type is the kind of source: project.
	// +required
	Type PromptPackSourceType `json:"type"`

	// project is the Arena project (and the user whose dev agent it feeds)
	// the pack is materialized from.
	// +required
	Project PromptPackSourceProject `json:"project"`

	// packName is the logical name of the one live PromptPack the source
	// materializes and owns (the dev agent's promptPackRef.name).
	// +kubebuilder:validation:MinLength=1
	// +required
	PackName string `json:"packName"`
}

// PromptPackSourceProject names the project and the user of a project
// source.
type PromptPackSourceProject struct {
	// id is the Arena project id; a label value, so at most 63 characters.
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$`
	// +required
	ID string `json:"id"`

	// user is the pseudonym of the user the dev agent belongs to (never the
	// token subject itself); a label value.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +required
	User string `json:"user"`
}

// PromptPackSourceStatus is the observed state of a PromptPackSource.
type PromptPackSourceStatus struct {
	// observedGeneration is the last generation the controller observed.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions describe the materialized pack.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// PromptPackSource materializes one live PromptPack (named by
// spec.packName) from a source, owns it, and copies its dev labels to it.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=pps,categories=omnia
// +kubebuilder:printcolumn:name="TYPE",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="PACK",type=string,JSONPath=`.spec.packName`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type PromptPackSource struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec declares the source.
	// +required
	Spec PromptPackSourceSpec `json:"spec"`
	// status is the source's observed state.
	// +optional
	Status PromptPackSourceStatus `json:"status,omitempty"`
}

// PromptPackSourceList is a list of PromptPackSources.
// +kubebuilder:object:root=true
type PromptPackSourceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PromptPackSource `json:"items"`
}

func init() {
	SchemeBuilder.Register(&PromptPackSource{}, &PromptPackSourceList{})
}
