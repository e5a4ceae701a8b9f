package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
)

// AgentRuntimeRuntime holds the agent Deployment's settings.
type AgentRuntimeRuntime struct {
	// replicas is the desired number of pods, at least 0. Defaults to 1;
	// ignored when autoscaling is enabled.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// resources are the runtime container's resources; setting them
	// replaces the default (requests 100m CPU, 256Mi memory). The facade and
	// policy-broker containers get fixed requests.
	// +kubebuilder:default={requests:{cpu:"100m",memory:"256Mi"}}
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// nodeSelector constrains the agent pods to matching nodes;
	// podOverrides.nodeSelector merges over it.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// tolerations are the agent pods' tolerations; podOverrides.tolerations
	// are appended.
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// affinity is the agent pods' affinity.
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`

	// volumes are extra volumes on the agent pods (for media files, mock
	// configurations or other data), mounted with volumeMounts.
	// +optional
	Volumes []corev1.Volume `json:"volumes,omitempty"`

	// volumeMounts are extra volume mounts in the runtime container.
	// +optional
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`

	// extraEnv adds environment variables to the runtime container (e.g.
	// LOG_LEVEL=debug, LOG_SAMPLING=off). Reserved OMNIA_* keys are dropped.
	// +optional
	ExtraEnv []corev1.EnvVar `json:"extraEnv,omitempty"`

	// events selects which pipeline telemetry events the runtime records.
	// Defaults to all.
	// +kubebuilder:default={}
	// +optional
	Events *AgentRuntimeEvents `json:"events,omitempty"`

	// autoscaling configures an HPA or a KEDA ScaledObject. Unset inherits
	// the Workspace service group's autoscaling default, if any.
	// +optional
	Autoscaling *AgentRuntimeAutoscaling `json:"autoscaling,omitempty"`
}

// AgentRuntimeEventsRecord is how much pipeline telemetry the runtime records.
// +kubebuilder:validation:Enum=all;lifecycle;none
type AgentRuntimeEventsRecord string

// AgentRuntimeEvents selects the pipeline telemetry the runtime records.
type AgentRuntimeEvents struct {
	// record is all (every pipeline event; default), lifecycle (everything
	// except succeeding per-stage and per-check events) or none (no
	// PromptKit pipeline telemetry). Omnia's own events are always recorded.
	// +kubebuilder:default=all
	// +optional
	Record AgentRuntimeEventsRecord `json:"record,omitempty"`
}

// AgentRuntimeAutoscalingType is an autoscaler kind.
// +kubebuilder:validation:Enum=hpa;keda
type AgentRuntimeAutoscalingType string

// AgentRuntimeAutoscaling configures horizontal pod autoscaling.
// +kubebuilder:validation:XValidation:rule="!has(self.minReplicas) || self.minReplicas != 0 || (has(self.keda) && has(self.keda.triggers) && size(self.keda.triggers) > 0)",message="[agentruntime/scale-to-zero-needs-keda-triggers] spec.runtime.autoscaling.minReplicas 0 (KEDA scale-to-zero) requires spec.runtime.autoscaling.keda.triggers"
type AgentRuntimeAutoscaling struct {
	// enabled turns autoscaling on. Defaults to false.
	// +kubebuilder:default=false
	// +optional
	Enabled bool `json:"enabled"`

	// type is hpa (default) or keda.
	// +kubebuilder:default=hpa
	// +optional
	Type AgentRuntimeAutoscalingType `json:"type,omitempty"`

	// minReplicas is the minimum number of replicas. Defaults to 1; 0 is
	// KEDA scale-to-zero and requires keda.triggers.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +optional
	MinReplicas *int32 `json:"minReplicas,omitempty"`

	// maxReplicas is the maximum number of replicas. Defaults to 100.
	// +kubebuilder:default=100
	// +optional
	MaxReplicas *int32 `json:"maxReplicas,omitempty"`

	// targetMemoryUtilizationPercentage is the memory target (HPA only).
	// Defaults to 70.
	// +kubebuilder:default=70
	// +optional
	TargetMemoryUtilizationPercentage *int32 `json:"targetMemoryUtilizationPercentage,omitempty"`

	// targetCPUUtilizationPercentage is the CPU target (HPA only). Defaults to 90.
	// +kubebuilder:default=90
	// +optional
	TargetCPUUtilizationPercentage *int32 `json:"targetCPUUtilizationPercentage,omitempty"`

	// scaleDownStabilizationSeconds is the scale-down cooldown (HPA only).
	// Defaults to 300.
	// +kubebuilder:default=300
	// +optional
	ScaleDownStabilizationSeconds *int32 `json:"scaleDownStabilizationSeconds,omitempty"`

	// keda holds KEDA-specific settings, used only when type is keda.
	// +optional
	Keda *AgentRuntimeKeda `json:"keda,omitempty"`
}

