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

// The label a Secret carries to be usable as an ArenaProject's
// spec.git.secretRef, as Argo CD's repository Secrets carry
// argocd.argoproj.io/secret-type: only a Secret its owner marked for this
// use is read, so naming a Secret in a project never hands the operator's
// read access to that Secret to the project's author.
const (
	ArenaProjectGitCredentialsLabel = "arena.omnia.altairalabs.ai/secret-type"
	ArenaProjectGitCredentialsValue = "git-credentials"
)

// ArenaProjectSpec declares an Arena project: a git repository, either
// hosted on the workspace content volume (no spec.git) or external
// (spec.git). Runs resolve their ref against it (arenajob.md#ref).
type ArenaProjectSpec struct {
	// displayName is a human-readable project name.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	DisplayName string `json:"displayName,omitempty"`

	// git makes the project external: its repository is the git
	// repository at git.url, read over HTTPS (smart HTTP protocol). Without
	// it the project is hosted: its repository is the one on the workspace
	// content volume at arena/sources/<project name> of the namespace's
	// content subtree (<--workspace-content-path>/<namespace>/), whose
	// default branch is main unless the repository's HEAD names another.
	// +optional
	Git *ArenaProjectGitSource `json:"git,omitempty"`
}

// ArenaProjectGitSource is an external project's repository.
type ArenaProjectGitSource struct {
	// url is the repository's HTTPS URL (for example
	// https://github.com/acme/evals.git), with no user info and not a
	// link-local or cloud-metadata host (rule arenaproject/git-url).
	// http://, ssh, git, file and scp-like URLs are refused.
	// +kubebuilder:validation:MinLength=9
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://[^\s]+$`
	// +required
	URL string `json:"url"`

	// secretRef names a Secret in the project's namespace holding HTTP
	// basic-auth credentials for url: key password (a personal access
	// token works here) and optional key username (default "git"). The
	// Secret must opt in: type kubernetes.io/basic-auth and label
	// arena.omnia.altairalabs.ai/secret-type: git-credentials (otherwise
	// Ready is False, CredentialsSecretNotOptedIn). The credentials are sent
	// only over https and only to a host:port the operator allows with
	// --arena-git-hosts (otherwise CredentialsHostNotAllowed); in both cases
	// nothing is fetched. Absent: the repository is read anonymously.
	// +optional
	SecretRef *LocalObjectReference `json:"secretRef,omitempty"`
}

// ArenaProjectStatus is the observed state of an ArenaProject.
type ArenaProjectStatus struct {
	// phase is Pending, Ready or Failed.
	// +optional
	Phase ArenaProjectPhase `json:"phase,omitempty"`

	// observedGeneration is the last generation the controller observed.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// repository is the project's repository as runs record it in
	// status.source.repository: the URL of an external project, hosted
	// for a hosted one.
	// +kubebuilder:validation:MaxLength=2048
	// +optional
	Repository string `json:"repository,omitempty"`

	// defaultBranch is the branch a run executes when its job names no
	// ref: the repository's HEAD (main for a hosted repository whose HEAD
	// names none).
	// +kubebuilder:validation:MaxLength=255
	// +optional
	DefaultBranch string `json:"defaultBranch,omitempty"`

	// headCommit is the commit SHA the default branch pointed at when the
	// controller last looked.
	// +kubebuilder:validation:MaxLength=64
	// +optional
	HeadCommit string `json:"headCommit,omitempty"`

	// conditions describe the project's state: Ready.
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
// +kubebuilder:printcolumn:name="BRANCH",type=string,JSONPath=`.status.defaultBranch`
// +kubebuilder:printcolumn:name="REPOSITORY",type=string,JSONPath=`.status.repository`,priority=1
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
