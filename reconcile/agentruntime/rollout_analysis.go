package agentruntime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/cel-go/cel"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/netguard"
	"github.com/altairalabs/omnia/reconcile/prober"
	"github.com/altairalabs/omnia/rules"
)

// The analysis step of a rollout (agentruntime.md § rollout.steps[].analysis):
// run a RolloutAnalysis template and say whether the rollout may advance.
//
// Each metric of the template is measured count times, the first at the
// analysis' start and then every interval: its Prometheus query (with the
// step's args merged over the template's defaults) is run by the
// operator's prober, outside the reconcile worker, and the result announced
// back to the controller, which evaluates the metric's successCondition on
// it. A metric whose failed measurements exceed its failureLimit fails the
// analysis; when every metric has taken its count, the analysis succeeds.
// Progress is kept in status.rollout.analysis, so a restarted operator
// carries on from it.

// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=rolloutanalyses,verbs=get;list;watch

// analysisPhase is where an analysis run stands.
type analysisPhase string

const (
	analysisRunning    analysisPhase = v1alpha1.RolloutAnalysisPhaseRunning
	analysisSuccessful analysisPhase = v1alpha1.RolloutAnalysisPhaseSuccessful
	analysisFailed     analysisPhase = v1alpha1.RolloutAnalysisPhaseFailed
	// analysisError: the analysis could not be run (template missing,
	// provider unreachable past its limit); treated as Failed by rollback.
	analysisError analysisPhase = v1alpha1.RolloutAnalysisPhaseError
)

// analysisVerdict is the state of the analysis step after one reconcile.
type analysisVerdict struct {
	Phase   analysisPhase
	Message string
}

// AnalysisProberKind is the prober owner kind of analysis measurements: the
// prober announces their results on its own channel (Prober.Events).
const AnalysisProberKind = "AgentRuntimeAnalysis"

// Bounds of one measurement.
const (
	// DefaultAnalysisQueryTimeout bounds one Prometheus query.
	DefaultAnalysisQueryTimeout = 10 * time.Second
	// analysisMaxBody bounds the Prometheus response read.
	analysisMaxBody = 1 << 20
	// analysisPoll is the backstop requeue while a measurement is in the
	// prober (its announcement normally comes first).
	analysisPoll = 5 * time.Second
	// defaultAnalysisInterval is a metric's interval when unset.
	defaultAnalysisInterval = time.Minute
)

// AnalysisOptions configure the analysis step (cmd/omnia-operator sets them).
type AnalysisOptions struct {
	// Prober runs the measurements; when nil, ProberFor is asked for one
	// at setup. Without either, an analysis step reports Error.
	Prober *prober.Prober
	// ProberFor returns the operator's shared prober (adding it to mgr).
	ProberFor func(ctrl.Manager) (*prober.Prober, error)
	// Transport carries the Prometheus queries; default a netguard
	// transport (no link-local or metadata address is dialled).
	Transport http.RoundTripper
	// QueryTimeout bounds one query; default DefaultAnalysisQueryTimeout.
	QueryTimeout time.Duration
}

// setupAnalysis resolves the prober the analysis steps measure through;
// nil when there is none (analysis steps then cannot measure).
// SetupWithManager re-reconciles an agent when one of its measurements is
// stored.
func (r *Reconciler) setupAnalysis(mgr ctrl.Manager) (*prober.Prober, error) {
	o := &r.opts.Analysis
	if o.Prober == nil && o.ProberFor != nil {
		p, err := o.ProberFor(mgr)
		if err != nil {
			return nil, err
		}
		o.Prober = p
	}
	return o.Prober, nil
}

