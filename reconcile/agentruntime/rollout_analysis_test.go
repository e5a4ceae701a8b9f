package agentruntime

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/prober"
	"github.com/altairalabs/omnia/rules"
)

func TestParsePrometheus(t *testing.T) {
	for _, tc := range []struct {
		name    string
		status  int
		body    string
		want    []float64
		wantErr string
	}{
		{name: "vector", status: 200, body: `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":"1"},"value":[1700000000,"0.97"]},{"metric":{},"value":[1700000000,"2"]}]}}`, want: []float64{0.97, 2}},
		{name: "empty vector", status: 200, body: `{"status":"success","data":{"resultType":"vector","result":[]}}`, want: []float64{}},
		{name: "scalar", status: 200, body: `{"status":"success","data":{"resultType":"scalar","result":[1700000000,"42"]}}`, want: []float64{42}},
		{name: "matrix takes each series' last value", status: 200, body: `{"status":"success","data":{"resultType":"matrix","result":[{"values":[[1,"1"],[2,"3"]]}]}}`, want: []float64{3}},
		{name: "NaN dropped", status: 200, body: `{"status":"success","data":{"resultType":"vector","result":[{"value":[1,"NaN"]},{"value":[1,"+Inf"]},{"value":[1,"1"]}]}}`, want: []float64{1}},
		{name: "string result", status: 200, body: `{"status":"success","data":{"resultType":"string","result":[1,"x"]}}`, wantErr: "not a number"},
		{name: "error envelope", status: 400, body: `{"status":"error","errorType":"bad_data","error":"parse error"}`, wantErr: "bad_data: parse error"},
		{name: "not JSON, not 200", status: 502, body: `<html>bad gateway</html>`, wantErr: "HTTP 502"},
		{name: "not JSON", status: 200, body: `hello`, wantErr: "not a Prometheus answer"},
		{name: "value not a number", status: 200, body: `{"status":"success","data":{"resultType":"vector","result":[{"value":[1,"abc"]}]}}`, wantErr: "abc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parsePrometheus(tc.status, []byte(tc.body))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func analysisTemplate(ns string, mut ...func(*v1alpha1.RolloutAnalysis)) *v1alpha1.RolloutAnalysis {
	ra := &v1alpha1.RolloutAnalysis{
		ObjectMeta: metav1.ObjectMeta{Name: "quality", Namespace: ns},
		Spec: v1alpha1.RolloutAnalysisSpec{
			Args: []v1alpha1.RolloutAnalysisArg{{Name: "agent"}, {Name: "window", Value: ptr.To("5m")}},
			Metrics: []v1alpha1.RolloutAnalysisMetric{{
				Name: "success-rate", Interval: "1m", Count: ptr.To[int32](3), FailureLimit: ptr.To[int32](1),
				SuccessCondition: "result.size() > 0 && result[0] >= 0.95",
				Provider: v1alpha1.RolloutAnalysisProvider{Prometheus: &v1alpha1.RolloutAnalysisPrometheus{
					Address: "http://prometheus.example:9090", Query: `ok{agent="{{args.agent}}"}[{{args.window}}]`,
				}},
			}},
		},
	}
	for _, m := range mut {
		m(ra)
	}
	return ra
}

func TestPlanAnalysis(t *testing.T) {
	step := &v1alpha1.AgentRuntimeRolloutAnalysis{TemplateName: "quality", Args: []v1alpha1.AgentRuntimeRolloutAnalysisArg{{Name: "agent", Value: "support"}}}
	for _, tc := range []struct {
		name    string
		mut     func(*v1alpha1.RolloutAnalysis)
		step    *v1alpha1.AgentRuntimeRolloutAnalysis
		query   string
		wantMsg string
	}{
		{name: "step arg over template default", step: step, query: `ok{agent="support"}[5m]`},
		{name: "step overrides a default", step: &v1alpha1.AgentRuntimeRolloutAnalysis{TemplateName: "quality",
			Args: []v1alpha1.AgentRuntimeRolloutAnalysisArg{{Name: "agent", Value: "a"}, {Name: "window", Value: "1m"}}}, query: `ok{agent="a"}[1m]`},
		{name: "missing argument", step: &v1alpha1.AgentRuntimeRolloutAnalysis{TemplateName: "quality"}, wantMsg: "arguments agent have no value"},
		{name: "condition does not compile", step: step, mut: func(ra *v1alpha1.RolloutAnalysis) { ra.Spec.Metrics[0].SuccessCondition = "result >" }, wantMsg: "successCondition"},
		{name: "undeclared argument", step: step, mut: func(ra *v1alpha1.RolloutAnalysis) { ra.Spec.Metrics[0].Provider.Prometheus.Query = "{{args.zone}}" }, wantMsg: "undeclared arguments zone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ra := analysisTemplate("n")
			if tc.mut != nil {
				tc.mut(ra)
			}
			plan, msg := planAnalysis(ra, tc.step)
			if tc.wantMsg != "" {
				if !strings.Contains(msg, tc.wantMsg) {
					t.Fatalf("msg %q, want %q", msg, tc.wantMsg)
				}
				return
			}
			if msg != "" || len(plan) != 1 || plan[0].query != tc.query || plan[0].interval != time.Minute || plan[0].count != 3 || plan[0].failureLimit != 1 {
				t.Errorf("plan %+v msg %q", plan, msg)
			}
		})
	}
}

func TestRecordMeasurement(t *testing.T) {
	prg, err := rules.RolloutAnalysisCondition("result[0] >= 0.95")
	if err != nil {
		t.Fatal(err)
	}
	m := analysisMetric{name: "m", condition: prg}
	for _, tc := range []struct {
		name                string
		out                 prober.Outcome
		successes, failures int32
		lastErr             string
	}{
		{name: "passes", out: prober.Outcome{Detail: "[0.99]"}, successes: 1},
		{name: "fails", out: prober.Outcome{Detail: "[0.5]"}, failures: 1},
		{name: "query failed", out: prober.Outcome{Failure: AnalysisQueryFailed, Detail: "connection refused"}, failures: 1, lastErr: "QueryFailed: connection refused"},
		{name: "condition errors on an empty result", out: prober.Outcome{Detail: "[]"}, failures: 1, lastErr: "successCondition"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms := v1alpha1.AgentRuntimeRolloutAnalysisMetricStatus{Name: "m"}
			recordMeasurement(&ms, m, tc.out)
			if ms.Measurements != 1 || ms.Successes != tc.successes || ms.Failures != tc.failures || !strings.HasPrefix(ms.LastError, tc.lastErr) || (tc.lastErr == "") != (ms.LastError == "") {
				t.Errorf("status %+v", ms)
			}
		})
	}
}

