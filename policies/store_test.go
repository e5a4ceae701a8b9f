package policies

import (
	"slices"
	"testing"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// TestStore: a compiled policy joins the catalog in force, a broken
// version takes it out, Delete removes it, and each change wakes Changes.
func TestStore(t *testing.T) {
	e := env(t)
	s := NewStore(rules.Default)
	in := rules.Input{Object: provider("a", "ns", nil)}
	policyFindings := func() []string {
		var out []string
		for _, f := range s.Catalog().Evaluate("Provider", in, rules.Options{}) {
			if f.Source == rules.SourcePolicy {
				out = append(out, f.RuleID)
			}
		}
		return out
	}
	// expectChange runs change and checks the channel taken before it is
	// closed after it.
	expectChange := func(name string, change func()) {
		t.Helper()
		ch := s.Changes()
		change()
		select {
		case <-ch:
		default:
			t.Errorf("%s: Changes did not fire", name)
		}
	}
	if got := policyFindings(); len(got) != 0 {
		t.Fatalf("empty store has policy findings %v", got)
	}

	good := e.Compile(policy(kinds("Provider"), v1alpha1.ValidationPolicyRule{ID: "model", CEL: "object.spec.model == 'approved'"}))
	expectChange("set", func() {
		if err := s.Set(good); err != nil {
			t.Fatal(err)
		}
	})
	if got := policyFindings(); !slices.Equal(got, []string{"policy/p/model"}) {
		t.Errorf("after Set: %v", got)
	}
	if r, ok := s.Catalog().Lookup("policy/p/model"); !ok || r.Source != rules.SourcePolicy {
		t.Errorf("catalog lookup %v %v", r, ok)
	}
	if !slices.Equal(s.Policies(), []string{"p"}) {
		t.Errorf("policies %v", s.Policies())
	}

	broken := e.Compile(policy(kinds("Provider"), v1alpha1.ValidationPolicyRule{ID: "model", CEL: "object.spec.nosuch"}))
	if len(broken.Errors) == 0 {
		t.Fatal("broken policy compiled")
	}
	expectChange("set broken", func() {
		if err := s.Set(broken); err != nil {
			t.Fatal(err)
		}
	})
	if got := policyFindings(); len(got) != 0 {
		t.Errorf("a broken policy version keeps enforcing: %v", got)
	}

	expectChange("set again", func() {
		if err := s.Set(good); err != nil {
			t.Fatal(err)
		}
	})
	expectChange("delete", func() { s.Delete("p") })
	if got := policyFindings(); len(got) != 0 {
		t.Errorf("after Delete: %v", got)
	}
	if len(s.Policies()) != 0 {
		t.Errorf("policies after Delete %v", s.Policies())
	}
}
