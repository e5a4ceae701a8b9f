package rules

import (
	"io/fs"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/config/crd"
)

// toUnstructured converts a typed object for the schema validator; every
// kind's rule tests use it.
func toUnstructured(t *testing.T, obj any) map[string]any {
	t.Helper()
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatalf("to unstructured: %v", err)
	}
	return u
}

// crdCELMessages returns, per kind, every x-kubernetes-validations message of
// the embedded CRDs.
func crdCELMessages(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := fs.WalkDir(crd.Bases, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(crd.Bases, path)
		if err != nil {
			return err
		}
		var doc map[string]any
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return err
		}
		kind, _, _ := unstructuredString(doc, "spec", "names", "kind")
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				if rules, ok := v["x-kubernetes-validations"].([]any); ok {
					for _, r := range rules {
						if m, ok := r.(map[string]any)["message"].(string); ok {
							out[kind] = append(out[kind], m)
						}
					}
				}
				for _, c := range v {
					walk(c)
				}
			case []any:
				for _, c := range v {
					walk(c)
				}
			}
		}
		walk(doc)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func unstructuredString(m map[string]any, path ...string) (string, bool, error) {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return "", false, nil
		}
		cur = mm[p]
	}
	s, ok := cur.(string)
	return s, ok, nil
}

// TestSchemaRulesMatchCRDs: the catalog's schema-source entries and the CEL
// rules in the generated CRDs are the same set, kind by kind — a CEL rule
// without a catalog entry (or the reverse) fails here.
func TestSchemaRulesMatchCRDs(t *testing.T) {
	msgs := crdCELMessages(t)
	for _, r := range Default.Rules() {
		if r.Source != SourceSchema {
			continue
		}
		if r.Check != nil || r.Stage != StageAdmission || r.Severity != SeverityDeny {
			t.Errorf("schema rule %s: want no check, stage admission, severity deny", r.ID)
		}
		for _, kind := range r.Kinds {
			if !slices.ContainsFunc(msgs[kind], func(m string) bool { return strings.HasPrefix(m, "["+r.ID+"] ") }) {
				t.Errorf("schema rule %s: no CEL message starting %q in the %s CRD", r.ID, "["+r.ID+"] ", kind)
			}
		}
	}
	for kind, ms := range msgs {
		for _, m := range ms {
			sub := celID.FindStringSubmatch(m)
			if sub == nil {
				t.Errorf("%s CRD: CEL message without a leading [rule-id]: %q", kind, m)
				continue
			}
			r, ok := Default.Lookup(sub[1])
			if !ok || r.Source != SourceSchema || !slices.Contains(r.Kinds, kind) {
				t.Errorf("%s CRD: CEL rule %s is not registered as a schema rule of %s", kind, sub[1], kind)
			}
		}
	}
}

// TestCatalogEntries: every rule is documented and points at the spec.
func TestCatalogEntries(t *testing.T) {
	if len(Default.Rules()) < 50 {
		t.Fatalf("catalog has only %d rules", len(Default.Rules()))
	}
	for _, r := range Default.Rules() {
		if !strings.Contains(r.Spec, ".md") {
			t.Errorf("%s: Spec %q does not name a spec page", r.ID, r.Spec)
		}
		if kind := strings.SplitN(r.ID, "/", 2)[0]; !slices.ContainsFunc(r.Kinds, func(k string) bool { return strings.ToLower(k) == kind || kind == "arenajob" && k == "ArenaRun" }) {
			t.Errorf("%s: ID prefix %q names none of its kinds %v", r.ID, kind, r.Kinds)
		}
		if (r.Condition == "") != (r.Reason == "") && r.Source == SourceGo {
			t.Errorf("%s: condition %q and reason %q must be set together", r.ID, r.Condition, r.Reason)
		}
	}
}

func TestMemoIsBoundedAndComputesOnce(t *testing.T) {
	m := newMemo[int, int](2)
	calls := 0
	square := func(k int) func() int { return func() int { calls++; return k * k } }
	first := m.get(3, square(3))
	second := m.get(3, square(3))
	if first != 9 || second != 9 || calls != 1 {
		t.Fatalf("got %d then %d with %d computations; a hit must not recompute", first, second, calls)
	}
	m.get(4, square(4))
	m.get(5, square(5)) // full: starts over
	if len(m.items) > 2 {
		t.Fatalf("memo holds %d items, bound 2", len(m.items))
	}
	if m.get(5, square(5)) != 25 {
		t.Fatal("wrong value after reset")
	}
}
