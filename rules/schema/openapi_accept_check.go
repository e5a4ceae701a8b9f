package schema

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
)

// OpenAPIAcceptorCheck tallies the fast OpenAPI acceptor held to the API
// server's validator on objects and their mutations. The acceptor is sound
// when Unsound stays empty: it never vouched for a value upstream refuses.
// It is exported for tests in other packages (omniactl's generated
// documents); nothing in the product calls it.
type OpenAPIAcceptorCheck struct {
	// Valid counts the objects (unmutated) upstream passes; ValidNotSure
	// those of them the acceptor was not sure of (each costs an upstream
	// run in production).
	Valid, ValidNotSure int
	// Invalid counts unmutated objects upstream refuses.
	Invalid int
	// Mutants counts mutated objects; MutantsRefused those upstream
	// refuses; MutantsAccepted those the acceptor vouched for.
	Mutants, MutantsRefused, MutantsAccepted int
	// Unsound describes every object the acceptor vouched for and upstream
	// refused.
	Unsound []string
}

// defaultAcceptors is the acceptor of each kind of the embedded CRDs, as
// Default compiled them.
func defaultAcceptors() (map[string]*openAPIAcceptor, error) {
	sv, err := Default()
	if err != nil {
		return nil, err
	}
	out := make(map[string]*openAPIAcceptor, len(sv.kinds))
	for kind, ks := range sv.kinds {
		out[kind] = ks.accept
	}
	return out, nil
}

// CheckOpenAPIAcceptor prepares obj as the API server does before OpenAPI
// validation (JSON numbers, pruned, defaulted), asks the acceptor and the
// upstream validator about it and, with mutate, about every systematic
// mutation of it (see openAPIMutations), and adds the tallies to into.
func (v *Validator) CheckOpenAPIAcceptor(obj map[string]any, mutate bool, into *OpenAPIAcceptorCheck) error {
	kind, _ := obj["kind"].(string)
	ks, ok := v.kinds[kind]
	if !ok {
		return fmt.Errorf("no schema for kind %q", kind)
	}
	acc := ks.accept
	u, err := normalizeJSON(obj)
	if err != nil {
		return err
	}
	structuralpruning.Prune(u, ks.structural, true)
	structuraldefaulting.Default(u, ks.structural)

	judge := func(v map[string]any, what string) (accepted, refused bool) {
		accepted = acc.Accepts(v)
		refused = len(apiservervalidation.ValidateCustomResource(nil, v, ks.validator)) > 0
		if accepted && refused {
			into.Unsound = append(into.Unsound, fmt.Sprintf("%s %s: %s", kind, name(v), what))
		}
		return accepted, refused
	}
	accepted, refused := judge(u, "as given")
	switch {
	case refused:
		into.Invalid++
	case !accepted:
		into.Valid++
		into.ValidNotSure++
	default:
		into.Valid++
	}
	if !mutate {
		return nil
	}
	for _, m := range openAPIMutations(u) {
		into.Mutants++
		accepted, refused := judge(m.object, m.what)
		if refused {
			into.MutantsRefused++
		}
		if accepted {
			into.MutantsAccepted++
		}
	}
	return nil
}

func name(u map[string]any) string {
	meta, _ := u["metadata"].(map[string]any)
	n, _ := meta["name"].(string)
	return n
}

// mutant is one mutation of an object and what was changed.
type mutant struct {
	object map[string]any
	what   string
}

// openAPIMutations returns, for every value in u (at any depth, except
// apiVersion and kind), copies of u with that value changed in the ways
// OpenAPI constraints catch: null, each wrong JSON type, numbers around
// and far beyond usual bounds, strings empty, too long (in bytes and in
// runes) and unlike any pattern or enum, maps missing each key or with an
// extra one, lists empty or too long. Keys are visited in sorted order so
// the set is the same on every run.
func openAPIMutations(u map[string]any) []mutant {
	var out []mutant
	WalkJSON(u, nil, func(path []any, v any) {
		if len(path) > 0 && !(len(path) == 1 && (path[0] == "apiVersion" || path[0] == "kind")) {
			for _, r := range replacements(v) {
				out = append(out, mutant{object: replaceAt(u, path, r.value), what: fmt.Sprintf("%s %s", pathString(path), r.what)})
			}
		}
	})
	return out
}

