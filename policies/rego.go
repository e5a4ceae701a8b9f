package policies

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

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
	// policy names the policy whose time budget the rule draws from.
	policy string
}

// regoBudgetKey keys a policy's Rego time budget in an evaluation's
// rules.Scratch.
type regoBudgetKey struct{ policy string }

// regoBudget is the deadline shared by one policy's Rego rules on one object.
type regoBudget struct{ deadline time.Time }

// compileRego parses module (Rego v1), checks it defines a `violation` set
// and calls no removed builtin, and prepares `data.<package>.violation`.
func (e *Env) compileRego(ruleIdx int, policy, ruleID, module string, allowNondeterministic bool) (*regoRule, []fieldError) {
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
	return &regoRule{query: pq, policy: policy}, nil
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

// eval runs the prepared query on one object within the Rego timeout and
// what is left of the policy's budget on this object (the budget starts
// with the policy's first Rego rule of the evaluation). Each violation is a
// finding at its field (default spec) with its msg (or the rule's message);
// a timeout, a spent budget or an error is one finding at spec.
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
	now := time.Now()
	budget := in.scratch.LoadOrStore(regoBudgetKey{r.policy}, func() any {
		return &regoBudget{deadline: now.Add(e.opts.RegoPolicyBudget)}
	}).(*regoBudget)
	if !now.Before(budget.deadline) {
		return field.ErrorList{finding("spec", fmt.Sprintf("evaluation failed: the policy's Rego rules used up their %s budget on this object before this rule ran", e.opts.RegoPolicyBudget))}, true
	}
	deadline, byBudget := now.Add(timeout), false
	if budget.deadline.Before(deadline) {
		deadline, byBudget = budget.deadline, true
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	rs, err := r.query.Eval(ctx, rego.EvalInput(input))
	if err != nil {
		msg := "evaluation failed: " + oneLine(err.Error())
		if errors.Is(ctx.Err(), context.DeadlineExceeded) || topdown.IsCancel(err) {
			msg = fmt.Sprintf("evaluation failed: timed out after %s", timeout)
			if byBudget {
				msg = fmt.Sprintf("evaluation failed: timed out at the end of the policy's %s Rego budget on this object", e.opts.RegoPolicyBudget)
			}
		}
		return field.ErrorList{finding("spec", msg)}, true
	}
	var out field.ErrorList
	if len(rs) == 0 || len(rs[0].Expressions) == 0 {
		return nil, false
	}
	set, ok := rs[0].Expressions[0].Value.([]any)
	if !ok {
		return field.ErrorList{finding("spec", fmt.Sprintf("evaluation failed: violation is %T, not a set", rs[0].Expressions[0].Value))}, true
	}
	for i, v := range set {
		if i == MaxRegoFindings {
			out = append(out, finding("spec", fmt.Sprintf("%d more violations not shown (at most %d per rule per object)", len(set)-MaxRegoFindings, MaxRegoFindings)))
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
	msg = truncate(msg, maxRegoMessage)
	return finding(path, msg)
}

// maxRegoMessage bounds a violation's msg as a rule's message is bounded
// (message maxLength): a module may build it from the object.
const maxRegoMessage = 1024
