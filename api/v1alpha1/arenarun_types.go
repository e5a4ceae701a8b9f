package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ArenaRunTrigger says what started a run.
// +kubebuilder:validation:Enum=Schedule;Manual
type ArenaRunTrigger string

const (
	// ArenaRunTriggerSchedule: a cron tick of the job's schedule.
	ArenaRunTriggerSchedule ArenaRunTrigger = "Schedule"
	// ArenaRunTriggerManual: the job's one run, or a run started by hand.
	ArenaRunTriggerManual ArenaRunTrigger = "Manual"
)

// ArenaRunPhase is the state of a run.
// +kubebuilder:validation:Enum=Pending;Running;Succeeded;Failed;Cancelled
type ArenaRunPhase string

const (
	// ArenaRunPhasePending: waiting for the ArenaProject to be Ready or for
	// the workspace's arena quota to admit the run.
	ArenaRunPhasePending ArenaRunPhase = "Pending"
	// ArenaRunPhaseRunning: the worker Job has been created and is executing.
	ArenaRunPhaseRunning ArenaRunPhase = "Running"
	// ArenaRunPhaseSucceeded: completed successfully.
	ArenaRunPhaseSucceeded ArenaRunPhase = "Succeeded"
	// ArenaRunPhaseFailed: failed (see the Ready condition's reason).
	ArenaRunPhaseFailed ArenaRunPhase = "Failed"
	// ArenaRunPhaseCancelled: stopped by spec.cancelled.
	ArenaRunPhaseCancelled ArenaRunPhase = "Cancelled"
)

// ArenaRunQueueSource says which Redis holds a run's work queue.
// +kubebuilder:validation:Enum=ServiceGroup;Default
type ArenaRunQueueSource string

const (
	// ArenaRunQueueServiceGroup: the run's service group sets a redis.
	ArenaRunQueueServiceGroup ArenaRunQueueSource = "ServiceGroup"
	// ArenaRunQueueDefault: the operator-wide arena queue.
	ArenaRunQueueDefault ArenaRunQueueSource = "Default"
)

// ArenaRunSpec is one execution of an ArenaJob, created by the job's controller.
type ArenaRunSpec struct {
	// jobRef names the ArenaJob this run was created from.
	// +required
	JobRef LocalObjectReference `json:"jobRef"`

	// trigger is Schedule (a cron tick) or Manual (default).
	// +kubebuilder:default=Manual
	// +optional
	Trigger ArenaRunTrigger `json:"trigger,omitempty"`

	// template is the ArenaJob spec frozen when the run was created; every
	// job field is read from here, so editing the job never changes a run.
	// +required
	Template ArenaJobSpec `json:"template"`

	// cancelled, set to true, stops the run: the controller deletes the
	// worker Job, drains the remaining queued work and moves the run to
	// Cancelled. No effect once the run is Succeeded, Failed or Cancelled.
	// +optional
	Cancelled bool `json:"cancelled,omitempty"`
}

// ArenaRunSource is the commit a run executes, pinned once.
type ArenaRunSource struct {
	// repository is the project's repository: its URL for an external
	// project, hosted for a hosted one.
	// +optional
	Repository string `json:"repository,omitempty"`

	// ref is the ref the run asked for; the project's default branch when the
	// template named none (or the requested-ref annotation of the job).
	// +optional
	Ref string `json:"ref,omitempty"`

	// commit is the commit SHA ref resolved to.
	// +optional
	Commit string `json:"commit,omitempty"`

	// contentPath is the commit's snapshot relative to the workspace content
	// subtree (arena/sources/<project>/.arena/versions/<commit>).
	// +optional
	ContentPath string `json:"contentPath,omitempty"`
}

// ArenaRunQueueSecretRef names a key of a Secret in the run's namespace.
type ArenaRunQueueSecretRef struct {
	// name of the Secret.
	// +required
	Name string `json:"name"`

	// key in the Secret holding the Redis URL.
	// +required
	Key string `json:"key"`
}

