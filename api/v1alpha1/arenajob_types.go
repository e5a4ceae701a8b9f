package v1alpha1

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// ArenaJobType is the kind of work an ArenaJob describes.
// +kubebuilder:validation:Enum=evaluation;loadtest;datagen
type ArenaJobType string

const (
	// ArenaJobTypeEvaluation runs prompt evaluation against test scenarios.
	ArenaJobTypeEvaluation ArenaJobType = "evaluation"
	// ArenaJobTypeLoadTest runs load testing against providers.
	ArenaJobTypeLoadTest ArenaJobType = "loadtest"
	// ArenaJobTypeDataGen generates synthetic data using prompts.
	ArenaJobTypeDataGen ArenaJobType = "datagen"
)

// ArenaJobConcurrencyPolicy says what a cron tick does while a run of the job
// is still active.
// +kubebuilder:validation:Enum=Allow;Forbid;Replace
type ArenaJobConcurrencyPolicy string

const (
	// ArenaJobConcurrencyAllow starts the new run alongside any still going.
	ArenaJobConcurrencyAllow ArenaJobConcurrencyPolicy = "Allow"
	// ArenaJobConcurrencyForbid skips the tick (recorded as passed, with a
	// RunSkipped event) while a run is active.
	ArenaJobConcurrencyForbid ArenaJobConcurrencyPolicy = "Forbid"
	// ArenaJobConcurrencyReplace cancels the active runs and starts the new one.
	ArenaJobConcurrencyReplace ArenaJobConcurrencyPolicy = "Replace"
)

// ArenaJobThresholdMetric is a load-test metric a threshold gates on.
// +kubebuilder:validation:Enum=latency_avg;latency_p50;latency_p90;latency_p95;latency_p99;ttft_avg;ttft_p50;ttft_p90;ttft_p95;ttft_p99;error_rate;pass_rate;total_cost;rate_limit_rate;arrival_lag
type ArenaJobThresholdMetric string

// The threshold metrics (see the spec page for each definition).
const (
	ArenaJobMetricLatencyAvg    ArenaJobThresholdMetric = "latency_avg"
	ArenaJobMetricLatencyP50    ArenaJobThresholdMetric = "latency_p50"
	ArenaJobMetricLatencyP90    ArenaJobThresholdMetric = "latency_p90"
	ArenaJobMetricLatencyP95    ArenaJobThresholdMetric = "latency_p95"
	ArenaJobMetricLatencyP99    ArenaJobThresholdMetric = "latency_p99"
	ArenaJobMetricTTFTAvg       ArenaJobThresholdMetric = "ttft_avg"
	ArenaJobMetricTTFTP50       ArenaJobThresholdMetric = "ttft_p50"
	ArenaJobMetricTTFTP90       ArenaJobThresholdMetric = "ttft_p90"
	ArenaJobMetricTTFTP95       ArenaJobThresholdMetric = "ttft_p95"
	ArenaJobMetricTTFTP99       ArenaJobThresholdMetric = "ttft_p99"
	ArenaJobMetricErrorRate     ArenaJobThresholdMetric = "error_rate"
	ArenaJobMetricPassRate      ArenaJobThresholdMetric = "pass_rate"
	ArenaJobMetricTotalCost     ArenaJobThresholdMetric = "total_cost"
	ArenaJobMetricRateLimitRate ArenaJobThresholdMetric = "rate_limit_rate"
	ArenaJobMetricArrivalLag    ArenaJobThresholdMetric = "arrival_lag"
)

// ArenaJobThresholdOperator compares a measured metric with a threshold value.
// +kubebuilder:validation:Enum="<";">";"<=";">="
type ArenaJobThresholdOperator string

// The threshold operators.
const (
	ArenaJobOperatorLess         ArenaJobThresholdOperator = "<"
	ArenaJobOperatorGreater      ArenaJobThresholdOperator = ">"
	ArenaJobOperatorLessEqual    ArenaJobThresholdOperator = "<="
	ArenaJobOperatorGreaterEqual ArenaJobThresholdOperator = ">="
)

// ArenaJobDataGenFormat is the file format of a datagen run's export.
// +kubebuilder:validation:Enum=jsonl;json
type ArenaJobDataGenFormat string

const (
	// ArenaJobDataGenFormatJSONL writes one JSON record per line.
	ArenaJobDataGenFormatJSONL ArenaJobDataGenFormat = "jsonl"
	// ArenaJobDataGenFormatJSON writes one JSON document.
	ArenaJobDataGenFormatJSON ArenaJobDataGenFormat = "json"
)

