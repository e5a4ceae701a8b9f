package admission_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/admission"
	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/policies"
	"github.com/altairalabs/omnia/rules"
)

// Policy rules at admission, with hand-made policy rules (as policies.Env
// compiles them: ID policy/<policy>/<rule>, admission stage, the policy's
// validationActions) put in a policies.Store the handler takes its catalog
// from.

const (
	testPolicy   = "team-rules"
	rulePackName = "policy/team-rules/pack-name"
	// packNameField is where the policy rule's finding is.
	packNameField = "spec.promptPackRef.name"
)

// packNameRule finds an AgentRuntime whose promptPackRef names the pack
// "support" (the clean agent does), bound by actions; match, when set, is
// the policy's selector.
func packNameRule(actions rules.AdmissionActions, match func(rules.Input) bool) rules.Rule {
	return rules.Rule{
		ID: rulePackName, Kinds: []string{"AgentRuntime"}, Stage: rules.StageAdmission, Severity: rules.SeverityDeny,
		Doc:              "agents may not use the shared support pack",
		AdmissionActions: &actions,
		Match:            match,
		Check: func(in rules.Input) field.ErrorList {
			a, ok := in.Object.(*v1alpha1.AgentRuntime)
			if !ok || a.Spec.PromptPackRef == nil || a.Spec.PromptPackRef.Name != "support" {
				return nil
			}
			return field.ErrorList{field.Invalid(field.NewPath("spec", "promptPackRef", "name"), "support", "the shared support pack is retired: name your team's pack")}
		},
	}
}

// policyStore returns a Store holding the policy with rule.
func policyStore(t testing.TB, rule rules.Rule) *policies.Store {
	t.Helper()
	s := policies.NewStore(rules.Default)
	if err := s.Set(&policies.Compiled{Name: testPolicy, Generation: 1, Rules: []rules.Rule{rule}}); err != nil {
		t.Fatal(err)
	}
	return s
}

// inProd selects objects in a Namespace labelled env=prod, as a policy's
// namespaceSelector does (rules.NamespaceOf: the facts' Namespace).
func inProd(in rules.Input) bool {
	a, ok := in.Object.(*v1alpha1.AgentRuntime)
	if !ok {
		return false
	}
	ns := rules.NamespaceOf(in.Facts, a.Namespace)
	return ns != nil && ns.Labels["env"] == "prod"
}

