package schema

import "k8s.io/apiserver/pkg/cel/common"

// ratchet follows the walk through the old and new objects matched by
// common.CorrelatedObject (the same matching the OpenAPI ratcheting in
// validator.go uses), to tell whether a failing value is unchanged on update:
// CRD validation ratcheting then drops the error (the API server turns it
// into a warning), so an update is not refused for what the stored object
// already had.
//
// current is the match of the value being visited, or nil when it has none
// (create; a list item of a list that is not a map-type list; a value under
// such an item). parent is then the nearest ancestor that has one, whose
// equality decides instead.
type ratchet struct {
	current, parent *common.CorrelatedObject
}

// unchanged reports whether an error at this value is ratcheted.
// CachedDeepEqual is false for a nil match (nothing to compare with).
func (r ratchet) unchanged() bool {
	if r.current != nil {
		return r.current.CachedDeepEqual()
	}
	return r.parent.CachedDeepEqual()
}

// key moves to a map value or property.
func (r ratchet) key(name string) ratchet {
	if r.current == nil {
		return r // keep the nearest matched ancestor
	}
	if r.parent == nil && (name == "apiVersion" || name == "kind") {
		// The root's apiVersion and kind are not compared (old and new are
		// decoded to the same type), so a rule on them is never ratcheted.
		return ratchet{}
	}
	return ratchet{current: r.current.Key(name), parent: r.current}
}

// index moves to a list item.
func (r ratchet) index(i int) ratchet {
	if r.current == nil {
		return r
	}
	return ratchet{current: r.current.Index(i), parent: r.current}
}

// branch moves into an allOf branch of the same value: the branch is not
// matched itself, so its errors are ratcheted by the value's parent only.
func (r ratchet) branch() ratchet {
	return ratchet{parent: r.parent}
}
