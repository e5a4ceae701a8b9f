package rules

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/rules/schema"
)

// ruleWant is one expected finding: its rule ID and field path.
type ruleWant struct{ id, field string }

// ruleCase is one row of a kind's rule table: a valid base object, mutated.
type ruleCase[T runtime.Object] struct {
	name   string
	mutate func(T)
	old    func(T) // mutation of a base for Old; nil on create
	facts  Facts   // nil: the table's base facts
	want   []ruleWant
	schema []string // schema rule IDs the CRD also reports; none unless listed
}

// ruleTable runs a kind's table through Default.Evaluate and the offline
// schema. It asserts the exact rule IDs and field paths (in any order) of the
// findings whose ID starts with prefix, that each has a message, and that the
// CRD schema reports exactly the listed schema rules — so every Go rule
// checks what the schema does not, with no second copy.
type ruleTable[T runtime.Object] struct {
	kind, prefix string
	base         func() T
	facts        func() Facts
}

func (rt ruleTable[T]) run(t *testing.T, cases []ruleCase[T]) {
	t.Helper()
	sv, err := schema.Default()
	if err != nil {
		t.Fatalf("schema.Default: %v", err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := rt.base()
			if tc.mutate != nil {
				tc.mutate(obj)
			}
			in := Input{Object: obj, Facts: tc.facts}
			if in.Facts == nil && rt.facts != nil {
				in.Facts = rt.facts()
			}
			var oldU map[string]any
			if tc.old != nil {
				old := rt.base()
				tc.old(old)
				in.Old = old
				oldU = toUnstructured(t, old)
			}

			var got []ruleWant
			for _, f := range Default.Evaluate(rt.kind, in, Options{}) {
				if !strings.HasPrefix(f.RuleID, rt.prefix) {
					continue
				}
				got = append(got, ruleWant{f.RuleID, f.Field})
				if f.Message == "" {
					t.Errorf("%s: empty message", f.RuleID)
				}
			}
			want := slices.Clone(tc.want)
			sortWants(got)
			sortWants(want)
			if !slices.Equal(got, want) {
				t.Errorf("findings = %v, want %v", got, want)
			}

			res, err := ValidateSchema(context.Background(), sv, toUnstructured(t, obj), oldU)
			if err != nil {
				t.Fatalf("schema: %v", err)
			}
			var schemaIDs []string
			for _, f := range res.Findings {
				schemaIDs = append(schemaIDs, f.RuleID)
			}
			if !slices.Equal(schemaIDs, tc.schema) {
				t.Errorf("schema findings = %v, want %v", res.Findings, tc.schema)
			}
		})
	}
}

func sortWants(ws []ruleWant) {
	slices.SortFunc(ws, func(a, b ruleWant) int {
		return cmp.Or(strings.Compare(a.id, b.id), strings.Compare(a.field, b.field))
	})
}
