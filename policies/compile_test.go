package policies

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// wantError is one expected compile error: the rule ID, the field and a
// piece of the message.
type wantError struct {
	rule, field, contains string
}

func TestCompileCEL(t *testing.T) {
	e := env(t)
	cases := []struct {
		name  string
		kinds []v1alpha1.PolicyMatchKind
		rule  v1alpha1.ValidationPolicyRule
		// params is spec.params' JSON, when set.
		params string
		want   []wantError
	}{
		{name: "compiles against every kind",
			kinds: kinds("Provider", "AgentRuntime"),
			rule:  v1alpha1.ValidationPolicyRule{ID: "ok", CEL: "object.metadata.name.size() < 40 && (oldObject == null || oldObject.metadata.name == object.metadata.name)"}},
		{name: "labels, namespaceObject and params",
			kinds:  kinds("Provider"),
			params: `{"team": "a", "max": 3}`,
			rule:   v1alpha1.ValidationPolicyRule{ID: "vars", CEL: "params.team in object.metadata.labels && namespaceObject.metadata.name != '' && params.max > 1"}},
		{name: "unknown field on one of the kinds",
			kinds: kinds("ToolRegistry", "Provider"),
			rule:  v1alpha1.ValidationPolicyRule{ID: "handlers", CEL: "size(object.spec.handlers) > 0"},
			want:  []wantError{{"policy/p/handlers", "spec.rules[0].cel", "does not compile for kind Provider: ERROR: <input>:1:17: undefined field 'handlers'"}}},
		{name: "not a bool",
			kinds: kinds("Provider"),
			rule:  v1alpha1.ValidationPolicyRule{ID: "str", CEL: "object.spec.model"},
			want:  []wantError{{"policy/p/str", "spec.rules[0].cel", "must evaluate to bool, but evaluates to string for kind Provider"}}},
		{name: "estimated cost over the per-expression limit",
			kinds: kinds("Provider"),
			rule:  v1alpha1.ValidationPolicyRule{ID: "costly", CEL: "object.metadata.annotations.all(a, object.metadata.annotations.all(b, object.metadata.annotations.all(c, a != b || b != c)))"},
			want:  []wantError{{"policy/p/costly", "spec.rules[0].cel", "exceeds the limit 10000000 per expression"}}},
		{name: "messageExpression gives a string",
			kinds: kinds("Provider"),
			rule:  v1alpha1.ValidationPolicyRule{ID: "msg", CEL: "object.spec.model != ''", MessageExpression: "'model of ' + object.metadata.name + ' is empty'"}},
		{name: "messageExpression not a string",
			kinds: kinds("Provider"),
			rule:  v1alpha1.ValidationPolicyRule{ID: "msg", CEL: "true", MessageExpression: "1 + 1"},
			want:  []wantError{{"policy/p/msg", "spec.rules[0].messageExpression", "must evaluate to string, but evaluates to int"}}},
		{name: "syntax error",
			kinds: kinds("Provider"),
			rule:  v1alpha1.ValidationPolicyRule{ID: "syntax", CEL: "object.spec.model =="},
			want:  []wantError{{"policy/p/syntax", "spec.rules[0].cel", "Syntax error"}}},
		{name: "allowNondeterministic on CEL",
			kinds: kinds("Provider"),
			rule:  v1alpha1.ValidationPolicyRule{ID: "nd", CEL: "true", AllowNondeterministic: true},
			want:  []wantError{{"policy/p/nd", "spec.rules[0].allowNondeterministic", "[validationpolicy/cel-nondeterministic]"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := policy(tc.kinds, tc.rule)
			if tc.params != "" {
				p.Spec.Params = &runtime.RawExtension{Raw: []byte(tc.params)}
			}
			assertCompile(t, e.Compile(p), tc.want)
		})
	}
}

func TestCompileRego(t *testing.T) {
	e := env(t)
	const ok = `package omnia.model
violation contains {"msg": "set a model", "field": "spec.model"} if {
	input.object.spec.model == ""
}`
	cases := []struct {
		name string
		rule v1alpha1.ValidationPolicyRule
		want []wantError
	}{
		{name: "a violation set", rule: v1alpha1.ValidationPolicyRule{ID: "ok", Rego: ok}},
		{name: "syntax error",
			rule: v1alpha1.ValidationPolicyRule{ID: "syntax", Rego: "package p\nviolation contains x if {"},
			want: []wantError{{"policy/p/syntax", "spec.rules[0].rego", "does not parse as Rego v1"}}},
		{name: "v0 syntax is refused",
			rule: v1alpha1.ValidationPolicyRule{ID: "v0", Rego: "package p\nviolation[x] { x := {\"msg\": \"m\"} }"},
			want: []wantError{{"policy/p/v0", "spec.rules[0].rego", "does not parse as Rego v1"}}},
		{name: "http.send",
			rule: v1alpha1.ValidationPolicyRule{ID: "http", Rego: "package p\nviolation contains {\"msg\": r.body} if { r := http.send({\"method\": \"get\", \"url\": \"http://example.com\"}) }"},
			want: []wantError{{"policy/p/http", "spec.rules[0].rego", "http.send (policies may not reach the network)"}}},
		{name: "net.lookup_ip_addr",
			rule: v1alpha1.ValidationPolicyRule{ID: "dns", Rego: "package p\nviolation contains {\"msg\": \"x\"} if { net.lookup_ip_addr(\"example.com\") }"},
			want: []wantError{{"policy/p/dns", "spec.rules[0].rego", "net.lookup_ip_addr (policies may not reach the network)"}}},
		{name: "time.now_ns without allowNondeterministic",
			rule: v1alpha1.ValidationPolicyRule{ID: "clock", Rego: "package p\nviolation contains {\"msg\": \"late\"} if { time.now_ns() > 0 }"},
			want: []wantError{{"policy/p/clock", "spec.rules[0].rego", "time.now_ns (its answer changes between evaluations"}}},
		{name: "time.now_ns with allowNondeterministic",
			rule: v1alpha1.ValidationPolicyRule{ID: "clock", Rego: "package p\nviolation contains {\"msg\": \"late\"} if { time.now_ns() < 0 }", AllowNondeterministic: true}},
		{name: "opa.runtime even with allowNondeterministic",
			rule: v1alpha1.ValidationPolicyRule{ID: "runtime", Rego: "package p\nviolation contains {\"msg\": \"x\"} if { opa.runtime().env.HOME }", AllowNondeterministic: true},
			want: []wantError{{"policy/p/runtime", "spec.rules[0].rego", "opa.runtime (it exposes the operator's environment)"}}},
		{name: "no violation rule",
			rule: v1alpha1.ValidationPolicyRule{ID: "none", Rego: "package p\ndeny contains \"x\" if { true }"},
			want: []wantError{{"policy/p/none", "spec.rules[0].rego", "must define `violation`"}}},
		{name: "violation that is not a set",
			rule: v1alpha1.ValidationPolicyRule{ID: "single", Rego: "package p\nviolation := {\"msg\": \"x\"}"},
			want: []wantError{{"policy/p/single", "spec.rules[0].rego", "must define `violation`"}}},
		{name: "messageExpression on Rego",
			rule: v1alpha1.ValidationPolicyRule{ID: "msgexpr", Rego: ok, MessageExpression: "'x'"},
			want: []wantError{{"policy/p/msgexpr", "spec.rules[0].messageExpression", "[validationpolicy/rego-message]"}}},
		{name: "undefined reference",
			rule: v1alpha1.ValidationPolicyRule{ID: "undef", Rego: "package p\nviolation contains {\"msg\": \"x\"} if { no_such_function(1) }"},
			want: []wantError{{"policy/p/undef", "spec.rules[0].rego", "does not compile"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assertCompile(t, e.Compile(policy(kinds("Provider"), tc.rule)), tc.want)
		})
	}
}

func TestCompilePolicyShape(t *testing.T) {
	e := env(t)
	cel := v1alpha1.ValidationPolicyRule{ID: "r", CEL: "true"}
	cases := []struct {
		name string
		edit func(p *v1alpha1.ValidationPolicy)
		want []wantError
	}{
		{name: "well formed", edit: func(*v1alpha1.ValidationPolicy) {}},
		{name: "no kinds", edit: func(p *v1alpha1.ValidationPolicy) { p.Spec.MatchKinds = nil },
			want: []wantError{{"", "spec.matchKinds", "name at least one kind"}}},
		{name: "a kind policies cannot match", edit: func(p *v1alpha1.ValidationPolicy) { p.Spec.MatchKinds = kinds("Workspace") },
			want: []wantError{{"", "spec.matchKinds[0]", `"Workspace" is not a kind a policy can match`}}},
		{name: "Deny and Warn", edit: func(p *v1alpha1.ValidationPolicy) {
			p.Spec.ValidationActions = []v1alpha1.ValidationAction{"Deny", "Warn"}
		}, want: []wantError{{"", "spec.validationActions", "[validationpolicy/deny-and-warn]"}}},
		{name: "bad selector", edit: func(p *v1alpha1.ValidationPolicy) {
			p.Spec.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"bad key!": "x"}}
		}, want: []wantError{{"", "spec.objectSelector", "bad key!"}}},
		{name: "params not an object", edit: func(p *v1alpha1.ValidationPolicy) {
			p.Spec.Params = &runtime.RawExtension{Raw: []byte(`[1]`)}
		}, want: []wantError{{"", "spec.params", "must be an object"}}},
		{name: "rule id used twice", edit: func(p *v1alpha1.ValidationPolicy) { p.Spec.Rules = append(p.Spec.Rules, cel) },
			want: []wantError{{"policy/p/r", "spec.rules[1].id", "used twice"}}},
		{name: "neither language", edit: func(p *v1alpha1.ValidationPolicy) { p.Spec.Rules[0].CEL = "" },
			want: []wantError{{"policy/p/r", "spec.rules[0]", "[validationpolicy/one-language]"}}},
		{name: "bad severity", edit: func(p *v1alpha1.ValidationPolicy) { p.Spec.Rules[0].Severity = "error" },
			want: []wantError{{"policy/p/r", "spec.rules[0].severity", `"error" is not deny or warn`}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := policy(kinds("Provider"), cel)
			tc.edit(p)
			assertCompile(t, e.Compile(p), tc.want)
		})
	}
}

