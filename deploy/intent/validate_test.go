package intent

import (
	"slices"
	"strings"
	"testing"

	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/rules"
)

// TestValidate: decoded intents go through the catalog's deployintent rules,
// with the intent's JSON paths and the derived name.
func TestValidate(t *testing.T) {
	enterprise := rules.LicenseFacts{Source: licensing.License{Tier: licensing.TierEnterprise,
		Features: map[string]bool{licensing.FeaturePolicyProxy: true}}}
	derived := DevName("my-project", "u1")
	for _, tc := range []struct {
		name  string
		body  string
		facts rules.Facts
		want  []string // "ruleID field"
	}{
		{name: "the spec's project example", body: specExample, facts: enterprise},
		{name: "the full published intent", body: fullIntent, facts: enterprise},
		{name: "open-core refuses a project", body: specExample, facts: nil,
			want: []string{"deployintent/project-license pack.project"}},
		{name: "a project agent named otherwise", body: withIntent(`"idleTimeout": "30m"`, `"idleTimeout": "30m", "name": "support-bot"`),
			facts: enterprise, want: []string{"deployintent/project-names-derived agents[0].name"}},
		{name: "a project agent named as derived", body: withIntent(`"idleTimeout": "30m"`, `"idleTimeout": "30m", "name": "`+derived+`"`),
			facts: enterprise},
		{name: "a project with content", body: withIntent(`"id": "my-project" }`, `"id": "my-project" }, "content": "{}"`),
			facts: enterprise, want: []string{"deployintent/project-excludes-content pack.content"}},
		{name: "credentials with tools.ref, a bad key, a zero idle timeout",
			body: strings.Replace(strings.Replace(strings.Replace(fullIntent,
				`"tools": { "handlers": [{`, `"tools": { "ref": "shared", "handlers": [{`, 1),
				`"GITHUB_TOKEN": "ghp_x"`, `"GITHUB TOKEN": "ghp_x"`, 1), `"idleTimeout": "1h"`, `"idleTimeout": "0s"`, 1),
			facts: enterprise, want: []string{
				"deployintent/credential-key-pattern credentials.data[GITHUB TOKEN]",
				"deployintent/idle-timeout-positive agents[0].idleTimeout",
				"deployintent/tools-ref-xor-handlers tools.handlers",
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := Decode([]byte(tc.body))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			dn := ""
			if in.Pack.Project != nil {
				dn = DevName(in.Pack.Project.ID, "u1")
			}
			var got []string
			for _, f := range Validate(in, tc.facts, dn) {
				got = append(got, f.RuleID+" "+f.Field)
				if strings.Contains(f.Message, "ghp_x") {
					t.Errorf("a finding carries a credential value: %s", f)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestErrorResponses: the 400 bodies carry the decode path, or each
// finding's rule ID, field and message.
func TestErrorResponses(t *testing.T) {
	_, err := Decode([]byte(withIntent(`"idleTimeout": "30m"`, `"idleTimeout": "30m", "runtime": {"gpu": 1}`)))
	if got := BadRequest(err); got.Path != "agents[0].runtime.gpu" || !strings.HasPrefix(got.Error, "agents[0].runtime.gpu: unknown field") {
		t.Errorf("BadRequest = %+v", got)
	}
	in, err := Decode([]byte(withIntent(`"30m"`, `"0s"`)))
	if err != nil {
		t.Fatal(err)
	}
	got := Invalid(Validate(in, nil, DevName("my-project", "u1")))
	var ids []string
	for _, f := range got.Findings {
		ids = append(ids, f.RuleID+" "+f.Field)
		if f.Message == "" || !strings.Contains(got.Error, "["+f.RuleID+"] "+f.Field+": "+f.Message) {
			t.Errorf("finding %+v: no message, or not in the summary %q", f, got.Error)
		}
	}
	if want := []string{"deployintent/idle-timeout-positive agents[0].idleTimeout", "deployintent/project-license pack.project"}; !slices.Equal(ids, want) {
		t.Errorf("findings %v, want %v", ids, want)
	}
}
