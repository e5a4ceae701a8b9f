package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// MaxEntries bounds a workspace's index: the first MaxEntries entries by
// id are kept and Overview reports Truncated. 10,000 is what search is
// benchmarked over (bench_test.go); a workspace with more is beyond what an
// agent browsing a catalog needs, and the bound keeps each request's work
// and memory fixed.
const MaxEntries = 10000

// MaxGroups bounds the groups overview lists (each ToolRegistry and
// SkillSource is one), for the same reason.
const MaxGroups = 1000

// Objects are a workspace's objects the catalog is made of: the manager's
// cached copies, read by Load.
type Objects struct {
	ToolRegistries []v1alpha1.ToolRegistry
	SkillSources   []v1alpha1.SkillSource
	Providers      []v1alpha1.Provider
	Agents         []v1alpha1.AgentRuntime
	PromptPacks    []v1alpha1.PromptPack
}

// Index is a workspace's catalog: entries sorted by id, and the groups.
type Index struct {
	Entries []Entry
	Groups  []Group
	// Truncated: the workspace has more than MaxEntries entries (or
	// MaxGroups groups); the ones past the bound, by id, are not indexed.
	Truncated bool

	byID map[string]int
}

// Build indexes objects. It is pure: same objects, same index.
//
//   - tool: each entry of a ToolRegistry's status.discoveredTools, in group
//     toolRegistry:<registry>; ready when its status is Available. A
//     self-describing handler (mcp, openapi) appears as the placeholder the
//     registry's controller writes, since the real tools are listed by the
//     runtime when the agent starts.
//   - skill: none. The spec reads skills from a per-SkillSource index the
//     SkillSource reconciler writes after each sync; this operator has no
//     SkillSource reconciler and SkillSource's status holds only
//     conditions, so no skill can be indexed. skillSource:<name> groups are
//     still listed (count 0).
//   - provider, agent (AgentRuntime), skillSource, promptPack: one entry
//     per object.
//
// An object labelled hidden — and every tool of a hidden registry — is
// marked Hidden.
func Build(objs Objects) *Index {
	var entries []Entry
	var groups []Group
	for i := range objs.ToolRegistries {
		tr := &objs.ToolRegistries[i]
		g := Group{ID: GroupID(GroupToolRegistry, tr.Name), Kind: GroupToolRegistry, Name: tr.Name, Hidden: hidden(tr),
			Ready: ready(tr.Status.Conditions, string(tr.Status.Phase), string(v1alpha1.ToolRegistryPhaseReady))}
		groups = append(groups, g)
		for j := range tr.Status.DiscoveredTools {
			t := &tr.Status.DiscoveredTools[j]
			d := ToolDetail{Registry: tr.Name, Handler: t.HandlerName, Name: t.Name, Description: t.Description,
				Status: string(t.Status), Error: t.Error}
			if t.InputSchema != nil {
				d.InputSchema = t.InputSchema.Raw
			}
			if t.OutputSchema != nil {
				d.OutputSchema = t.OutputSchema.Raw
			}
			entries = append(entries, Entry{ID: EntryID(KindTool, tr.Name, t.Name), Kind: KindTool, Name: t.Name, Group: g.ID,
				Description: t.Description, Ready: t.Status == v1alpha1.ToolRegistryToolStatusAvailable, Hidden: g.Hidden, Detail: d})
		}
	}
	for i := range objs.SkillSources {
		s := &objs.SkillSources[i]
		ok := ready(s.Status.Conditions, "")
		groups = append(groups, Group{ID: GroupID(GroupSkillSource, s.Name), Kind: GroupSkillSource, Name: s.Name, Hidden: hidden(s), Ready: ok})
		entries = append(entries, Entry{ID: EntryID(KindSkillSource, "", s.Name), Kind: KindSkillSource, Name: s.Name,
			Description: fmt.Sprintf("%s skill source", s.Spec.Type), Ready: ok, Hidden: hidden(s),
			Detail: SkillSourceDetail{Type: string(s.Spec.Type)}})
	}
	for i := range objs.Providers {
		p := &objs.Providers[i]
		role := string(p.Spec.Role)
		if role == "" {
			role = string(v1alpha1.ProviderRoleLLM)
		}
		d := ProviderDetail{Type: string(p.Spec.Type), Role: role, Model: p.Spec.Model, Pricing: p.Spec.Pricing.DeepCopy(), Phase: string(p.Status.Phase)}
		for _, c := range p.Spec.Capabilities {
			d.Capabilities = append(d.Capabilities, string(c))
		}
		desc := fmt.Sprintf("%s %s provider", role, p.Spec.Type)
		if p.Spec.Model != "" {
			desc += ", model " + p.Spec.Model
		}
		if len(d.Capabilities) > 0 {
			desc += "; capabilities: " + strings.Join(d.Capabilities, ", ")
		}
		entries = append(entries, Entry{ID: EntryID(KindProvider, "", p.Name), Kind: KindProvider, Name: p.Name, Description: desc,
			Ready: ready(p.Status.Conditions, string(p.Status.Phase), string(v1alpha1.ProviderPhaseReady)), Hidden: hidden(p), Detail: d})
	}
	for i := range objs.Agents {
		entries = append(entries, agentEntry(&objs.Agents[i]))
	}
	for i := range objs.PromptPacks {
		pp := &objs.PromptPacks[i]
		desc := "PromptPack " + pp.Spec.PackName
		if pp.Spec.Version != "" {
			desc += " " + pp.Spec.Version
		}
		entries = append(entries, Entry{ID: EntryID(KindPromptPack, "", pp.Name), Kind: KindPromptPack, Name: pp.Name, Description: desc,
			Ready:  ready(pp.Status.Conditions, string(pp.Status.Phase), string(v1alpha1.PromptPackPhaseReady)),
			Hidden: hidden(pp), Detail: PromptPackDetail{PackName: pp.Spec.PackName, Version: pp.Spec.Version, Phase: string(pp.Status.Phase),
				Skills: slices.Clone(pp.Spec.Skills)}})
	}
	return newIndex(entries, groups)
}