// analyze advances the analysis step for the agent's current step; st is
// status.rollout.analysis, which it updates in place (nil on the step's
// first reconcile). It asks for a requeue through in.requeue when a
// measurement is due later.
func (r *Reconciler) analyze(ctx context.Context, ar *v1alpha1.AgentRuntime, step *v1alpha1.AgentRuntimeRolloutAnalysis, stp **v1alpha1.AgentRuntimeRolloutAnalysisStatus, in *statusInput) (analysisVerdict, error) {
	now := r.opts.Clock.Now()
	st := *stp
	if st == nil || st.TemplateName != step.TemplateName {
		st = &v1alpha1.AgentRuntimeRolloutAnalysisStatus{TemplateName: step.TemplateName, Phase: string(analysisRunning), StartedAt: ptrTime(now)}
		*stp = st
	}
	if st.StartedAt == nil {
		st.StartedAt = ptrTime(now)
	}
	switch analysisPhase(st.Phase) {
	case analysisSuccessful, analysisFailed, analysisError:
		return analysisVerdict{Phase: analysisPhase(st.Phase), Message: st.Message}, nil
	}
	for _, f := range in.findings {
		if f.RuleID == "agentruntime/rollout-analysis-license" {
			return finishAnalysis(st, analysisError, "the analysis step needs an enterprise licence: "+f.Message), nil
		}
	}
	tmpl := &v1alpha1.RolloutAnalysis{}
	if err := r.client.Get(ctx, client.ObjectKey{Namespace: ar.Namespace, Name: step.TemplateName}, tmpl); apierrors.IsNotFound(err) {
		return finishAnalysis(st, analysisError, fmt.Sprintf("RolloutAnalysis %q not found in namespace %s", step.TemplateName, ar.Namespace)), nil
	} else if meta.IsNoMatchError(err) {
		return finishAnalysis(st, analysisError, "the RolloutAnalysis CRD is not installed"), nil
	} else if err != nil {
		return analysisVerdict{Phase: analysisRunning}, fmt.Errorf("reading RolloutAnalysis %s: %w", step.TemplateName, err)
	}
	plan, msg := planAnalysis(tmpl, step)
	if msg != "" {
		return finishAnalysis(st, analysisError, fmt.Sprintf("RolloutAnalysis %q: %s", tmpl.Name, msg)), nil
	}
	p := r.opts.Analysis.Prober
	if p == nil {
		return finishAnalysis(st, analysisError, "analysis is not available: the operator runs no prober"), nil
	}
	st.Metrics = alignMetricStatus(st.Metrics, plan)
	owner := prober.Owner{Kind: AnalysisProberKind, NamespacedName: types.NamespacedName{Namespace: ar.Namespace, Name: ar.Name}}
	var next time.Time
	soonest := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	done := 0
	for i, m := range plan {
		ms := &st.Metrics[i]
		// Take every measurement whose result is in, then submit the next
		// one when it is due (a result that arrives after the next one's
		// time is due at once: it is submitted in the same pass, never
		// left without a requeue).
		for ms.Measurements < m.count {
			due := st.StartedAt.Add(time.Duration(ms.Measurements) * m.interval)
			if now.Before(due) {
				soonest(due)
				break
			}
			key := prober.Key{Owner: owner, Probe: "analysis/" + m.name}
			fp := measurementFingerprint(st.StartedAt.Time, ms.Measurements, m.address, m.query)
			res, ok := p.Result(key)
			if !ok || res.Fingerprint != fp {
				p.Submit(r.measurementJob(key, fp, m))
				soonest(now.Add(analysisPoll))
				break
			}
			recordMeasurement(ms, m, res.Outcome)
			if ms.Failures > m.failureLimit {
				p.Retain(owner)
				// The measurement that crossed the limit could not be taken
				// or evaluated: the analysis could not run (Error); otherwise
				// the condition said no (Failed).
				phase := analysisFailed
				if ms.LastError != "" {
					phase = analysisError
				}
				return finishAnalysis(st, phase, fmt.Sprintf("metric %s failed %d of %d measurements (failureLimit %d)", m.name, ms.Failures, ms.Measurements, m.failureLimit)), nil
			}
		}
		if ms.Measurements >= m.count {
			done++
		}
	}
	if done == len(plan) {
		p.Retain(owner)
		return finishAnalysis(st, analysisSuccessful, fmt.Sprintf("every metric of RolloutAnalysis %q passed", tmpl.Name)), nil
	}
	st.Phase, st.NextMeasurementAt = string(analysisRunning), ptrTime(next)
	st.Message = analysisProgress(st.Metrics, plan)
	in.requeue.After(next.Sub(now))
	return analysisVerdict{Phase: analysisRunning, Message: st.Message}, nil
}

func ptrTime(t time.Time) *metav1.Time {
	mt := metav1.NewTime(t.Truncate(time.Second))
	return &mt
}

// finishAnalysis records a final phase.
func finishAnalysis(st *v1alpha1.AgentRuntimeRolloutAnalysisStatus, phase analysisPhase, msg string) analysisVerdict {
	st.Phase, st.Message, st.NextMeasurementAt = string(phase), msg, nil
	return analysisVerdict{Phase: phase, Message: msg}
}

// analysisMetric is one metric ready to measure: arguments substituted,
// defaults applied, condition compiled.
type analysisMetric struct {
	name           string
	address, query string
	interval       time.Duration
	count          int32
	failureLimit   int32
	condition      cel.Program
}

