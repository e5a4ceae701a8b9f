package policies

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// maxRuleErrors bounds Compiled.Errors as the status field is bounded
// (status.ruleErrors maxItems).
const maxRuleErrors = 128

// fieldError is one compile error at a policy field, before it is tied to
// its rule's ID.
type fieldError struct {
	field string
	msg   string
}

// paramsValue is a policy's spec.params, decoded once: value for the
// evaluators (nil when omitted), size (its JSON length) for CEL's cost
// estimate.
type paramsValue struct {
	value any
	size  int
	// cel is value as a CEL value, built once (CEL values are immutable).
	cel ref.Val
}

// Compile compiles p: each CEL rule type-checked against the structural
// schema of every kind in matchKinds and cost-estimated, each Rego module
// parsed (v1 syntax), capability-checked and prepared once. It never panics
// on any input; every problem is an entry of Compiled.Errors naming the rule
// and the field.
func (e *Env) Compile(p *v1alpha1.ValidationPolicy) (out *Compiled) {
	if p == nil {
		return &Compiled{Errors: []v1alpha1.ValidationPolicyRuleError{{Field: "metadata", Message: "no policy"}}}
	}
	out = &Compiled{Name: p.Name, Generation: p.Generation}
	defer func() {
		// A bug in a library must not take the operator down with a
		// user's policy: report it as the policy's error.
		if r := recover(); r != nil {
			out.Rules = nil
			out.Errors = append(out.Errors, v1alpha1.ValidationPolicyRuleError{Field: "spec", Message: fmt.Sprintf("internal error compiling the policy: %v", r)})
		}
		out.Errors = boundErrors(out.Errors)
	}()
	c := &compilation{env: e, policy: p, out: out}
	c.compile()
	if len(out.Errors) > 0 {
		out.Rules = nil
	}
	return out
}

// compilation is the state of one Compile.
type compilation struct {
	env     *Env
	policy  *v1alpha1.ValidationPolicy
	out     *Compiled
	kinds   []string
	actions *rules.AdmissionActions
	params  paramsValue
	match   *matcher
	celCost uint64
}

func (c *compilation) errorf(ruleID, fieldPath, format string, args ...any) {
	c.out.Errors = append(c.out.Errors, v1alpha1.ValidationPolicyRuleError{Rule: ruleID, Field: fieldPath, Message: fmt.Sprintf(format, args...)})
}

func (c *compilation) compile() {
	p := c.policy
	if p.Name == "" {
		c.errorf("", "metadata.name", "the policy has no name")
		return
	}
	if !rules.IsPolicyRuleID(rules.PolicyRuleID(p.Name, "r")) {
		c.errorf("", "metadata.name", "%q is not a DNS subdomain name", p.Name)
		return
	}
	c.compileKinds()
	c.compileActions()
	c.compileParams()
	var selErrs []fieldError
	c.match, selErrs = newMatcher(p.Spec.NamespaceSelector, p.Spec.ObjectSelector)
	for _, fe := range selErrs {
		c.errorf("", fe.field, "%s", fe.msg)
	}
	if len(p.Spec.Rules) == 0 {
		c.errorf("", "spec.rules", "a policy needs at least one rule")
	}
	if len(p.Spec.Rules) > 64 {
		c.errorf("", "spec.rules", "a policy has at most 64 rules, this one has %d", len(p.Spec.Rules))
		return
	}
	seen := map[string]bool{}
	for i := range p.Spec.Rules {
		r := &p.Spec.Rules[i]
		id := rules.PolicyRuleID(p.Name, r.ID)
		if seen[r.ID] {
			c.errorf(id, fmt.Sprintf("spec.rules[%d].id", i), "rule id %q is used twice", r.ID)
			continue
		}
		seen[r.ID] = true
		if rule, ok := c.compileRule(i, r); ok {
			c.out.Rules = append(c.out.Rules, rule)
		}
	}
}

