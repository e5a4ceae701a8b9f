package rules

import (
	"slices"
	"strings"
	"testing"

	"github.com/altairalabs/omnia/licensing"
)

func diBool(b bool) *bool { return &b }

// diPublished is a valid published-pack intent using every block.
func diPublished() *DeployIntent {
	return &DeployIntent{
		Pack:        DeployIntentPack{Name: "support", Version: "1.2.3", HasContent: true, Skills: 1, HasSkillsConfig: true},
		Tools:       &DeployIntentTools{Handlers: 2},
		Policy:      &DeployIntentPolicy{ToolBlocklist: 1},
		Credentials: &DeployIntentCredentials{Keys: []string{"GITHUB_TOKEN", "api.key-2_x"}},
		Agents: []DeployIntentAgent{{
			Name:        "support-bot",
			IdleTimeout: "30m",
			Providers:   []DeployIntentProvider{{Name: "default", Ref: "claude"}},
			HasRollout:  true,
			Facades:     []DeployIntentFacade{{Type: "websocket"}, {Type: "a2a"}},
		}, {
			Name:      "triage-bot",
			Providers: []DeployIntentProvider{{Name: "default", Ref: "claude"}, {Name: "judge", Ref: "gpt"}},
		}},
	}
}

// diProject is a valid pack.project intent, as deploy-intent.md's example.
func diProject() *DeployIntent {
	return &DeployIntent{
		Pack: DeployIntentPack{Project: &DeployIntentProject{ID: "my-project"}},
		Agents: []DeployIntentAgent{{
			IdleTimeout: "30m",
			Providers:   []DeployIntentProvider{{Name: "default", Ref: "claude"}},
			Facades:     []DeployIntentFacade{{Type: "websocket", DataPlane: diBool(false)}},
		}},
		DerivedName: "dev-my-project-u1",
	}
}

