package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ArenaProjectPhase is the state of an Arena project.
// +kubebuilder:validation:Enum=Pending;Ready;Failed
type ArenaProjectPhase string

const (
	// ArenaProjectPhasePending: the project is not usable yet.
	ArenaProjectPhasePending ArenaProjectPhase = "Pending"
	// ArenaProjectPhaseReady: the project's working copy is usable.
	ArenaProjectPhaseReady ArenaProjectPhase = "Ready"
	// ArenaProjectPhaseFailed: the project cannot be used.
	ArenaProjectPhaseFailed ArenaProjectPhase = "Failed"
)

// ArenaProjectSpec declares an Arena project. Only what the ArenaJob and
// deploy-intent contracts reference is modelled: the project is referenced by
// name and read through its status.
type ArenaProjectSpec struct {
	// displayName is a human-readable project name.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	DisplayName string `json:"displayName,omitempty"`
}

// ArenaProjectStatus is the observed state of an ArenaProject.
type ArenaProjectStatus struct {
	// phase is Pending, Ready or Failed.
	// +optional
	Phase ArenaProjectPhase `json:"phase,omitempty"`

	// observedGeneration is the last generation the controller observed.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions describe the project's state.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ArenaProject is an Arena authoring project: prompts, scenarios and
// configuration edited in place and run by ArenaJobs and dev agents.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=aproj,categories=omnia
// +kubebuilder:printcolumn:name="PHASE",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type ArenaProject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec declares the project.
	// +optional
	Spec ArenaProjectSpec `json:"spec,omitempty"`
	// status is the project's observed state.
	// +optional
	Status ArenaProjectStatus `json:"status,omitempty"`
}

// ArenaProjectList is a list of ArenaProjects.
// +kubebuilder:object:root=true
type ArenaProjectList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ArenaProject `json:"items"`
}

func init() {
	SchemeBuilder.Register(&ArenaProject{}, &ArenaProjectList{})
}
