package reports

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

var now = time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC)

func provider(ns, name string, findings []rules.Finding, applied ...string) Object {
	return Object{APIVersion: "omnia.altairalabs.ai/v1alpha1", Kind: "Provider", Namespace: ns, Name: name, UID: types.UID("uid-" + name),
		Findings: findings, Rules: applied}
}

func deny(id, field string) rules.Finding {
	return rules.Finding{RuleID: id, Field: field, Severity: rules.SeverityDeny, Source: rules.SourcePolicy, Message: "bad " + field}
}

func warn(id, field string) rules.Finding {
	return rules.Finding{RuleID: id, Field: field, Severity: rules.SeverityWarn, Source: rules.SourceGo, Message: "odd " + field}
}

// row is what a test asserts of one result.
type row struct {
	result   openreportsv1alpha1.Result
	severity openreportsv1alpha1.ResultSeverity
	policy   string
	field    string
	subject  string
}

func rows(rs []openreportsv1alpha1.ReportResult) []row {
	out := make([]row, 0, len(rs))
	for _, r := range rs {
		subj := ""
		if len(r.Subjects) == 1 {
			subj = r.Subjects[0].Kind + "/" + r.Subjects[0].Namespace + "/" + r.Subjects[0].Name
		}
		out = append(out, row{r.Result, r.Severity, r.Policy, r.Properties[PropertyField], subj})
	}
	return out
}

func TestBuildResults(t *testing.T) {
	tests := []struct {
		name    string
		in      Input
		ns      map[string][]row
		summary map[string]openreportsv1alpha1.ReportSummary
		cluster []row
	}{
		{
			name: "deny finding is fail/high, warn finding is warn/medium",
			in: Input{Objects: []Object{provider("a", "p", []rules.Finding{
				warn("provider/odd", "spec.baseURL"),
				deny("policy/p/r", "spec.type"),
			})}},
			ns: map[string][]row{"a": {
				{ResultFail, SeverityHigh, "policy/p/r", "spec.type", "Provider/a/p"},
				{ResultWarn, SeverityMedium, "provider/odd", "spec.baseURL", "Provider/a/p"},
			}},
			summary: map[string]openreportsv1alpha1.ReportSummary{"a": {Fail: 1, Warn: 1}},
		},
		{
			name: "applied rule without finding passes; with a finding it does not",
			in: Input{Objects: []Object{
				provider("a", "ok", nil, "policy/p/r"),
				provider("a", "bad", []rules.Finding{deny("policy/p/r", "spec")}, "policy/p/r"),
			}},
			ns: map[string][]row{"a": {
				{ResultFail, SeverityHigh, "policy/p/r", "spec", "Provider/a/bad"},
				{ResultPass, SeverityInfo, "policy/p/r", "", "Provider/a/ok"},
			}},
			summary: map[string]openreportsv1alpha1.ReportSummary{"a": {Fail: 1, Pass: 1}},
		},
		{
			name: "one report per namespace; an object without results makes none",
			in: Input{Objects: []Object{
				provider("b", "x", []rules.Finding{deny("policy/p/r", "spec")}),
				provider("a", "y", []rules.Finding{warn("provider/odd", "spec")}),
				provider("c", "clean", nil),
			}},
			ns: map[string][]row{
				"a": {{ResultWarn, SeverityMedium, "provider/odd", "spec", "Provider/a/y"}},
				"b": {{ResultFail, SeverityHigh, "policy/p/r", "spec", "Provider/b/x"}},
			},
		},
		{
			name: "an object that could not be evaluated is one error",
			in:   Input{Objects: []Object{{Kind: "Provider", Namespace: "a", Name: "p", Error: "boom", Findings: []rules.Finding{deny("x/y", "spec")}}}},
			ns:   map[string][]row{"a": {{ResultError, SeverityHigh, ErrorPolicy, "", "Provider/a/p"}}},
		},
		{
			name: "policies: in force passes per rule, compile errors, pending skips",
			in: Input{Policies: []Policy{
				{Name: "good", Rules: []string{"policy/good/a", "policy/good/b"}},
				{Name: "bad", Rules: []string{"policy/bad/a"}, Errors: []v1alpha1.ValidationPolicyRuleError{{Rule: "policy/bad/a", Field: "spec.rules[0].cel", Message: "undeclared"}}},
				{Name: "new", Pending: true},
			}},
			cluster: []row{
				{ResultError, SeverityHigh, "policy/bad/a", "spec.rules[0].cel", "ValidationPolicy//bad"},
				{ResultSkip, SeverityInfo, "policy/new", "", "ValidationPolicy//new"},
				{ResultPass, SeverityInfo, "policy/good/a", "", "ValidationPolicy//good"},
				{ResultPass, SeverityInfo, "policy/good/b", "", "ValidationPolicy//good"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Now = now
			set := Build(tt.in)
			if len(set.Namespaced) != len(tt.ns) {
				t.Fatalf("got %d namespace reports, want %d", len(set.Namespaced), len(tt.ns))
			}
			prev := ""
			for _, r := range set.Namespaced {
				if r.Namespace <= prev {
					t.Errorf("reports not sorted by namespace: %q after %q", r.Namespace, prev)
				}
				prev = r.Namespace
				if r.Name != Name || r.Labels[ManagedByLabel] != ManagedBy || r.Source != Source {
					t.Errorf("report %s/%s: name, label or source wrong: %+v", r.Namespace, r.Name, r.ObjectMeta)
				}
				want, ok := tt.ns[r.Namespace]
				if !ok {
					t.Fatalf("unexpected report in %q", r.Namespace)
				}
				if got := rows(r.Results); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("namespace %s results:\n got %v\nwant %v", r.Namespace, got, want)
				}
				if s, ok := tt.summary[r.Namespace]; ok && r.Summary != s {
					t.Errorf("namespace %s summary %+v, want %+v", r.Namespace, r.Summary, s)
				}
			}
			if got := rows(set.Cluster.Results); fmt.Sprint(got) != fmt.Sprint(tt.cluster) {
				t.Errorf("cluster results:\n got %v\nwant %v", got, tt.cluster)
			}
			if set.Cluster.Name != Name || set.Cluster.Namespace != "" {
				t.Errorf("cluster report is %q/%q", set.Cluster.Namespace, set.Cluster.Name)
			}
		})
	}
}

