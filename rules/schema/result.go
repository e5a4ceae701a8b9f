package schema

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Result is the outcome of the schema evaluation of one object.
type Result struct {
	// Errors are the field errors the API server reports for the object,
	// in its order (a CEL rule's carries its message, so an ID written in
	// it reaches the caller).
	Errors field.ErrorList
	// Pruned lists the fields the schema does not declare, at any depth and
	// under metadata, with the paths the API server's strict decoding error
	// names ("unknown field \"spec.modle\""). kubectl apply (strict field
	// validation) is refused for each; a client that does not ask for it
	// has them dropped.
	Pruned []string
	// Object is the object as the API server would store it: defaulted and
	// pruned.
	Object map[string]any
}

// Diff describes how r differs from other, or returns "" when they are the
// same answer: the same errors (type, field and message of each), the same
// pruned fields in the same order, and the same defaulted object. Errors
// are compared in a canonical order, because the API server itself reports
// the CEL errors of sibling object fields in Go map order, which differs
// from run to run.
func (r Result) Diff(other Result) string {
	var out []string
	a, b := sortedErrors(r.Errors), sortedErrors(other.Errors)
	if !slices.Equal(a, b) {
		out = append(out, fmt.Sprintf("errors:\n  %s\nvs\n  %s", errorLines(a), errorLines(b)))
	}
	if !slices.Equal(r.Pruned, other.Pruned) {
		out = append(out, fmt.Sprintf("pruned %q vs %q", r.Pruned, other.Pruned))
	}
	if !reflect.DeepEqual(r.Object, other.Object) {
		out = append(out, fmt.Sprintf("object %v vs %v", r.Object, other.Object))
	}
	return strings.Join(out, "\n")
}

// reportedError is what a caller sees of a field error: its type, its field
// and its message (which quotes the value).
type reportedError struct {
	errType field.ErrorType
	field   string
	message string
}

func sortedErrors(errs field.ErrorList) []reportedError {
	out := make([]reportedError, len(errs))
	for i, e := range errs {
		out[i] = reportedError{errType: e.Type, field: e.Field, message: e.ErrorBody()}
	}
	slices.SortStableFunc(out, func(x, y reportedError) int {
		return cmp.Or(strings.Compare(x.field, y.field), strings.Compare(string(x.errType), string(y.errType)), strings.Compare(x.message, y.message))
	})
	return out
}

func errorLines(errs []reportedError) string {
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = fmt.Sprintf("%s %s: %s", e.errType, e.field, e.message)
	}
	return strings.Join(lines, "\n  ")
}