func TestHandlerPolicyRules(t *testing.T) {
	clean := agent(t, "", "")
	// otherPack is the clean agent on another pack: no policy finding.
	otherPack := []byte(strings.Replace(string(clean), `"name":"support"}`, `"name":"billing"}`, 1))
	if string(otherPack) == string(clean) {
		t.Fatal("the clean agent's promptPackRef was not replaced")
	}
	labelled := withMeta(t, clean, func(m map[string]any) { m["labels"] = map[string]any{"team": "support"} })

	deny := rules.AdmissionActions{Deny: true}
	store := func(actions rules.AdmissionActions, match func(rules.Input) bool) func(*admission.Config) {
		return func(c *admission.Config) { c.Policies = policyStore(t, packNameRule(actions, match)) }
	}
	both := func(fs ...func(*admission.Config)) func(*admission.Config) {
		return func(c *admission.Config) {
			for _, f := range fs {
				f(c)
			}
		}
	}
	namespaces := func(c *admission.Config) {
		c.NamespaceLabels = func(_ context.Context, ns string) (map[string]string, error) {
			switch ns {
			case "prod":
				return map[string]string{"env": "prod"}, nil
			case "dev":
				return map[string]string{"env": "dev"}, nil
			}
			return nil, errors.New("the cache has not synced")
		}
	}
	refused := []cause{{packNameField, rulePackName}}

	runHandlerCases(t, []handlerCase{
		{
			name:         "Deny: a deny policy finding refuses, with its rule ID and field",
			configure:    store(deny, nil),
			req:          reviewRequest{namespace: "agents", name: "support", object: clean},
			wantCode:     http.StatusUnprocessableEntity,
			wantCauses:   refused,
			wantDecision: admission.OutcomeDenied,
			wantCounts:   map[string]float64{rulePackName + "|denied": 1},
		},
		{
			name:         "Deny: an object the rule does not find is admitted",
			configure:    store(deny, nil),
			req:          reviewRequest{namespace: "agents", name: "support", object: otherPack},
			wantAllowed:  true,
			wantDecision: admission.OutcomeAllowed,
		},
		{
			name:         "Warn: the finding is a warning",
			configure:    store(rules.AdmissionActions{Warn: true}, nil),
			req:          reviewRequest{namespace: "agents", name: "support", object: clean},
			wantAllowed:  true,
			wantWarnings: []string{rulePackName},
			wantDecision: admission.OutcomeWarned,
			wantCounts:   map[string]float64{rulePackName + "|warned": 1},
		},
		{
			name:         "Audit alone: recorded as an audit annotation, never warned nor refused",
			configure:    store(rules.AdmissionActions{Audit: true}, nil),
			req:          reviewRequest{namespace: "agents", name: "support", object: clean},
			wantAllowed:  true,
			wantAudit:    []string{"finding-policy.team-rules.pack-name"},
			wantDecision: admission.OutcomeAudited,
			wantCounts:   map[string]float64{rulePackName + "|audited": 1},
		},
		{
			name:         "Deny and Audit: refused, and the finding is an audit annotation too",
			configure:    store(rules.AdmissionActions{Deny: true, Audit: true}, nil),
			req:          reviewRequest{namespace: "agents", name: "support", object: clean},
			wantCode:     http.StatusUnprocessableEntity,
			wantCauses:   refused,
			wantAudit:    []string{"finding-policy.team-rules.pack-name"},
			wantDecision: admission.OutcomeDenied,
			wantCounts:   map[string]float64{rulePackName + "|denied": 1},
		},
		{
			name:         "Warn and Audit: a warning and an audit annotation",
			configure:    store(rules.AdmissionActions{Warn: true, Audit: true}, nil),
			req:          reviewRequest{namespace: "agents", name: "support", object: clean},
			wantAllowed:  true,
			wantWarnings: []string{rulePackName},
			wantAudit:    []string{"finding-policy.team-rules.pack-name"},
			wantDecision: admission.OutcomeWarned,
			wantCounts:   map[string]float64{rulePackName + "|warned": 1},
		},
		{
			name:         "the namespace mode applies on top: Deny in warn mode warns",
			configure:    both(store(deny, nil), func(c *admission.Config) { c.Mode = admission.ModeWarn }),
			req:          reviewRequest{namespace: "agents", name: "support", object: clean},
			wantAllowed:  true,
			wantWarnings: []string{rulePackName},
			wantDecision: admission.OutcomeWarned,
			wantCounts:   map[string]float64{rulePackName + "|warned": 1},
		},
		{
			name:         "the namespace mode applies on top: Deny in audit mode is recorded only",
			configure:    both(store(deny, nil), func(c *admission.Config) { c.Mode = admission.ModeAudit }),
			req:          reviewRequest{namespace: "agents", name: "support", object: clean},
			wantAllowed:  true,
			wantAudit:    []string{"finding-policy.team-rules.pack-name"},
			wantDecision: admission.OutcomeAudited,
			wantCounts:   map[string]float64{rulePackName + "|audited": 1},
		},
		{
			name:         "a --rule-severity override applies to a policy rule: warn",
			configure:    both(store(deny, nil), func(c *admission.Config) { c.Severity = map[string]rules.Severity{rulePackName: rules.SeverityWarn} }),
			req:          reviewRequest{namespace: "agents", name: "support", object: clean},
			wantAllowed:  true,
			wantWarnings: []string{rulePackName},
			wantDecision: admission.OutcomeWarned,
			wantCounts:   map[string]float64{rulePackName + "|warned": 1},
		},
		{
			name:         "namespaceSelector: an object in a selected Namespace is judged",
			configure:    both(store(deny, inProd), namespaces),
			req:          reviewRequest{namespace: "prod", name: "support", object: withMeta(t, clean, func(m map[string]any) { m["namespace"] = "prod" })},
			wantCode:     http.StatusUnprocessableEntity,
			wantCauses:   refused,
			wantDecision: admission.OutcomeDenied,
			wantCounts:   map[string]float64{rulePackName + "|denied": 1},
		},
		{
			name:         "namespaceSelector: an object in another Namespace is not",
			configure:    both(store(deny, inProd), namespaces),
			req:          reviewRequest{namespace: "dev", name: "support", object: withMeta(t, clean, func(m map[string]any) { m["namespace"] = "dev" })},
			wantAllowed:  true,
			wantDecision: admission.OutcomeAllowed,
		},
		{
			name:          "namespaceSelector: a Namespace that cannot be looked up fails closed in enforce mode, naming the policy rule",
			configure:     both(store(deny, inProd), namespaces),
			req:           reviewRequest{namespace: "agents", name: "support", object: clean},
			wantCode:      http.StatusServiceUnavailable,
			wantErrorText: rulePackName,
			wantDecision:  admission.OutcomeError,
		},
		{
			name:         "update ratchet: a policy finding the stored object already has is a ratcheted warning",
			configure:    store(deny, nil),
			req:          reviewRequest{op: admissionv1.Update, namespace: "agents", name: "support", object: labelled, old: clean},
			wantAllowed:  true,
			wantWarnings: []string{rulePackName},
			wantDecision: admission.OutcomeWarned,
			wantCounts:   map[string]float64{rulePackName + "|ratcheted": 1},
		},
		{
			name:         "update ratchet: a policy finding the update adds refuses",
			configure:    store(deny, nil),
			req:          reviewRequest{op: admissionv1.Update, namespace: "agents", name: "support", object: clean, old: otherPack},
			wantCode:     http.StatusUnprocessableEntity,
			wantCauses:   refused,
			wantDecision: admission.OutcomeDenied,
			wantCounts:   map[string]float64{rulePackName + "|denied": 1},
		},
	})
}

