package policies

import (
	"testing"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// FuzzCompile: any CEL expression and any Rego module compile to rules or
// to errors, never a panic, and what compiles evaluates without one.
func FuzzCompile(f *testing.F) {
	for _, seed := range []struct{ cel, rego string }{
		{"object.spec.model == 'x'", "package p\nviolation contains {\"msg\": \"m\", \"field\": \"spec\"} if { input.object.spec.model == \"\" }"},
		{"has(object.metadata.labels) && object.metadata.labels.all(k, k.size() < 10)", "package p\nviolation contains {\"msg\": sprintf(\"%v\", [x])} if { some x in input.object.metadata.labels }"},
		{"oldObject == null || oldObject.spec.type == object.spec.type", "package p\nviolation contains x if { x := input.params }"},
		{"params.max > 1 && namespaceObject.metadata.name != ''", "package p\nviolation contains {\"msg\": \"x\"} if { http.send({}) }"},
		{"object.spec.", "package\n"},
		{"'a'.matches('(')", "package p\nviolation contains {\"msg\": 1, \"field\": 2} if { true }"},
	} {
		f.Add(seed.cel, seed.rego)
	}
	e := env(f)
	f.Fuzz(func(t *testing.T, celExpr, regoModule string) {
		p := policy(kinds("Provider", "ToolRegistry"),
			v1alpha1.ValidationPolicyRule{ID: "cel", CEL: celExpr, MessageExpression: celExpr},
			v1alpha1.ValidationPolicyRule{ID: "rego", Rego: regoModule},
		)
		c := e.Compile(p)
		if len(c.Errors) > 0 {
			return
		}
		cat, err := rules.NewCatalog().With(c.Rules)
		if err != nil {
			t.Fatalf("compiled rules do not join a catalog: %v", err)
		}
		cat.Evaluate("Provider", rules.Input{Object: provider("a", "ns", map[string]string{"k": "v"}), Old: provider("a", "ns", nil)}, rules.Options{})
	})
}
