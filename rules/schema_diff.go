package rules

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Diff describes how r differs from other, or returns "" when they are the
// same answer: the same findings (every field of each), the same pruned
// fields in the same order, and the same defaulted object. Findings are
// compared in a canonical order, because the API server itself reports the
// CEL errors of sibling object fields in Go map order, which differs from
// run to run; Full sorts them before anyone sees them.
func (r SchemaResult) Diff(other SchemaResult) string {
	var out []string
	a, b := sortedFindings(r.Findings), sortedFindings(other.Findings)
	if !slices.Equal(a, b) {
		out = append(out, fmt.Sprintf("findings:\n  %s\nvs\n  %s", findingLines(a), findingLines(b)))
	}
	if !slices.Equal(r.Pruned, other.Pruned) {
		out = append(out, fmt.Sprintf("pruned %q vs %q", r.Pruned, other.Pruned))
	}
	if !reflect.DeepEqual(r.Object, other.Object) {
		out = append(out, fmt.Sprintf("object %v vs %v", r.Object, other.Object))
	}
	return strings.Join(out, "\n")
}

func sortedFindings(fs []Finding) []Finding {
	out := slices.Clone(fs)
	slices.SortStableFunc(out, func(x, y Finding) int {
		return cmp.Or(strings.Compare(x.Field, y.Field), strings.Compare(x.RuleID, y.RuleID), strings.Compare(x.Message, y.Message))
	})
	return out
}

func findingLines(fs []Finding) string {
	lines := make([]string, len(fs))
	for i, f := range fs {
		lines[i] = fmt.Sprintf("%+v", f)
	}
	return strings.Join(lines, "\n  ")
}
