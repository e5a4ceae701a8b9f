package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WorkspaceSpec declares a team's namespace-level services, quotas and
// runtime defaults. Only the fields the AgentRuntime, ArenaJob and
// deploy-intent contracts reference are modelled.
type WorkspaceSpec struct {
	// namespace is the Kubernetes namespace this workspace owns; its agents,
	// Providers, ToolRegistries and ArenaJobs live there.
	// +required
	Namespace WorkspaceNamespace `json:"namespace"`

	// services are the workspace's service groups; an AgentRuntime or ArenaJob
	// selects one by name with spec.serviceGroup.
	// +kubebuilder:validation:MaxItems=32
	// +listType=map
	// +listMapKey=name
	// +optional
	Services []WorkspaceServiceGroup `json:"services,omitempty"`

	// quotas cap what the workspace may run.
	// +optional
	Quotas *WorkspaceQuotas `json:"quotas,omitempty"`

	// runtime holds pod defaults for the workspace's agents.
	// +optional
	Runtime *WorkspaceRuntime `json:"runtime,omitempty"`
}

// WorkspaceNamespace names the namespace a workspace owns and how the
// operator manages it: the shape existing Workspace manifests use
// (`namespace: {name, create, labels, annotations}`).
type WorkspaceNamespace struct {
	// name of the namespace (a DNS label).
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +required
	Name string `json:"name"`

	// create asks the operator to create the namespace when it does not exist.
	// +optional
	Create bool `json:"create,omitempty"`

	// labels the operator sets on the namespace.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// annotations the operator sets on the namespace.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// WorkspaceServiceGroup is one named group of session, memory and Redis services.
type WorkspaceServiceGroup struct {
	// name of the service group (DNS label), e.g. `default`.
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +required
	Name string `json:"name"`

	// session configures the group's session-api, which records conversations.
	// +optional
	Session *WorkspaceServiceBlock `json:"session,omitempty"`

	// memory configures the group's memory-api.
	// +optional
	Memory *WorkspaceServiceBlock `json:"memory,omitempty"`

	// redis configures the group's Redis.
	// +optional
	Redis *WorkspaceServiceBlock `json:"redis,omitempty"`

	// autoscaling is the autoscaling default of the group's agents: an
	// AgentRuntime selecting this group (spec.serviceGroup) that sets no
	// spec.runtime.autoscaling inherits it (agentruntime.md §
	// runtime.autoscaling). Same shape and defaults as the agent's field.
	// +optional
	Autoscaling *AgentRuntimeAutoscaling `json:"autoscaling,omitempty"`
}

// WorkspaceServiceBlock configures one service of a group: either managed by
// the operator or an external endpoint.
type WorkspaceServiceBlock struct {
	// enabled turns the managed service on.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`

	// url of an external service to use instead of a managed one.
	// +kubebuilder:validation:MaxLength=2048
	// +optional
	URL string `json:"url,omitempty"`

	// podOverrides customises the managed service's pod.
	// +optional
	PodOverrides *PodOverrides `json:"podOverrides,omitempty"`
}

// WorkspaceQuotas caps agents and Arena usage in the workspace.
type WorkspaceQuotas struct {
	// agents caps AgentRuntimes.
	// +optional
	Agents *WorkspaceAgentQuota `json:"agents,omitempty"`

	// arena caps ArenaJobs.
	// +optional
	Arena *WorkspaceArenaQuota `json:"arena,omitempty"`
}

// WorkspaceAgentQuota caps AgentRuntimes in the workspace.
type WorkspaceAgentQuota struct {
	// maxAgentRuntimes is the most AgentRuntimes the workspace admits.
	// +kubebuilder:validation:Minimum=0
	// +optional
	MaxAgentRuntimes *int32 `json:"maxAgentRuntimes,omitempty"`

	// maxReplicasPerAgent clamps each agent's replicas.
	// +kubebuilder:validation:Minimum=0
	// +optional
	MaxReplicasPerAgent *int32 `json:"maxReplicasPerAgent,omitempty"`
}

// WorkspaceArenaQuota caps ArenaJobs in the workspace.
type WorkspaceArenaQuota struct {
	// maxConcurrentJobs is the most ArenaRuns running at once.
	// +kubebuilder:validation:Minimum=0
	// +optional
	MaxConcurrentJobs *int32 `json:"maxConcurrentJobs,omitempty"`

	// maxJobsPerDay is the most ArenaRuns started per day.
	// +kubebuilder:validation:Minimum=0
	// +optional
	MaxJobsPerDay *int32 `json:"maxJobsPerDay,omitempty"`

	// maxWorkersPerJob clamps each run's workers.
	// +kubebuilder:validation:Minimum=0
	// +optional
	MaxWorkersPerJob *int32 `json:"maxWorkersPerJob,omitempty"`
}

// WorkspaceRuntime holds pod defaults for the workspace's agents.
type WorkspaceRuntime struct {
	// serviceAccountName is the agents' pod ServiceAccount unless an agent sets
	// podOverrides.serviceAccountName.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// runtimeClassName is the agents' pod RuntimeClass unless an agent sets
	// podOverrides.runtimeClassName.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +optional
	RuntimeClassName string `json:"runtimeClassName,omitempty"`
}

// WorkspaceStatus is the observed state of a Workspace.
type WorkspaceStatus struct {
	// observedGeneration is the last generation the controller observed.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions describe the workspace's state.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Workspace is a team's tenancy unit, cluster-scoped and bound to one
// namespace: service groups, quotas and defaults.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=ws,categories=omnia
// +kubebuilder:printcolumn:name="NAMESPACE",type=string,JSONPath=`.spec.namespace.name`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type Workspace struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec declares the workspace.
	// +required
	Spec WorkspaceSpec `json:"spec"`
	// status is the workspace's observed state.
	// +optional
	Status WorkspaceStatus `json:"status,omitempty"`
}

// WorkspaceList is a list of Workspaces.
// +kubebuilder:object:root=true
type WorkspaceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Workspace `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Workspace{}, &WorkspaceList{})
}
