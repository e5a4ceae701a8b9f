package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RolloutAnalysisSpec is an analysis template a rollout's analysis step
// runs (agentruntime.md § rollout.steps[].analysis; enterprise): each
// metric queries its provider every interval, count times, and the
// analysis fails when a metric's failed measurements exceed its
// failureLimit. docs/rolloutanalysis.md documents the kind.
type RolloutAnalysisSpec struct {
	// args are the template's arguments, referenced as {{args.<name>}} in
	// a metric's query; a step's analysis.args override their values.
	// +kubebuilder:validation:MaxItems=16
	// +listType=map
	// +listMapKey=name
	// +optional
	Args []RolloutAnalysisArg `json:"args,omitempty"`

	// metrics are the measurements the analysis takes, at least one.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +listType=map
	// +listMapKey=name
	// +required
	Metrics []RolloutAnalysisMetric `json:"metrics"`
}

// RolloutAnalysisArg is one template argument.
type RolloutAnalysisArg struct {
	// name is the argument's name, as {{args.<name>}} references it.
	// +kubebuilder:validation:Pattern=`^[A-Za-z_][A-Za-z0-9_-]*$`
	// +kubebuilder:validation:MaxLength=63
	// +required
	Name string `json:"name"`
	// value is the argument's default value; a step's analysis.args entry
	// of the same name overrides it. An argument with no value anywhere
	// fails the analysis.
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	Value *string `json:"value,omitempty"`
}

// RolloutAnalysisMetric is one measurement of an analysis.
type RolloutAnalysisMetric struct {
	// name names the metric in status and messages.
	// +kubebuilder:validation:MaxLength=63
	// +required
	Name string `json:"name"`

	// interval is the time between two measurements (e.g. 30s, 1m).
	// Defaults to 1m.
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	// +kubebuilder:default="1m"
	// +optional
	Interval string `json:"interval,omitempty"`

	// count is how many measurements are taken, 1 to 100. Defaults to 1.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:default=1
	// +optional
	Count *int32 `json:"count,omitempty"`

	// failureLimit is how many failed measurements are tolerated; one more
	// fails the analysis. Defaults to 0.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=0
	// +optional
	FailureLimit *int32 `json:"failureLimit,omitempty"`

	// successCondition is a CEL expression over `result`, the query's
	// values as a list of double (one per sample of an instant vector, one
	// for a scalar), that is true when the measurement succeeds, e.g.
	// `result.size() > 0 && result[0] >= 0.95`. Its cost is bounded.
	// +kubebuilder:validation:MaxLength=1024
	// +required
	SuccessCondition string `json:"successCondition"`

	// provider is where the measurement comes from.
	// +required
	Provider RolloutAnalysisProvider `json:"provider"`
}

// RolloutAnalysisProvider is a metric's data source; prometheus is the
// only one.
type RolloutAnalysisProvider struct {
	// prometheus queries a Prometheus server's instant-query API.
	// +required
	Prometheus *RolloutAnalysisPrometheus `json:"prometheus"`
}

// RolloutAnalysisPrometheus is a Prometheus instant query.
type RolloutAnalysisPrometheus struct {
	// address is the Prometheus server's base URL (http or https), e.g.
	// http://prometheus.monitoring.svc:9090; the query goes to
	// <address>/api/v1/query. Link-local and metadata addresses are never
	// dialled.
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="isURL(self) && url(self).getScheme() in ['http', 'https'] && url(self).getHostname() != ''",message="[rolloutanalysis/prometheus-address-url] spec.metrics[].provider.prometheus.address must be an http or https URL with a host"
	// +required
	Address string `json:"address"`

	// query is the PromQL instant query; {{args.<name>}} is replaced by
	// the argument's value.
	// +kubebuilder:validation:MaxLength=4096
	// +required
	Query string `json:"query"`
}

// RolloutAnalysisStatus is the observed state of a RolloutAnalysis. The
// progress of a run is on the agent running it
// (status.rollout.analysis).
type RolloutAnalysisStatus struct {
	// observedGeneration is the last generation a controller observed.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// RolloutAnalysis is an analysis template for a rollout's analysis step
// (enterprise).
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=ra,categories=omnia
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type RolloutAnalysis struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec declares the analysis.
	// +required
	Spec RolloutAnalysisSpec `json:"spec"`
	// status is the template's observed state.
	// +optional
	Status RolloutAnalysisStatus `json:"status,omitempty"`
}

// RolloutAnalysisList is a list of RolloutAnalyses.
// +kubebuilder:object:root=true
type RolloutAnalysisList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []RolloutAnalysis `json:"items"`
}

// Phases of status.rollout.analysis.phase.
const (
	RolloutAnalysisPhaseRunning    = "Running"
	RolloutAnalysisPhaseSuccessful = "Successful"
	RolloutAnalysisPhaseFailed     = "Failed"
	RolloutAnalysisPhaseError      = "Error"
)

func init() {
	SchemeBuilder.Register(&RolloutAnalysis{}, &RolloutAnalysisList{})
}