// TestCompiledRule checks the catalog entry a rule becomes.
func TestCompiledRule(t *testing.T) {
	p := policy(kinds("Provider", "AgentRuntime"),
		v1alpha1.ValidationPolicyRule{ID: "model-set", CEL: "object.metadata.name != ''", Message: "set a model", Condition: "ModelSet"},
		v1alpha1.ValidationPolicyRule{ID: "warned", Rego: "package p\nviolation contains {\"msg\": \"m\"} if { false }", Severity: "warn"},
	)
	p.Spec.ValidationActions = []v1alpha1.ValidationAction{"Warn", "Audit"}
	c := compiled(t, env(t), p)
	if c.Name != "p" || c.Generation != 3 || len(c.Rules) != 2 {
		t.Fatalf("compiled %s gen %d with %d rules", c.Name, c.Generation, len(c.Rules))
	}
	r := c.Rules[0]
	if r.ID != "policy/p/model-set" || r.Stage != rules.StageAdmission || r.Severity != rules.SeverityDeny ||
		r.Source != rules.SourcePolicy || r.Spec != "policies.md" || r.Condition != "ModelSet" ||
		strings.Join(r.Kinds, ",") != "Provider,AgentRuntime" {
		t.Errorf("rule 0 = %+v", r)
	}
	if !strings.HasPrefix(r.Doc, "ValidationPolicy p rule model-set (cel)") || !strings.Contains(r.Doc, "set a model") {
		t.Errorf("doc %q", r.Doc)
	}
	if a := r.AdmissionActions; a == nil || a.Deny || !a.Warn || !a.Audit {
		t.Errorf("actions %+v", a)
	}
	if c.Rules[1].Severity != rules.SeverityWarn || !strings.Contains(c.Rules[1].Doc, "(rego)") {
		t.Errorf("rule 1 = %+v", c.Rules[1])
	}
	// The default validationActions is [Deny].
	p.Spec.ValidationActions = nil
	if a := compiled(t, env(t), p).Rules[0].AdmissionActions; !a.Deny || a.Warn || a.Audit {
		t.Errorf("default actions %+v", a)
	}
}

