package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PromptPackPhase is the validation state of a PromptPack.
// +kubebuilder:validation:Enum=Ready;Invalid
type PromptPackPhase string

const (
	// PromptPackPhaseReady: the pack's source resolved and validated.
	PromptPackPhaseReady PromptPackPhase = "Ready"
	// PromptPackPhaseInvalid: the pack failed source or schema validation.
	PromptPackPhaseInvalid PromptPackPhase = "Invalid"
)

// PromptPackSpec declares one version of a prompt pack. Only the fields the
// AgentRuntime, ArenaJob and deploy-intent contracts reference are modelled.
// +kubebuilder:validation:XValidation:rule="has(self.source.configMapRef) != has(self.source.live)",message="[promptpack/source-exactly-one] spec.source sets exactly one of configMapRef or live"
type PromptPackSpec struct {
	// packName is the pack's logical name; AgentRuntime spec.promptPackRef.name
	// matches it (not the PromptPack object name).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	PackName string `json:"packName"`

	// version of the pack, compared as a string with build metadata included
	// (1.0.0 does not match 1.0.0+gAAAA). Unset on a live pack.
	// +kubebuilder:validation:MaxLength=128
	// +optional
	Version string `json:"version,omitempty"`

	// source says where the pack content comes from: a ConfigMap, or a live
	// Arena project compiled in place.
	// +required
	Source PromptPackContentSource `json:"source"`

	// skills are the SkillSources the pack's agents may load skills from:
	// what a deploy intent's pack.skills becomes. At most 64, each source
	// once.
	// +kubebuilder:validation:MaxItems=64
	// +listType=map
	// +listMapKey=source
	// +optional
	Skills []PromptPackSkill `json:"skills,omitempty"`

	// skillsConfig bounds the skills active at once (a deploy intent's
	// pack.skillsConfig).
	// +optional
	SkillsConfig *PromptPackSkillsConfig `json:"skillsConfig,omitempty"`
}

// PromptPackSkill is one SkillSource a pack uses.
type PromptPackSkill struct {
	// source names a SkillSource in the pack's namespace.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Source string `json:"source"`

	// include lists the skills of the source to use; empty uses every one.
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	// +listType=set
	// +optional
	Include []string `json:"include,omitempty"`

	// mountAs is the directory name the source's skills are mounted under.
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	MountAs string `json:"mountAs,omitempty"`
}

// PromptPackSkillsConfig bounds a pack's active skills.
type PromptPackSkillsConfig struct {
	// maxActive is how many skills may be active at once.
	// +kubebuilder:validation:Minimum=1
	// +optional
	MaxActive *int32 `json:"maxActive,omitempty"`

	// selector chooses the active skills (the runtime's selector
	// expression).
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	Selector string `json:"selector,omitempty"`
}

// PromptPackContentSource is where a PromptPack's content lives.
type PromptPackContentSource struct {
	// configMapRef names a ConfigMap in the pack's namespace holding the pack.
	// +optional
	ConfigMapRef *LocalObjectReference `json:"configMapRef,omitempty"`

	// live makes this a live pack: an Arena project's working copy, compiled
	// by the runtime at start. Only a bare promptPackRef (no version, no track)
	// may name a live pack.
	// +optional
	Live *PromptPackLiveSource `json:"live,omitempty"`
}

// PromptPackLiveSource points a live PromptPack at an Arena project.
type PromptPackLiveSource struct {
	// projectRef names the ArenaProject whose working copy is the pack.
	// +required
	ProjectRef LocalObjectReference `json:"projectRef"`
}

// PromptPackStatus is the observed state of a PromptPack.
type PromptPackStatus struct {
	// phase is Ready when the pack validated, Invalid when it did not.
	// +optional
	Phase PromptPackPhase `json:"phase,omitempty"`

	// observedGeneration is the last generation the controller observed.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// contentDigest is sha256:<hex> over the pack.json the pack's ConfigMap
	// holds, set while the pack is Ready and empty otherwise. It is the
	// pack's content identity, which an AgentRuntime's compositionDigest
	// covers.
	// +optional
	ContentDigest string `json:"contentDigest,omitempty"`

	// conditions describe the pack's validation.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// PromptPack is one version of a prompt pack an AgentRuntime runs.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=pp,categories=omnia
// +kubebuilder:printcolumn:name="PACK",type=string,JSONPath=`.spec.packName`
// +kubebuilder:printcolumn:name="VERSION",type=string,JSONPath=`.spec.version`
// +kubebuilder:printcolumn:name="PHASE",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type PromptPack struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec declares the pack.
	// +required
	Spec PromptPackSpec `json:"spec"`
	// status is the pack's observed state.
	// +optional
	Status PromptPackStatus `json:"status,omitempty"`
}

// PromptPackList is a list of PromptPacks.
// +kubebuilder:object:root=true
type PromptPackList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PromptPack `json:"items"`
}

func init() {
	SchemeBuilder.Register(&PromptPack{}, &PromptPackList{})
}
