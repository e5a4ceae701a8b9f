package policies

import (
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/library"
)

// Cost limits of a policy's CEL, the API server's own for CRD validation
// rules: a rule whose estimated worst case is over them would be refused in
// a CRD, so it is refused here too, and a runtime cost budget stops an
// evaluation the estimate let through.
const (
	// CELExpressionCostLimit bounds one expression's estimated cost.
	CELExpressionCostLimit = apiextensionsvalidation.StaticEstimatedCostLimit
	// CELPolicyCostLimit bounds the sum of a policy's estimated costs.
	CELPolicyCostLimit = apiextensionsvalidation.StaticEstimatedCRDCostLimit
	// CELRuntimeCostBudget bounds one evaluation of one expression.
	CELRuntimeCostBudget = celconfig.RuntimeCELCostBudget
	// celMaxMessageBytes bounds a messageExpression's result, as
	// ValidatingAdmissionPolicy bounds it.
	celMaxMessageBytes = celconfig.MaxEvaluatedMessageExpressionSizeBytes
)

// celProgram is one expression compiled for each matched kind: object and
// oldObject are typed by the kind's schema, so each kind has its own.
type celProgram struct {
	byKind map[string]cel.Program
}

// celRule is a compiled CEL policy rule.
type celRule struct {
	expr    string
	check   celProgram
	message *celProgram // messageExpression, when set
}

// compileCEL compiles rule i's cel (and messageExpression) for every kind
// and returns it with its estimated cost (the worst kind's).
func (e *Env) compileCEL(ruleIdx int, expr, messageExpr string, kinds []string, params paramsValue) (*celRule, uint64, []fieldError) {
	out := &celRule{expr: expr}
	base := fmt.Sprintf("spec.rules[%d]", ruleIdx)
	check, cost, errs := e.compileCELExpr(base+".cel", expr, cel.BoolType, kinds, params)
	if check != nil {
		out.check = *check
	}
	if messageExpr != "" {
		msg, msgCost, msgErrs := e.compileCELExpr(base+".messageExpression", messageExpr, cel.StringType, kinds, params)
		errs = append(errs, msgErrs...)
		out.message = msg
		cost = addCost(cost, msgCost)
	}
	if len(errs) > 0 {
		return nil, 0, errs
	}
	return out, cost, nil
}

// compileCELExpr type-checks expr against each kind's environment, checks
// its result type and its estimated cost, and builds its programs.
func (e *Env) compileCELExpr(fieldPath, expr string, want *cel.Type, kinds []string, params paramsValue) (*celProgram, uint64, []fieldError) {
	out := &celProgram{byKind: make(map[string]cel.Program, len(kinds))}
	var errs []fieldError
	var worst uint64
	for _, kind := range kinds {
		ke := e.kinds[kind]
		if ke == nil {
			// matchKinds is checked before; an unknown kind is reported there.
			continue
		}
		ast, iss := ke.env.Compile(expr)
		if iss != nil && iss.Err() != nil {
			errs = append(errs, fieldError{field: fieldPath, msg: fmt.Sprintf("does not compile for kind %s: %s", kind, oneLine(iss.Err().Error()))})
			continue
		}
		if !ast.OutputType().IsExactType(want) {
			errs = append(errs, fieldError{field: fieldPath, msg: fmt.Sprintf("must evaluate to %s, but evaluates to %s for kind %s", want, ast.OutputType(), kind)})
			continue
		}
		estimator := &library.CostEstimator{SizeEstimator: &sizeEstimator{object: ke, params: params}}
		est, err := ke.env.EstimateCost(ast, estimator)
		if err != nil {
			errs = append(errs, fieldError{field: fieldPath, msg: fmt.Sprintf("cost estimation failed for kind %s: %v", kind, err)})
			continue
		}
		if est.Max > CELExpressionCostLimit {
			errs = append(errs, fieldError{field: fieldPath, msg: fmt.Sprintf("estimated cost %d for kind %s exceeds the limit %d per expression: bound the lists and strings it iterates (e.g. size checks first) or simplify it", est.Max, kind, uint64(CELExpressionCostLimit))})
			continue
		}
		worst = max(worst, est.Max)
		prog, err := ke.env.Program(ast,
			cel.CostLimit(CELRuntimeCostBudget),
			cel.CostTracking(estimator),
			cel.InterruptCheckFrequency(celconfig.CheckFrequency),
		)
		if err != nil {
			errs = append(errs, fieldError{field: fieldPath, msg: fmt.Sprintf("program instantiation failed for kind %s: %v", kind, err)})
			continue
		}
		out.byKind[kind] = prog
	}
	if len(errs) > 0 {
		return nil, 0, errs
	}
	return out, worst, nil
}