func TestDeployIntentRules(t *testing.T) {
	enterprise := LicenseFacts{Source: License{Tier: licensing.TierEnterprise, Features: map[string]bool{licensing.FeaturePolicyProxy: true}}}
	enterpriseNoPolicy := LicenseFacts{Source: License{Tier: licensing.TierEnterprise, Features: map[string]bool{}}}
	type tc struct {
		name   string
		base   func() *DeployIntent
		mutate func(*DeployIntent)
		facts  Facts // nil: enterprise
		want   []ruleWant
	}
	cases := []tc{
		{name: "published base accepted", base: diPublished},
		{name: "project base accepted", base: diProject},

		{name: "agents-required: one agent accepted", base: diPublished, mutate: func(d *DeployIntent) { d.Agents = d.Agents[:1] }},
		{name: "agents-required: none rejected", base: diPublished, mutate: func(d *DeployIntent) { d.Agents = nil },
			want: []ruleWant{{DeployIntentAgentsRequiredRuleID, "agents"}}},

		{name: "providers-required: two providers accepted", base: diPublished, mutate: func(d *DeployIntent) {
			d.Agents[0].Providers = append(d.Agents[0].Providers, DeployIntentProvider{Name: "e", Ref: "voyage"})
		}},
		{name: "providers-required: none, and a binding without name or ref, rejected", base: diPublished, mutate: func(d *DeployIntent) {
			d.Agents[0].Providers = nil
			d.Agents[1].Providers[1] = DeployIntentProvider{}
		}, want: []ruleWant{
			{DeployIntentProvidersRequiredRuleID, "agents[0].providers"},
			{DeployIntentProvidersRequiredRuleID, "agents[1].providers[1].name"},
			{DeployIntentProvidersRequiredRuleID, "agents[1].providers[1].ref"},
		}},

		{name: "tools-ref-xor-handlers: ref alone accepted", base: diPublished, mutate: func(d *DeployIntent) {
			d.Tools = &DeployIntentTools{Ref: "shared-tools"}
			d.Credentials = nil
		}},
		{name: "tools-ref-xor-handlers: both rejected", base: diPublished, mutate: func(d *DeployIntent) { d.Tools.Ref = "shared-tools" },
			want: []ruleWant{{DeployIntentToolsRefXorHandlersRuleID, "tools.handlers"}}},
		{name: "tools-ref-xor-handlers: neither rejected", base: diPublished, mutate: func(d *DeployIntent) {
			d.Tools = &DeployIntentTools{}
			d.Credentials = nil
		}, want: []ruleWant{{DeployIntentToolsRefXorHandlersRuleID, "tools"}}},

		{name: "credentials-need-handlers: with handlers accepted", base: diPublished, mutate: func(d *DeployIntent) { d.Policy = nil }},
		{name: "credentials-need-handlers: with tools.ref rejected", base: diPublished, mutate: func(d *DeployIntent) {
			d.Tools = &DeployIntentTools{Ref: "shared-tools"}
		}, want: []ruleWant{{DeployIntentCredentialsHandlersRuleID, "credentials"}}},
		{name: "credentials-need-handlers: without tools rejected", base: diPublished, mutate: func(d *DeployIntent) {
			d.Tools, d.Policy = nil, nil
		}, want: []ruleWant{{DeployIntentCredentialsHandlersRuleID, "credentials"}}},

		{name: "credential-key-pattern: dots, dashes, underscores accepted", base: diPublished, mutate: func(d *DeployIntent) {
			d.Credentials.Keys = []string{"-._aZ09"}
		}},
		{name: "credential-key-pattern: a space, a slash and an empty key rejected", base: diPublished, mutate: func(d *DeployIntent) {
			d.Credentials.Keys = []string{"OK", "bad key", "a/b", "", ".."}
		}, want: []ruleWant{
			{DeployIntentCredentialKeyRuleID, "credentials.data[..]"},
			{DeployIntentCredentialKeyRuleID, "credentials.data[bad key]"},
			{DeployIntentCredentialKeyRuleID, "credentials.data[a/b]"},
			{DeployIntentCredentialKeyRuleID, "credentials.data[]"},
		}},

		{name: "policy-needs-tools: with tools.ref accepted", base: diPublished, mutate: func(d *DeployIntent) {
			d.Tools = &DeployIntentTools{Ref: "shared-tools"}
			d.Credentials = nil
		}},
		{name: "policy-needs-tools: without tools rejected", base: diPublished, mutate: func(d *DeployIntent) {
			d.Tools, d.Credentials = nil, nil
		}, want: []ruleWant{{DeployIntentPolicyNeedsToolsRuleID, "policy.toolBlocklist"}}},

		{name: "policy-license: policyProxy granted accepted", base: diPublished, facts: enterprise},
		{name: "policy-license: open-core rejected", base: diPublished, facts: NoFacts{},
			want: []ruleWant{{DeployIntentPolicyLicenseRuleID, "policy.toolBlocklist"}}},
		{name: "policy-license: enterprise without policyProxy rejected", base: diPublished, facts: enterpriseNoPolicy,
			want: []ruleWant{{DeployIntentPolicyLicenseRuleID, "policy.toolBlocklist"}}},
		{name: "policy-license: open-core without policy accepted", base: diPublished, facts: NoFacts{},
			mutate: func(d *DeployIntent) { d.Policy = nil }},

		{name: "idle-timeout-positive: 1h30m accepted", base: diPublished, mutate: func(d *DeployIntent) { d.Agents[1].IdleTimeout = "1h30m" }},
		{name: "idle-timeout-positive: zero, negative, unparsable rejected", base: diPublished, mutate: func(d *DeployIntent) {
			d.Agents[0].IdleTimeout = "0s"
			d.Agents[1].IdleTimeout = "-5m"
			d.Agents = append(d.Agents, DeployIntentAgent{IdleTimeout: "30", Providers: d.Agents[0].Providers})
		}, want: []ruleWant{
			{DeployIntentIdleTimeoutRuleID, "agents[0].idleTimeout"},
			{DeployIntentIdleTimeoutRuleID, "agents[1].idleTimeout"},
			{DeployIntentIdleTimeoutRuleID, "agents[2].idleTimeout"},
		}},

		{name: "project-excludes-content: pack.name alone accepted", base: diProject, mutate: func(d *DeployIntent) { d.Pack.Name = d.DerivedName }},
		{name: "project-excludes-content: content, version, skills, skillsConfig rejected", base: diProject, mutate: func(d *DeployIntent) {
			d.Pack.HasContent, d.Pack.Version, d.Pack.Skills, d.Pack.HasSkillsConfig = true, "1.0.0", 2, true
		}, want: []ruleWant{
			{DeployIntentProjectExcludesRuleID, "pack.content"},
			{DeployIntentProjectExcludesRuleID, "pack.version"},
			{DeployIntentProjectExcludesRuleID, "pack.skills"},
			{DeployIntentProjectExcludesRuleID, "pack.skillsConfig"},
		}},

		{name: "project-license: enterprise without policyProxy accepted", base: diProject, facts: enterpriseNoPolicy},
		{name: "project-license: open-core rejected", base: diProject, facts: NoFacts{},
			want: []ruleWant{{DeployIntentProjectLicenseRuleID, "pack.project"}}},
		{name: "project-license: open-core published pack accepted", base: diPublished, facts: NoFacts{},
			mutate: func(d *DeployIntent) { d.Policy = nil }},

		{name: "project-id-pattern: dots, underscores, 63 chars accepted", base: diProject, mutate: func(d *DeployIntent) {
			d.Pack.Project.ID = "a.b_c-" + strings.Repeat("x", 57)
			d.DerivedName = ""
		}},
		{name: "project-id-pattern: upper case rejected", base: diProject, mutate: func(d *DeployIntent) { d.Pack.Project.ID = "My-Project" },
			want: []ruleWant{{DeployIntentProjectIDRuleID, "pack.project.id"}}},
		{name: "project-id-pattern: trailing dash rejected", base: diProject, mutate: func(d *DeployIntent) { d.Pack.Project.ID = "p-" },
			want: []ruleWant{{DeployIntentProjectIDRuleID, "pack.project.id"}}},
		{name: "project-id-pattern: 64 chars rejected", base: diProject, mutate: func(d *DeployIntent) { d.Pack.Project.ID = strings.Repeat("a", 64) },
			want: []ruleWant{{DeployIntentProjectIDRuleID, "pack.project.id"}}},
		{name: "project-id-pattern: empty rejected", base: diProject, mutate: func(d *DeployIntent) { d.Pack.Project.ID = "" },
			want: []ruleWant{{DeployIntentProjectIDRuleID, "pack.project.id"}}},

		{name: "project-names-derived: both names equal accepted", base: diProject, mutate: func(d *DeployIntent) {
			d.Pack.Name, d.Agents[0].Name = d.DerivedName, d.DerivedName
		}},
		{name: "project-names-derived: another name rejected", base: diProject, mutate: func(d *DeployIntent) {
			d.Pack.Name, d.Agents[0].Name = "support", "dev-my-project-someone-else"
		}, want: []ruleWant{
			{DeployIntentProjectNamesRuleID, "pack.name"},
			{DeployIntentProjectNamesRuleID, "agents[0].name"},
		}},
		{name: "project-names-derived: published pack names free", base: diPublished, mutate: func(d *DeployIntent) { d.DerivedName = "dev-x-y" }},

		{name: "project-shape: managementPlane true accepted", base: diProject, mutate: func(d *DeployIntent) {
			d.Agents[0].Facades[0].ManagementPlane = diBool(true)
		}},
		{name: "project-shape: two agents rejected", base: diProject, mutate: func(d *DeployIntent) {
			d.Agents = append(d.Agents, d.Agents[0])
		}, want: []ruleWant{{DeployIntentProjectShapeRuleID, "agents"}}},
		{name: "project-shape: no idleTimeout, a rollout rejected", base: diProject, mutate: func(d *DeployIntent) {
			d.Agents[0].IdleTimeout, d.Agents[0].HasRollout = "", true
		}, want: []ruleWant{
			{DeployIntentProjectShapeRuleID, "agents[0].idleTimeout"},
			{DeployIntentProjectShapeRuleID, "agents[0].rollout"},
		}},
		{name: "project-shape: no facades (default dataPlane) rejected", base: diProject, mutate: func(d *DeployIntent) { d.Agents[0].Facades = nil },
			want: []ruleWant{{DeployIntentProjectShapeRuleID, "agents[0].facades"}}},
		{name: "project-shape: a2a facade, dataPlane unset, managementPlane false rejected", base: diProject, mutate: func(d *DeployIntent) {
			d.Agents[0].Facades[0] = DeployIntentFacade{Type: "a2a", ManagementPlane: diBool(false)}
		}, want: []ruleWant{
			{DeployIntentProjectShapeRuleID, "agents[0].facades[0].type"},
			{DeployIntentProjectShapeRuleID, "agents[0].facades[0].dataPlane"},
			{DeployIntentProjectShapeRuleID, "agents[0].facades[0].managementPlane"},
		}},
		{name: "project-shape: dataPlane true rejected", base: diProject, mutate: func(d *DeployIntent) {
			d.Agents[0].Facades[0].DataPlane = diBool(true)
		}, want: []ruleWant{{DeployIntentProjectShapeRuleID, "agents[0].facades[0].dataPlane"}}},

		{name: "project-policy-needs-handlers: with handlers accepted", base: diProject, mutate: func(d *DeployIntent) {
			d.Tools, d.Policy = &DeployIntentTools{Handlers: 1}, &DeployIntentPolicy{ToolBlocklist: 1}
		}},
		{name: "project-policy-needs-handlers: with tools.ref rejected", base: diProject, mutate: func(d *DeployIntent) {
			d.Tools, d.Policy = &DeployIntentTools{Ref: "shared-tools"}, &DeployIntentPolicy{ToolBlocklist: 1}
		}, want: []ruleWant{{DeployIntentProjectPolicyHandlersRuleID, "policy.toolBlocklist"}}},
		{name: "project-policy-needs-handlers: published pack with tools.ref accepted", base: diPublished, mutate: func(d *DeployIntent) {
			d.Tools, d.Credentials = &DeployIntentTools{Ref: "shared-tools"}, nil
		}},
	}
	covered := map[string][2]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			di := c.base()
			if c.mutate != nil {
				c.mutate(di)
			}
			facts := c.facts
			if facts == nil {
				facts = enterprise
			}
			var got []ruleWant
			for _, f := range EvaluateDeployIntent(di, facts) {
				got = append(got, ruleWant{f.RuleID, f.Field})
				if f.Message == "" || f.Severity != SeverityDeny || f.Stage != StageAdmission {
					t.Errorf("%s: message %q severity %s stage %s", f.RuleID, f.Message, f.Severity, f.Stage)
				}
			}
			want := slices.Clone(c.want)
			sortWants(got)
			sortWants(want)
			if !slices.Equal(got, want) {
				t.Errorf("findings = %v, want %v", got, want)
			}
		})
		// A rule is covered as accepted by a case named after it with no
		// finding, and as rejected by a case that finds it.
		for _, r := range Default.Rules() {
			if !slices.Contains(r.Kinds, KindDeployIntent) {
				continue
			}
			cv := covered[r.ID]
			short := strings.TrimPrefix(r.ID, "deployintent/")
			if strings.HasPrefix(c.name, short+":") && len(c.want) == 0 {
				cv[0] = true
			}
			if slices.ContainsFunc(c.want, func(w ruleWant) bool { return w.id == r.ID }) {
				cv[1] = true
			}
			covered[r.ID] = cv
		}
	}
	n := 0
	for id, cv := range covered {
		n++
		if !cv[0] || !cv[1] {
			t.Errorf("rule %s: accepted case %v, rejected case %v; want both", id, cv[0], cv[1])
		}
	}
	if n != 14 {
		t.Errorf("%d deployintent rules, want 14", n)
	}
}

// TestDeployIntentDeepCopy: a copy shares no pointer or slice with the
// original.
func TestDeployIntentDeepCopy(t *testing.T) {
	a := diPublished()
	a.Pack.Project = &DeployIntentProject{ID: "p"}
	a.Agents[0].Facades[0].DataPlane = diBool(true)
	b := a.DeepCopyObject().(*DeployIntent)
	b.Pack.Project.ID = "q"
	b.Tools.Handlers = 9
	b.Policy.ToolBlocklist = 9
	b.Credentials.Keys[0] = "changed"
	b.Agents[0].Providers[0].Ref = "changed"
	*b.Agents[0].Facades[0].DataPlane = false
	b.Agents[0].Facades[1].Type = "changed"
	if a.Pack.Project.ID != "p" || a.Tools.Handlers != 2 || a.Policy.ToolBlocklist != 1 || a.Credentials.Keys[0] != "GITHUB_TOKEN" ||
		a.Agents[0].Providers[0].Ref != "claude" || !*a.Agents[0].Facades[0].DataPlane || a.Agents[0].Facades[1].Type != "a2a" {
		t.Fatalf("the copy shares state with the original: %+v", a)
	}
}