// agentEntry is an AgentRuntime's entry: described by its A2A card when it
// has one.
func agentEntry(ar *v1alpha1.AgentRuntime) Entry {
	d := AgentDetail{Mode: string(ar.Spec.Mode), Phase: string(ar.Status.Phase)}
	for i := range ar.Spec.Facades {
		f := &ar.Spec.Facades[i]
		d.Facades = append(d.Facades, string(f.Type))
		if f.A2A != nil && f.A2A.AgentCard != nil && d.AgentCard == nil {
			d.AgentCard = f.A2A.AgentCard.DeepCopy()
		}
	}
	if a := ar.Status.A2A; a != nil {
		d.AgentCardURL = a.AgentCardURL
	}
	desc := ""
	if d.AgentCard != nil {
		desc = d.AgentCard.Description
	}
	return Entry{ID: EntryID(KindAgent, "", ar.Name), Kind: KindAgent, Name: ar.Name, Description: desc,
		Ready: ready(ar.Status.Conditions, string(ar.Status.Phase), string(v1alpha1.AgentRuntimePhaseRunning)), Hidden: hidden(ar), Detail: d}
}

// newIndex sorts, bounds and counts.
func newIndex(entries []Entry, groups []Group) *Index {
	slices.SortFunc(entries, func(a, b Entry) int { return strings.Compare(a.ID, b.ID) })
	// Two tools of one registry may share a name (two handlers declaring
	// the same tool): keep the first, so an id names one entry.
	entries = slices.CompactFunc(entries, func(a, b Entry) bool { return a.ID == b.ID })
	slices.SortFunc(groups, func(a, b Group) int { return strings.Compare(a.ID, b.ID) })
	ix := &Index{Truncated: len(entries) > MaxEntries || len(groups) > MaxGroups}
	ix.Entries = entries[:min(len(entries), MaxEntries)]
	ix.Groups = groups[:min(len(groups), MaxGroups)]
	ix.byID = make(map[string]int, len(ix.Entries))
	count := map[string]int{}
	for i := range ix.Entries {
		e := &ix.Entries[i]
		e.lowerName, e.nameWords, e.descWords = strings.ToLower(e.Name), words(e.Name), words(e.Description)
		ix.byID[e.ID] = i
		if e.Group != "" && !e.Hidden {
			count[e.Group]++
		}
	}
	for i := range ix.Groups {
		ix.Groups[i].Count = count[ix.Groups[i].ID]
	}
	return ix
}

// Lookup returns the entry with id.
func (ix *Index) Lookup(id string) (*Entry, bool) {
	i, ok := ix.byID[id]
	if !ok {
		return nil, false
	}
	return &ix.Entries[i], true
}
