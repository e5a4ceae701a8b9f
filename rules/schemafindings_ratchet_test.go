package rules

import (
	"context"
	"testing"

	"github.com/altairalabs/omnia/rules/schema"
)

// TestSchemaValidationRatchets: on update the schema rules ratchet as the
// API server's do (CRD validation ratcheting): an OpenAPI or CEL error on a
// value the update leaves unchanged is not reported, one on a changed value
// is. One accepted and one rejected update per kind of schema rule, plus the
// create that reports the stored object's error, so the cases prove the
// object really breaks the rule.
func TestSchemaValidationRatchets(t *testing.T) {
	sv, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	const (
		patternRule = "provider/schema:spec.defaults.temperature:pattern"
		celRule     = "provider/vertex-needs-project"
	)
	badTemperature := func(temp string) func(u map[string]any) {
		return func(u map[string]any) { strictSpec(u)["defaults"] = map[string]any{"temperature": temp} }
	}
	vertexWithoutProject := func(region string) func(u map[string]any) {
		return func(u map[string]any) {
			spec := strictSpec(u)
			spec["type"], spec["model"] = "gemini", "gemini-1.5-pro"
			delete(spec, "credential")
			spec["platform"] = map[string]any{"type": "vertex", "region": region}
			spec["auth"] = map[string]any{"type": "workloadIdentity"}
		}
	}
	both := func(fs ...func(u map[string]any)) func(u map[string]any) {
		return func(u map[string]any) {
			for _, f := range fs {
				f(u)
			}
		}
	}
	otherModel := func(u map[string]any) { strictSpec(u)["model"] = "claude-opus-4-20250514" }
	otherGeminiModel := func(u map[string]any) { strictSpec(u)["model"] = "gemini-2.0-flash" }

	cases := []struct {
		name     string
		old      func(t *testing.T) map[string]any // nil: a create
		obj      func(t *testing.T) map[string]any
		rule     string
		reported bool
	}{
		{name: "pattern: a create is refused", obj: strictProvider(badTemperature("hot")), rule: patternRule, reported: true},
		{name: "pattern: an update leaving the value alone is admitted", rule: patternRule,
			old: strictProvider(badTemperature("hot")), obj: strictProvider(both(badTemperature("hot"), otherModel))},
		{name: "pattern: an update changing it to another bad value is refused", rule: patternRule, reported: true,
			old: strictProvider(badTemperature("hot")), obj: strictProvider(badTemperature("warm"))},
		{name: "cel: a create is refused", obj: strictProvider(vertexWithoutProject("us-central1")), rule: celRule, reported: true},
		{name: "cel: an update leaving the object alone is admitted", rule: celRule,
			old: strictProvider(vertexWithoutProject("us-central1")), obj: strictProvider(both(vertexWithoutProject("us-central1"), otherGeminiModel))},
		{name: "cel: an update changing the object is refused", rule: celRule, reported: true,
			old: strictProvider(vertexWithoutProject("us-central1")), obj: strictProvider(vertexWithoutProject("europe-west4"))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var old map[string]any
			if tc.old != nil {
				old = tc.old(t)
			}
			res, err := ValidateSchema(context.Background(), sv, tc.obj(t), old)
			if err != nil {
				t.Fatal(err)
			}
			got := false
			for _, f := range res.Findings {
				got = got || f.RuleID == tc.rule
			}
			if got != tc.reported {
				t.Errorf("%s reported %v, want %v; findings %+v", tc.rule, got, tc.reported, res.Findings)
			}
		})
	}
}
