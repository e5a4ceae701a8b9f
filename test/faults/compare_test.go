package faults

import (
	"strings"
	"testing"
)

func TestNormaliseReplacesTimesAndNamespaceOnly(t *testing.T) {
	status := map[string]any{
		"phase":              "Ready",
		"observedGeneration": 3,
		"conditions": []any{map[string]any{
			"type": "Ready", "status": "True", "reason": "Resolved",
			"lastTransitionTime": "2026-12-01T16:00:00Z",
			"message":            "provider faults-run/provider-0 resolved",
		}},
		"lastProbeTime": "2026-12-01T16:00:01.123456Z",
		"endpoint":      "http://agent-0.faults-run.svc:8080",
		"version":       "1.0.0",
		"digests":       map[string]any{"compositionDigest": "sha256:0a1b", "contentDigest": "sha256:2c3d"},
		"pending":       map[string]any{"compositionDigest": ""},
	}
	got, err := Normalise(status, 3, "faults-run")
	if err != nil {
		t.Fatal(err)
	}
	st := got["status"].(map[string]any)
	cond := st["conditions"].([]any)[0].(map[string]any)
	if cond["lastTransitionTime"] != timePlaceholder || st["lastProbeTime"] != timePlaceholder {
		t.Errorf("timestamps kept: %v", st)
	}
	if cond["message"] != "provider <ns>/provider-0 resolved" || st["endpoint"] != "http://agent-0.<ns>.svc:8080" {
		t.Errorf("namespace kept: %v", st)
	}
	if st["version"] != "1.0.0" || st["phase"] != "Ready" || cond["reason"] != "Resolved" {
		t.Errorf("a value that must be compared was changed: %v", st)
	}
	digests := st["digests"].(map[string]any)
	if digests["compositionDigest"] != uidDerivedPlaceholder || digests["contentDigest"] != "sha256:2c3d" {
		t.Errorf("digests normalised as %v: only the UID-derived one may be", digests)
	}
	if st["pending"].(map[string]any)["compositionDigest"] != "" {
		t.Error("an empty UID-derived digest must stay empty: set and unset differ")
	}
	if got["generation"] != float64(3) || st["observedGeneration"] != float64(3) {
		t.Errorf("generations = %v, %v", got["generation"], st["observedGeneration"])
	}
}

func snapshotOf(t *testing.T, ns string, objs map[string]map[string]any) Snapshot {
	t.Helper()
	s := Snapshot{}
	for k, st := range objs {
		n, err := Normalise(st, 2, ns)
		if err != nil {
			t.Fatal(err)
		}
		s[k] = n
	}
	return s
}

func TestCompareFindsEveryDifferenceAndIgnoresWhatMustDiffer(t *testing.T) {
	ready := func(ns, at string, extra ...string) map[string]any {
		st := map[string]any{"phase": "Ready", "observedGeneration": 2,
			"conditions": []any{map[string]any{"type": "Ready", "status": "True", "lastTransitionTime": at, "message": "in " + ns}}}
		for _, e := range extra {
			st["tools"] = e
		}
		return st
	}
	run := snapshotOf(t, "faults-run", map[string]map[string]any{
		"Provider/p0":     ready("faults-run", "2026-12-01T16:00:00Z"),
		"Provider/p1":     ready("faults-run", "2026-12-01T16:00:00Z", "a"),
		"ToolRegistry/t0": ready("faults-run", "2026-12-01T16:00:00Z"),
	})
	ref := snapshotOf(t, "faults-reference", map[string]map[string]any{
		"Provider/p0":     ready("faults-reference", "2026-12-01T17:30:00Z"),
		"Provider/p1":     ready("faults-reference", "2026-12-01T17:30:00Z", "b"),
		"AgentRuntime/a0": ready("faults-reference", "2026-12-01T17:30:00Z"),
	})
	diffs := Compare(run, ref)
	if len(diffs) != 3 {
		t.Fatalf("Compare = %+v, want 3 differences", diffs)
	}
	if diffs[0].Object != "AgentRuntime/a0" || !strings.Contains(diffs[0].Detail, "missing from the run with faults") {
		t.Errorf("first difference %+v", diffs[0])
	}
	if diffs[1].Object != "Provider/p1" || len(diffs[1].Paths) != 1 || diffs[1].Paths[0] != ".status.tools" ||
		!strings.Contains(diffs[1].Detail, `with faults "a", reference "b"`) {
		t.Errorf("second difference %+v", diffs[1])
	}
	if diffs[2].Object != "ToolRegistry/t0" || !strings.Contains(diffs[2].Detail, "missing from the reference run") {
		t.Errorf("third difference %+v", diffs[2])
	}
	if d := Compare(run, run); len(d) != 0 {
		t.Errorf("a snapshot differs from itself: %+v", d)
	}
}

func TestConditionsAreComparedByType(t *testing.T) {
	cond := func(typ, status string) map[string]any { return map[string]any{"type": typ, "status": status} }
	a, _ := Normalise(map[string]any{"conditions": []any{cond("Ready", "True"), cond("Available", "True")}}, 1, "faults-a")
	b, _ := Normalise(map[string]any{"conditions": []any{cond("Available", "True"), cond("Ready", "True")}}, 1, "faults-b")
	c, _ := Normalise(map[string]any{"conditions": []any{cond("Available", "False"), cond("Ready", "True")}}, 1, "faults-c")
	if d := Compare(Snapshot{"X/x": a}, Snapshot{"X/x": b}); len(d) != 0 {
		t.Errorf("the same conditions in another order differ: %+v", d)
	}
	if d := Compare(Snapshot{"X/x": a}, Snapshot{"X/x": c}); len(d) != 1 || d[0].Paths[0] != ".status.conditions[0].status" {
		t.Errorf("a changed condition: %+v", d)
	}
}

func TestCompareSeesGenerationsAndListLengths(t *testing.T) {
	a := Snapshot{"Provider/p": {"generation": float64(3), "status": map[string]any{"observedGeneration": float64(3), "tools": []any{"x"}}}}
	b := Snapshot{"Provider/p": {"generation": float64(4), "status": map[string]any{"observedGeneration": float64(3), "tools": []any{"x", "y"}}}}
	diffs := Compare(a, b)
	if len(diffs) != 1 || strings.Join(diffs[0].Paths, ",") != ".generation,.status.tools" {
		t.Fatalf("Compare = %+v", diffs)
	}
}

func TestSettled(t *testing.T) {
	caught := Snapshot{"Provider/p": {"generation": float64(2), "status": map[string]any{"observedGeneration": float64(2)}}}
	behind := Snapshot{"Provider/p": {"generation": float64(3), "status": map[string]any{"observedGeneration": float64(2)}}}
	empty := Snapshot{"Provider/p": {"generation": float64(1), "status": nil}}
	noGeneration := Snapshot{"Provider/p": {"generation": float64(1), "status": map[string]any{"phase": "Ready"}}}
	if !caught.Settled() || behind.Settled() || empty.Settled() || !noGeneration.Settled() {
		t.Fatalf("Settled: caught %v behind %v empty %v noGeneration %v", caught.Settled(), behind.Settled(), empty.Settled(), noGeneration.Settled())
	}
}
