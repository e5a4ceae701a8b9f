package policies

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// TestEvaluateActions: the policy's validationActions bound what admission
// does with a finding, whatever the rule's severity.
func TestEvaluateActions(t *testing.T) {
	cases := []struct {
		actions   []v1alpha1.ValidationAction
		severity  v1alpha1.PolicySeverity
		want      rules.Severity
		auditOnly bool
		audit     bool
	}{
		{actions: nil, severity: "", want: rules.SeverityDeny},
		{actions: []v1alpha1.ValidationAction{"Deny"}, severity: "warn", want: rules.SeverityWarn},
		{actions: []v1alpha1.ValidationAction{"Warn"}, severity: "deny", want: rules.SeverityWarn},
		{actions: []v1alpha1.ValidationAction{"Audit"}, severity: "deny", want: rules.SeverityWarn, auditOnly: true, audit: true},
		{actions: []v1alpha1.ValidationAction{"Deny", "Audit"}, severity: "deny", want: rules.SeverityDeny, audit: true},
		{actions: []v1alpha1.ValidationAction{"Warn", "Audit"}, severity: "deny", want: rules.SeverityWarn, audit: true},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%v/%s", tc.actions, tc.severity), func(t *testing.T) {
			p := policy(kinds("Provider"), v1alpha1.ValidationPolicyRule{ID: "model", CEL: "object.spec.model == 'approved'", Severity: tc.severity})
			p.Spec.ValidationActions = tc.actions
			c := compiled(t, env(t), p)
			got := evaluate(t, c, "Provider", rules.Input{Object: provider("a", "ns", nil)})
			if len(got) != 1 {
				t.Fatalf("findings %v", got)
			}
			f := got[0]
			if f.RuleID != "policy/p/model" || f.Source != rules.SourcePolicy || f.Severity != tc.want || f.AuditOnly != tc.auditOnly || f.Audit != tc.audit {
				t.Errorf("finding %+v", f)
			}
			ok := provider("a", "ns", nil)
			ok.Spec.Model = "approved"
			if got := evaluate(t, c, "Provider", rules.Input{Object: ok}); len(got) != 0 {
				t.Errorf("a complying object has findings %v", got)
			}
		})
	}
}

