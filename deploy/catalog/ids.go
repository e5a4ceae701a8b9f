package catalog

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Ids (toolregistry.md § Platform handler): tool:<registry>/<name> and
// skill:<source>/<name> for the two per-group kinds, <kind>:<name> for every
// other kind; group ids toolRegistry:<name> and skillSource:<name>. They are
// built from object and tool names only, so they stay the same as long as
// the objects do.

// EntryID is the id of an entry of kind k named name in group (the group's
// object name; "" for a kind without groups).
func EntryID(k Kind, group, name string) string {
	if group != "" {
		return string(k) + ":" + group + "/" + name
	}
	return string(k) + ":" + name
}

// GroupID is the id of a group.
func GroupID(k GroupKind, name string) string { return string(k) + ":" + name }

// perGroup reports whether entries of kind k belong to a group.
func perGroup(k Kind) bool { return k == KindTool || k == KindSkill }

// ParseID checks an id's shape: a valid kind, then <group>/<name> for tool
// and skill, <name> otherwise, each part non-empty. The error says what is
// wrong, for get's `missing`.
func ParseID(id string) (Kind, error) {
	kind, rest, ok := strings.Cut(id, ":")
	if !ok || rest == "" {
		return "", fmt.Errorf("malformed id: want <kind>:<name> (tool:<registry>/<name>, skill:<source>/<name>)")
	}
	k := Kind(kind)
	if !validKind(k) {
		return "", fmt.Errorf("malformed id: unknown kind %q; valid kinds: %s", kind, kindList())
	}
	group, name, slash := strings.Cut(rest, "/")
	switch {
	case perGroup(k) && (!slash || group == "" || name == ""):
		return "", fmt.Errorf("malformed id: %s ids are %s:<%s>/<name>", k, k, groupOfKind(k))
	case !perGroup(k) && slash:
		return "", fmt.Errorf("malformed id: %s ids are %s:<name>, without '/'", k, k)
	}
	return k, nil
}

// groupOfKind names the group of a per-group kind, for messages.
func groupOfKind(k Kind) GroupKind {
	if k == KindSkill {
		return GroupSkillSource
	}
	return GroupToolRegistry
}

// ParseGroup checks a group id: toolRegistry:<name> or skillSource:<name>
// with <name> an object name (a DNS subdomain). The error is the 400's.
func ParseGroup(id string) (GroupKind, string, error) {
	kind, name, ok := strings.Cut(id, ":")
	gk := GroupKind(kind)
	if !ok || (gk != GroupToolRegistry && gk != GroupSkillSource) {
		return "", "", fmt.Errorf("group: %q is not a group id: want toolRegistry:<name> or skillSource:<name>", id)
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return "", "", fmt.Errorf("group: %q: the name is not an object name: %s", id, strings.Join(errs, "; "))
	}
	return gk, name, nil
}
