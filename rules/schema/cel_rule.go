package schema

import (
	"fmt"
	"math"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	schemacel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
)

// The texts below are the API server's, word for word: a client maps a
// refusal to a finding by them, and the differential tests compare them.
const (
	budgetExhausted        = "validation failed due to running out of cost budget, no further validation rules will be run"
	messageBudgetExhausted = "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run"
	perCallLimitPrefix     = "operation cancelled: actual cost limit exceeded"
)

func newCELRule(r apiextensionsv1.ValidationRule, c schemacel.CompilationResult) celRule {
	// A rule is named by its message if it has one, else by its expression;
	// a failure without a usable messageExpression says the message, or
	// "failed rule: <expression>".
	named := strings.TrimSpace(r.Rule)
	failure := "failed rule: " + named
	if r.Message != "" {
		named = strings.TrimSpace(r.Message)
		failure = named
	}
	return celRule{
		compiled:          c,
		optionalOldSelf:   r.OptionalOldSelf != nil && *r.OptionalOldSelf,
		reason:            r.Reason,
		messageExpression: r.MessageExpression,
		failure:           failure,
		named:             named,
	}
}

// selfActivation resolves self and, when declared, oldSelf.
type selfActivation struct {
	self, oldSelf ref.Val
	hasOldSelf    bool
}

func (a *selfActivation) ResolveName(name string) (any, bool) {
	switch name {
	case schemacel.ScopedVarName:
		return a.self, true
	case schemacel.OldScopedVarName:
		return a.oldSelf, a.hasOldSelf
	}
	return nil, false
}

func (a *selfActivation) Parent() interpreter.Activation { return nil }

// activations are the two bindings a node's rules run with: plain (oldSelf
// is the old value, declared only on update when the node has one) and
// optional (for optionalOldSelf rules: oldSelf always declared, an optional
// that is empty on create).
func (n *celNode) activations(value, old any) (plain, optional *selfActivation) {
	self := common.UnstructuredToVal(value, n.self)
	plain = &selfActivation{self: self}
	if !n.bindsOldSelf {
		return plain, plain
	}
	optional = &selfActivation{self: self, hasOldSelf: true, oldSelf: types.OptionalNone}
	if old != nil {
		plain.oldSelf, plain.hasOldSelf = common.UnstructuredToVal(old, n.self), true
		optional.oldSelf = types.OptionalOf(plain.oldSelf)
	}
	return plain, optional
}

// evaluateRules runs the node's rules on value (old on update), reporting
// into w. Costs are charged to w's budget; running out stops the walk.
func (w *celWalk) evaluateRules(n *celNode, path *field.Path, value, old any, r ratchet) {
	if n.compileErr != nil {
		w.errs = append(w.errs, field.Invalid(path, n.schemaType, fmt.Sprintf("rule compiler initialization error: %v", n.compileErr)))
		return
	}
	if len(n.rules) == 0 {
		return
	}
	if w.budget <= 0 {
		w.fail(field.Invalid(path, n.schemaType, budgetExhausted))
		return
	}
	plain, optional := n.activations(value, old)
	for i := range n.rules {
		rule := &n.rules[i]
		c := &rule.compiled
		if c.Error != nil {
			w.errs = append(w.errs, field.Invalid(path, n.schemaType, fmt.Sprintf("rule compile error: %v", c.Error)))
			continue
		}
		if c.Program == nil {
			continue // a blank rule
		}
		// A transition rule needs an old value; with optionalOldSelf it
		// runs without one too (and sees oldSelf empty).
		if c.UsesOldSelf && old == nil && !rule.optionalOldSelf {
			continue
		}
		act := plain
		if rule.optionalOldSelf {
			act = optional
		}
		result, details, err := c.Program.ContextEval(w.ctx, act)
		if !w.charge(details, path, n.schemaType, rule) {
			return
		}
		if err != nil {
			if w.reportEvalError(err, path, n.schemaType, rule) {
				continue
			}
			return
		}
		if result == types.True {
			continue
		}
		w.reportFailure(n, rule, path, value, plain, r)
		if w.stopped() {
			return
		}
	}
}

// charge takes an evaluation's actual cost from the budget. When the cost
// is unknown or more than what is left, it reports so, stops the walk and
// returns false.
func (w *celWalk) charge(details *cel.EvalDetails, path *field.Path, schemaType string, rule *celRule) bool {
	if details == nil {
		w.fail(field.InternalError(path, fmt.Errorf("runtime cost could not be calculated for validation rule: %v, no further validation rules will be run", rule.named)))
		return false
	}
	cost := details.ActualCost()
	if cost == nil {
		w.fail(field.Invalid(path, schemaType, fmt.Sprintf("runtime cost could not be calculated for validation rule: %v, no further validation rules will be run", rule.named)))
		return false
	}
	if *cost > math.MaxInt64 || int64(*cost) > w.budget {
		w.fail(field.Invalid(path, schemaType, budgetExhausted))
		return false
	}
	w.budget -= int64(*cost)
	return true
}

