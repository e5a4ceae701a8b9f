package schema

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// widgetValidator compiles testdata/celdiff: a CRD using every part of CEL
// validation the Omnia CRDs do not. Its cost limits are a thousandth of the
// API server's, so small objects reach them (the same code paths, in
// milliseconds).
func widgetValidator(t *testing.T) *Validator {
	t.Helper()
	sv, err := newValidator(os.DirFS("testdata/celdiff"), celLimits{perCall: apiServerLimits.perCall / 1000, budget: apiServerLimits.budget / 1000})
	if err != nil {
		t.Fatal(err)
	}
	return sv
}

func widget(spec map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": "test.example.com/v1",
		"kind":       "Widget",
		"metadata":   map[string]any{"name": "w", "namespace": "default"},
		"spec":       spec,
	}
}

// validWidgetSpec is a spec every rule accepts.
func validWidgetSpec() map[string]any {
	return map[string]any{"name": "a", "replicas": int64(1), "maxReplicas": int64(3), "mode": "m"}
}

func widgetWith(changes map[string]any) map[string]any {
	spec := validWidgetSpec()
	for k, v := range changes {
		if v == nil {
			delete(spec, k)
		} else {
			spec[k] = v
		}
	}
	return widget(spec)
}

func numbered(prefix string, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

// TestCELPlanMatchesUpstream: on a CRD exercising transition rules,
// optionalOldSelf, messageExpression (and its fallbacks), reason, fieldPath,
// map-list and map correlation, ratcheting, embedded resources,
// int-or-string, allOf, root rules and both cost limits, the CEL plan
// (the plan) reports exactly what the API server's validator does, and each case
// reports what it is written to provoke (so the comparison is not between
// two empty answers).
func TestCELPlanMatchesUpstream(t *testing.T) {
	sv := widgetValidator(t)
	// Each item's rule costs about 300 (under the per-call limit of
	// 1,000); forty of them exceed the budget of 10,000.
	costlyItems := make([]any, 40)
	for i := range costlyItems {
		costlyItems[i] = map[string]any{"values": numbered("v", 9)}
	}
	port := func(name string, p int64) map[string]any { return map[string]any{"name": name, "port": p} }
	cases := []struct {
		name     string
		obj, old map[string]any
		want     string // substring of some error's message; "" for none
	}{
		{name: "valid", obj: widget(validWidgetSpec())},
		{name: "fieldPath and reason", obj: widgetWith(map[string]any{"replicas": int64(5)}), want: "replicas must not exceed maxReplicas"},
		{name: "messageExpression", obj: widgetWith(map[string]any{"mode": "bad"}), want: "mode bad is not allowed"},
		{name: "blank messageExpression falls back to the rule", obj: widgetWith(map[string]any{"mode": "empty"}), want: "failed rule"},
		{name: "messageExpression with a line break", obj: widgetWith(map[string]any{"mode": "lines"}), want: "failed rule"},
		{name: "duplicate reason", obj: widgetWith(map[string]any{"mode": "dup"}), want: "Duplicate value"},
		{name: "required reason", obj: widgetWith(map[string]any{"name": nil}), want: "Required value"},
		{name: "rule without message", obj: widgetWith(map[string]any{"name": "x"}), want: "failed rule: !has(self.name)"},
		{name: "OpenAPI error blocks CEL", obj: widgetWith(map[string]any{"name": strings.Repeat("n", 30), "mode": "bad"}), want: "some validation rules were not checked"},
		{name: "root rule sees metadata", obj: func() map[string]any {
			w := widget(validWidgetSpec())
			w["metadata"].(map[string]any)["name"] = "forbidden"
			return w
		}(), want: "the name forbidden is taken"},
		{name: "transition rule on update", obj: widgetWith(map[string]any{"replicas": int64(1)}), old: widgetWith(map[string]any{"replicas": int64(2)}), want: "replicas may not shrink"},
		{name: "transition rule without the old field", obj: widgetWith(map[string]any{"replicas": nil}), old: widgetWith(map[string]any{"replicas": nil}), want: "no such key"},
		{name: "optional oldSelf on update", obj: widgetWith(map[string]any{"mode": "n"}), old: widget(validWidgetSpec()), want: "mode is immutable"},
		{name: "map-list items", obj: widgetWith(map[string]any{"ports": []any{port("http", -1)}}), want: "port must be positive"},
		{name: "map-list items correlate by key", obj: widgetWith(map[string]any{"ports": []any{port("b", 2), port("a", 5)}}),
			old: widgetWith(map[string]any{"ports": []any{port("a", 1), port("b", 2)}}), want: "port is immutable"},
		{name: "unchanged bad item is ratcheted", obj: widgetWith(map[string]any{"name": "b", "ports": []any{port("a", -1)}}),
			old: widgetWith(map[string]any{"ports": []any{port("a", -1)}})},
		{name: "unchanged bad item of a changed list is ratcheted", obj: widgetWith(map[string]any{"ports": []any{port("a", -1), port("b", 2)}}),
			old: widgetWith(map[string]any{"ports": []any{port("a", -1)}})},
		{name: "changed bad item is not ratcheted", obj: widgetWith(map[string]any{"ports": []any{port("a", -2)}}),
			old: widgetWith(map[string]any{"ports": []any{port("a", -1)}}), want: "port must be positive"},
		{name: "set items", obj: widgetWith(map[string]any{"tags": []any{"t-a", "b"}}), want: "tags start with t-"},
		{name: "additionalProperties", obj: widgetWith(map[string]any{"labels": map[string]any{"a": "0123456789ab"}}), want: "label values are short"},
		{name: "additionalProperties correlate by key", obj: widgetWith(map[string]any{"labels": map[string]any{"a": "y"}}),
			old: widgetWith(map[string]any{"labels": map[string]any{"a": "x"}}), want: "label values are immutable"},
		{name: "embedded resource", obj: widgetWith(map[string]any{"template": map[string]any{"apiVersion": "v1", "kind": "Forbidden", "metadata": map[string]any{"name": "much-too-long"}}}), want: "embedded kind forbidden"},
		{name: "int-or-string as a string", obj: widgetWith(map[string]any{"size": "big"}), want: "no such overload"},
		{name: "int-or-string as an integer", obj: widgetWith(map[string]any{"size": int64(0)}), want: "size is positive"},
		{name: "allOf rules", obj: widgetWith(map[string]any{"level": "none"}), want: "level is not none"},
		{name: "messageExpression that fails to evaluate falls back to the rule", obj: widgetWith(map[string]any{"mode": "missing"}), want: "failed rule: !has(self.mode) || self.mode != 'missing'"},
		{name: "messageExpression that does not compile falls back to the message", obj: widgetWith(map[string]any{"mode": "typed"}), want: "mode typed is refused"},
		{name: "messageExpression reads oldSelf on update", obj: widgetWith(map[string]any{"mode": "old"}), old: widgetWith(map[string]any{"mode": "x"}), want: "was x"},
		{name: "messageExpression without oldSelf on create falls back", obj: widgetWith(map[string]any{"mode": "old"}), want: "mode old is refused"},
		{name: "unchanged failing spec is ratcheted", obj: widgetWith(map[string]any{"mode": "old"}), old: widgetWith(map[string]any{"mode": "old"})},
		{name: "transition rule with an unchanged value", obj: widgetWith(map[string]any{"replicas": int64(2), "maxReplicas": int64(4)}), old: widgetWith(map[string]any{"replicas": int64(2)})},
		{name: "optionalOldSelf rule runs on create", obj: widgetWith(map[string]any{"stage": "late"}), want: "stage cannot start late"},
		{name: "optionalOldSelf rule passes on update", obj: widgetWith(map[string]any{"stage": "late"}), old: widgetWith(map[string]any{"stage": "early"})},
		{name: "allOf property rule", obj: widgetWith(map[string]any{"stage": "never"}), want: "stage is never never"},
		{name: "allOf property rule accepts", obj: widgetWith(map[string]any{"stage": "early"})},
		{name: "property CEL cannot address", obj: widgetWith(map[string]any{"1st": "no"}), want: "1st is not no"},
		{name: "property CEL escapes", obj: widgetWith(map[string]any{"x-y": "no"}), want: "x-y is not no"},
		{name: "costly messageExpression under the limit", obj: widgetWith(map[string]any{"noisy": numbered("n", 5)}), want: "noisy has 5 items"},
		{name: "messageExpression over the per-call limit", obj: widgetWith(map[string]any{"noisy": numbered("n", 60)}), want: "call cost exceeds limit for messageExpression"},
		{name: "messageExpression over the budget", obj: widgetWith(map[string]any{"costlyMessages": costlyItems}), want: "messageExpression evaluation failed due to running out of cost budget"},
		{name: "atomic map values", obj: widgetWith(map[string]any{"settings": map[string]any{"a": int64(-1), "b": int64(2)}}), want: "settings are not negative"},
		{name: "unchanged bad value of a changed atomic map is ratcheted", obj: widgetWith(map[string]any{"settings": map[string]any{"a": int64(-1), "b": int64(3)}}),
			old: widgetWith(map[string]any{"settings": map[string]any{"a": int64(-1), "b": int64(2)}})},
		{name: "changed bad value of an atomic map is not ratcheted", obj: widgetWith(map[string]any{"settings": map[string]any{"a": int64(-2)}}),
			old: widgetWith(map[string]any{"settings": map[string]any{"a": int64(-1)}}), want: "settings are not negative"},
		{name: "per-call cost limit", obj: widgetWith(map[string]any{"quadratic": numbered("q", 60)}), want: "call cost exceeds limit"},
		{name: "per-CRD cost budget", obj: widgetWith(map[string]any{"costly": costlyItems}), want: "running out of cost budget"},
	}
	gadget := widget(map[string]any{"level": "none"})
	gadget["kind"] = "Gadget"
	cases = append(cases, struct {
		name     string
		obj, old map[string]any
		want     string
	}{name: "rules only under allOf are never run", obj: gadget})
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := sv.validate(ctx, tc.obj, tc.old, planCEL)
			if err != nil {
				t.Fatal(err)
			}
			want, err := sv.ValidateUpstream(ctx, tc.obj, tc.old)
			if err != nil {
				t.Fatal(err)
			}
			if d := got.Diff(want); d != "" {
				t.Errorf("the plan differs from the API server's validator:\n%s", d)
			}
			var messages []string
			for _, e := range got.Errors {
				messages = append(messages, e.ErrorBody())
			}
			all := strings.Join(messages, "\n")
			if tc.want == "" && len(got.Errors) > 0 {
				t.Errorf("want no error, got:\n%s", all)
			}
			if tc.want != "" && !strings.Contains(all, tc.want) {
				t.Errorf("want an error containing %q, got:\n%s", tc.want, all)
			}
		})
	}
}