func TestCompileBoundsErrors(t *testing.T) {
	var rs []v1alpha1.ValidationPolicyRule
	for i := range 64 {
		rs = append(rs, v1alpha1.ValidationPolicyRule{ID: "r" + strings.Repeat("a", i%5) + string(rune('a'+i%26)) + string(rune('a'+i/26)), CEL: "object.spec.nosuch"})
	}
	c := env(t).Compile(policy(kinds("Provider", "AgentRuntime", "ToolRegistry"), rs...))
	if len(c.Errors) != maxRuleErrors || !strings.Contains(c.Errors[maxRuleErrors-1].Message, "more errors not shown") {
		t.Fatalf("%d errors, last %+v", len(c.Errors), c.Errors[len(c.Errors)-1])
	}
	if len(c.Rules) != 0 {
		t.Errorf("a policy with errors has %d rules", len(c.Rules))
	}
}

func assertCompile(t *testing.T, c *Compiled, want []wantError) {
	t.Helper()
	if len(want) == 0 {
		if len(c.Errors) > 0 {
			t.Fatalf("unexpected compile errors: %+v", c.Errors)
		}
		if len(c.Rules) == 0 {
			t.Fatalf("no rules compiled")
		}
		return
	}
	if len(c.Rules) != 0 {
		t.Errorf("a policy with errors has %d rules in force", len(c.Rules))
	}
	if len(c.Errors) != len(want) {
		t.Fatalf("got %d errors, want %d: %+v", len(c.Errors), len(want), c.Errors)
	}
	for i, w := range want {
		got := c.Errors[i]
		if got.Rule != w.rule || got.Field != w.field || !strings.Contains(got.Message, w.contains) {
			t.Errorf("error %d = %+v, want rule %q field %q containing %q", i, got, w.rule, w.field, w.contains)
		}
	}
}
