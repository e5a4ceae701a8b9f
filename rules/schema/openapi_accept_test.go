package schema

import (
	"math/rand/v2"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// internalSchema converts a v1 schema written in YAML to the internal form
// the API server validates with.
func internalSchema(t *testing.T, src string) *apiextensions.JSONSchemaProps {
	t.Helper()
	v1 := &apiextensionsv1.JSONSchemaProps{}
	if err := yaml.Unmarshal([]byte(src), v1); err != nil {
		t.Fatalf("schema: %v", err)
	}
	out := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v1, out, nil); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOpenAPIAcceptorKeywords holds each modelled keyword to one value the
// acceptor vouches for and one it does not, and every answer to upstream:
// a vouched value must pass kube-openapi's validator.
func TestOpenAPIAcceptorKeywords(t *testing.T) {
	const obj = "type: object\nproperties:\n  v:\n"
	cases := []struct {
		name, schema string // the schema of property v, indented by 4
		accepted     string // {"v": accepted} is vouched for
		notSure      string // {"v": notSure} is not
		// An empty accepted value means the object without v: a node the
		// acceptor does not model vouches for no value.
	}{
		{"type string", "    type: string", `"a"`, `1`},
		{"type integer", "    type: integer", `1`, `"1"`},
		{"integer is a number", "    type: number", `1`, `true`},
		{"float is no integer", "    type: number", `1.5`, `"x"`},
		{"float under integer", "    type: integer", `2`, `1.5`},
		{"type boolean", "    type: boolean", `true`, `"true"`},
		{"type object", "    type: object", `{}`, `[]`},
		{"type array", "    type: array", `[]`, `{}`},
		{"null needs nullable", "    type: string\n    nullable: true", `null`, `1`},
		{"null refused", "    type: string", `"a"`, `null`},
		{"int-or-string", "    x-kubernetes-int-or-string: true\n    anyOf: [{type: integer}, {type: string}]", `"50%"`, `true`},
		{"int-or-string integer", "    x-kubernetes-int-or-string: true\n    anyOf: [{type: integer}, {type: string}]", `50`, `{}`},
		{"enum", "    type: string\n    enum: [a, b]", `"b"`, `"c"`},
		{"enum and null", "    type: string\n    nullable: true\n    enum: [a]", `"a"`, `null`},
		{"pattern", "    type: string\n    pattern: '^[a-z]+$'", `"abc"`, `"ABC"`},
		{"maxLength counts runes", "    type: string\n    maxLength: 3", `"ééé"`, `"abcd"`},
		{"minLength", "    type: string\n    minLength: 2", `"ab"`, `"a"`},
		{"string format", "    type: string", `"2024-01-01T00:00:00Z"`, `7`},
		{"date-time not modelled", "    type: string\n    format: date-time\n    nullable: true", `null`, `"2024-01-01T00:00:00Z"`},
		{"maximum", "    type: integer\n    maximum: 10", `10`, `11`},
		{"exclusiveMaximum", "    type: integer\n    maximum: 10\n    exclusiveMaximum: true", `9`, `10`},
		{"minimum", "    type: integer\n    minimum: 1", `1`, `0`},
		{"exclusiveMinimum", "    type: number\n    minimum: 1\n    exclusiveMinimum: true", `1.5`, `1.0e0`},
		{"int32 range", "    type: integer\n    format: int32", `2147483647`, `2147483648`},
		{"int64", "    type: integer\n    format: int64", `2147483648`, `1.5`},
		{"required", "    type: object\n    required: [a]", `{"a": 1}`, `{"b": 1}`},
		{"properties", "    type: object\n    properties:\n      a: {type: string}", `{"a": "x", "extra": 1}`, `{"a": 1}`},
		{"additionalProperties", "    type: object\n    additionalProperties: {type: string}", `{"k": "x"}`, `{"k": 1}`},
		{"additionalProperties false", "    type: object\n    properties:\n      a: {type: string}\n    additionalProperties: false", `{"a": "x"}`, `{"b": "x"}`},
		{"maxProperties", "    type: object\n    maxProperties: 1", `{"a": 1}`, `{"a": 1, "b": 2}`},
		{"minProperties", "    type: object\n    minProperties: 1", `{"a": 1}`, `{}`},
		{"items", "    type: array\n    items: {type: string}", `["a"]`, `[1]`},
		{"maxItems", "    type: array\n    maxItems: 1", `[1]`, `[1, 2]`},
		{"minItems", "    type: array\n    minItems: 1", `[1]`, `[]`},
		{"allOf", "    type: string\n    allOf: [{maxLength: 2}, {minLength: 1}]", `"ab"`, `"abc"`},
		{"anyOf", "    anyOf: [{type: string}, {type: integer}]", `"a"`, `true`},
		{"preserve-unknown-fields", "    type: object\n    x-kubernetes-preserve-unknown-fields: true", `{"any": [1, "x"]}`, `"x"`},
		{"oneOf not modelled", "    type: string\n    oneOf: [{maxLength: 2}]", ``, `"a"`},
		{"multipleOf not modelled", "    type: integer\n    multipleOf: 2", ``, `4`},
		{"uniqueItems not modelled", "    type: array\n    uniqueItems: true", ``, `[1]`},
		{"number format not modelled", "    type: number\n    format: float", ``, `0.5`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := internalSchema(t, obj+tc.schema)
			acc := newOpenAPIAcceptor(s)
			upstream, _, err := apiservervalidation.NewSchemaValidator(s)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				value string
				want  bool
			}{{tc.accepted, true}, {tc.notSure, false}} {
				u := map[string]any{}
				if c.value != "" {
					var v any
					if err := utiljson.Unmarshal([]byte(c.value), &v); err != nil {
						t.Fatalf("%s: %v", c.value, err)
					}
					u["v"] = v
				}
				got := acc.Accepts(u)
				if got != c.want {
					t.Errorf("Accepts(%s) = %v, want %v", c.value, got, c.want)
				}
				if got {
					if errs := apiservervalidation.ValidateCustomResource(nil, u, upstream); len(errs) > 0 {
						t.Errorf("Accepts(%s) vouched for a value upstream refuses: %v", c.value, errs)
					}
				}
			}
		})
	}
}

// TestOpenAPIAcceptorRandomMutationChains composes up to four random
// mutations (seeded: the same chains every run) of each spec example, so
// values change in several places at once, and holds every step to
// upstream: the acceptor never vouches for a refused value.
func TestOpenAPIAcceptorRandomMutationChains(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 3))
	steps, vouched, refused := 0, 0, 0
	for _, ex := range openAPIExamples(t) {
		f, u, ks, acc := ex.file, ex.u, ex.ks, ex.accept
		for chain := 0; chain < 4; chain++ {
			cur, what := u, ""
			for step := 0; step < 4; step++ {
				muts := openAPIMutations(cur)
				if len(muts) == 0 {
					break
				}
				m := muts[rng.IntN(len(muts))]
				cur, what = m.object, what+"; "+m.what
				steps++
				accepted := acc.Accepts(cur)
				bad := len(apiservervalidation.ValidateCustomResource(nil, cur, ks.validator)) > 0
				if bad {
					refused++
				}
				if accepted {
					vouched++
				}
				if accepted && bad {
					t.Errorf("%s: vouched for a value upstream refuses after%s", f, what)
				}
			}
		}
	}
	t.Logf("%d mutation steps: %d refused upstream, %d vouched for", steps, refused, vouched)
	if refused == 0 || vouched == 0 {
		t.Errorf("the chains test nothing: %d steps, %d refused upstream, %d vouched for", steps, refused, vouched)
	}
}