// fakePrometheus answers /api/v1/query like Prometheus with the next value
// of values (the last one repeated), or with status when it is not 200, and
// records the queries it got.
type fakePrometheus struct {
	mu      sync.Mutex
	values  []string
	status  int
	queries []string
}

func (f *fakePrometheus) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.URL.Path != "/prom/api/v1/query" {
		http.NotFound(w, r)
		return
	}
	f.queries = append(f.queries, r.URL.Query().Get("query"))
	if f.status != 0 && f.status != http.StatusOK {
		w.WriteHeader(f.status)
		_ = json.NewEncoder(w).Encode(map[string]any{"status": "error", "errorType": "internal", "error": "down"})
		return
	}
	v := f.values[0]
	if len(f.values) > 1 {
		f.values = f.values[1:]
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{
		"resultType": "vector", "result": []any{map[string]any{"metric": map[string]any{}, "value": []any{1700000000, v}}}}})
}

// TestAnalyzeAgainstALocalPrometheus runs analysis steps end to end on the
// suite's API server (the RolloutAnalysis is a real object) with the
// operator's prober and a local HTTP server answering like Prometheus: the
// measurements are taken every interval on a fake clock, the step's
// argument reaches the query, and the verdict follows successCondition and
// failureLimit; a missing template, and a Prometheus that errors past the
// limit, give Error.
func TestAnalyzeAgainstALocalPrometheus(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := prober.New(prober.Options{MinInterval: time.Millisecond, BackoffBase: time.Millisecond, BackoffMax: time.Millisecond})
	go func() { _ = p.Start(ctx) }()

	ar := createAgent(t, agent(), "ar-analysis")
	step := &v1alpha1.AgentRuntimeRolloutAnalysis{TemplateName: "quality", Args: []v1alpha1.AgentRuntimeRolloutAnalysisArg{{Name: "agent", Value: "support"}}}

	for _, tc := range []struct {
		name         string
		template     string // "" : no template in the namespace
		values       []string
		status       int
		limit        int32
		phase        analysisPhase
		measurements int32
		successes    int32
	}{
		{name: "one failure within the limit", template: "quality", values: []string{"0.99", "0.5", "0.97"}, limit: 1, phase: analysisSuccessful, measurements: 3, successes: 2},
		{name: "two failures past the limit", template: "quality-strict", values: []string{"0.5", "0.99", "0.4"}, limit: 1, phase: analysisFailed, measurements: 3, successes: 1},
		{name: "Prometheus down", template: "quality-down", status: http.StatusInternalServerError, limit: 0, phase: analysisError, measurements: 1},
		{name: "no template", phase: analysisError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prom := &fakePrometheus{values: tc.values, status: tc.status}
			srv := httptest.NewServer(prom)
			defer srv.Close()
			s := *step
			s.TemplateName = tc.template
			if tc.template != "" {
				ra := analysisTemplate(ar.Namespace, func(ra *v1alpha1.RolloutAnalysis) {
					ra.Name = tc.template
					ra.Spec.Metrics[0].FailureLimit = ptr.To(tc.limit)
					ra.Spec.Metrics[0].Provider.Prometheus.Address = srv.URL + "/prom"
				})
				if err := k8s.Create(ctx, ra); err != nil {
					t.Fatal(err)
				}
			} else {
				s.TemplateName = "absent"
			}
			clk := clocktesting.NewFakeClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
			r, _ := newCountingReconciler(t)
			r.opts.Clock = clk
			r.opts.Analysis = AnalysisOptions{Prober: p, Transport: srv.Client().Transport}

			var st *v1alpha1.AgentRuntimeRolloutAnalysisStatus
			var v analysisVerdict
			measurements := func() int32 {
				if st == nil || len(st.Metrics) == 0 {
					return 0
				}
				return st.Metrics[0].Measurements
			}
			for range 10 {
				prev := measurements()
				err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
					in := statusInput{}
					var err error
					if v, err = r.analyze(ctx, ar, &s, &st, &in); err != nil {
						return false, err
					}
					if v.Phase != analysisRunning {
						return true, nil
					}
					if measurements() == prev {
						return false, nil
					}
					// The next measurement is asked for at its time.
					if in.requeue.Duration() != time.Minute || !st.NextMeasurementAt.Time.Equal(clk.Now().Add(time.Minute)) {
						t.Errorf("after measurement %d: requeue in %v, next at %v; want in 1m", measurements(), in.requeue.Duration(), st.NextMeasurementAt)
					}
					return true, nil
				})
				if err != nil {
					t.Fatalf("analysis stuck: %v (status %+v)", err, st)
				}
				if v.Phase != analysisRunning {
					break
				}
				clk.Step(time.Minute)
			}
			if v.Phase != tc.phase || analysisPhase(st.Phase) != tc.phase || st.NextMeasurementAt != nil {
				t.Fatalf("verdict %+v, status %+v; want %s", v, st, tc.phase)
			}
			if tc.template == "" {
				if !strings.Contains(v.Message, `"absent" not found`) {
					t.Errorf("message %q", v.Message)
				}
				return
			}
			ms := st.Metrics[0]
			if ms.Measurements != tc.measurements || ms.Successes != tc.successes {
				t.Errorf("metric status %+v, want %d measurements, %d successes", ms, tc.measurements, tc.successes)
			}
			for _, q := range prom.queries {
				if q != `ok{agent="support"}[5m]` {
					t.Errorf("query %q, want the step's argument and the template's default substituted", q)
				}
			}
			// A finished analysis is not measured again.
			before := len(prom.queries)
			if again, err := r.analyze(ctx, ar, &s, &st, &statusInput{}); err != nil || again.Phase != tc.phase || len(prom.queries) != before {
				t.Errorf("after the end: %+v %v, %d more queries", again, err, len(prom.queries)-before)
			}
		})
	}
}

