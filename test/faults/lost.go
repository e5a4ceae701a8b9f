package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A write is lost when the writer was told OK and its object is not there
// as written, or told an error (a refusal, its final answer) and the
// object is there changed. The stream retries every other error until it
// has its outcome, so the objects' final state is known from the
// operations done alone: each object holds the spec of its last valid
// operation, and no invalid create's name exists.

// Acknowledged is what the first done operations of a stream over groups
// groups leave: per object (kind/name) the last valid operation told OK,
// and the invalid creates, each told it was refused.
func Acknowledged(groups, done int) (last map[string]Op, refused []Op) {
	last = map[string]Op{}
	for k := range done {
		op := OpAt(k, groups)
		switch {
		case !op.Invalid:
			last[op.Kind+"/"+op.Name] = op
		case !op.Update:
			refused = append(refused, op)
		}
	}
	return last, refused
}

// SpecHolds reports whether every field want's spec sets holds the same
// value in stored's (the API server's defaults may add fields).
func SpecHolds(stored, want client.Object) (bool, error) {
	s, err := specOf(stored)
	if err != nil {
		return false, err
	}
	w, err := specOf(want)
	if err != nil {
		return false, err
	}
	return subset(w, s), nil
}

// specOf is an object's spec as generic JSON.
func specOf(o client.Object) (any, error) {
	data, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return m["spec"], nil
}

// subset: every value want sets, got holds (maps field by field, lists
// of the same length item by item, scalars whole): defaults the API server
// adds, inside list items too, do not count as a change.
func subset(want, got any) bool {
	if wl, ok := want.([]any); ok {
		gl, ok := got.([]any)
		if !ok || len(gl) != len(wl) {
			return false
		}
		for i := range wl {
			if !subset(wl[i], gl[i]) {
				return false
			}
		}
		return true
	}
	wm, ok := want.(map[string]any)
	if !ok {
		return reflect.DeepEqual(want, got)
	}
	gm, ok := got.(map[string]any)
	if !ok {
		return false
	}
	for k, v := range wm {
		if !subset(v, gm[k]) {
			return false
		}
	}
	return true
}

// Lost is the stored-state check of one namespace.
type Lost struct {
	// Checked is how many objects were read.
	Checked int
	// Count is every lost write; the lists name them (at most
	// maxLostListed each). Missing: told OK, not there. Changed: there,
	// but not as last told OK (a write told an error landed, or an
	// acknowledged one was undone). Refused: an invalid create told
	// refused, there.
	Count                     int
	Missing, Changed, Refused []string
}

// maxLostListed bounds each list of a Lost.
const maxLostListed = 20

// CheckStored reads every object the first done operations wrote in ns
// and compares it with what the writers were told.
func CheckStored(ctx context.Context, c client.Client, ns string, groups, done int) (Lost, error) {
	var l Lost
	last, refused := Acknowledged(groups, done)
	keys := make([]string, 0, len(last))
	for k := range last {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	add := func(list *[]string, s string) {
		l.Count++
		if len(*list) < maxLostListed {
			*list = append(*list, s)
		}
	}
	for _, k := range keys {
		op := last[k]
		want := validObject(ns, op.Kind, op.Group, op.Version)
		stored := newObject(op.Kind)
		err := c.Get(ctx, client.ObjectKeyFromObject(want), stored)
		l.Checked++
		switch {
		case apierrors.IsNotFound(err):
			add(&l.Missing, fmt.Sprintf("%s (told OK)", op))
			continue
		case err != nil:
			return l, err
		}
		ok, err := SpecHolds(stored, want)
		if err != nil {
			return l, err
		}
		if !ok {
			add(&l.Changed, fmt.Sprintf("%s/%s does not hold version %d, its last write told OK", op.Kind, op.Name, op.Version))
		}
	}
	for _, op := range refused {
		err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: op.Name}, newObject(op.Kind))
		l.Checked++
		switch {
		case err == nil:
			add(&l.Refused, fmt.Sprintf("%s (told refused) is stored", op))
		case !apierrors.IsNotFound(err):
			return l, err
		}
	}
	return l, nil
}