// ArenaJobOutputType is where a run's results are stored.
// +kubebuilder:validation:Enum=s3;pvc
type ArenaJobOutputType string

const (
	// ArenaJobOutputTypeS3 writes results to an S3 (or S3-compatible) bucket.
	ArenaJobOutputTypeS3 ArenaJobOutputType = "s3"
	// ArenaJobOutputTypePVC writes results to a PersistentVolumeClaim.
	ArenaJobOutputTypePVC ArenaJobOutputType = "pvc"
)

// ArenaJobSpec is the template of an Arena test execution. It is also an
// ArenaRun's spec.template: the copy frozen when the run was created.
type ArenaJobSpec struct {
	// sourceRef names the ArenaProject, in the job's namespace, whose
	// repository holds the arena config file, scenarios and prompts. A run
	// whose project is missing or not Ready stays Pending and is retried.
	// +required
	SourceRef LocalObjectReference `json:"sourceRef"`

	// ref is the project ref a run executes: a branch, a tag, a full ref name
	// or a full commit SHA. Defaults to the project's default branch. Each run
	// resolves it to a commit when it starts (status.source on the ArenaRun).
	// +optional
	Ref string `json:"ref,omitempty"`

	// arenaFile is the path of the arena config file within the project's
	// repository, matched exactly. It names one file: glob characters (*, ?,
	// [) are rejected. Defaults to config.arena.yaml.
	// +kubebuilder:default="config.arena.yaml"
	// +kubebuilder:validation:MaxLength=4096
	// +kubebuilder:validation:XValidation:rule="!(self.contains('*') || self.contains('?') || self.contains('['))",message="[arenajob/arena-file-no-glob] spec.arenaFile names exactly one file: remove the glob characters (*, ?, [) and give the path of a single arena config file"
	// +optional
	ArenaFile string `json:"arenaFile,omitempty"`

	// type of work: evaluation (default), loadtest or datagen.
	// +kubebuilder:default=evaluation
	// +optional
	Type ArenaJobType `json:"type,omitempty"`

	// trials is how many times each scenario × provider combination is
	// repeated, overriding the scenario files' trials. For a load test it is
	// the total load volume (ignored when loadTest.duration is set). Minimum 1.
	// +kubebuilder:validation:Minimum=1
	// +optional
	Trials *int32 `json:"trials,omitempty"`

	// scenarios filters which of the arena file's scenarios run. Unset runs
	// them all.
	// +optional
	Scenarios *ArenaJobScenarios `json:"scenarios,omitempty"`

	// budgetLimit is the most a run may spend, in budgetCurrency, before it is
	// stopped (reason BudgetExceeded). A bare decimal such as "25.00": no
	// currency symbol, sign or exponent.
	// +kubebuilder:validation:Pattern=`^[0-9]+(\.[0-9]+)?$`
	// +optional
	BudgetLimit string `json:"budgetLimit,omitempty"`

	// budgetCurrency is the currency of budgetLimit and of the total_cost
	// threshold, e.g. USD.
	// +optional
	BudgetCurrency string `json:"budgetCurrency,omitempty"`

	// loadTest holds the settings of a loadtest job.
	// +optional
	LoadTest *ArenaJobLoadTest `json:"loadTest,omitempty"`

	// dataGen holds the settings of a datagen job.
	// +optional
	DataGen *ArenaJobDataGen `json:"dataGen,omitempty"`

	// workers configures the worker pool (replicas default 1).
	// +kubebuilder:default={}
	// +optional
	Workers *ArenaJobWorkers `json:"workers,omitempty"`

	// providers maps a provider group name of the arena config (e.g. default,
	// judge) to that group's providers. Each group is either a list of entries
	// (array mode: a pool run against every scenario) or an object keyed by
	// config provider ID (map mode: 1:1 bindings). Each entry sets exactly one
	// of providerRef or agentRef. When set, the bundle's provider files are
	// ignored. Excluded from schema validation: the webhook or the run's
	// controller (reason InvalidProviderEntry) checks it.
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	// +optional
	Providers map[string]ArenaJobProviderGroup `json:"providers,omitempty"`

	// toolRegistries are ToolRegistries, in the job's namespace, whose
	// discovered tools override how the arena config's tools of the same name
	// are executed (over HTTP at the discovered endpoint).
	// +listType=atomic
	// +optional
	ToolRegistries []LocalObjectReference `json:"toolRegistries,omitempty"`

	// output configures where results are stored. Unset keeps the engine
	// output on the workspace content volume under arena/runs/{run}/.
	// +optional
	Output *ArenaJobOutput `json:"output,omitempty"`

	// schedule makes the job recurring: each cron tick creates an ArenaRun.
	// Without it (or with an empty cron) the job creates exactly one run.
	// +optional
	Schedule *ArenaJobSchedule `json:"schedule,omitempty"`

	// suspend stops the job starting new runs without deleting it; runs
	// already going are left alone. Default false.
	// +kubebuilder:default=false
	// +optional
	Suspend bool `json:"suspend,omitempty"`

	// successfulRunsHistoryLimit is how many succeeded ArenaRuns the job
	// keeps; older ones are deleted. Default 3, minimum 0.
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=0
	// +optional
	SuccessfulRunsHistoryLimit *int32 `json:"successfulRunsHistoryLimit,omitempty"`

	// failedRunsHistoryLimit is how many failed (or cancelled) ArenaRuns the
	// job keeps; older ones are deleted. Default 1, minimum 0.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +optional
	FailedRunsHistoryLimit *int32 `json:"failedRunsHistoryLimit,omitempty"`

	// serviceGroup is the Workspace service group whose session-api the runs
	// record into and whose redis, when set, holds the work queue. When
	// omitted, a workspace with exactly one group resolves to it. Lowercase
	// DNS label, at most 63 characters.
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	ServiceGroup string `json:"serviceGroup,omitempty"`

	// verbose enables debug logging in the workers (LOG_LEVEL=debug,
	// ARENA_VERBOSE=true).
	// +optional
	Verbose bool `json:"verbose,omitempty"`

	// sessionRecording writes sessions and events to session-api during
	// execution. Default false. A datagen run records its corpus sessions
	// regardless.
	// +kubebuilder:default=false
	// +optional
	SessionRecording bool `json:"sessionRecording,omitempty"`

	// ttlSecondsAfterFinished is how long each run's finished worker Job (and
	// its pods) is kept before deletion. Default 3600. It does not delete
	// ArenaJobs or ArenaRuns.
	// +kubebuilder:default=3600
	// +optional
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`
}

// ArenaJobScenarios filters the scenarios of the arena file. Exclusions apply
// after inclusions.
type ArenaJobScenarios struct {
	// include are glob patterns of scenarios to run; empty includes all.
	// +listType=atomic
	// +optional
	Include []string `json:"include,omitempty"`

	// exclude are glob patterns of scenarios to skip, applied after include.
	// +listType=atomic
	// +optional
	Exclude []string `json:"exclude,omitempty"`
}

// ArenaJobLoadTest holds the settings of a loadtest job.
type ArenaJobLoadTest struct {
	// concurrency is the maximum number of work items in flight across all
	// workers, divided evenly (rounded up) across worker pods. With rate set
	// it is a safety ceiling. Default 1, minimum 1.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +optional
	Concurrency *int32 `json:"concurrency,omitempty"`

	// vusPerWorker is the number of virtual users (concurrent goroutines) per
	// worker pod. Default 1, minimum 1.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +optional
	VUsPerWorker *int32 `json:"vusPerWorker,omitempty"`

	// duration is how long to apply load (e.g. "10m"). When set, no matrix is
	// queued: workers generate from the scenario × provider pool until the
	// clock runs out, and trials is ignored.
	// +optional
	Duration string `json:"duration,omitempty"`

	// rate is the target arrivals per second across all workers. It selects
	// the open model and requires duration. Minimum 1.
	// +kubebuilder:validation:Minimum=1
	// +optional
	Rate *int32 `json:"rate,omitempty"`

	// ramp is a linear concurrency ramp-up / ramp-down.
	// +optional
	Ramp *ArenaJobLoadTestRamp `json:"ramp,omitempty"`

	// thresholds are SLO gates evaluated after the load test completes; a
	// violated threshold fails the run (reason TestsFailed).
	// +listType=atomic
	// +optional
	Thresholds []ArenaJobLoadTestThreshold `json:"thresholds,omitempty"`
}

// ArenaJobLoadTestRamp is a linear concurrency ramp. Both values are duration
// strings (e.g. "2m", "30s").
type ArenaJobLoadTestRamp struct {
	// up is how long to ramp linearly from 0 to the target concurrency at
	// the start.
	// +optional
	Up string `json:"up,omitempty"`

	// down is how long to ramp linearly from the target concurrency to 1 at
	// the end.
	// +optional
	Down string `json:"down,omitempty"`
}

// ArenaJobLoadTestThreshold is one SLO gate of a load test.
type ArenaJobLoadTestThreshold struct {
	// metric to evaluate: latency_avg, latency_p50/p90/p95/p99, ttft_avg,
	// ttft_p50/p90/p95/p99, error_rate, pass_rate, total_cost,
	// rate_limit_rate or arrival_lag.
	// +required
	Metric ArenaJobThresholdMetric `json:"metric"`

	// operator compares the measured metric with value: <, >, <= or >=.
	// +required
	Operator ArenaJobThresholdOperator `json:"operator"`

	// value is the target: a duration for latency/TTFT metrics ("3s"), a
	// float between 0 and 1 for rate metrics ("0.01"), a number for
	// total_cost ("50.00"). A value that cannot be read fails the run.
	// +required
	Value string `json:"value"`
}

// ArenaJobDataGen holds the settings of a datagen job.
type ArenaJobDataGen struct {
	// count is the number of items to generate. Default 100.
	// +kubebuilder:default=100
	// +optional
	Count *int32 `json:"count,omitempty"`

	// format of the export file: jsonl (default) or json.
	// +kubebuilder:default=jsonl
	// +optional
	Format ArenaJobDataGenFormat `json:"format,omitempty"`
}

// ArenaJobWorkers configures the worker pool of each run.
type ArenaJobWorkers struct {
	// replicas is the number of worker pods (the worker Job's parallelism and
	// completions). Default 1. A workspace's maxWorkersPerJob caps it.
	// +kubebuilder:default=1
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// podOverrides customises the worker Job's pods (scheduling,
	// ServiceAccount, volumes, envFrom for provider credentials, ...).
	// +optional
	PodOverrides *PodOverrides `json:"podOverrides,omitempty"`
}

// ArenaJobProviderEntry binds a provider slot to a Provider or an AgentRuntime.
// Exactly one of providerRef and agentRef must be set (checked by the webhook
// or the ArenaRun controller, not the schema).
type ArenaJobProviderEntry struct {
	// providerRef names a Provider. Its namespace, if set, must equal the
	// job's own namespace.
	// +optional
	ProviderRef *NamespacedObjectReference `json:"providerRef,omitempty"`

	// agentRef names an AgentRuntime in the job's namespace; the worker
	// connects to the agent over WebSocket.
	// +optional
	AgentRef *LocalObjectReference `json:"agentRef,omitempty"`
}

// ArenaJobProviderGroup is one provider group of spec.providers. On the wire
// it is either a JSON array of entries (array mode) or a JSON object keyed by
// config provider ID (map mode); exactly one of Entries and ByProviderID is
// non-nil after decoding a non-null value.
type ArenaJobProviderGroup struct {
	// Entries is the group in array mode: a pool of test providers, each run
	// against every selected scenario.
	Entries []ArenaJobProviderEntry `json:"-"`

	// ByProviderID is the group in map mode: config provider ID → entry.
	// Map-mode groups add nothing to the scenario × provider matrix.
	ByProviderID map[string]ArenaJobProviderEntry `json:"-"`
}

// IsMap reports whether the group is in map mode.
func (g ArenaJobProviderGroup) IsMap() bool { return g.ByProviderID != nil }

// MarshalJSON writes the group as an object in map mode, else as an array.
func (g ArenaJobProviderGroup) MarshalJSON() ([]byte, error) {
	if g.ByProviderID != nil {
		return utiljson.Marshal(g.ByProviderID)
	}
	return utiljson.Marshal(g.Entries)
}

// UnmarshalJSON reads an array (array mode), an object (map mode) or null.
func (g *ArenaJobProviderGroup) UnmarshalJSON(data []byte) error {
	*g = ArenaJobProviderGroup{}
	for _, c := range data {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '[':
			var entries []ArenaJobProviderEntry
			if err := utiljson.Unmarshal(data, &entries); err != nil {
				return err
			}
			if entries == nil {
				entries = []ArenaJobProviderEntry{}
			}
			g.Entries = entries
			return nil
		case '{':
			byID := map[string]ArenaJobProviderEntry{}
			if err := utiljson.Unmarshal(data, &byID); err != nil {
				return err
			}
			g.ByProviderID = byID
			return nil
		case 'n':
			return nil
		default:
			return fmt.Errorf("provider group must be a list of entries or an object keyed by provider ID, got %q", string(data))
		}
	}
	return nil
}

// ArenaJobOutput configures where a run's results are stored.
type ArenaJobOutput struct {
	// type of destination: s3 or pvc.
	// +required
	Type ArenaJobOutputType `json:"type"`

	// s3 configures the S3 destination (when type is s3).
	// +optional
	S3 *ArenaJobOutputS3 `json:"s3,omitempty"`

	// pvc configures the PersistentVolumeClaim destination (when type is pvc).
	// +optional
	PVC *ArenaJobOutputPVC `json:"pvc,omitempty"`
}

// ArenaJobOutputS3 is an S3 (or S3-compatible) result destination.
type ArenaJobOutputS3 struct {
	// bucket is the S3 bucket name.
	// +required
	Bucket string `json:"bucket"`

	// prefix is the key prefix for objects.
	// +optional
	Prefix string `json:"prefix,omitempty"`

	// region is the AWS region.
	// +optional
	Region string `json:"region,omitempty"`

	// endpoint is a custom S3-compatible endpoint.
	// +optional
	Endpoint string `json:"endpoint,omitempty"`

	// secretRef names a Secret holding the credentials (keys
	// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY).
	// +optional
	SecretRef *LocalObjectReference `json:"secretRef,omitempty"`
}

// ArenaJobOutputPVC is a PersistentVolumeClaim result destination.
type ArenaJobOutputPVC struct {
	// claimName is the name of the PersistentVolumeClaim.
	// +required
	ClaimName string `json:"claimName"`

	// subPath is a subdirectory within the volume.
	// +optional
	SubPath string `json:"subPath,omitempty"`
}

// ArenaJobSchedule makes a job recurring.
type ArenaJobSchedule struct {
	// cron is the cron expression; each due tick creates an ArenaRun
	// (trigger Schedule). Empty creates one Manual run. An expression that
	// cannot be parsed sets Ready=False with reason InvalidSchedule.
	// +optional
	Cron string `json:"cron,omitempty"`

	// timezone the cron expression is read in. Default UTC.
	// +kubebuilder:default=UTC
	// +optional
	Timezone string `json:"timezone,omitempty"`

	// concurrencyPolicy says what a tick does while a run is active: Allow
	// starts alongside, Forbid (default) skips the tick, Replace cancels the
	// active runs then starts the new one.
	// +kubebuilder:default=Forbid
	// +optional
	ConcurrencyPolicy ArenaJobConcurrencyPolicy `json:"concurrencyPolicy,omitempty"`
}

// ArenaJobStatus describes the job's scheduling. Per-execution state is on
// each ArenaRun.
type ArenaJobStatus struct {
	// active references the job's ArenaRuns that have not finished.
	// +listType=atomic
	// +optional
	Active []LocalObjectReference `json:"active,omitempty"`

	// lastRunRef references the most recently created ArenaRun.
	// +optional
	LastRunRef *LocalObjectReference `json:"lastRunRef,omitempty"`

	// lastScheduleTime is the last cron tick acted on (a run started or skipped).
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`

	// nextScheduleTime is the next cron tick; cleared while suspend is true.
	// +optional
	NextScheduleTime *metav1.Time `json:"nextScheduleTime,omitempty"`

	// observedGeneration is the most recent generation observed by the controller.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready (reason Scheduled, or InvalidSchedule) and Stalled.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ArenaJob is a template of Arena test executions (evaluation, load test or
// data generation) over an ArenaProject. Each execution is an ArenaRun the job
// creates: once, or on every cron tick of spec.schedule.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=aj,categories=omnia
// +kubebuilder:printcolumn:name="TYPE",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="SCHEDULE",type=string,JSONPath=`.spec.schedule.cron`
// +kubebuilder:printcolumn:name="SUSPEND",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="LAST-RUN",type=string,JSONPath=`.status.lastRunRef.name`
// +kubebuilder:printcolumn:name="LAST-SCHEDULE",type=date,JSONPath=`.status.lastScheduleTime`
// +kubebuilder:printcolumn:name="READY",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="SOURCE",type=string,JSONPath=`.spec.sourceRef.name`,priority=1
// +kubebuilder:printcolumn:name="NEXT-SCHEDULE",type=date,JSONPath=`.status.nextScheduleTime`,priority=1
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type ArenaJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the job's template of a run.
	// +required
	Spec ArenaJobSpec `json:"spec"`
	// status describes the job's scheduling.
	// +optional
	Status ArenaJobStatus `json:"status,omitempty"`
}

// ArenaJobList is a list of ArenaJobs.
// +kubebuilder:object:root=true
type ArenaJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ArenaJob `json:"items"`
}

func init() {
	SchemeBuilder.Register(&ArenaJob{}, &ArenaJobList{})
}
