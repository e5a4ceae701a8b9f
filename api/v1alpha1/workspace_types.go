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

	// exposure grants the workspace's agents hosts on the platform's shared
	// default-exposure Gateway beyond the namespace's own domain.
	// +optional
	Exposure *WorkspaceExposure `json:"exposure,omitempty"`
}

// WorkspaceExposure is what the workspace's agents may claim on the shared
// default-exposure Gateway (agentruntime.md § facades[].expose). Without
// it, an agent's facades[].expose.host must be under the namespace's own
// domain, <namespace>.<exposure base domain> (the operator's
// --exposure-base-domain), where its default hosts are: rule
// agentruntime/expose-host-outside-namespace-domain. The Workspace is
// cluster-scoped and written by the platform, never by a tenant, so a grant
// here is the platform's.
type WorkspaceExposure struct {
	// allowedHostSuffixes are DNS domains under which the workspace's agents
	// may also set expose.host: a host is allowed when it equals an entry or
	// ends with "." followed by it (whole labels: shop.example.com allows
	// shop.example.com and api.shop.example.com, not myshop.example.com).
	// Lower-case DNS names of at least two labels, no wildcard; at most 16.
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=253
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$`
	// +listType=set
	// +optional
	AllowedHostSuffixes []string `json:"allowedHostSuffixes,omitempty"`
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

	// redis configures the group's Redis: where its URL comes from (url,
	// host, serviceRef or existingSecret). An ArenaRun of this group keeps its
	// work queue there (arenajob.md § status.queue).
	// +optional
	Redis *WorkspaceRedis `json:"redis,omitempty"`

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

// WorkspaceRedis is a service group's Redis. At most one of url, host,
// serviceRef and existingSecret says where its URL comes from; with none, the
// group asks for a managed Redis (enabled), which this operator does not run
// yet. How each form becomes the URL an ArenaRun's queue uses
// (rules.ArenaRunQueueRedis, docs/arena.md § The queue's Redis):
//
//   - url: used as written; the controller copies it into the run-owned
//     Secret <run>-queue-redis (key url).
//   - host: redis://<host>[:6379] (rediss:// with tls), written the same way.
//   - serviceRef: redis://<name>.<namespace>.svc:<port> (rediss:// with tls),
//     written the same way.
//   - existingSecret: the run reads the URL from the group's own Secret;
//     nothing is copied and status.queue.secretRef names that Secret.
//
// Left out on purpose: a password or username field (put credentials in a
// url or, better, an existingSecret), a database index (every run's keys
// carry their own prefix; a url or existingSecret may still end in /<db>), a
// CA bundle or skip-verify switch (tls verifies against the system roots).
// +kubebuilder:validation:XValidation:rule="(has(self.url) ? 1 : 0) + (has(self.host) ? 1 : 0) + (has(self.serviceRef) ? 1 : 0) + (has(self.existingSecret) ? 1 : 0) <= 1",message="[workspace/redis-one-source] a service group's redis sets at most one of url, host, serviceRef and existingSecret; keep the one that names the Redis to use"
// +kubebuilder:validation:XValidation:rule="!has(self.tls) || !self.tls || has(self.host) || has(self.serviceRef)",message="[workspace/redis-tls-needs-address] redis.tls applies to host and serviceRef only; a url or existingSecret chooses TLS with its scheme (rediss://)",fieldPath=".tls"
type WorkspaceRedis struct {
	// enabled turns the managed Redis on (not run by this operator yet: a
	// run whose group sets no url, host, serviceRef or existingSecret cannot
	// create its Job).
	// +optional
	Enabled *bool `json:"enabled,omitempty"`

	// url of an external Redis, redis:// or rediss://, with its credentials
	// and database if any. It is copied into a Secret for the workers; prefer
	// existingSecret to keep a password out of the Workspace.
	// +kubebuilder:validation:MaxLength=2048
	// +optional
	URL string `json:"url,omitempty"`

	// host of an external Redis without credentials: a host name or IP
	// address with an optional port (default 6379), e.g.
	// redis.example.internal:6380 or [fd00::10]:6379.
	// +kubebuilder:validation:MaxLength=259
	// +kubebuilder:validation:Pattern=`^([a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?)*|\[[0-9a-fA-F:.]+\])(:([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?$`
	// +optional
	Host string `json:"host,omitempty"`

	// serviceRef names an in-cluster Service in front of a Redis without
	// credentials: the URL is redis://<name>.<namespace>.svc:<port>.
	// +optional
	ServiceRef *WorkspaceRedisServiceRef `json:"serviceRef,omitempty"`

	// existingSecret names a Secret in the workspace's namespace
	// (spec.namespace.name) holding the Redis URL (redis:// or rediss://).
	// Runs read it there: status.queue.secretRef names it and no copy is
	// made. A missing Secret or key leaves a run's Job uncreated
	// (rule arenarun/queue-redis-secret-found).
	// +optional
	ExistingSecret *WorkspaceRedisSecretRef `json:"existingSecret,omitempty"`

	// tls connects to host or serviceRef with TLS (rediss://), verified
	// against the system's root certificates.
	// +optional
	TLS bool `json:"tls,omitempty"`

	// podOverrides customises the managed Redis's pod.
	// +optional
	PodOverrides *PodOverrides `json:"podOverrides,omitempty"`
}

// WorkspaceRedisServiceRef names the Service of a group's Redis.
type WorkspaceRedisServiceRef struct {
	// name of the Service (a DNS label).
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	// +required
	Name string `json:"name"`

	// namespace of the Service; default: the workspace's namespace
	// (spec.namespace.name).
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// port of the Service; default 6379.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +optional
	Port int32 `json:"port,omitempty"`
}

// WorkspaceRedisSecretRef names the Secret, in the workspace's namespace,
// holding a group's Redis URL.
type WorkspaceRedisSecretRef struct {
	// name of the Secret.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +required
	Name string `json:"name"`

	// key of the Secret holding the URL; default url.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +optional
	Key string `json:"key,omitempty"`
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
