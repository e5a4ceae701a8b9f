package rules

import (
	"context"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/rules/schema"
)

// SchemaResult is the schema stage's answer for one object, as findings.
type SchemaResult struct {
	// Findings are the schema rules the object breaks.
	Findings []Finding
	// Pruned lists the fields the schema does not declare (schema.Result).
	// Full turns them into findings.
	Pruned []string
	// Object is the object as the API server would store it: defaulted and
	// pruned.
	Object map[string]any
}

// ValidateSchema evaluates obj against its CRD as the API server would on
// create, or, with old (the stored object), on update, and reports the
// errors as findings with their rule IDs. obj and old are not modified.
func ValidateSchema(ctx context.Context, sv *schema.Validator, obj, old map[string]any) (SchemaResult, error) {
	var (
		res schema.Result
		err error
	)
	if old == nil {
		res, err = sv.ValidateCreate(ctx, obj)
	} else {
		res, err = sv.ValidateUpdate(ctx, obj, old)
	}
	if schemaObserved != nil {
		schemaObserved(ctx, sv, obj, old, res, err)
	}
	if err != nil {
		return SchemaResult{}, err
	}
	kind, _ := obj["kind"].(string)
	out := SchemaResult{Pruned: res.Pruned, Object: res.Object}
	for _, e := range res.Errors {
		out.Findings = append(out.Findings, schemaFinding(kind, e))
	}
	return out, nil
}

// schemaObserved, when set (by this package's tests only), sees every
// schema evaluation a rule makes and its answer: the differential test
// holds each one to the API server's own CEL validator
// (schema.Validator.ValidateUpstream).
var schemaObserved func(ctx context.Context, sv *schema.Validator, obj, old map[string]any, res schema.Result, err error)

var (
	celID      = regexp.MustCompile(`^\[([a-z]+/[a-z0-9]+(?:-[a-z0-9]+)*)\] `)
	listIndex  = regexp.MustCompile(`\[[^\]]*\]`)
	schemaKind = strings.ToLower
)

// schemaFinding turns one API-server field error into a finding. A CEL rule
// carries its ID in its message; a plain OpenAPI constraint gets the derived
// ID <kind>/schema:<field with [] for list items>:<constraint>.
func schemaFinding(kind string, e *field.Error) Finding {
	msg := e.Detail
	id := ""
	if m := celID.FindStringSubmatch(msg); m != nil {
		id = m[1]
	} else if e.Field == "<nil>" {
		id = schemaKind(kind) + "/schema:object:incomplete"
	} else {
		id = SchemaRuleID(kind, e.Field, SchemaConstraint(e.Type, e.Detail))
	}
	f := Finding{
		RuleID:   id,
		Field:    e.Field,
		Severity: SeverityDeny,
		Stage:    StageAdmission,
		Source:   SourceSchema,
		Message:  errorMessage(e),
	}
	if r, ok := Default.Lookup(id); ok {
		f.Reason, f.Condition = r.Reason, r.Condition
	}
	return f
}

// SchemaRuleID derives a plain constraint's stable ID.
func SchemaRuleID(kind, fieldPath, constraint string) string {
	return schemaKind(kind) + "/schema:" + listIndex.ReplaceAllString(fieldPath, "[]") + ":" + constraint
}

// errorMessage renders a field error as the API server does in a cause's
// message (without the field path, which the finding carries).
func errorMessage(e *field.Error) string {
	s := e.ErrorBody()
	return s
}

// SchemaConstraint names the OpenAPI constraint behind a schema error from
// its type and, for a plain invalid value, its detail. An API server status
// cause carries the same two (metav1.CauseType values are field.ErrorType
// values), so a client maps a refusal to the same derived rule ID.
func SchemaConstraint(errType field.ErrorType, detail string) string {
	switch errType {
	case field.ErrorTypeRequired:
		return "required"
	case field.ErrorTypeNotSupported:
		return "enum"
	case field.ErrorTypeTooMany:
		return "maxItems"
	case field.ErrorTypeTooLong:
		return "maxLength"
	case field.ErrorTypeDuplicate:
		return "unique"
	case field.ErrorTypeTypeInvalid:
		return "type"
	case field.ErrorTypeForbidden:
		return "forbidden"
	}
	d := detail
	switch {
	case strings.Contains(d, "should match"):
		return "pattern"
	case strings.Contains(d, "should be less than"):
		return "maximum"
	case strings.Contains(d, "should be greater than"):
		return "minimum"
	case strings.Contains(d, "chars long"):
		return "minLength"
	case strings.Contains(d, "should have at least"):
		return "minItems"
	case strings.Contains(d, "should have at most"):
		return "maxItems"
	case strings.Contains(d, "multiple of"):
		return "multipleOf"
	}
	return "invalid"
}