// reportEvalError reports a rule that could not be evaluated. It returns
// false when the error ends the walk (the per-call cost limit).
func (w *celWalk) reportEvalError(err error, path *field.Path, schemaType string, rule *celRule) bool {
	text := err.Error()
	switch {
	case strings.HasPrefix(text, "no such overload"):
		// Only values the compiler could not type (int-or-string) get here.
		w.errs = append(w.errs, field.Invalid(path, schemaType, fmt.Sprintf("'%v': call arguments did not match a supported operator, function or macro signature for rule: %v", err, rule.named)))
	case strings.HasPrefix(text, perCallLimitPrefix):
		w.fail(field.Invalid(path, schemaType, fmt.Sprintf("'%v': no further validation rules will be run due to call cost exceeds limit for rule: %v", err, rule.named)))
		return false
	default:
		// no such key, index out of bounds, overflow, division by zero...
		w.errs = append(w.errs, field.Invalid(path, schemaType, fmt.Sprintf("%v evaluating rule: %v", err, rule.named)))
	}
	return true
}

// reportFailure reports a rule that evaluated to false, at the rule's
// fieldPath, with its reason, and the message its messageExpression makes
// (evaluated with the plain activation, even for an optionalOldSelf rule, as
// the API server does) or else its message. On update an error is not
// reported when the value (or, for a value the old object cannot be matched
// to, its nearest matched ancestor) is unchanged, unless the rule compares
// with oldSelf: the API server only warns about it.
func (w *celWalk) reportFailure(n *celNode, rule *celRule, path *field.Path, value any, plain *selfActivation, r ratchet) {
	at := path
	if p := rule.compiled.NormalizedRuleFieldPath; p != "" {
		at = path.Child(p)
	}
	ratcheted := !rule.compiled.UsesOldSelf && r.unchanged()
	add := func(e *field.Error) {
		if !ratcheted {
			w.errs = append(w.errs, e)
		}
	}

	message := rule.failure
	if prog := rule.compiled.MessageExpression; prog != nil {
		text, fatal := w.evaluateMessage(prog, rule.messageExpression, plain)
		if fatal != nil {
			if fatal.internal {
				add(field.InternalError(at, fatal))
			} else {
				add(field.Invalid(at, n.schemaType, fatal.Error()))
			}
			w.stop()
			return
		}
		if text != "" {
			message = text
		}
	}

	// An object or list is not quoted in the error, a scalar is.
	var shown any = value
	if n.schemaType == "object" || n.schemaType == "array" {
		shown = field.OmitValueType{}
	}
	switch {
	case rule.reason == nil:
		add(field.Invalid(at, shown, message))
	case *rule.reason == apiextensionsv1.FieldValueForbidden:
		add(field.Forbidden(at, message))
	case *rule.reason == apiextensionsv1.FieldValueRequired:
		add(field.Required(at, message))
	case *rule.reason == apiextensionsv1.FieldValueDuplicate:
		add(field.Duplicate(at, shown))
	default:
		add(field.Invalid(at, shown, message))
	}
}

// messageFailure is a messageExpression failure that ends the walk.
type messageFailure struct {
	detail   string
	internal bool
}

func (e *messageFailure) Error() string { return e.detail }

// evaluateMessage evaluates a failed rule's messageExpression. It returns
// the message, or "" when the rule's own message is to be used instead (the
// expression failed, or its result is not a usable one-line message), or a
// failure that ends the walk: an unknown cost, or a cost over the budget or
// the per-call limit. Its cost is charged in every other case.
func (w *celWalk) evaluateMessage(prog cel.Program, source string, act *selfActivation) (string, *messageFailure) {
	result, details, err := prog.ContextEval(w.ctx, act)
	var cost *uint64
	if details != nil {
		cost = details.ActualCost()
	}
	if cost == nil {
		return "", &messageFailure{internal: true, detail: fmt.Sprintf("runtime cost could not be calculated for messageExpression: %q", source)}
	}
	if *cost > math.MaxInt64 || int64(*cost) > w.budget {
		return "", &messageFailure{detail: messageBudgetExhausted}
	}
	if err != nil && strings.HasPrefix(err.Error(), perCallLimitPrefix) {
		return "", &messageFailure{detail: fmt.Sprintf("no further validation rules will be run due to call cost exceeds limit for messageExpression: %q", source)}
	}
	w.budget -= int64(*cost)
	if err != nil {
		return "", nil
	}
	text, ok := result.Value().(string)
	if !ok {
		return "", nil
	}
	text = strings.TrimSpace(text)
	if len(text) > celconfig.MaxEvaluatedMessageExpressionSizeBytes || strings.Contains(text, "\n") {
		return "", nil
	}
	return text, nil
}
