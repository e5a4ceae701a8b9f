package policies

import (
	"testing"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// The same check three ways: the built-in Go rule
// provider/credential-env-var-name, and a policy rule in CEL and in Rego
// saying the same thing. Each benchmark is one evaluation of one object
// through the rule's Check, as Catalog.Evaluate calls it.
const (
	benchCEL = `!has(object.spec.credential) || !has(object.spec.credential.envVar) || object.spec.credential.envVar.matches('^[A-Za-z_][A-Za-z0-9_]*$')`

	benchRego = `package omnia.bench
violation contains {"msg": "spec.credential.envVar must be an environment variable name", "field": "spec.credential.envVar"} if {
	v := input.object.spec.credential.envVar
	v != ""
	not regex.match("^[A-Za-z_][A-Za-z0-9_]*$", v)
}`
)

func BenchmarkEvaluate(b *testing.B) {
	p := provider("bench", "ns", map[string]string{"team": "a"})
	p.Spec.Credential = &v1alpha1.ProviderCredential{EnvVar: "not-a-name"}
	in := rules.Input{Object: p, Facts: rules.NoFacts{}}

	goRule, ok := rules.Default.Lookup("provider/credential-env-var-name")
	if !ok {
		b.Fatal("built-in rule provider/credential-env-var-name is gone: pick another")
	}
	c := compiled(b, env(b), policy(kinds("Provider"),
		v1alpha1.ValidationPolicyRule{ID: "cel", CEL: benchCEL, FieldPath: "spec.credential.envVar", Message: "spec.credential.envVar must be an environment variable name"},
		v1alpha1.ValidationPolicyRule{ID: "rego", Rego: benchRego},
	))
	for _, bc := range []struct {
		name  string
		check rules.Check
	}{
		{"go", goRule.Check},
		{"cel", c.Rules[0].Check},
		{"rego", c.Rules[1].Check},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if errs := bc.check(in); len(errs) != 1 || errs[0].Field != "spec.credential.envVar" {
				b.Fatalf("the %s rule gives %v, want one finding at spec.credential.envVar", bc.name, errs)
			}
			b.ReportAllocs()
			for b.Loop() {
				bc.check(in)
			}
		})
	}
}
