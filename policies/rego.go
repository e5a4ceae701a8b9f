package policies

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxRegoFindings bounds the findings one Rego rule reports on one object;
// one more finding says how many were left out.
const MaxRegoFindings = 100

// regoRule is a compiled Rego policy rule: its query prepared once.
type regoRule struct {
	query rego.PreparedEvalQuery
}

// compileRego parses module (Rego v1), checks it defines a `violation` set
// and calls no removed builtin, and prepares `data.<package>.violation`.
func (e *Env) compileRego(ruleIdx int, ruleID, module string, allowNondeterministic bool) (*regoRule, []fieldError) {
	at := fmt.Sprintf("spec.rules[%d].rego", ruleIdx)
	fail := func(format string, args ...any) (*regoRule, []fieldError) {
		return nil, []fieldError{{field: at, msg: fmt.Sprintf(format, args...)}}
	}
	caps := e.rego.caps(allowNondeterministic)
	mod, err := ast.ParseModuleWithOpts(ruleID+".rego", module, ast.ParserOptions{RegoVersion: ast.RegoV1, Capabilities: caps})
	if err != nil {
		return fail("does not parse as Rego v1: %s", oneLine(err.Error()))
	}
	if mod == nil || mod.Package == nil {
		return fail("the module has no package")
	}
	if bad := e.rego.forbidden(mod, allowNondeterministic); len(bad) > 0 {
		return fail("calls builtins policies may not use: %s", strings.Join(bad, ", "))
	}
	if !definesViolationSet(mod) {
		return fail("the module must define `violation` as a set of {\"msg\": string, \"field\": string} (`violation contains {...} if { ... }`)")
	}
	q := mod.Package.Path.String() + ".violation"
	pq, err := rego.New(
		rego.Query(q),
		rego.ParsedModule(mod),
		rego.Capabilities(caps),
		rego.SetRegoVersion(ast.RegoV1),
		rego.StrictBuiltinErrors(true),
	).PrepareForEval(context.Background())
	if err != nil {
		return fail("does not compile: %s", oneLine(err.Error()))
	}
	return &regoRule{query: pq}, nil
}

// definesViolationSet reports whether mod has a multi-value rule named
// violation (`violation contains x if ...`).
func definesViolationSet(mod *ast.Module) bool {
	for _, r := range mod.Rules {
		ref := r.Head.Ref()
		if len(ref) == 1 && ref[0].Equal(ast.VarTerm("violation")) && r.Head.RuleKind() == ast.MultiValue {
			return true
		}
	}
	return false
}

// eval runs the prepared query on one object within the Rego timeout.
// Each violation is a finding at its field (default spec) with its msg (or
// the rule's message); a timeout or an error is one finding at spec.
func (r *regoRule) eval(e *Env, in *evalInput, params paramsValue, message string) (field.ErrorList, bool) {
	input := map[string]any{
		"object":          in.object,
		"oldObject":       nil,
		"namespaceObject": nil,
		"params":          params.value,
	}
	if in.oldObject != nil {
		input["oldObject"] = in.oldObject
	}
	if in.namespace != nil {
		input["namespaceObject"] = in.namespace
	}
	timeout := e.opts.RegoTimeout
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	rs, err := r.query.Eval(ctx, rego.EvalInput(input))
	if err != nil {
		msg := "evaluation failed: " + oneLine(err.Error())
		if errors.Is(ctx.Err(), context.DeadlineExceeded) || topdown.IsCancel(err) {
			msg = fmt.Sprintf("evaluation failed: timed out after %s", timeout)
		}
		return field.ErrorList{&field.Error{Type: field.ErrorTypeInvalid, Field: "spec", Detail: msg}}, true
	}
	var out field.ErrorList
	if len(rs) == 0 || len(rs[0].Expressions) == 0 {
		return nil, false
	}
	set, ok := rs[0].Expressions[0].Value.([]any)
	if !ok {
		return field.ErrorList{&field.Error{Type: field.ErrorTypeInvalid, Field: "spec", Detail: fmt.Sprintf("evaluation failed: violation is %T, not a set", rs[0].Expressions[0].Value)}}, true
	}
	for i, v := range set {
		if i == MaxRegoFindings {
			out = append(out, &field.Error{Type: field.ErrorTypeInvalid, Field: "spec", Detail: fmt.Sprintf("%d more violations not shown (at most %d per rule per object)", len(set)-MaxRegoFindings, MaxRegoFindings)})
			break
		}
		out = append(out, violationError(v, message))
	}
	return out, false
}

// violationError turns one member of the violation set into a finding.
func violationError(v any, message string) *field.Error {
	path, msg := "spec", message
	obj, _ := v.(map[string]any)
	if f, ok := obj["field"].(string); ok && f != "" {
		path = f
	}
	if m, ok := obj["msg"].(string); ok && m != "" {
		msg = m
	}
	if msg == "" {
		msg = "violation without a msg"
		if obj == nil {
			msg = fmt.Sprintf("violation %v is not an object with msg and field", v)
		}
	}
	return &field.Error{Type: field.ErrorTypeInvalid, Field: path, Detail: msg}
}