// TestEvaluateCEL: one accepted and one rejected object per rule, with the
// finding's field and message.
func TestEvaluateCEL(t *testing.T) {
	labelled := provider("a", "team-a", map[string]string{"team": "a"})
	unlabelled := provider("b", "team-a", nil)
	cases := []struct {
		name      string
		rule      v1alpha1.ValidationPolicyRule
		params    string
		accept    rules.Input
		reject    rules.Input
		wantField string
		wantMsg   string
	}{
		{name: "message",
			rule:   v1alpha1.ValidationPolicyRule{ID: "team", CEL: "has(object.metadata.labels) && 'team' in object.metadata.labels", Message: "label the provider with its team", FieldPath: "metadata.labels"},
			accept: rules.Input{Object: labelled}, reject: rules.Input{Object: unlabelled},
			wantField: "metadata.labels", wantMsg: "label the provider with its team"},
		{name: "messageExpression",
			rule:   v1alpha1.ValidationPolicyRule{ID: "team", CEL: "has(object.metadata.labels) && 'team' in object.metadata.labels", MessageExpression: "'provider ' + object.metadata.name + ' in ' + namespaceObject.metadata.name + ' has no team'"},
			accept: rules.Input{Object: labelled}, reject: rules.Input{Object: unlabelled},
			wantField: "spec", wantMsg: "provider b in team-a has no team"},
		{name: "messageExpression that fails",
			rule:   v1alpha1.ValidationPolicyRule{ID: "team", CEL: "has(object.metadata.labels) && 'team' in object.metadata.labels", MessageExpression: "'team ' + object.metadata.annotations['team']"},
			accept: rules.Input{Object: labelled}, reject: rules.Input{Object: unlabelled},
			wantField: "spec", wantMsg: "messageExpression failed (no such key: annotations); failed expression: has(object.metadata.labels) && 'team' in object.metadata.labels"},
		{name: "no message",
			rule:   v1alpha1.ValidationPolicyRule{ID: "team", CEL: "has(object.metadata.labels) && 'team' in object.metadata.labels"},
			accept: rules.Input{Object: labelled}, reject: rules.Input{Object: unlabelled},
			wantField: "spec", wantMsg: "failed expression: has(object.metadata.labels) && 'team' in object.metadata.labels"},
		{name: "oldObject on update",
			rule:      v1alpha1.ValidationPolicyRule{ID: "model-fixed", CEL: "oldObject == null || object.spec.model == oldObject.spec.model", Message: "the model is fixed", FieldPath: "spec.model"},
			accept:    rules.Input{Object: labelled, Old: labelled},
			reject:    rules.Input{Object: labelled, Old: func() *v1alpha1.Provider { o := labelled.DeepCopy(); o.Spec.Model = "other"; return o }()},
			wantField: "spec.model", wantMsg: "the model is fixed"},
		{name: "oldObject null on create",
			rule:   v1alpha1.ValidationPolicyRule{ID: "create-only", CEL: "oldObject != null", Message: "update only"},
			accept: rules.Input{Object: labelled, Old: labelled}, reject: rules.Input{Object: labelled, Old: (*v1alpha1.Provider)(nil)},
			wantField: "spec", wantMsg: "update only"},
		{name: "namespaceObject labels",
			rule:      v1alpha1.ValidationPolicyRule{ID: "prod", CEL: "namespaceObject.metadata.labels['env'] != 'prod' || object.spec.model.startsWith('approved-')", Message: "prod uses approved models"},
			accept:    rules.Input{Object: labelled, Facts: namespaces(namespace("team-a", map[string]string{"env": "dev"}))},
			reject:    rules.Input{Object: labelled, Facts: namespaces(namespace("team-a", map[string]string{"env": "prod"}))},
			wantField: "spec", wantMsg: "prod uses approved models"},
		{name: "params",
			params:    `{"models": ["claude-sonnet"]}`,
			rule:      v1alpha1.ValidationPolicyRule{ID: "allowed", CEL: "object.spec.model in params.models", MessageExpression: "object.spec.model + ' is not one of ' + params.models.join(', ')"},
			accept:    rules.Input{Object: labelled},
			reject:    rules.Input{Object: func() *v1alpha1.Provider { o := labelled.DeepCopy(); o.Spec.Model = "gpt"; return o }()},
			wantField: "spec", wantMsg: "gpt is not one of claude-sonnet"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := policy(kinds("Provider"), tc.rule)
			if tc.params != "" {
				p.Spec.Params = &runtime.RawExtension{Raw: []byte(tc.params)}
			}
			c := compiled(t, env(t), p)
			if got := evaluate(t, c, "Provider", tc.accept); len(got) != 0 {
				t.Errorf("accepted input has findings %v", got)
			}
			got := evaluate(t, c, "Provider", tc.reject)
			if len(got) != 1 || got[0].RuleID != "policy/p/"+tc.rule.ID || got[0].Field != tc.wantField || got[0].Message != tc.wantMsg {
				t.Errorf("findings %v, want one [policy/p/%s] %s: %s", got, tc.rule.ID, tc.wantField, tc.wantMsg)
			}
		})
	}
}

