package rules

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// RolloutAnalysis rules (docs/rolloutanalysis.md): the CEL rule of the
// CRD, and the Go checks the schema cannot make: every successCondition
// compiles (a CEL expression over `result`, a list of double, returning a
// bool within the cost limit), and every {{args.x}} a query references is
// declared. The same compiler evaluates the condition for the agent
// controller (RolloutAnalysisSuccess), so admission and the rollout agree.

const kindRolloutAnalysis = "RolloutAnalysis"

// RolloutAnalysisCostLimit bounds one evaluation of a successCondition
// (CEL cost units; a comparison or an element access costs about one): a
// condition over a result of the query's bounded size stays far below it,
// and a runaway one is stopped.
const RolloutAnalysisCostLimit = 100_000

// RolloutAnalysisMaxResults bounds how many values of a query's result a
// successCondition sees; further samples are dropped.
const RolloutAnalysisMaxResults = 1000

// rolloutAnalysisArgRef matches {{args.<name>}} in a query.
var rolloutAnalysisArgRef = regexp.MustCompile(`\{\{\s*args\.([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}`)

var rolloutAnalysisEnv = func() *cel.Env {
	env, err := cel.NewEnv(cel.Variable("result", cel.ListType(cel.DoubleType)))
	if err != nil {
		panic(err)
	}
	return env
}()

// RolloutAnalysisCondition compiles a successCondition: a CEL expression
// over `result` (list of double) returning bool, evaluated with a cost
// limit of RolloutAnalysisCostLimit.
func RolloutAnalysisCondition(expr string) (cel.Program, error) {
	ast, iss := rolloutAnalysisEnv.Compile(expr)
	if iss.Err() != nil {
		return nil, iss.Err()
	}
	if !ast.OutputType().IsExactType(types.BoolType) {
		return nil, fmt.Errorf("the expression returns %s, not bool", ast.OutputType())
	}
	return rolloutAnalysisEnv.Program(ast, cel.CostLimit(RolloutAnalysisCostLimit))
}

// RolloutAnalysisSuccess evaluates a compiled successCondition against a
// measurement's values (at most RolloutAnalysisMaxResults are seen).
func RolloutAnalysisSuccess(prg cel.Program, result []float64) (bool, error) {
	if len(result) > RolloutAnalysisMaxResults {
		result = result[:RolloutAnalysisMaxResults]
	}
	out, _, err := prg.Eval(map[string]any{"result": result})
	if err != nil {
		return false, err
	}
	b, ok := out.Value().(bool)
	if !ok {
		return false, fmt.Errorf("the expression returned %v, not a bool", out.Value())
	}
	return b, nil
}

// RolloutAnalysisArgs merges a step's args over the template's defaults
// (pure): the step's value wins; an argument with no value anywhere is
// listed in missing. Step args the template does not declare are kept
// (a query may still not reference them).
func RolloutAnalysisArgs(tmpl []v1alpha1.RolloutAnalysisArg, step []v1alpha1.AgentRuntimeRolloutAnalysisArg) (args map[string]string, missing []string) {
	args = map[string]string{}
	for _, a := range tmpl {
		if a.Value != nil {
			args[a.Name] = *a.Value
		}
	}
	for _, a := range step {
		args[a.Name] = a.Value
	}
	for _, a := range tmpl {
		if _, ok := args[a.Name]; !ok {
			missing = append(missing, a.Name)
		}
	}
	return args, missing
}

// RolloutAnalysisQuery substitutes {{args.<name>}} in query with args
// (pure); unknown lists the referenced names args has no value for, in
// order, each once.
func RolloutAnalysisQuery(query string, args map[string]string) (string, []string) {
	seen := map[string]bool{}
	var unknown []string
	out := rolloutAnalysisArgRef.ReplaceAllStringFunc(query, func(m string) string {
		name := rolloutAnalysisArgRef.FindStringSubmatch(m)[1]
		v, ok := args[name]
		if !ok {
			if !seen[name] {
				seen[name] = true
				unknown = append(unknown, name)
			}
			return m
		}
		return v
	})
	return out, unknown
}

func init() {
	Default.Register(Rule{
		ID:       "rolloutanalysis/prometheus-address-url",
		Kinds:    []string{kindRolloutAnalysis},
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Source:   SourceSchema,
		Doc:      "spec.metrics[].provider.prometheus.address must be an http or https URL with a host.",
		Spec:     "agentruntime.md#rollout",
	})
	Default.Register(Rule{
		ID:       "rolloutanalysis/success-condition-compiles",
		Kinds:    []string{kindRolloutAnalysis},
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc: "spec.metrics[].successCondition must be a CEL expression over result (a list of double) that returns a bool; " +
			"its evaluation is cost-limited.",
		Spec:  "agentruntime.md#rollout",
		Check: checkRolloutAnalysisConditions,
	})
	Default.Register(Rule{
		ID:       "rolloutanalysis/query-args-declared",
		Kinds:    []string{kindRolloutAnalysis},
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc:      "every {{args.<name>}} in spec.metrics[].provider.prometheus.query must name an argument declared in spec.args.",
		Spec:     "agentruntime.md#rollout",
		Check:    checkRolloutAnalysisArgs,
	})
}

func rolloutAnalysisOf(obj any) *v1alpha1.RolloutAnalysis {
	ra, _ := obj.(*v1alpha1.RolloutAnalysis)
	return ra
}

func checkRolloutAnalysisConditions(in Input) field.ErrorList {
	ra := rolloutAnalysisOf(in.Object)
	if ra == nil {
		return nil
	}
	var errs field.ErrorList
	for i, m := range ra.Spec.Metrics {
		if _, err := RolloutAnalysisCondition(m.SuccessCondition); err != nil {
			p := field.NewPath("spec", "metrics").Index(i).Child("successCondition")
			errs = append(errs, field.Invalid(p, m.SuccessCondition,
				fmt.Sprintf("%s must be a CEL expression over result (list of double) returning bool: %s", p, oneLine(err.Error()))))
		}
	}
	return errs
}

func checkRolloutAnalysisArgs(in Input) field.ErrorList {
	ra := rolloutAnalysisOf(in.Object)
	if ra == nil {
		return nil
	}
	declared := map[string]string{}
	for _, a := range ra.Spec.Args {
		declared[a.Name] = ""
	}
	var errs field.ErrorList
	for i, m := range ra.Spec.Metrics {
		if m.Provider.Prometheus == nil {
			continue
		}
		if _, unknown := RolloutAnalysisQuery(m.Provider.Prometheus.Query, declared); len(unknown) > 0 {
			sort.Strings(unknown)
			p := field.NewPath("spec", "metrics").Index(i).Child("provider", "prometheus", "query")
			errs = append(errs, field.Invalid(p, strings.Join(unknown, ", "),
				fmt.Sprintf("%s references undeclared arguments %s: declare them in spec.args", p, strings.Join(unknown, ", "))))
		}
	}
	return errs
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