// AgentRuntimeKeda holds KEDA ScaledObject settings.
type AgentRuntimeKeda struct {
	// pollingInterval is the number of seconds between trigger checks, at
	// least 1. Defaults to 30.
	// +kubebuilder:default=30
	// +kubebuilder:validation:Minimum=1
	// +optional
	PollingInterval *int32 `json:"pollingInterval,omitempty"`

	// cooldownPeriod is the number of seconds before scaling down, at least
	// 0. Defaults to 300.
	// +kubebuilder:default=300
	// +kubebuilder:validation:Minimum=0
	// +optional
	CooldownPeriod *int32 `json:"cooldownPeriod,omitempty"`

	// triggers are custom KEDA triggers. Empty means a default Prometheus
	// trigger on active connections against connectionThreshold.
	// +optional
	Triggers []AgentRuntimeKedaTrigger `json:"triggers,omitempty"`

	// connectionThreshold is the target active connections per pod for the
	// default trigger, at least 1; used only when triggers is empty.
	// Defaults to 1000.
	// +kubebuilder:default=1000
	// +kubebuilder:validation:Minimum=1
	// +optional
	ConnectionThreshold *int32 `json:"connectionThreshold,omitempty"`
}

// AgentRuntimeKedaTrigger is one KEDA trigger.
type AgentRuntimeKedaTrigger struct {
	// type is the KEDA scaler type (e.g. prometheus, cron).
	// +required
	Type string `json:"type"`
	// metadata is the scaler's configuration.
	// +optional
	Metadata map[string]string `json:"metadata,omitempty"`
}

// AgentRuntimeSandbox is the envelope every SandboxClaim naming this runtime is checked against.
type AgentRuntimeSandbox struct {
	// enabled lets the runtime hold codegen sandboxes; a claim naming a
	// runtime without it is failed. Defaults to false.
	// +kubebuilder:default=false
	// +optional
	Enabled bool `json:"enabled"`

	// maxConcurrent caps bound claims across all the runtime's sessions, at
	// least 1. Defaults to 4.
	// +kubebuilder:default=4
	// +kubebuilder:validation:Minimum=1
	// +optional
	MaxConcurrent *int32 `json:"maxConcurrent,omitempty"`

	// maxPerSession caps live claims within one session, at least 1.
	// Defaults to 1.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +optional
	MaxPerSession *int32 `json:"maxPerSession,omitempty"`

	// idleTimeout is how long a bound claim may go untouched before it is
	// deleted, as a duration. Defaults to 30m.
	// +kubebuilder:default="30m"
	// +optional
	IdleTimeout string `json:"idleTimeout,omitempty"`

	// releaseGrace is how long a conversation's sandboxes outlive the
	// conversation, as a duration greater than zero. Defaults to 2m.
	// +kubebuilder:default="2m"
	// +optional
	ReleaseGrace string `json:"releaseGrace,omitempty"`

	// mountReleaseGrace is releaseGrace for a sandbox that mounts a project
	// or the session workspace, as a duration greater than zero. Defaults to 5m.
	// +kubebuilder:default="5m"
	// +optional
	MountReleaseGrace string `json:"mountReleaseGrace,omitempty"`

	// connections bind a Connection to one role of one sandbox in this
	// agent's ToolRegistry, keyed by sandbox and role; each overrides the
	// sandbox's default for that role.
	// +listType=map
	// +listMapKey=sandbox
	// +listMapKey=role
	// +optional
	Connections []AgentRuntimeSandboxConnection `json:"connections,omitempty"`
}

// AgentRuntimeSandboxConnection binds (or unbinds) a Connection for one sandbox role.
// +kubebuilder:validation:XValidation:rule="has(self.connection) != (has(self.unbind) && self.unbind)",message="[agentruntime/sandbox-connection-exactly-one] each spec.sandbox.connections[] entry sets exactly one of connection and unbind: true"
type AgentRuntimeSandboxConnection struct {
	// sandbox names a sandbox declared in the ToolRegistry's spec.sandboxes.
	// +required
	Sandbox string `json:"sandbox"`
	// role is the sandbox's connection role being bound.
	// +required
	Role string `json:"role"`
	// connection names the Connection to bind. Exactly one of connection
	// and unbind: true is set.
	// +optional
	Connection string `json:"connection,omitempty"`
	// unbind: true drops the sandbox's default for this role, so the agent
	// does not reach the service. Exactly one of connection and unbind: true is set.
	// +optional
	Unbind bool `json:"unbind,omitempty"`
}

// AgentRuntimeMedia configures media resolution and storage.
type AgentRuntimeMedia struct {
	// basePath is where mock:// URLs are resolved, and the local media
	// storage path when storage is absent. Defaults to /etc/omnia/media.
	// +kubebuilder:default="/etc/omnia/media"
	// +optional
	BasePath string `json:"basePath,omitempty"`

	// storage selects the media-storage backend for uploads and attachment
	// references. Unset or type none disables media storage.
	// +optional
	Storage *AgentRuntimeMediaStorage `json:"storage,omitempty"`
}