// TestEvaluateSelectors: namespaceSelector against the Namespace's labels,
// objectSelector against the object's or, on update, the old object's.
func TestEvaluateSelectors(t *testing.T) {
	prod := namespaces(namespace("prod", map[string]string{"env": "prod"}), namespace("dev", map[string]string{"env": "dev"}))
	gated := map[string]string{"policy": "on"}
	cases := []struct {
		name     string
		ns       *metav1.LabelSelector
		obj      *metav1.LabelSelector
		in       rules.Input
		selected bool
	}{
		{name: "no selectors", in: rules.Input{Object: provider("a", "dev", nil)}, selected: true},
		{name: "namespace matches", ns: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}},
			in: rules.Input{Object: provider("a", "prod", nil), Facts: prod}, selected: true},
		{name: "namespace does not match", ns: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}},
			in: rules.Input{Object: provider("a", "dev", nil), Facts: prod}},
		{name: "unknown namespace has its name label", ns: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "other"}},
			in: rules.Input{Object: provider("a", "other", nil)}, selected: true},
		{name: "no namespace never matches a namespaceSelector", ns: &metav1.LabelSelector{},
			in: rules.Input{Object: provider("a", "", nil)}},
		{name: "object matches", obj: &metav1.LabelSelector{MatchLabels: gated},
			in: rules.Input{Object: provider("a", "dev", gated)}, selected: true},
		{name: "object does not match", obj: &metav1.LabelSelector{MatchLabels: gated},
			in: rules.Input{Object: provider("a", "dev", nil)}},
		{name: "update: old object matches", obj: &metav1.LabelSelector{MatchLabels: gated},
			in: rules.Input{Object: provider("a", "dev", nil), Old: provider("a", "dev", gated)}, selected: true},
		{name: "update: new object matches", obj: &metav1.LabelSelector{MatchLabels: gated},
			in: rules.Input{Object: provider("a", "dev", gated), Old: provider("a", "dev", nil)}, selected: true},
		{name: "update: neither matches", obj: &metav1.LabelSelector{MatchLabels: gated},
			in: rules.Input{Object: provider("a", "dev", nil), Old: provider("a", "dev", nil)}},
		{name: "both selectors", ns: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}, obj: &metav1.LabelSelector{MatchLabels: gated},
			in: rules.Input{Object: provider("a", "prod", gated), Facts: prod}, selected: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := policy(kinds("Provider"), v1alpha1.ValidationPolicyRule{ID: "never", CEL: "false"})
			p.Spec.NamespaceSelector, p.Spec.ObjectSelector = tc.ns, tc.obj
			c := compiled(t, env(t), p)
			got := evaluate(t, c, "Provider", tc.in)
			if want := map[bool]int{true: 1, false: 0}[tc.selected]; len(got) != want {
				t.Errorf("findings %v, want %d", got, want)
			}
			if in := tc.in; c.Rules[0].Applies("Provider", in) != tc.selected {
				t.Errorf("Applies = %v, want %v", !tc.selected, tc.selected)
			}
		})
	}
}

// TestEvaluateCELCostBudget: an object the estimate did not foresee (here
// handler names far longer than the schema's maxLength, as an offline
// manifest can have) stops at the runtime budget with a finding, not a pass or a panic.
func TestEvaluateCELCostBudget(t *testing.T) {
	var failures []bool
	var mu sync.Mutex
	e := env(t).WithOptions(Options{Observe: func(policy, lang string, _ time.Duration, failed bool) {
		mu.Lock()
		defer mu.Unlock()
		if policy == "p" && lang == LanguageCEL {
			failures = append(failures, failed)
		}
	}})
	p := policy(kinds("ToolRegistry"), v1alpha1.ValidationPolicyRule{ID: "pairs", FieldPath: "spec.handlers",
		CEL: "object.spec.handlers.all(a, object.spec.handlers.all(b, (a.name + b.name).size() > 0))"})
	c := compiled(t, e, p)
	small := &v1alpha1.ToolRegistry{ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "ns"}}
	small.Spec.Handlers = make([]v1alpha1.ToolRegistryHandler, 10)
	for i := range small.Spec.Handlers {
		small.Spec.Handlers[i].Name = fmt.Sprintf("h%d", i)
	}
	if got := evaluate(t, c, "ToolRegistry", rules.Input{Object: small}); len(got) != 0 {
		t.Fatalf("findings %v", got)
	}
	big := small.DeepCopy()
	// Names far over the schema's maxLength 63: each concatenation costs
	// thousands, so the budget runs out within a few thousand steps.
	big.Spec.Handlers = make([]v1alpha1.ToolRegistryHandler, 100)
	for i := range big.Spec.Handlers {
		big.Spec.Handlers[i].Name = fmt.Sprintf("h%d-%s", i, strings.Repeat("x", 20000))
	}
	got := evaluate(t, c, "ToolRegistry", rules.Input{Object: big})
	if len(got) != 1 || got[0].String() != "[policy/p/pairs] spec.handlers: evaluation failed: the runtime limit of 10000000 per evaluation was reached: cost budget exceeded" {
		t.Fatalf("findings %v", got)
	}
	if !slices.Equal(failures, []bool{false, true}) {
		t.Errorf("observed failures %v, want [false true]", failures)
	}
}