// WalkJSON calls visit on v and then on every value under it, depth first,
// with the path from v (map keys and list indexes, after prefix). Map keys
// are visited in sorted order, so a walk is the same on every run. Each
// path visit sees is its own copy. Exported for the differential tests of
// other packages.
func WalkJSON(v any, prefix []any, visit func(path []any, value any)) {
	visit(prefix, v)
	switch t := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			WalkJSON(t[k], append(slices.Clone(prefix), k), visit)
		}
	case []any:
		for i, e := range t {
			WalkJSON(e, append(slices.Clone(prefix), i), visit)
		}
	}
}

type replacement struct {
	value any
	what  string
}

// longStrings pass or break the usual maxLength bounds (63 and 253 for
// names, 64 KiB …), one counting runes where bytes would differ. Built once:
// every string of every object is replaced by each.
var longStrings = []replacement{
	{strings.Repeat("a", 64), "64 bytes"},
	{strings.Repeat("é", 63), "63 runes, 126 bytes"},
	{strings.Repeat("b", 254), "254 bytes"},
	{strings.Repeat("c", 70000), "70000 bytes"},
}

// replacements are the values put in v's place.
func replacements(v any) []replacement {
	out := []replacement{
		{nil, "set to null"},
		{"x", `set to "x"`},
		{int64(7), "set to 7"},
		{1.5, "set to 1.5"},
		{true, "set to true"},
		{map[string]any{}, "set to {}"},
		{[]any{}, "set to []"},
	}
	switch t := v.(type) {
	case string:
		out = append(out,
			replacement{"", `set to ""`},
			replacement{t + "-Ünicode_!", "suffixed"},
		)
		out = append(out, longStrings...)
	case int64:
		for _, n := range []int64{t + 1, t - 1, -t, t * 1000, 0, -1, 1 << 31, 1 << 40} {
			out = append(out, replacement{n, fmt.Sprintf("set to %d", n)})
		}
		out = append(out, replacement{float64(t) + 0.5, "plus 0.5"})
	case float64:
		out = append(out, replacement{t * 1000, "times 1000"}, replacement{-t, "negated"}, replacement{int64(t), "truncated"})
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			m := shallowMap(t)
			delete(m, k)
			out = append(out, replacement{m, "without " + k})
		}
		m := shallowMap(t)
		m["zzExtra"] = "x"
		out = append(out, replacement{m, "with an extra key"})
	case []any:
		if len(t) > 0 {
			long := make([]any, 0, 300)
			for len(long) < 300 {
				long = append(long, t...)
			}
			out = append(out, replacement{long, "repeated to 300 items"})
			out = append(out, replacement{append(append([]any{}, t...), t[0]), "first item twice"})
		}
	}
	return out
}

func shallowMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// replaceAt copies the containers along path (and only those) and puts v
// at its end.
func replaceAt(u map[string]any, path []any, v any) map[string]any {
	var set func(cur any, path []any) any
	set = func(cur any, path []any) any {
		if len(path) == 0 {
			return v
		}
		switch t := cur.(type) {
		case map[string]any:
			c := shallowMap(t)
			k := path[0].(string)
			c[k] = set(t[k], path[1:])
			return c
		case []any:
			c := append([]any{}, t...)
			i := path[0].(int)
			c[i] = set(t[i], path[1:])
			return c
		}
		return cur
	}
	return set(u, path).(map[string]any)
}

func pathString(path []any) string {
	var b strings.Builder
	for _, p := range path {
		switch t := p.(type) {
		case string:
			b.WriteString("." + t)
		case int:
			fmt.Fprintf(&b, "[%d]", t)
		}
	}
	return b.String()
}