// AgentRuntimeMediaStorageType is a media-storage backend.
// +kubebuilder:validation:Enum=none;local;s3;gcs;azure
type AgentRuntimeMediaStorageType string

// AgentRuntimeMediaStorage selects and configures the media-storage backend.
// +kubebuilder:validation:XValidation:rule="!has(self.type) || self.type == 'none' || (self.type == 'local' && has(self.local)) || (self.type == 's3' && has(self.s3)) || (self.type == 'gcs' && has(self.gcs)) || (self.type == 'azure' && has(self.azure))",message="[agentruntime/media-storage-needs-block] spec.media.storage.type local, s3, gcs or azure requires the matching spec.media.storage.local, s3, gcs or azure block"
type AgentRuntimeMediaStorage struct {
	// type is the backend: none (default), local, s3, gcs or azure. Each
	// non-none type requires its matching block.
	// +kubebuilder:default=none
	// +optional
	Type AgentRuntimeMediaStorageType `json:"type,omitempty"`

	// local configures a local directory backend.
	// +optional
	Local *AgentRuntimeMediaLocal `json:"local,omitempty"`

	// s3 configures S3 or S3-compatible storage.
	// +optional
	S3 *AgentRuntimeMediaS3 `json:"s3,omitempty"`

	// gcs configures Google Cloud Storage via workload identity.
	// +optional
	GCS *AgentRuntimeMediaGCS `json:"gcs,omitempty"`

	// azure configures Azure Blob Storage.
	// +optional
	Azure *AgentRuntimeMediaAzure `json:"azure,omitempty"`

	// defaultTTL is the retention TTL for stored media, as a duration.
	// Defaults to 24h.
	// +kubebuilder:default="24h"
	// +optional
	DefaultTTL string `json:"defaultTTL,omitempty"`

	// uploadURLTTL bounds presigned upload URLs, as a duration. Defaults to 15m.
	// +kubebuilder:default="15m"
	// +optional
	UploadURLTTL string `json:"uploadURLTTL,omitempty"`

	// downloadURLTTL bounds presigned download URLs, as a duration. Defaults to 1h.
	// +kubebuilder:default="1h"
	// +optional
	DownloadURLTTL string `json:"downloadURLTTL,omitempty"`

	// maxFileSizeBytes caps a single stored object, at least 1. Defaults to
	// 104857600 (100 MiB).
	// +kubebuilder:default=104857600
	// +kubebuilder:validation:Minimum=1
	// +optional
	MaxFileSizeBytes *int64 `json:"maxFileSizeBytes,omitempty"`

	// secretRef names a Secret with explicit credentials
	// (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY for S3, AZURE_ACCOUNT_KEY
	// for Azure). Omit for keyless workload identity.
	// +optional
	SecretRef *LocalObjectReference `json:"secretRef,omitempty"`
}

// AgentRuntimeMediaLocal configures a local directory media backend.
type AgentRuntimeMediaLocal struct {
	// basePath is the directory media is served from and resolved against;
	// the mount path when volumeClaim is set.
	// +optional
	BasePath string `json:"basePath,omitempty"`
	// volumeClaim is an existing PVC (ReadWriteMany) mounted at basePath in
	// the facade and runtime containers.
	// +optional
	VolumeClaim string `json:"volumeClaim,omitempty"`
}

// AgentRuntimeMediaS3 configures S3 media storage.
// +kubebuilder:validation:XValidation:rule="has(self.bucket) && size(self.bucket) > 0 && has(self.region) && size(self.region) > 0",message="[agentruntime/media-s3-bucket-region] spec.media.storage.s3 requires bucket and region"
type AgentRuntimeMediaS3 struct {
	// bucket is the S3 bucket. Required.
	// +optional
	Bucket string `json:"bucket,omitempty"`
	// region is the bucket's region. Required.
	// +optional
	Region string `json:"region,omitempty"`
	// prefix is prepended to every object key.
	// +optional
	Prefix string `json:"prefix,omitempty"`
	// endpoint is an S3-compatible endpoint (e.g. MinIO); forces path-style addressing.
	// +optional
	Endpoint string `json:"endpoint,omitempty"`
}

// AgentRuntimeMediaGCS configures Google Cloud Storage media storage.
type AgentRuntimeMediaGCS struct {
	// bucket is the GCS bucket.
	// +optional
	Bucket string `json:"bucket,omitempty"`
	// prefix is prepended to every object name.
	// +optional
	Prefix string `json:"prefix,omitempty"`
}