func TestEvaluateRego(t *testing.T) {
	const module = `package omnia.provider
violation contains {"msg": sprintf("model %s is not allowed", [input.object.spec.model]), "field": "spec.model"} if {
	not input.object.spec.model in input.params.models
}
violation contains {"msg": "", "field": "metadata.labels"} if {
	not input.object.metadata.labels.team
}
violation contains {"msg": "the model is fixed"} if {
	input.oldObject != null
	input.oldObject.spec.model != input.object.spec.model
}
violation contains {"msg": "prod needs a team label", "field": "metadata.labels"} if {
	input.namespaceObject.metadata.labels.env == "prod"
	not input.object.metadata.labels.team
}`
	p := policy(kinds("Provider"), v1alpha1.ValidationPolicyRule{ID: "provider", Rego: module, Message: "label the provider with its team"})
	p.Spec.Params = &runtime.RawExtension{Raw: []byte(`{"models": ["claude-sonnet"]}`)}
	c := compiled(t, env(t), p)
	good := provider("a", "prod", map[string]string{"team": "a"})
	prodNS := namespaces(namespace("prod", map[string]string{"env": "prod"}))
	if got := evaluate(t, c, "Provider", rules.Input{Object: good, Old: good, Facts: prodNS}); len(got) != 0 {
		t.Fatalf("accepted object has findings %v", got)
	}
	bad := provider("a", "prod", nil)
	bad.Spec.Model = "gpt"
	got := evaluate(t, c, "Provider", rules.Input{Object: bad, Old: good, Facts: prodNS})
	var lines []string
	for _, f := range got {
		lines = append(lines, f.String())
	}
	slices.Sort(lines)
	want := []string{
		"[policy/p/provider] metadata.labels: label the provider with its team",
		"[policy/p/provider] metadata.labels: prod needs a team label",
		"[policy/p/provider] spec.model: model gpt is not allowed",
		"[policy/p/provider] spec: the model is fixed",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("findings\n  %s\nwant\n  %s", strings.Join(lines, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestEvaluateRegoBounded: at most MaxRegoFindings per rule per object, and
// one more finding says how many were left out.
func TestEvaluateRegoBounded(t *testing.T) {
	c := compiled(t, env(t), policy(kinds("Provider"), v1alpha1.ValidationPolicyRule{ID: "many",
		Rego: "package p\nviolation contains {\"msg\": sprintf(\"v%d\", [i]), \"field\": \"spec\"} if { some i in numbers.range(1, 250) }"}))
	got := evaluate(t, c, "Provider", rules.Input{Object: provider("a", "ns", nil)})
	if len(got) != MaxRegoFindings+1 {
		t.Fatalf("%d findings", len(got))
	}
	if last := got[MaxRegoFindings]; last.Message != "150 more violations not shown (at most 100 per rule per object)" || last.Field != "spec" {
		t.Errorf("last finding %v", last)
	}
}

// TestEvaluateRegoFailures: a looping module is stopped by the timeout and
// an erroring one reported; both are one finding at spec, never a pass.
func TestEvaluateRegoFailures(t *testing.T) {
	cases := []struct {
		name, module, want string
	}{
		{name: "loop",
			module: "package p\nviolation contains {\"msg\": \"x\", \"field\": \"spec\"} if { some i in numbers.range(1, 1000000000000); i < 0 }",
			want:   "[policy/p/r] spec: evaluation failed: timed out after 100ms"},
		{name: "loop written with 1e12",
			module: "package p\nviolation contains {\"msg\": \"x\", \"field\": \"spec\"} if { some i in numbers.range(1, 1e12); i < 0 }",
			want:   "[policy/p/r] spec: evaluation failed: timed out after 100ms"},
		{name: "builtin error",
			module: "package p\nviolation contains {\"msg\": \"x\"} if { 1 / 0 > 1 }",
			want:   "[policy/p/r] spec: evaluation failed: "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var failed []bool
			e := env(t).WithOptions(Options{Observe: func(policy, lang string, _ time.Duration, f bool) {
				if policy == "p" && lang == LanguageRego {
					failed = append(failed, f)
				}
			}})
			c := compiled(t, e, policy(kinds("Provider"), v1alpha1.ValidationPolicyRule{ID: "r", Rego: tc.module}))
			got := evaluate(t, c, "Provider", rules.Input{Object: provider("a", "ns", nil)})
			if len(got) != 1 || !strings.HasPrefix(got[0].String(), tc.want) {
				t.Fatalf("findings %v, want one starting %q", got, tc.want)
			}
			if !slices.Equal(failed, []bool{true}) {
				t.Errorf("observed %v", failed)
			}
		})
	}
}

// TestEvaluateNumbers: integers reach both languages as integers, compared
// with params' (JSON) numbers as written.
func TestEvaluateNumbers(t *testing.T) {
	replicas := func(n int32) *v1alpha1.AgentRuntime {
		return &v1alpha1.AgentRuntime{
			ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"},
			Spec:       v1alpha1.AgentRuntimeSpec{Runtime: &v1alpha1.AgentRuntimeRuntime{Replicas: &n}},
		}
	}
	for _, r := range []v1alpha1.ValidationPolicyRule{
		{ID: "cel", CEL: "!has(object.spec.runtime) || !has(object.spec.runtime.replicas) || object.spec.runtime.replicas <= params.maxReplicas", FieldPath: "spec.runtime.replicas", Message: "too many replicas"},
		{ID: "rego", Rego: "package p\nviolation contains {\"msg\": \"too many replicas\", \"field\": \"spec.runtime.replicas\"} if { input.object.spec.runtime.replicas > input.params.maxReplicas }"},
	} {
		t.Run(r.ID, func(t *testing.T) {
			p := policy(kinds("AgentRuntime"), r)
			p.Spec.Params = &runtime.RawExtension{Raw: []byte(`{"maxReplicas": 3}`)}
			c := compiled(t, env(t), p)
			if got := evaluate(t, c, "AgentRuntime", rules.Input{Object: replicas(3)}); len(got) != 0 {
				t.Errorf("3 replicas: %v", got)
			}
			got := evaluate(t, c, "AgentRuntime", rules.Input{Object: replicas(4)})
			if len(got) != 1 || got[0].String() != "[policy/p/"+r.ID+"] spec.runtime.replicas: too many replicas" {
				t.Errorf("4 replicas: %v", got)
			}
		})
	}
}

// TestEvaluateRegoPolicyBudget: the Rego rules of one policy share one time
// budget per object. A policy of many looping rules used to take a timeout
// per rule (64 × 100 ms = 6.4 s per object, against the webhook's 10 s);
// now the rules that start with the budget spent are not run, and each
// still reports a finding (never a pass). A second evaluation of the same
// object gets a budget of its own.
func TestEvaluateRegoPolicyBudget(t *testing.T) {
	const n = 64
	loop := "package p\nviolation contains {\"msg\": \"x\", \"field\": \"spec\"} if { some i in numbers.range(1, 1e12); i < 0 }"
	var rs []v1alpha1.ValidationPolicyRule
	for i := range n {
		rs = append(rs, v1alpha1.ValidationPolicyRule{ID: fmt.Sprintf("r%02d", i), Rego: loop})
	}
	timeout, budget := 20*time.Millisecond, 50*time.Millisecond
	c := compiled(t, env(t).WithOptions(Options{RegoTimeout: timeout, RegoPolicyBudget: budget}), policy(kinds("Provider"), rs...))
	for round := range 2 {
		got := evaluate(t, c, "Provider", rules.Input{Object: provider("a", "ns", nil)})
		if len(got) != n {
			t.Fatalf("round %d: %d findings, want one per rule (%d)", round, len(got), n)
		}
		ran, skipped := 0, 0
		for _, f := range got {
			switch {
			case strings.Contains(f.Message, "used up their 50ms budget"):
				skipped++
			case strings.Contains(f.Message, "timed out"):
				ran++
			default:
				t.Errorf("round %d: finding %v is neither a timeout nor a spent budget", round, f)
			}
		}
		// Each rule that ran took its timeout or the rest of the budget:
		// at most budget/timeout + 1 of them fit.
		if maxRan := int(budget/timeout) + 1; ran < 1 || ran > maxRan {
			t.Errorf("round %d: %d rules ran (want 1..%d), %d skipped", round, ran, maxRan, skipped)
		}
	}
}