func TestResultShape(t *testing.T) {
	set := Build(Input{Now: now, Objects: []Object{provider("a", "p", []rules.Finding{deny("policy/p/r", "spec.type")})}})
	r := set.Namespaced[0].Results[0]
	if r.Source != Source || r.Policy != "policy/p/r" || r.Rule != "policy/p/r" || r.Category != "policy" {
		t.Errorf("source/policy/rule/category: %+v", r)
	}
	if r.Description != "spec.type: bad spec.type" {
		t.Errorf("message %q", r.Description)
	}
	if r.Properties[PropertyRuleID] != "policy/p/r" || r.Properties[PropertyField] != "spec.type" {
		t.Errorf("properties %v", r.Properties)
	}
	s := r.Subjects[0]
	if s.APIVersion != "omnia.altairalabs.ai/v1alpha1" || s.Kind != "Provider" || s.Namespace != "a" || s.Name != "p" || s.UID != "uid-p" {
		t.Errorf("subject %+v", s)
	}
	if r.Timestamp.Seconds != now.Unix() {
		t.Errorf("timestamp %+v", r.Timestamp)
	}
}

func TestBoundedResults(t *testing.T) {
	var objs []Object
	for i := range 30 {
		objs = append(objs, provider("a", fmt.Sprintf("p%02d", i), []rules.Finding{warn("provider/odd", "spec")}, "policy/p/r"))
	}
	// One fail among many passes and warns: the cap keeps it.
	objs = append(objs, provider("a", "zz", []rules.Finding{deny("policy/p/r", "spec")}))
	set := Build(Input{Now: now, Objects: objs, MaxResults: 10})
	r := set.Namespaced[0]
	if len(r.Results) != 10 {
		t.Fatalf("%d results, want the cap 10", len(r.Results))
	}
	if r.Results[0].Result != ResultFail {
		t.Errorf("first result %s, want the fail kept ahead of warns and passes", r.Results[0].Result)
	}
	want := openreportsv1alpha1.ReportSummary{Fail: 1, Warn: 30, Pass: 30}
	if r.Summary != want {
		t.Errorf("summary %+v, want every result counted %+v", r.Summary, want)
	}
	if r.Annotations[DroppedAnnotation] != "51" {
		t.Errorf("dropped annotation %q, want 51", r.Annotations[DroppedAnnotation])
	}
	if r.Configuration == nil || r.Configuration.Limits.MaxResults != 10 {
		t.Errorf("configuration %+v", r.Configuration)
	}
	if d := Build(Input{Objects: objs[:1]}).Namespaced[0].Configuration.Limits.MaxResults; d != DefaultMaxResults {
		t.Errorf("default cap %d", d)
	}
}

