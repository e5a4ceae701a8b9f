package rules

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func rolloutAnalysis(mut ...func(*v1alpha1.RolloutAnalysis)) *v1alpha1.RolloutAnalysis {
	ra := &v1alpha1.RolloutAnalysis{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: kindRolloutAnalysis},
		ObjectMeta: metav1.ObjectMeta{Name: "quality", Namespace: "agents"},
		Spec: v1alpha1.RolloutAnalysisSpec{
			Args: []v1alpha1.RolloutAnalysisArg{{Name: "agent", Value: ptrTo("support")}},
			Metrics: []v1alpha1.RolloutAnalysisMetric{{
				Name:             "success-rate",
				SuccessCondition: "result.size() > 0 && result[0] >= 0.95",
				Provider: v1alpha1.RolloutAnalysisProvider{Prometheus: &v1alpha1.RolloutAnalysisPrometheus{
					Address: "http://prometheus.monitoring.svc:9090",
					Query:   `sum(rate(ok{agent="{{args.agent}}"}[5m]))`,
				}},
			}},
		},
	}
	for _, m := range mut {
		m(ra)
	}
	return ra
}

func TestRolloutAnalysisRules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		mut   func(*v1alpha1.RolloutAnalysis)
		rule  string
		field string
	}{
		{name: "valid"},
		{name: "condition does not compile", rule: "rolloutanalysis/success-condition-compiles", field: "spec.metrics[0].successCondition",
			mut: func(ra *v1alpha1.RolloutAnalysis) { ra.Spec.Metrics[0].SuccessCondition = "result[0] >=" }},
		{name: "condition is not a bool", rule: "rolloutanalysis/success-condition-compiles", field: "spec.metrics[0].successCondition",
			mut: func(ra *v1alpha1.RolloutAnalysis) { ra.Spec.Metrics[0].SuccessCondition = "result[0] + 1.0" }},
		{name: "condition names an unknown variable", rule: "rolloutanalysis/success-condition-compiles", field: "spec.metrics[0].successCondition",
			mut: func(ra *v1alpha1.RolloutAnalysis) { ra.Spec.Metrics[0].SuccessCondition = "value > 1.0" }},
		{name: "query references an undeclared argument", rule: "rolloutanalysis/query-args-declared", field: "spec.metrics[0].provider.prometheus.query",
			mut: func(ra *v1alpha1.RolloutAnalysis) { ra.Spec.Args = nil }},
		{name: "declared argument without a default is fine at admission",
			mut: func(ra *v1alpha1.RolloutAnalysis) { ra.Spec.Args[0].Value = nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ra := rolloutAnalysis()
			if tc.mut != nil {
				tc.mut(ra)
			}
			got := Default.Evaluate(kindRolloutAnalysis, Input{Object: ra}, Options{})
			if tc.rule == "" {
				if len(got) != 0 {
					t.Fatalf("findings %+v", got)
				}
				return
			}
			if len(got) != 1 || got[0].RuleID != tc.rule || got[0].Field != tc.field || got[0].Severity != SeverityDeny {
				t.Fatalf("findings %+v, want one %s on %s", got, tc.rule, tc.field)
			}
		})
	}
}

func TestRolloutAnalysisArgsAndQuery(t *testing.T) {
	tmpl := []v1alpha1.RolloutAnalysisArg{{Name: "agent", Value: ptrTo("support")}, {Name: "ns"}, {Name: "window", Value: ptrTo("5m")}}
	for _, tc := range []struct {
		name    string
		step    []v1alpha1.AgentRuntimeRolloutAnalysisArg
		query   string
		want    string
		missing []string
		unknown []string
	}{
		{name: "defaults and a step value", step: []v1alpha1.AgentRuntimeRolloutAnalysisArg{{Name: "ns", Value: "agents"}},
			query: `rate(x{agent="{{args.agent}}",ns="{{ args.ns }}"}[{{args.window}}])`, want: `rate(x{agent="support",ns="agents"}[5m])`},
		{name: "step overrides a default", step: []v1alpha1.AgentRuntimeRolloutAnalysisArg{{Name: "ns", Value: "a"}, {Name: "window", Value: "1m"}},
			query: `x[{{args.window}}]`, want: `x[1m]`},
		{name: "no value anywhere", query: `x{ns="{{args.ns}}"}`, want: `x{ns="{{args.ns}}"}`, missing: []string{"ns"}, unknown: []string{"ns"}},
		{name: "undeclared reference twice", step: []v1alpha1.AgentRuntimeRolloutAnalysisArg{{Name: "ns", Value: "a"}},
			query: `{{args.zone}}/{{args.zone}}`, want: `{{args.zone}}/{{args.zone}}`, unknown: []string{"zone"}},
		{name: "not an args reference is left alone", step: []v1alpha1.AgentRuntimeRolloutAnalysisArg{{Name: "ns", Value: "a"}},
			query: `{{ .Values.x }}`, want: `{{ .Values.x }}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args, missing := RolloutAnalysisArgs(tmpl, tc.step)
			if !slices.Equal(missing, tc.missing) {
				t.Errorf("missing %v, want %v", missing, tc.missing)
			}
			got, unknown := RolloutAnalysisQuery(tc.query, args)
			if got != tc.want || !slices.Equal(unknown, tc.unknown) {
				t.Errorf("query %q unknown %v, want %q %v", got, unknown, tc.want, tc.unknown)
			}
		})
	}
}

func TestRolloutAnalysisSuccess(t *testing.T) {
	many := make([]float64, 5000)
	for _, tc := range []struct {
		name    string
		expr    string
		result  []float64
		want    bool
		wantErr string
	}{
		{name: "above threshold", expr: "result[0] >= 0.95", result: []float64{0.97}, want: true},
		{name: "below threshold", expr: "result[0] >= 0.95", result: []float64{0.5}},
		{name: "every sample", expr: "result.all(x, x < 1.0)", result: []float64{0.1, 0.2}, want: true},
		{name: "empty result guarded", expr: "result.size() > 0 && result[0] > 0.0", result: nil},
		{name: "empty result unguarded is an error", expr: "result[0] > 0.0", result: nil, wantErr: "index"},
		{name: "results are capped", expr: "result.size() == 1000", result: many, want: true},
		{name: "cost limit", expr: "result.all(a, result.all(b, result.all(c, a + b + c >= 0.0)))", result: many, wantErr: "cost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prg, err := RolloutAnalysisCondition(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			got, err := RolloutAnalysisSuccess(prg, tc.result)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