func (c *compilation) compileKinds() {
	kinds := c.policy.Spec.MatchKinds
	if len(kinds) == 0 {
		c.errorf("", "spec.matchKinds", "name at least one kind: %s", strings.Join(MatchKinds(), ", "))
		return
	}
	for i, k := range kinds {
		if c.env.kinds[string(k)] == nil {
			c.errorf("", fmt.Sprintf("spec.matchKinds[%d]", i), "%q is not a kind a policy can match (%s)", k, strings.Join(MatchKinds(), ", "))
			continue
		}
		if !slices.Contains(c.kinds, string(k)) {
			c.kinds = append(c.kinds, string(k))
		}
	}
}

func (c *compilation) compileActions() {
	actions := c.policy.Spec.ValidationActions
	if len(actions) == 0 {
		actions = []v1alpha1.ValidationAction{v1alpha1.ValidationActionDeny}
	}
	a := &rules.AdmissionActions{}
	for i, act := range actions {
		switch act {
		case v1alpha1.ValidationActionDeny:
			a.Deny = true
		case v1alpha1.ValidationActionWarn:
			a.Warn = true
		case v1alpha1.ValidationActionAudit:
			a.Audit = true
		default:
			c.errorf("", fmt.Sprintf("spec.validationActions[%d]", i), "%q is not Deny, Warn or Audit", act)
		}
	}
	if a.Deny && a.Warn {
		c.errorf("", "spec.validationActions", "[validationpolicy/deny-and-warn] validationActions may not hold both Deny and Warn")
	}
	c.actions = a
}

func (c *compilation) compileParams() {
	raw := c.policy.Spec.Params
	if raw == nil || len(raw.Raw) == 0 {
		return
	}
	var v any
	// utiljson keeps whole numbers as int64, so params.replicas compares
	// with an int field as written.
	if err := utiljson.Unmarshal(raw.Raw, &v); err != nil {
		c.errorf("", "spec.params", "not valid JSON: %v", err)
		return
	}
	if _, ok := v.(map[string]any); !ok && v != nil {
		c.errorf("", "spec.params", "must be an object")
		return
	}
	c.params = paramsValue{value: v, size: len(raw.Raw), cel: types.DefaultTypeAdapter.NativeToValue(v)}
}

// compileRule compiles one rule into its catalog entry.
func (c *compilation) compileRule(i int, r *v1alpha1.ValidationPolicyRule) (rules.Rule, bool) {
	id := rules.PolicyRuleID(c.policy.Name, r.ID)
	at := func(f string) string { return fmt.Sprintf("spec.rules[%d]%s", i, f) }
	before := len(c.out.Errors)
	if !rules.IsPolicyRuleID(id) {
		c.errorf(id, at(".id"), "%q is not a kebab-case rule id", r.ID)
	}
	severity := rules.SeverityDeny
	switch r.Severity {
	case "", v1alpha1.PolicySeverity(rules.SeverityDeny):
	case v1alpha1.PolicySeverity(rules.SeverityWarn):
		severity = rules.SeverityWarn
	default:
		c.errorf(id, at(".severity"), "%q is not deny or warn", r.Severity)
	}
	if r.Message != "" && r.MessageExpression != "" {
		c.errorf(id, at(".messageExpression"), "[validationpolicy/one-message] set at most one of message and messageExpression")
	}
	fieldPath := r.FieldPath
	if fieldPath == "" {
		fieldPath = "spec"
	}
	var lang string
	var check func(*Env, *evalInput) (field.ErrorList, bool)
	switch {
	case (r.CEL == "") == (r.Rego == ""):
		c.errorf(id, at(""), "[validationpolicy/one-language] set exactly one of cel and rego")
	case r.CEL != "":
		lang = LanguageCEL
		if r.AllowNondeterministic {
			c.errorf(id, at(".allowNondeterministic"), "[validationpolicy/cel-nondeterministic] allowNondeterministic applies to Rego: CEL has no time or random functions")
		}
		cr, cost, errs := c.env.compileCEL(i, r.CEL, r.MessageExpression, c.kinds, c.params)
		for _, fe := range errs {
			c.errorf(id, fe.field, "%s", fe.msg)
		}
		if cr != nil {
			c.celCost = addCost(c.celCost, cost)
			if c.celCost > CELPolicyCostLimit {
				c.errorf(id, at(".cel"), "the policy's estimated CEL cost reaches %d with this rule, over the limit %d per policy", c.celCost, uint64(CELPolicyCostLimit))
			}
			params, message := c.params, r.Message
			check = func(e *Env, in *evalInput) (field.ErrorList, bool) {
				return cr.eval(e.kinds[in.kind], in, params, fieldPath, message)
			}
		}
	default:
		lang = LanguageRego
		if r.MessageExpression != "" {
			c.errorf(id, at(".messageExpression"), "[validationpolicy/rego-message] messageExpression is CEL: a Rego rule's violation carries its own msg, or set message")
		}
		rr, errs := c.env.compileRego(i, c.policy.Name, id, r.Rego, r.AllowNondeterministic)
		for _, fe := range errs {
			c.errorf(id, fe.field, "%s", fe.msg)
		}
		if rr != nil {
			params, message := c.params, r.Message
			check = func(e *Env, in *evalInput) (field.ErrorList, bool) {
				return rr.eval(e, in, params, message)
			}
		}
	}
	if len(c.out.Errors) > before || check == nil {
		return rules.Rule{}, false
	}
	doc := fmt.Sprintf("ValidationPolicy %s rule %s (%s): ", c.policy.Name, r.ID, lang)
	switch {
	case r.Message != "":
		doc += r.Message
	case lang == LanguageCEL:
		doc += "requires " + truncate(r.CEL, maxDocExpr)
	default:
		doc += "reports each member of the module's violation set"
	}
	return rules.Rule{
		ID:               id,
		Kinds:            append([]string(nil), c.kinds...),
		Stage:            rules.StageAdmission,
		Severity:         severity,
		Condition:        r.Condition,
		Doc:              doc,
		Spec:             "policies.md",
		Source:           rules.SourcePolicy,
		AdmissionActions: c.actions,
		Match:            c.match.matches,
		Check:            c.env.checkFunc(c.policy.Name, lang, check),
	}, true
}