// TestHandlerSeesPolicyChangesWithoutRestart: one handler, its Store
// changed between requests: each request is judged by the catalog in force
// when it arrives.
func TestHandlerSeesPolicyChangesWithoutRestart(t *testing.T) {
	cfg := newConfig(prometheus.NewRegistry())
	store := policies.NewStore(rules.Default)
	cfg.Policies = store
	h := httpHandler(t, "AgentRuntime", cfg)
	body := reviewBody(t, reviewRequest{namespace: "agents", name: "support", object: agent(t, "", "")})
	allowed := func() bool {
		t.Helper()
		_, raw := serve(h, body)
		resp, err := decodeResponse(raw)
		if err != nil {
			t.Fatal(err)
		}
		return resp.Allowed
	}
	if !allowed() {
		t.Fatal("refused before any policy")
	}
	if err := store.Set(&policies.Compiled{Name: testPolicy, Generation: 1, Rules: []rules.Rule{packNameRule(rules.AdmissionActions{Deny: true}, nil)}}); err != nil {
		t.Fatal(err)
	}
	if allowed() {
		t.Error("admitted after the policy was set")
	}
	// A new generation that no longer compiles takes the old rules out.
	if err := store.Set(&policies.Compiled{Name: testPolicy, Generation: 2, Errors: []v1alpha1.ValidationPolicyRuleError{{Rule: rulePackName, Field: "spec.rules[0].cel", Message: "bad"}}}); err != nil {
		t.Fatal(err)
	}
	if !allowed() {
		t.Error("refused by a policy whose current generation does not compile")
	}
	if err := store.Set(&policies.Compiled{Name: testPolicy, Generation: 3, Rules: []rules.Rule{packNameRule(rules.AdmissionActions{Deny: true}, nil)}}); err != nil {
		t.Fatal(err)
	}
	if allowed() {
		t.Error("admitted after the policy was fixed")
	}
	store.Delete(testPolicy)
	if !allowed() {
		t.Error("refused after the policy was deleted")
	}
}

// fakeCompiler compiles a policy to an error for each rule whose CEL is
// "bad" (standing in for a CEL type error), else to nothing.
type fakeCompiler struct{}

func (fakeCompiler) Compile(p *v1alpha1.ValidationPolicy) *policies.Compiled {
	c := &policies.Compiled{Name: p.Name, Generation: p.Generation}
	for i, r := range p.Spec.Rules {
		if r.CEL == "bad" {
			c.Errors = append(c.Errors, v1alpha1.ValidationPolicyRuleError{
				Rule:    rules.PolicyRuleID(p.Name, r.ID),
				Field:   field.NewPath("spec", "rules").Index(i).Child("cel").String(),
				Message: "undefined field 'nope'",
			})
		}
	}
	return c
}

// policyJSON is a ValidationPolicy with one CEL rule per expression.
func policyJSON(t *testing.T, name string, generation int64, finalizers []string, deleting bool, cels ...string) []byte {
	t.Helper()
	y := "apiVersion: omnia.altairalabs.ai/v1alpha1\nkind: ValidationPolicy\nmetadata:\n  name: " + name + "\n"
	y += fmt.Sprintf("  generation: %d\n", generation)
	if len(finalizers) > 0 {
		y += "  finalizers: [" + strings.Join(finalizers, ",") + "]\n"
	}
	if deleting {
		y += "  deletionTimestamp: \"2026-01-01T00:00:00Z\"\n"
	}
	y += "spec:\n  matchKinds: [AgentRuntime]\n  validationActions: [Deny]\n  rules:\n"
	for i, c := range cels {
		y += "  - id: r" + string(rune('a'+i)) + "\n    cel: \"" + c + "\"\n"
	}
	return manifest(t, y)
}

