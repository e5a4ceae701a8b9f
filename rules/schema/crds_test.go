package schema

import (
	"slices"
	"testing"
)

// TestKindsAreTheCompiledCRDs: Kinds lists, sorted, exactly the kinds
// Default compiles, and each is known to Namespaced.
func TestKindsAreTheCompiledCRDs(t *testing.T) {
	sv, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	kinds := Kinds()
	if len(kinds) == 0 || !slices.IsSorted(kinds) {
		t.Fatalf("Kinds() = %v, want the CRDs' kinds sorted", kinds)
	}
	if len(kinds) != len(sv.kinds) {
		t.Errorf("Kinds() has %d kinds, Default compiles %d", len(kinds), len(sv.kinds))
	}
	for _, kind := range kinds {
		ks, ok := sv.kinds[kind]
		if !ok {
			t.Errorf("%s: listed but not compiled", kind)
			continue
		}
		namespaced, known := Namespaced(kind)
		if !known || namespaced != ks.namespaced {
			t.Errorf("Namespaced(%s) = %v, %v; the compiled CRD says namespaced %v", kind, namespaced, known, ks.namespaced)
		}
	}
}

// TestNamespacedReadsTheScope: spec.scope decides, and a kind without a
// CRD is unknown.
func TestNamespacedReadsTheScope(t *testing.T) {
	for kind, want := range map[string]bool{"AgentRuntime": true, "Provider": true, "Workspace": false, "ValidationPolicy": false} {
		if namespaced, known := Namespaced(kind); !known || namespaced != want {
			t.Errorf("Namespaced(%s) = %v, %v; want %v, true", kind, namespaced, known, want)
		}
	}
	for _, kind := range []string{"AgentRuntimeList", "CreateOptions", ""} {
		if namespaced, known := Namespaced(kind); known || namespaced {
			t.Errorf("Namespaced(%q) = %v, %v; want false, false", kind, namespaced, known)
		}
	}
}
