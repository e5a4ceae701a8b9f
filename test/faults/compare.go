package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// After both runs, every object of the fault run must hold the status the
// same object holds in the reference run. What must differ between two
// runs is normalised away, nothing else: timestamps (any RFC 3339 string),
// the namespace's name wherever it appears (the runs use two namespaces of
// one cluster), and digests over UIDs (uidDerived), which are set or empty
// but never equal between two runs. The generation is compared too: the
// runs write the same updates, so it must be equal, and so must every
// observedGeneration.

// Snapshot is the normalised status (and generation) of each object of a
// namespace, by "Kind/name".
type Snapshot map[string]map[string]any

// timePlaceholder replaces every timestamp.
const timePlaceholder = "<time>"

// nsPlaceholder replaces the namespace's name.
const nsPlaceholder = "<ns>"

// Conditions are a list keyed by type (listType map): their order is the
// order the types were first set, which two runs need not share. They are
// compared sorted by type.

// uidDerived are status fields that hash object UIDs: an AgentRuntime's
// compositionDigest covers each Provider's UID (to tell a re-created
// Provider from the old one). They are compared as set or empty; their
// other inputs (the ToolRegistry's contentDigest, the Provider's
// generation, the pack's digest) are compared on the objects they come
// from.
var uidDerived = map[string]bool{"compositionDigest": true}

// uidDerivedPlaceholder replaces a set uidDerived field.
const uidDerivedPlaceholder = "<digest over UIDs>"

// Normalise returns the comparable form of an object's status: a JSON
// tree with timestamps and the namespace replaced, plus the object's
// generation.
func Normalise(status any, generation int64, namespace string) (map[string]any, error) {
	raw, err := json.Marshal(status)
	if err != nil {
		return nil, err
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil, err
	}
	return map[string]any{"generation": float64(generation), "status": normaliseValue(tree, namespace)}, nil
}

// normaliseValue walks a JSON tree.
func normaliseValue(v any, namespace string) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			if str, ok := x.(string); ok && uidDerived[k] && str != "" {
				out[k] = uidDerivedPlaceholder
				continue
			}
			out[k] = normaliseValue(x, namespace)
			if k == "conditions" {
				sortByType(out[k])
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = normaliseValue(x, namespace)
		}
		return out
	case string:
		if _, err := time.Parse(time.RFC3339, t); err == nil {
			return timePlaceholder
		}
		if namespace != "" {
			return strings.ReplaceAll(t, namespace, nsPlaceholder)
		}
		return t
	default:
		return v
	}
}

// sortByType sorts a list of conditions by their type.
func sortByType(v any) {
	list, ok := v.([]any)
	if !ok {
		return
	}
	typeOf := func(x any) string {
		m, _ := x.(map[string]any)
		t, _ := m["type"].(string)
		return t
	}
	sort.SliceStable(list, func(i, j int) bool { return typeOf(list[i]) < typeOf(list[j]) })
}

// Difference is one object whose status differs between the runs.
type Difference struct {
	Object string
	// Paths are the JSON paths that differ ("" when the object is missing
	// from one run).
	Paths []string
	// Detail says what differs, for the report.
	Detail string
}

// Compare returns every difference between the fault run's snapshot and
// the reference's, sorted by object.
func Compare(faulted, reference Snapshot) []Difference {
	keys := map[string]bool{}
	for k := range faulted {
		keys[k] = true
	}
	for k := range reference {
		keys[k] = true
	}
	var out []Difference
	for k := range keys {
		f, fok := faulted[k]
		r, rok := reference[k]
		switch {
		case !fok:
			out = append(out, Difference{Object: k, Detail: "missing from the run with faults"})
		case !rok:
			out = append(out, Difference{Object: k, Detail: "missing from the reference run"})
		default:
			var paths []string
			diffPaths("", f, r, &paths)
			if len(paths) > 0 {
				out = append(out, Difference{Object: k, Paths: paths, Detail: describe(paths, f, r)})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Object < out[j].Object })
	return out
}

// diffPaths appends the paths under which a and b differ.
func diffPaths(path string, a, b any, out *[]string) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			diffPaths(path+"."+k, am[k], bm[k], out)
		}
		return
	}
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok && bok && len(as) == len(bs) {
		for i := range as {
			diffPaths(fmt.Sprintf("%s[%d]", path, i), as[i], bs[i], out)
		}
		return
	}
	if !reflect.DeepEqual(a, b) {
		*out = append(*out, path)
	}
}

// describedPaths is how many differing paths a Difference shows.
const describedPaths = 3

// describe shows the first differing paths' two values.
func describe(paths []string, f, r map[string]any) string {
	var parts []string
	for _, p := range paths[:min(len(paths), describedPaths)] {
		parts = append(parts, fmt.Sprintf("%s: with faults %s, reference %s", p, shortJSON(lookup(f, p)), shortJSON(lookup(r, p))))
	}
	return fmt.Sprintf("%s (%d paths differ)", strings.Join(parts, "; "), len(paths))
}

// lookup reads a path diffPaths produced.
func lookup(v any, path string) any {
	for _, part := range strings.Split(strings.TrimPrefix(path, "."), ".") {
		name, rest, _ := strings.Cut(part, "[")
		if m, ok := v.(map[string]any); ok {
			v = m[name]
		} else {
			return nil
		}
		for rest != "" {
			var i int
			if _, err := fmt.Sscanf(rest, "%d]", &i); err != nil {
				return nil
			}
			s, ok := v.([]any)
			if !ok || i >= len(s) {
				return nil
			}
			v = s[i]
			_, rest, _ = strings.Cut(rest, "[")
		}
	}
	return v
}

// shortJSON prints v, cut to a readable length.
func shortJSON(v any) string {
	raw, _ := json.Marshal(v)
	if len(raw) > 160 {
		return string(raw[:160]) + "…"
	}
	return string(raw)
}

// TakeSnapshot reads every stream object of namespace.
func TakeSnapshot(ctx context.Context, c client.Client, namespace string) (Snapshot, error) {
	out := Snapshot{}
	for _, kind := range streamKinds {
		list := newList(kind)
		if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
			return nil, err
		}
		objs, err := listItems(list)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
			if err != nil {
				return nil, err
			}
			n, err := Normalise(u["status"], o.GetGeneration(), namespace)
			if err != nil {
				return nil, err
			}
			out[kind+"/"+o.GetName()] = n
		}
	}
	return out, nil
}

// Settled reports whether every object's status has caught up with its
// generation (status.observedGeneration, where the kind reports it).
func (s Snapshot) Settled() bool {
	for _, n := range s {
		st, _ := n["status"].(map[string]any)
		if len(st) == 0 {
			return false
		}
		if og, ok := st["observedGeneration"]; ok && og != n["generation"] {
			return false
		}
	}
	return true
}
