package schema

import (
	"context"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/common"
)

// celWalk is one evaluation of a plan over an object: where the errors go
// and what is left of the cost budget. The walk visits only the values the
// plan has rules for, and stops as soon as the budget is spent (budget < 0),
// which, like the API server, leaves the values not yet visited unchecked.
type celWalk struct {
	ctx    context.Context
	budget int64
	errs   field.ErrorList
}

// validate evaluates the plan's rules on obj, with old the stored object on
// update (nil on create) and correlated the two matched for ratcheting (nil
// on create), within the cost budget.
func (p *celPlan) validate(ctx context.Context, obj, old map[string]any, correlated *common.CorrelatedObject, budget int64) field.ErrorList {
	w := &celWalk{ctx: ctx, budget: budget}
	var oldValue any
	if old != nil {
		oldValue = old
	}
	w.visit(p.root, nil, obj, oldValue, ratchet{current: correlated})
	return w.errs
}

// fail reports an error that ends the walk.
func (w *celWalk) fail(e *field.Error) {
	w.errs = append(w.errs, e)
	w.stop()
}

func (w *celWalk) stop()         { w.budget = -1 }
func (w *celWalk) stopped() bool { return w.budget < 0 }

// visit evaluates n's rules on value, then those of n's allOf branches, then
// descends into the items or properties the plan has rules for. A null or
// absent value is not validated (a rule about presence belongs on the
// parent).
func (w *celWalk) visit(n *celNode, path *field.Path, value, old any, r ratchet) {
	if n == nil || value == nil || w.stopped() {
		return
	}
	old = nilIfEmptyReference(old)
	w.evaluateRules(n, path, value, old, r)
	for _, branch := range n.allOf {
		// allOf errors are ratcheted only through the parent, as the
		// OpenAPI ratcheting does (the branch itself is never matched).
		w.visit(branch, path, value, old, r.branch())
	}
	switch v := value.(type) {
	case []any:
		w.visitItems(n, path, v, old, r)
	case map[string]any:
		w.visitMap(n, path, v, old, r)
	}
}

// visitItems visits every item of a list. Only the items of a map-type list
// have old values: the old items with the same keys.
func (w *celWalk) visitItems(n *celNode, path *field.Path, items []any, old any, r ratchet) {
	if n.items == nil {
		return
	}
	var oldItems common.MapList
	if oldList, _ := old.([]any); n.keyedList && len(oldList) > 0 {
		oldItems = common.MakeMapList(n.value, oldList)
	}
	for i, item := range items {
		if w.stopped() {
			return
		}
		var oldItem any
		if oldItems != nil {
			oldItem = oldItems.Get(item)
		}
		w.visit(n.items, path.Index(i), item, oldItem, r.index(i))
	}
}

// visitMap visits a map's values (additionalProperties) or the declared
// properties with rules. A value's old value is the one under the same key,
// unless the map type says keys do not identify values.
func (w *celWalk) visitMap(n *celNode, path *field.Path, m map[string]any, old any, r ratchet) {
	var oldMap map[string]any
	if n.correlatesKeys {
		oldMap, _ = old.(map[string]any)
	}
	if n.additional != nil {
		for k, v := range m {
			if w.stopped() {
				return
			}
			w.visit(n.additional, path.Key(k), v, oldMap[k], r.key(k))
		}
	}
	for _, p := range n.properties {
		if w.stopped() {
			return
		}
		v, ok := m[p.name]
		if !ok {
			continue
		}
		w.visit(p.node, path.Child(p.name), v, oldMap[p.name], r.key(p.name))
	}
}

// nilIfEmptyReference turns a nil map or list held in an interface into
// nil: it is no old value. (Decoded JSON holds no other reference types.)
func nilIfEmptyReference(v any) any {
	switch t := v.(type) {
	case map[string]any:
		if t == nil {
			return nil
		}
	case []any:
		if t == nil {
			return nil
		}
	}
	return v
}
