package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ToolPolicySpec decides tool calls for the registries it selects. Only the
// selector the ToolRegistry contract references is modelled.
type ToolPolicySpec struct {
	// selector chooses which tool calls this policy decides.
	// +required
	Selector ToolPolicySelector `json:"selector"`

	// toolBlocklist names tools of the selected registry this policy
	// refuses outright, whoever calls them: what a deploy intent's
	// policy.toolBlocklist becomes (deploy-intent.md). The rest of a
	// policy's rules are not modelled by this minimal kind.
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	// +listType=set
	// +optional
	ToolBlocklist []string `json:"toolBlocklist,omitempty"`
}

// ToolPolicySelector chooses the registry a ToolPolicy applies to.
type ToolPolicySelector struct {
	// registry is the name of the ToolRegistry (in the policy's namespace), or
	// `a2a` for agent-to-agent tools, whose calls this policy decides.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Registry string `json:"registry"`
}

// ToolPolicyStatus is the observed state of a ToolPolicy.
type ToolPolicyStatus struct {
	// observedGeneration is the last generation the controller observed.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions describe the policy's state.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ToolPolicy governs calls to the tools of one ToolRegistry (Enterprise).
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=tp,categories=omnia
// +kubebuilder:printcolumn:name="REGISTRY",type=string,JSONPath=`.spec.selector.registry`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type ToolPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec declares the policy.
	// +required
	Spec ToolPolicySpec `json:"spec"`
	// status is the policy's observed state.
	// +optional
	Status ToolPolicyStatus `json:"status,omitempty"`
}

// ToolPolicyList is a list of ToolPolicies.
// +kubebuilder:object:root=true
type ToolPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ToolPolicy `json:"items"`
}

func init() {
	SchemeBuilder.Register(&ToolPolicy{}, &ToolPolicyList{})
}