// AgentRuntimeMediaAzure configures Azure Blob Storage media storage.
type AgentRuntimeMediaAzure struct {
	// account is the storage account.
	// +optional
	Account string `json:"account,omitempty"`
	// container is the blob container.
	// +optional
	Container string `json:"container,omitempty"`
	// prefix is prepended to every blob name.
	// +optional
	Prefix string `json:"prefix,omitempty"`
}

// AgentRuntimeEvals configures realtime eval execution.
type AgentRuntimeEvals struct {
	// enabled turns realtime evals on. Defaults to false; an empty groups
	// list is not an off-switch.
	// +kubebuilder:default=false
	// +optional
	Enabled bool `json:"enabled"`

	// inline selects the eval groups run inside the runtime process.
	// +kubebuilder:default={}
	// +optional
	Inline *AgentRuntimeEvalsInline `json:"inline,omitempty"`

	// worker selects the eval groups run out-of-band by the eval-worker.
	// +kubebuilder:default={}
	// +optional
	Worker *AgentRuntimeEvalsWorker `json:"worker,omitempty"`

	// podOverrides customises the eval-worker pod of the agent's service
	// group; the WorkspaceServiceGroup's evalWorker.podOverrides wins.
	// +optional
	PodOverrides *PodOverrides `json:"podOverrides,omitempty"`
}

// AgentRuntimeEvalsInline selects the eval groups run in the runtime.
type AgentRuntimeEvalsInline struct {
	// groups are the eval groups executed inside the runtime process.
	// Defaults to [fast-running]; an empty list falls back to the default.
	// +kubebuilder:default={"fast-running"}
	// +optional
	Groups []string `json:"groups,omitempty"`
}

// AgentRuntimeEvalsWorker selects the eval groups run by the eval-worker.
type AgentRuntimeEvalsWorker struct {
	// groups are the eval groups executed by the eval-worker. Defaults to
	// [long-running, external]; an empty list falls back to the default.
	// +kubebuilder:default={"long-running","external"}
	// +optional
	Groups []string `json:"groups,omitempty"`
}

// AgentRuntimeMemoryStrategy is a memory retrieval strategy.
// +kubebuilder:validation:Enum=keyword;semantic;composite
type AgentRuntimeMemoryStrategy string

// AgentRuntimeMemory configures cross-session memory.
type AgentRuntimeMemory struct {
	// enabled turns memory on. Defaults to false.
	// +kubebuilder:default=false
	// +optional
	Enabled bool `json:"enabled"`

	// retrieval configures ambient per-turn retrieval.
	// +kubebuilder:default={}
	// +optional
	Retrieval *AgentRuntimeMemoryRetrieval `json:"retrieval,omitempty"`

	// tools configures the explicit memory tools.
	// +kubebuilder:default={}
	// +optional
	Tools *AgentRuntimeMemoryTools `json:"tools,omitempty"`

	// facet pins the agent's memory to one container (a project, client or
	// matter): 1 to 128 ASCII letters, digits and . _ : / -, starting with a
	// letter or digit.
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9][A-Za-z0-9._:/-]*$`
	// +optional
	Facet string `json:"facet,omitempty"`
}

// AgentRuntimeMemoryRetrieval configures ambient memory retrieval.
type AgentRuntimeMemoryRetrieval struct {
	// enabled turns on ambient per-turn retrieval (for a pack rendering
	// {{memory_context}}). Defaults to true; effective only when memory is enabled.
	// +kubebuilder:default=true
	// +optional
	Enabled *bool `json:"enabled,omitempty"`

	// strategy is keyword, semantic or composite; unset means keyword.
	// semantic and composite fall back to keyword without a semantic store.
	// +optional
	Strategy AgentRuntimeMemoryStrategy `json:"strategy,omitempty"`

	// limit is the maximum episodic memories injected per turn, 1 to 50.
	// Defaults to 10.
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=50
	// +optional
	Limit *int32 `json:"limit,omitempty"`

	// accessFilter filters retrieved memories.
	// +optional
	AccessFilter *AgentRuntimeMemoryAccessFilter `json:"accessFilter,omitempty"`
}

// AgentRuntimeMemoryAccessFilter filters retrieved memories.
type AgentRuntimeMemoryAccessFilter struct {
	// denyCEL is a CEL deny expression over a result's metadata.
	// +optional
	DenyCEL string `json:"denyCEL,omitempty"`
}

// AgentRuntimeMemoryTools configures the explicit memory tools.
type AgentRuntimeMemoryTools struct {
	// enabled registers the explicit memory tools. Defaults to true;
	// effective only when memory is enabled.
	// +kubebuilder:default=true
	// +optional
	Enabled *bool `json:"enabled,omitempty"`

	// notes is advice for this agent appended to every memory tool's
	// description, at most 2000 characters.
	// +kubebuilder:validation:MaxLength=2000
	// +optional
	Notes string `json:"notes,omitempty"`
}