// ArenaRunQueue is the Redis holding the run's work queue, pinned once before
// the worker Job is created.
type ArenaRunQueue struct {
	// source is ServiceGroup when the run's service group sets a redis,
	// Default for the operator-wide arena queue.
	// +optional
	Source ArenaRunQueueSource `json:"source,omitempty"`

	// serviceGroup is the service group the run resolved to; empty when none applies.
	// +optional
	ServiceGroup string `json:"serviceGroup,omitempty"`

	// secretRef names the Secret and key holding the queue's Redis URL. Set
	// for ServiceGroup only.
	// +optional
	SecretRef *ArenaRunQueueSecretRef `json:"secretRef,omitempty"`

	// configHash fingerprints the group's redis when the run started; a later
	// difference sets the QueueRedisDrifted condition.
	// +optional
	ConfigHash string `json:"configHash,omitempty"`

	// secretVersion pins the service group's existingSecret the queue is
	// read from: its uid and resourceVersion when the operator first read it
	// ("<uid>/<resourceVersion>"). A Secret replaced or written since is
	// refused (reason QueueSecretConflict). Set for an existingSecret group only.
	// +kubebuilder:validation:MaxLength=128
	// +optional
	SecretVersion string `json:"secretVersion,omitempty"`
}

// ArenaRunProgress counts a run's work items.
type ArenaRunProgress struct {
	// total number of work items.
	// +optional
	Total int32 `json:"total,omitempty"`

	// completed is the number of successfully completed items.
	// +optional
	Completed int32 `json:"completed,omitempty"`

	// failed is the number of failed items.
	// +optional
	Failed int32 `json:"failed,omitempty"`

	// pending is the number of items not yet done.
	// +optional
	Pending int32 `json:"pending,omitempty"`
}

// ArenaRunResult is a run's headline result; per-item detail is in session-api.
type ArenaRunResult struct {
	// summary holds aggregated result metrics as strings (passRate,
	// totalItems, passedItems, failedItems, avgDurationMs, totalTokens,
	// totalCost, details, threshold:<metric>, thresholds_passed, ...).
	// +optional
	Summary map[string]string `json:"summary,omitempty"`
}

// ArenaRunStatus is the observed state of a run.
type ArenaRunStatus struct {
	// phase is Pending, Running, Succeeded, Failed or Cancelled.
	// +optional
	Phase ArenaRunPhase `json:"phase,omitempty"`

	// source is the commit the run executes, set once.
	// +optional
	Source *ArenaRunSource `json:"source,omitempty"`

	// queue is the Redis holding the run's work queue, set once.
	// +optional
	Queue *ArenaRunQueue `json:"queue,omitempty"`

	// progress counts the run's work items.
	// +optional
	Progress *ArenaRunProgress `json:"progress,omitempty"`

	// result is the run's headline result.
	// +optional
	Result *ArenaRunResult `json:"result,omitempty"`

	// startTime is when the run started.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`

	// completionTime is when the run completed.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`

	// activeWorkers is the current number of active worker pods.
	// +optional
	ActiveWorkers int32 `json:"activeWorkers,omitempty"`

	// workers is the replica count the worker Job was created with
	// (template.workers.replicas capped at the workspace's maxWorkersPerJob),
	// set once.
	// +optional
	Workers int32 `json:"workers,omitempty"`

	// observedGeneration is the most recent generation observed by the controller.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready, SourceValid, JobCreated, Progressing,
	// QueueRedisDrifted, WithinWorkspaceQuota, OutputPersisted.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ArenaRun is one execution of an ArenaJob, created and owned by the job and
// named <job-name>-<suffix>. Its spec.template is a frozen copy of the job's
// spec; its status carries the execution state.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=arun,categories=omnia
// +kubebuilder:printcolumn:name="JOB",type=string,JSONPath=`.spec.jobRef.name`
// +kubebuilder:printcolumn:name="TRIGGER",type=string,JSONPath=`.spec.trigger`
// +kubebuilder:printcolumn:name="PHASE",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="TOTAL",type=integer,JSONPath=`.status.progress.total`
// +kubebuilder:printcolumn:name="COMPLETED",type=integer,JSONPath=`.status.progress.completed`
// +kubebuilder:printcolumn:name="FAILED",type=integer,JSONPath=`.status.progress.failed`
// +kubebuilder:printcolumn:name="COMMIT",type=string,JSONPath=`.status.source.commit`,priority=1
// +kubebuilder:printcolumn:name="WORKERS",type=integer,JSONPath=`.status.workers`,priority=1
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type ArenaRun struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the run's job reference, trigger and frozen template.
	// +required
	Spec ArenaRunSpec `json:"spec"`
	// status is the run's execution state.
	// +optional
	Status ArenaRunStatus `json:"status,omitempty"`
}

// ArenaRunList is a list of ArenaRuns.
// +kubebuilder:object:root=true
type ArenaRunList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ArenaRun `json:"items"`
}

func init() {
	SchemeBuilder.Register(&ArenaRun{}, &ArenaRunList{})
}