// planAnalysis prepares the template's metrics for the step (pure); msg
// says why it cannot run.
func planAnalysis(tmpl *v1alpha1.RolloutAnalysis, step *v1alpha1.AgentRuntimeRolloutAnalysis) ([]analysisMetric, string) {
	args, missing := rules.RolloutAnalysisArgs(tmpl.Spec.Args, step.Args)
	if len(missing) > 0 {
		return nil, fmt.Sprintf("arguments %s have no value (set them in the step's analysis.args)", strings.Join(missing, ", "))
	}
	if len(tmpl.Spec.Metrics) == 0 {
		return nil, "it has no metrics"
	}
	out := make([]analysisMetric, 0, len(tmpl.Spec.Metrics))
	for _, m := range tmpl.Spec.Metrics {
		if m.Provider.Prometheus == nil {
			return nil, fmt.Sprintf("metric %s has no prometheus provider", m.Name)
		}
		q, unknown := rules.RolloutAnalysisQuery(m.Provider.Prometheus.Query, args)
		if len(unknown) > 0 {
			return nil, fmt.Sprintf("metric %s's query references undeclared arguments %s", m.Name, strings.Join(unknown, ", "))
		}
		prg, err := rules.RolloutAnalysisCondition(m.SuccessCondition)
		if err != nil {
			return nil, fmt.Sprintf("metric %s's successCondition: %v", m.Name, err)
		}
		interval := defaultAnalysisInterval
		if m.Interval != "" {
			d, err := time.ParseDuration(m.Interval)
			if err != nil || d <= 0 {
				return nil, fmt.Sprintf("metric %s's interval %q is not a positive duration", m.Name, m.Interval)
			}
			interval = d
		}
		count, limit := int32(1), int32(0)
		if m.Count != nil {
			count = max(*m.Count, 1)
		}
		if m.FailureLimit != nil {
			limit = max(*m.FailureLimit, 0)
		}
		out = append(out, analysisMetric{name: m.Name, address: m.Provider.Prometheus.Address, query: q,
			interval: interval, count: count, failureLimit: limit, condition: prg})
	}
	return out, ""
}

// alignMetricStatus returns one status entry per planned metric, in plan
// order, keeping the progress of metrics already measured.
func alignMetricStatus(have []v1alpha1.AgentRuntimeRolloutAnalysisMetricStatus, plan []analysisMetric) []v1alpha1.AgentRuntimeRolloutAnalysisMetricStatus {
	out := make([]v1alpha1.AgentRuntimeRolloutAnalysisMetricStatus, len(plan))
	for i, m := range plan {
		out[i].Name = m.name
		for _, h := range have {
			if h.Name == m.name {
				out[i] = h
			}
		}
	}
	return out
}

// measurementFingerprint names one measurement: the analysis' start, its
// index and the query's inputs. A result answers exactly one measurement.
func measurementFingerprint(started time.Time, n int32, address, query string) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%d\x00%d\x00%s\x00%s", started.Unix(), n, address, query)))
	return hex.EncodeToString(sum[:12])
}

// recordMeasurement counts one stored measurement on ms (pure): a query
// that failed, or a condition that could not be evaluated, is a failure
// with lastError; otherwise the condition decides.
func recordMeasurement(ms *v1alpha1.AgentRuntimeRolloutAnalysisMetricStatus, m analysisMetric, o prober.Outcome) {
	ms.Measurements++
	ms.LastError, ms.LastResult = "", ""
	if o.Failure != "" {
		ms.Failures++
		ms.LastError = truncate(o.Failure+": "+o.Detail, 512)
		return
	}
	var values []float64
	if err := json.Unmarshal([]byte(o.Detail), &values); err != nil {
		ms.Failures++
		ms.LastError = "unreadable measurement"
		return
	}
	ms.LastResult = truncate(formatValues(values), 256)
	ok, err := rules.RolloutAnalysisSuccess(m.condition, values)
	switch {
	case err != nil:
		ms.Failures++
		ms.LastError = truncate("successCondition: "+err.Error(), 512)
	case ok:
		ms.Successes++
	default:
		ms.Failures++
	}
}

func formatValues(v []float64) string {
	parts := make([]string, 0, min(len(v), 10))
	for i, x := range v {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("… (%d values)", len(v)))
			break
		}
		parts = append(parts, strconv.FormatFloat(x, 'g', 6, 64))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

// analysisProgress is the running analysis' message.
func analysisProgress(ms []v1alpha1.AgentRuntimeRolloutAnalysisMetricStatus, plan []analysisMetric) string {
	parts := make([]string, len(plan))
	for i, m := range plan {
		parts[i] = fmt.Sprintf("%s %d/%d (%d failed)", m.name, ms[i].Measurements, m.count, ms[i].Failures)
	}
	return "measuring: " + strings.Join(parts, ", ")
}

// measurementJob is the prober job that runs one metric's query.
func (r *Reconciler) measurementJob(key prober.Key, fp string, m analysisMetric) prober.Job {
	timeout := r.opts.Analysis.QueryTimeout
	if timeout <= 0 {
		timeout = DefaultAnalysisQueryTimeout
	}
	rt := r.opts.Analysis.Transport
	if rt == nil {
		rt = analysisTransport
	}
	host := m.address
	if i := strings.Index(host, "://"); i >= 0 {
		host = host[i+3:]
	}
	host, _, _ = strings.Cut(host, "/")
	address, query := m.address, m.query
	return prober.Job{Key: key, Fingerprint: fp, Host: host, Timeout: timeout,
		Run: func(ctx context.Context) prober.Outcome {
			return queryPrometheus(ctx, &http.Client{Transport: rt, Timeout: timeout}, address, query)
		}}
}

// analysisTransport is the default transport of the queries: guarded
// against link-local and metadata addresses.
var analysisTransport http.RoundTripper = netguard.NewTransport(nil)