// TestResultDiff: Diff sees a difference in any error's type, field or
// message, in the pruned fields and in the object, and none in the order of
// errors.
func TestResultDiff(t *testing.T) {
	a := field.Invalid(field.NewPath("spec", "a"), "x", "m")
	b := field.Invalid(field.NewPath("spec", "b"), "x", "m")
	base := Result{Errors: field.ErrorList{a, b}, Pruned: []string{"spec.x"}, Object: map[string]any{"a": int64(1)}}
	same := Result{Errors: field.ErrorList{b, a}, Pruned: []string{"spec.x"}, Object: map[string]any{"a": int64(1)}}
	if d := base.Diff(same); d != "" {
		t.Errorf("reordered errors differ: %s", d)
	}
	for name, other := range map[string]Result{
		"error type":    {Errors: field.ErrorList{field.Forbidden(field.NewPath("spec", "a"), "m"), b}, Pruned: base.Pruned, Object: base.Object},
		"error field":   {Errors: field.ErrorList{field.Invalid(field.NewPath("spec", "c"), "x", "m"), b}, Pruned: base.Pruned, Object: base.Object},
		"error message": {Errors: field.ErrorList{field.Invalid(field.NewPath("spec", "a"), "x", "n"), b}, Pruned: base.Pruned, Object: base.Object},
		"error value":   {Errors: field.ErrorList{field.Invalid(field.NewPath("spec", "a"), "y", "m"), b}, Pruned: base.Pruned, Object: base.Object},
		"missing":       {Errors: field.ErrorList{a}, Pruned: base.Pruned, Object: base.Object},
		"pruned":        {Errors: base.Errors, Pruned: nil, Object: base.Object},
		"object":        {Errors: base.Errors, Pruned: base.Pruned, Object: map[string]any{"a": 1.0}},
	} {
		if base.Diff(other) == "" {
			t.Errorf("%s: no difference reported", name)
		}
	}
}

