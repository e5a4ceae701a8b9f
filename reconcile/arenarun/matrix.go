package arenarun

import (
	"path"
	"sort"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// selectScenarios applies the template's include/exclude globs (path.Match)
// to the arena file's scenarios: an empty include keeps all, exclusions apply
// after inclusions. A pattern also matches a scenario's base name.
func selectScenarios(all []string, f *v1alpha1.ArenaJobScenarios) []string {
	match := func(patterns []string, s string) bool {
		for _, p := range patterns {
			if ok, _ := path.Match(p, s); ok {
				return true
			}
			if ok, _ := path.Match(p, path.Base(s)); ok {
				return true
			}
		}
		return false
	}
	var out []string
	for _, s := range all {
		if f != nil && len(f.Include) > 0 && !match(f.Include, s) {
			continue
		}
		if f != nil && match(f.Exclude, s) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// matrixProviders is the provider axis of the matrix: every entry of the
// template's array-mode groups ("provider:<name>" or "agent:<name>", groups
// in name order), map-mode groups adding nothing; the arena file's providers
// when the template sets no array-mode group.
func matrixProviders(t *v1alpha1.ArenaJobSpec, fromFile []string) []string {
	groups := make([]string, 0, len(t.Providers))
	for g, grp := range t.Providers {
		if !grp.IsMap() && len(grp.Entries) > 0 {
			groups = append(groups, g)
		}
	}
	if len(groups) == 0 {
		if len(fromFile) == 0 {
			return []string{"default"}
		}
		return fromFile
	}
	sort.Strings(groups)
	var out []string
	for _, g := range groups {
		for _, e := range t.Providers[g].Entries {
			switch {
			case e.ProviderRef != nil:
				out = append(out, "provider:"+e.ProviderRef.Name)
			case e.AgentRef != nil:
				out = append(out, "agent:"+e.AgentRef.Name)
			}
		}
	}
	return out
}