// maxDocExpr bounds how much of a CEL expression a rule's Doc quotes.
const maxDocExpr = 200

// truncate shortens s to at most n bytes and marks the cut with an
// ellipsis; the cut falls on a character boundary, so a message in a status
// or an admission response stays valid UTF-8.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// checkFunc wraps a compiled rule's evaluation into a rules.Check: it
// converts the object once, tells the Observer, and turns a failure to read
// the object into a finding rather than a silent pass.
func (e *Env) checkFunc(policy, lang string, eval func(*Env, *evalInput) (field.ErrorList, bool)) rules.Check {
	observe := e.opts.Observe
	return func(in rules.Input) (errs field.ErrorList) {
		start := time.Now()
		failed := false
		defer func() {
			// A library bug on one object must not take the webhook down:
			// the object gets a finding saying the rule could not judge it.
			if r := recover(); r != nil {
				errs = field.ErrorList{finding("spec", fmt.Sprintf("evaluation failed: internal error: %v", r))}
				if observe != nil {
					observe(policy, lang, time.Since(start), true)
				}
			}
		}()
		ei, err := e.newEvalInput(in)
		switch {
		case err != nil:
			errs, failed = field.ErrorList{finding("spec", "evaluation failed: "+err.Error())}, true
		case e.kinds[ei.kind] == nil:
			// Not a kind the policy can match: the catalog never asks.
			return nil
		default:
			errs, failed = eval(e, ei)
		}
		if observe != nil {
			observe(policy, lang, time.Since(start), failed)
		}
		return errs
	}
}

// boundErrors keeps at most maxRuleErrors, the last one saying how many
// more there were.
func boundErrors(errs []v1alpha1.ValidationPolicyRuleError) []v1alpha1.ValidationPolicyRuleError {
	if len(errs) <= maxRuleErrors {
		return errs
	}
	more := len(errs) - (maxRuleErrors - 1)
	errs = errs[:maxRuleErrors-1]
	return append(errs, v1alpha1.ValidationPolicyRuleError{Field: "spec.rules", Message: fmt.Sprintf("%d more errors not shown", more)})
}

// finding is one finding of a policy rule at path: the Detail is the
// message every surface prints (the value is not repeated: it may be large
// or, in a Secret-adjacent field, not for logs).
func finding(path, msg string) *field.Error {
	return &field.Error{Type: field.ErrorTypeInvalid, Field: path, Detail: msg}
}