// TestAnalyzeResultAfterTheNextDueTime: a result that arrives after the
// next measurement was due is counted and the next measurement submitted in
// the same pass, with a requeue asked for (a lost requeue left the analysis
// waiting for ever).
func TestAnalyzeResultAfterTheNextDueTime(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := prober.New(prober.Options{MinInterval: time.Millisecond})
	go func() { _ = p.Start(ctx) }()
	prom := &fakePrometheus{values: []string{"0.99"}}
	srv := httptest.NewServer(prom)
	defer srv.Close()
	ar := createAgent(t, agent(), "ar-analysis-late")
	ra := analysisTemplate(ar.Namespace, func(ra *v1alpha1.RolloutAnalysis) {
		ra.Spec.Metrics[0].Provider.Prometheus.Address = srv.URL + "/prom"
	})
	if err := k8s.Create(ctx, ra); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
	r, _ := newCountingReconciler(t)
	r.opts.Clock = clk
	r.opts.Analysis = AnalysisOptions{Prober: p, Transport: srv.Client().Transport}
	step := &v1alpha1.AgentRuntimeRolloutAnalysis{TemplateName: "quality", Args: []v1alpha1.AgentRuntimeRolloutAnalysisArg{{Name: "agent", Value: "support"}}}
	var st *v1alpha1.AgentRuntimeRolloutAnalysisStatus
	if _, err := r.analyze(ctx, ar, step, &st, &statusInput{}); err != nil {
		t.Fatal(err)
	}
	key := prober.Key{Owner: prober.Owner{Kind: AnalysisProberKind, NamespacedName: client.ObjectKeyFromObject(ar)}, Probe: "analysis/success-rate"}
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		_, ok := p.Result(key)
		return ok, nil
	}); err != nil {
		t.Fatal(err)
	}
	clk.Step(90 * time.Second) // past the second measurement's time (1m)
	in := statusInput{}
	v, err := r.analyze(ctx, ar, step, &st, &in)
	if err != nil || v.Phase != analysisRunning {
		t.Fatalf("verdict %+v %v", v, err)
	}
	if ms := st.Metrics[0]; ms.Measurements != 1 || ms.Successes != 1 {
		t.Errorf("metric status %+v, want the first measurement counted", ms)
	}
	if in.requeue.Duration() != analysisPoll {
		t.Errorf("requeue in %v, want %v: the second measurement is submitted at once", in.requeue.Duration(), analysisPoll)
	}
}
