package intent

import (
	"sort"

	"github.com/altairalabs/omnia/rules"
)

// Validate applies the rules that live only in validation
// (deploy-intent.md) to a decoded intent: the deployintent/* rules of the
// catalog, evaluated on the rules' view of the intent (View). facts answer
// the licence (nil: open-core). derivedName is the dev-<id>-<user> name of
// a pack.project intent (DevName of the project id and the caller's user),
// "" otherwise. The deploy API answers 400 with the findings (rule ID,
// field path, message) when there are any; every one of them denies.
func Validate(in *DeployIntent, facts rules.Facts, derivedName string) []rules.Finding {
	if in == nil {
		return nil
	}
	return rules.EvaluateDeployIntent(View(in, derivedName), facts)
}

// View is the rules' minimal view of an intent (rules.DeployIntent): the
// presence of each block, names, counts and the values the rules judge.
// Credential keys are carried, never their values.
func View(in *DeployIntent, derivedName string) *rules.DeployIntent {
	v := &rules.DeployIntent{
		Pack: rules.DeployIntentPack{
			Name:            in.Pack.Name,
			Version:         in.Pack.Version,
			HasContent:      in.Pack.Content != "",
			Skills:          len(in.Pack.Skills),
			HasSkillsConfig: in.Pack.SkillsConfig != nil,
		},
		DerivedName: derivedName,
	}
	if p := in.Pack.Project; p != nil {
		v.Pack.Project = &rules.DeployIntentProject{ID: p.ID}
	}
	if t := in.Tools; t != nil {
		v.Tools = &rules.DeployIntentTools{Ref: t.Ref, Handlers: len(t.Handlers)}
	}
	if p := in.Policy; p != nil {
		v.Policy = &rules.DeployIntentPolicy{ToolBlocklist: len(p.ToolBlocklist)}
	}
	if c := in.Credentials; c != nil {
		keys := make([]string, 0, len(c.Data))
		for k := range c.Data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		v.Credentials = &rules.DeployIntentCredentials{Keys: keys}
	}
	for _, a := range in.Agents {
		va := rules.DeployIntentAgent{
			Name:        a.Name,
			IdleTimeout: a.IdleTimeout,
			HasRollout:  a.Rollout != nil,
		}
		for _, p := range a.Providers {
			va.Providers = append(va.Providers, rules.DeployIntentProvider{Name: p.Name, Ref: p.Ref})
		}
		for _, f := range a.Facades {
			va.Facades = append(va.Facades, rules.DeployIntentFacade{Type: f.Type, ManagementPlane: f.ManagementPlane, DataPlane: f.DataPlane})
		}
		v.Agents = append(v.Agents, va)
	}
	return v
}