// TestDeclaresRules: a schema has CEL rules when it or a property, item or
// additionalProperties schema under it declares one; rules only inside allOf
// do not count (the API server builds no validator for them).
func TestDeclaresRules(t *testing.T) {
	rule := structuralschema.ValidationExtensions{XValidations: apiextensionsv1.ValidationRules{{Rule: "true"}}}
	withRule := structuralschema.Structural{ValidationExtensions: rule}
	cases := []struct {
		name   string
		schema *structuralschema.Structural
		want   bool
	}{
		{name: "none", schema: &structuralschema.Structural{}},
		{name: "nil", schema: nil},
		{name: "at the node", schema: &withRule, want: true},
		{name: "on an item", schema: &structuralschema.Structural{Items: &withRule}, want: true},
		{name: "on a property", schema: &structuralschema.Structural{Properties: map[string]structuralschema.Structural{"a": {}, "b": withRule}}, want: true},
		{name: "on additionalProperties", schema: &structuralschema.Structural{AdditionalProperties: &structuralschema.StructuralOrBool{Structural: &withRule}}, want: true},
		{name: "only under allOf", schema: &structuralschema.Structural{ValueValidation: &structuralschema.ValueValidation{
			AllOf: []structuralschema.NestedValueValidation{{ValidationExtensions: rule}}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := declaresRules(tc.schema); got != tc.want {
				t.Errorf("declaresRules = %v, want %v", got, tc.want)
			}
		})
	}
}