func TestPolicyWebhook(t *testing.T) {
	good := policyJSON(t, "p", 1, nil, false, "true")
	bad := policyJSON(t, "p", 1, nil, false, "true", "bad", "bad")
	badLabelled := withMeta(t, bad, func(m map[string]any) { m["labels"] = map[string]any{"team": "platform"} })
	badHeld := policyJSON(t, "p", 1, []string{"example.com/hold"}, true, "bad")
	badReleased := policyJSON(t, "p", 1, nil, true, "bad")
	badGen2 := policyJSON(t, "p", 2, nil, false, "true", "bad")

	for _, tc := range []struct {
		name        string
		compiler    admission.PolicyCompiler
		req         reviewRequest
		wantAllowed bool
		wantCode    int32
		wantCauses  []cause
	}{
		{name: "a policy that compiles is admitted", compiler: fakeCompiler{},
			req: reviewRequest{name: "p", object: good}, wantAllowed: true},
		{name: "a policy that does not compile is refused, each error a cause with its rule ID and field", compiler: fakeCompiler{},
			req:        reviewRequest{name: "p", object: bad},
			wantCode:   http.StatusUnprocessableEntity,
			wantCauses: []cause{{"spec.rules[1].cel", "policy/p/rb"}, {"spec.rules[2].cel", "policy/p/rc"}}},
		{name: "an update whose spec does not compile is refused", compiler: fakeCompiler{},
			req:        reviewRequest{op: admissionv1.Update, name: "p", object: badGen2, old: good},
			wantCode:   http.StatusUnprocessableEntity,
			wantCauses: []cause{{"spec.rules[1].cel", "policy/p/rb"}}},
		{name: "a metadata-only update of a policy that no longer compiles is admitted", compiler: fakeCompiler{},
			req: reviewRequest{op: admissionv1.Update, name: "p", object: badLabelled, old: bad}, wantAllowed: true},
		{name: "removing the finalizer of a deleted policy that no longer compiles is admitted", compiler: fakeCompiler{},
			req: reviewRequest{op: admissionv1.Update, name: "p", object: badReleased, old: badHeld}, wantAllowed: true},
		{name: "a delete is not judged", compiler: fakeCompiler{},
			req: reviewRequest{op: admissionv1.Delete, name: "p", old: bad}, wantAllowed: true},
		{name: "without a compiler every policy is refused (fail closed)", compiler: nil,
			req: reviewRequest{name: "p", object: good}, wantCode: http.StatusServiceUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := newConfig(prometheus.NewRegistry())
			cfg.PolicyCompiler = tc.compiler
			tc.req.kind = admission.PolicyKind
			_, raw := serve(httpHandler(t, admission.PolicyKind, cfg), reviewBody(t, tc.req))
			resp, err := decodeResponse(raw)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Allowed != tc.wantAllowed {
				t.Fatalf("allowed %v, want %v: %s", resp.Allowed, tc.wantAllowed, raw)
			}
			if tc.wantAllowed {
				return
			}
			if resp.Result.Code != tc.wantCode {
				t.Errorf("code %d, want %d: %s", resp.Result.Code, tc.wantCode, resp.Result.Message)
			}
			if len(tc.wantCauses) == 0 {
				return
			}
			if resp.Result.Reason != "Invalid" || resp.Result.Details == nil || resp.Result.Details.Kind != admission.PolicyKind || resp.Result.Details.Name != "p" {
				t.Fatalf("result %+v: want Invalid naming the ValidationPolicy p", resp.Result)
			}
			var got []cause
			for _, c := range resp.Result.Details.Causes {
				rule := strings.TrimPrefix(strings.SplitN(c.Message, "]", 2)[0], "[")
				got = append(got, cause{c.Field, rule})
				if !strings.Contains(resp.Result.Message, "["+rule+"] "+c.Field+": ") {
					t.Errorf("message %q does not list [%s] %s", resp.Result.Message, rule, c.Field)
				}
			}
			if len(got) != len(tc.wantCauses) {
				t.Fatalf("causes %+v, want %+v", got, tc.wantCauses)
			}
			for i := range got {
				if got[i] != tc.wantCauses[i] {
					t.Errorf("cause %d = %+v, want %+v", i, got[i], tc.wantCauses[i])
				}
			}
			if n := testutil.ToFloat64(cfg.Metrics.Decisions.WithLabelValues(admission.PolicyKind, admission.OutcomeDenied)); tc.wantCode == http.StatusUnprocessableEntity && n != 1 {
				t.Errorf("denied decisions %v, want 1", n)
			}
		})
	}
}

// TestPolicyDenialBounded: at most MaxPolicyCauses causes, the rest counted
// in the message.
func TestPolicyDenialBounded(t *testing.T) {
	errs := make([]v1alpha1.ValidationPolicyRuleError, admission.MaxPolicyCauses+7)
	for i := range errs {
		errs[i] = v1alpha1.ValidationPolicyRuleError{Rule: "policy/p/r", Field: "spec.rules[0].cel", Message: "bad"}
	}
	resp := admission.PolicyDenial("p", errs)
	if n := len(resp.Result.Details.Causes); n != admission.MaxPolicyCauses {
		t.Errorf("%d causes, want %d", n, admission.MaxPolicyCauses)
	}
	if !strings.Contains(resp.Result.Message, "and 7 more errors") {
		t.Errorf("message does not count the errors left out: %q", resp.Result.Message[len(resp.Result.Message)-60:])
	}
}