func TestMessageCapped(t *testing.T) {
	long := strings.Repeat("é", MaxMessageBytes)
	set := Build(Input{Objects: []Object{provider("a", "p", []rules.Finding{{RuleID: "x/y", Field: "spec", Severity: rules.SeverityWarn, Message: long}})}})
	msg := set.Namespaced[0].Results[0].Description
	if len(msg) > MaxMessageBytes || !utf8.ValidString(msg) || !strings.HasPrefix(msg, "spec: é") {
		t.Errorf("message %d bytes, valid %v", len(msg), utf8.ValidString(msg))
	}
}

func TestDeterministic(t *testing.T) {
	a := []Object{
		provider("a", "p", []rules.Finding{deny("policy/p/r", "spec.b"), deny("policy/p/r", "spec.a")}, "policy/q/r"),
		provider("a", "o", []rules.Finding{warn("provider/odd", "spec")}),
	}
	b := []Object{
		provider("a", "o", []rules.Finding{warn("provider/odd", "spec")}),
		provider("a", "p", []rules.Finding{deny("policy/p/r", "spec.a"), deny("policy/p/r", "spec.b")}, "policy/q/r"),
	}
	ra := Build(Input{Now: now, Objects: a}).Namespaced[0]
	rb := Build(Input{Now: now.Add(time.Hour), Objects: b}).Namespaced[0]
	if !Equal(ra, rb) {
		t.Errorf("same verdicts in another order (and time) are not Equal:\n%v\n%v", rows(ra.Results), rows(rb.Results))
	}
}

func TestEqual(t *testing.T) {
	base := func() *openreportsv1alpha1.Report {
		return Build(Input{Now: now, Objects: []Object{provider("a", "p", []rules.Finding{deny("policy/p/r", "spec")}, "policy/q/r")}}).Namespaced[0]
	}
	tests := []struct {
		name  string
		edit  func(r *openreportsv1alpha1.Report)
		equal bool
	}{
		{"identical", func(*openreportsv1alpha1.Report) {}, true},
		{"timestamps differ", func(r *openreportsv1alpha1.Report) {
			for i := range r.Results {
				r.Results[i].Timestamp = metav1.Timestamp{Seconds: 1}
			}
		}, true},
		{"metadata noise", func(r *openreportsv1alpha1.Report) {
			r.ResourceVersion, r.UID, r.Generation = "42", "u", 3
			r.Labels["other"] = "x"
			r.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{}"}
			r.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "omnia"}}
		}, true},
		{"result changed", func(r *openreportsv1alpha1.Report) { r.Results[0].Result = ResultWarn }, false},
		{"message changed", func(r *openreportsv1alpha1.Report) { r.Results[0].Description = "other" }, false},
		{"field property changed", func(r *openreportsv1alpha1.Report) { r.Results[0].Properties[PropertyField] = "spec.x" }, false},
		{"result removed", func(r *openreportsv1alpha1.Report) { r.Results = r.Results[:1] }, false},
		{"summary changed", func(r *openreportsv1alpha1.Report) { r.Summary.Pass++ }, false},
		{"managed-by label lost", func(r *openreportsv1alpha1.Report) { delete(r.Labels, ManagedByLabel) }, false},
		{"dropped count changed", func(r *openreportsv1alpha1.Report) { r.Annotations = map[string]string{DroppedAnnotation: "3"} }, false},
		{"configuration changed", func(r *openreportsv1alpha1.Report) { r.Configuration.Limits.MaxResults = 7 }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := base(), base()
			tt.edit(b)
			if got := Equal(a, b); got != tt.equal {
				t.Errorf("Equal = %v, want %v", got, tt.equal)
			}
		})
	}
	if !Equal(nil, nil) || Equal(base(), nil) {
		t.Error("nil handling")
	}
}

func TestClusterEqual(t *testing.T) {
	build := func(errMsg string) *openreportsv1alpha1.ClusterReport {
		p := Policy{Name: "p", Rules: []string{"policy/p/a"}}
		if errMsg != "" {
			p.Errors = []v1alpha1.ValidationPolicyRuleError{{Rule: "policy/p/a", Field: "spec.rules[0].cel", Message: errMsg}}
		}
		return Build(Input{Now: now, Policies: []Policy{p}}).Cluster
	}
	tests := []struct {
		name  string
		a, b  *openreportsv1alpha1.ClusterReport
		equal bool
	}{
		{"same policy", build(""), build(""), true},
		{"policy broke", build(""), build("undeclared"), false},
		{"error changed", build("a"), build("b"), false},
		{"empty cluster reports", Build(Input{}).Cluster, Build(Input{Now: now}).Cluster, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ClusterEqual(tt.a, tt.b); got != tt.equal {
				t.Errorf("ClusterEqual = %v, want %v", got, tt.equal)
			}
		})
	}
}