func addCost(a, b uint64) uint64 {
	if a+b < a {
		return ^uint64(0)
	}
	return a + b
}

// oneLine folds CEL's multi-line issue text (message, source line, caret)
// into one line for a status field.
func oneLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, " ")
}

// celActivation resolves the four variables without building a map per
// evaluation.
type celActivation struct {
	object, oldObject, namespace, params ref.Val
}

func (a *celActivation) ResolveName(name string) (any, bool) {
	switch name {
	case "object":
		return a.object, true
	case "oldObject":
		return a.oldObject, true
	case "namespaceObject":
		return a.namespace, true
	case "params":
		return a.params, true
	}
	return nil, false
}

func (a *celActivation) Parent() interpreter.Activation { return nil }

// newCELActivation builds the variables for one object of ke's kind.
func newCELActivation(ke *kindEnv, in *evalInput, params paramsValue) *celActivation {
	a := &celActivation{
		object:    common.UnstructuredToVal(in.object, ke.values),
		oldObject: types.NullValue,
		namespace: types.NullValue,
		params:    types.NullValue,
	}
	if in.oldObject != nil {
		a.oldObject = common.UnstructuredToVal(in.oldObject, ke.values)
	}
	if in.namespace != nil {
		a.namespace = types.DefaultTypeAdapter.NativeToValue(in.namespace)
	}
	if params.value != nil {
		a.params = types.DefaultTypeAdapter.NativeToValue(params.value)
	}
	return a
}

// eval evaluates the rule on one object. A false result is one finding
// at fieldPath; an evaluation error (the cost budget, a missing key) is one
// finding saying so — never a silent pass.
func (c *celRule) eval(ke *kindEnv, in *evalInput, params paramsValue, fieldPath, message string) (field.ErrorList, bool) {
	prog := c.check.byKind[ke.kind]
	if prog == nil {
		return nil, false
	}
	act := newCELActivation(ke, in, params)
	val, _, err := prog.Eval(act)
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath(fieldPath), nil, "evaluation failed: "+celEvalError(err))}, true
	}
	ok, isBool := val.Value().(bool)
	if !isBool {
		return field.ErrorList{field.Invalid(field.NewPath(fieldPath), nil, fmt.Sprintf("evaluation failed: the expression gave %v, not a bool", val.Type()))}, true
	}
	if ok {
		return nil, false
	}
	return field.ErrorList{&field.Error{Type: field.ErrorTypeInvalid, Field: fieldPath, BadValue: "", Detail: c.messageFor(ke, act, message)}}, false
}

// messageFor is the finding's message: message, else the
// messageExpression's result, else the expression that failed.
func (c *celRule) messageFor(ke *kindEnv, act *celActivation, message string) string {
	failed := "failed expression: " + c.expr
	if message != "" {
		return message
	}
	if c.message == nil {
		return failed
	}
	prog := c.message.byKind[ke.kind]
	if prog == nil {
		return failed
	}
	val, _, err := prog.Eval(act)
	if err != nil {
		return "messageExpression failed (" + celEvalError(err) + "); " + failed
	}
	s, ok := val.Value().(string)
	switch {
	case !ok:
		return "messageExpression did not give a string; " + failed
	case strings.TrimSpace(s) == "":
		return "messageExpression gave an empty message; " + failed
	case len(s) > celMaxMessageBytes || strings.ContainsAny(s, "\r\n"):
		return fmt.Sprintf("messageExpression gave a message longer than %d bytes or with a line break; %s", celMaxMessageBytes, failed)
	}
	return s
}

// celEvalError names the cause of an evaluation error, saying so plainly
// when it is the runtime cost budget.
func celEvalError(err error) string {
	msg := err.Error()
	if strings.Contains(msg, "cost limit exceeded") {
		return fmt.Sprintf("cost budget exceeded (the limit per evaluation is %d)", uint64(CELRuntimeCostBudget))
	}
	return msg
}
