// Package catalog is the operator's workspace catalog: the three routes a
// `platform` handler with `service: discovery` renders as tools
// (catalog_overview, catalog_search, catalog_get; toolregistry.md §
// Platform handler). It is pure functions over the workspace's objects —
// Build makes an Index of Entries, Overview/Search/Get answer from it — and
// one HTTP handler that reads those objects from the manager's informer
// cache, never from the API server, per request. docs/catalog-api.md
// describes the API.
package catalog

import (
	"slices"
	"strings"
)

// Kind is an entry's kind, as ids and the `kinds` filter spell it.
type Kind string

// The kinds the spec lists. Connection, SandboxClass and MemorySchema are
// not kinds of this operator: they are valid in `kinds` (a filter naming
// them is not an error) but never have entries.
const (
	KindTool         Kind = "tool"
	KindSkill        Kind = "skill"
	KindProvider     Kind = "provider"
	KindAgent        Kind = "agent"
	KindSkillSource  Kind = "skillSource"
	KindPromptPack   Kind = "promptPack"
	KindConnection   Kind = "connection"
	KindSandboxClass Kind = "sandboxClass"
	KindMemorySchema Kind = "memorySchema"
)

// Kinds are every valid kind, sorted: the order overview's counts and the
// "valid kinds" of a 400 list them in.
var Kinds = func() []Kind {
	k := []Kind{KindTool, KindSkill, KindProvider, KindAgent, KindSkillSource, KindPromptPack,
		KindConnection, KindSandboxClass, KindMemorySchema}
	slices.Sort(k)
	return k
}()

// validKind reports whether k is one of Kinds.
func validKind(k Kind) bool { return slices.Contains(Kinds, k) }

// kindList is "agent, connection, …" for error messages.
func kindList() string {
	s := make([]string, len(Kinds))
	for i, k := range Kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// GroupKind is a group's kind: the two per-group kinds' parents.
type GroupKind string

// The group kinds: a tool's group is its ToolRegistry, a skill's its
// SkillSource.
const (
	GroupToolRegistry GroupKind = "toolRegistry"
	GroupSkillSource  GroupKind = "skillSource"
)
