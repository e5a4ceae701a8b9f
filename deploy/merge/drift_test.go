package merge

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// classificationProblems checks a classification against the field paths
// of a type: every path classified exactly once, no row naming a path that
// does not exist, a parent's tier inherited by its descendants unless the
// parent is FieldMerged, and FieldMerged only on parents Merge has a
// handler for.
func classificationProblems(paths []string, table map[string]Tier, parseErrs []string, handlers []string) []string {
	problems := append([]string(nil), parseErrs...)
	exists := map[string]bool{}
	for _, p := range paths {
		if exists[p] {
			problems = append(problems, "field path "+p+" appears twice in the type")
		}
		exists[p] = true
		if _, ok := table[p]; !ok {
			problems = append(problems, "field path "+p+" is not classified: add it to classification in tiers.go with its tier")
		}
	}
	var stale []string
	for p := range table {
		if !exists[p] {
			stale = append(stale, "classification names "+p+", which AgentRuntimeSpec no longer has")
		}
	}
	sort.Strings(stale)
	problems = append(problems, stale...)

	for _, p := range paths {
		parent, ok := parentPath(p)
		if !ok {
			continue
		}
		pt, ct := table[parent], table[p]
		if pt != FieldMerged && pt != "" && ct != "" && ct != pt {
			problems = append(problems, "field path "+p+" is "+string(ct)+" under "+parent+", which is "+string(pt)+": only a FieldMerged parent splits its children")
		}
		if ct == FieldMerged {
			problems = append(problems, "field path "+p+" is FieldMerged below the top level: Merge field-merges top-level parents only")
		}
	}
	want := map[string]bool{}
	for _, h := range handlers {
		want[h] = true
	}
	for p, t := range table {
		if t == FieldMerged && !want[p] {
			problems = append(problems, "field path "+p+" is FieldMerged but Merge has no handler for it")
		}
	}
	for h := range want {
		if table[h] != FieldMerged {
			problems = append(problems, "Merge has a field-merge handler for "+h+", which is not classified FieldMerged")
		}
	}
	return problems
}

// parentPath is the path one level up ("facades[].port" → "facades").
func parentPath(p string) (string, bool) {
	i := strings.LastIndex(p, ".")
	if i < 0 {
		return "", false
	}
	return strings.TrimRight(p[:i], "[]{}"), true
}

func handlerPaths() []string {
	var out []string
	for _, fm := range fieldMerged {
		out = append(out, fm.path)
	}
	return out
}

// TestClassificationCoversSpec is the drift test: AgentRuntimeSpec walked
// by reflection at any depth must match the classification row for row.
func TestClassificationCoversSpec(t *testing.T) {
	paths := SpecPaths()
	if len(paths) < 100 {
		t.Fatalf("SpecPaths found only %d paths; the walker is broken", len(paths))
	}
	for _, p := range classificationProblems(paths, tiers, parseErrs, handlerPaths()) {
		t.Error(p)
	}
}

// specTable is deploy-intent.md § What a redeploy preserves, row by row,
// as the spec writes it. The classification must agree with every cell.
var specTable = map[Tier][]string{
	Preserved: {
		"mode", "inputSchema", "outputSchema", "outputFormat", "framework", "context", "media", "console",
		"duplex", "extraPodAnnotations", "serviceGroup", "privacyPolicyRef", "podOverrides", "sandbox", "rateLimit",
		"runtime.nodeSelector", "runtime.tolerations", "runtime.affinity", "runtime.volumes", "runtime.volumeMounts",
		"facades[].port", "facades[].drainTimeout", "facades[].image", "facades[].extraEnv", "facades[].clientToolTimeout",
		"facades[].a2a", "facades[].mcp", "facades[].expose", "facades[].async",
		"rollout.candidate", "rollout.stickySession", "rollout.rollback", "rollout.trafficRouting",
	},
	IntentOwned: {
		"providers", "memory", "evals", "externalAuth", "toolRegistryRef",
		// "Facade type, managementPlane and dataPlane are intent-owned;
		// handler is always forced to runtime."
		"facades[].type", "facades[].managementPlane", "facades[].dataPlane", "facades[].handler",
	},
	FieldMerged: {"promptPackRef", "runtime", "facades", "rollout"},
}

func TestClassificationFollowsSpecTable(t *testing.T) {
	for tier, paths := range specTable {
		for _, p := range paths {
			if got, ok := TierOf(p); !ok || got != tier {
				t.Errorf("%s: the spec's table says %s, the classification says %q", p, tier, got)
			}
		}
	}
	// Every top-level field the table does not name must be Preserved.
	named := map[string]bool{}
	for _, paths := range specTable {
		for _, p := range paths {
			named[p] = true
		}
	}
	for _, p := range SpecPaths() {
		if _, hasParent := parentPath(p); hasParent || named[p] {
			continue
		}
		if got, _ := TierOf(p); got != Preserved {
			t.Errorf("%s: not in the spec's table, so it must be Preserved; the classification says %s", p, got)
		}
	}
}

// specWithDummy is AgentRuntimeSpec plus a field nobody classified, as a
// CRD change would add one.
type specWithDummy struct {
	v1alpha1.AgentRuntimeSpec `json:",inline"`
	Dummy                     *dummyBlock `json:"dummy,omitempty"`
}

type dummyBlock struct {
	Knob string `json:"knob,omitempty"`
}

// TestDriftCheckFails proves the drift test can fail: a new field, a new
// nested field, a stale row, a row classified twice, a split tier under a
// non-merged parent and a FieldMerged parent without handler are each
// reported.
func TestDriftCheckFails(t *testing.T) {
	pkgs := []string{apiPkg, reflect.TypeFor[specWithDummy]().PkgPath()}
	withDummy := fieldPaths(reflect.TypeFor[specWithDummy](), pkgs...)
	if len(withDummy) != len(SpecPaths())+2 {
		t.Fatalf("walker: got %d paths with the dummy, want %d", len(withDummy), len(SpecPaths())+2)
	}
	clone := func() map[string]Tier { return Classification() }

	cases := []struct {
		name      string
		paths     []string
		table     map[string]Tier
		parseErrs []string
		handlers  []string
		want      []string
	}{
		{
			name: "the real spec is clean", paths: SpecPaths(), table: clone(), handlers: handlerPaths(),
		},
		{
			name: "a new top-level field and its child", paths: withDummy, table: clone(), handlers: handlerPaths(),
			want: []string{"field path dummy is not classified", "field path dummy.knob is not classified"},
		},
		{
			name: "a new field classified at the top but not below", paths: withDummy, handlers: handlerPaths(),
			table: func() map[string]Tier { m := clone(); m["dummy"] = Preserved; return m }(),
			want:  []string{"field path dummy.knob is not classified"},
		},
		{
			name: "a stale row", paths: SpecPaths(), handlers: handlerPaths(),
			table: func() map[string]Tier { m := clone(); m["runtime.gone"] = Preserved; return m }(),
			want:  []string{"classification names runtime.gone, which AgentRuntimeSpec no longer has"},
		},
		{
			name: "a row classified twice", paths: SpecPaths(), table: clone(), handlers: handlerPaths(),
			parseErrs: func() []string {
				_, errs := parseClassification("mode Preserved\nmode IntentOwned\n")
				return errs
			}(),
			want: []string{"mode is classified twice"},
		},
		{
			name: "a child of an intent-owned parent preserved", paths: SpecPaths(), handlers: handlerPaths(),
			table: func() map[string]Tier { m := clone(); m["memory.facet"] = Preserved; return m }(),
			want:  []string{"field path memory.facet is Preserved under memory, which is IntentOwned"},
		},
		{
			name: "a field-merged parent without handler", paths: SpecPaths(), table: clone(),
			handlers: []string{"rollout", "runtime", "facades"},
			want:     []string{"field path promptPackRef is FieldMerged but Merge has no handler for it"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := classificationProblems(tc.paths, tc.table, tc.parseErrs, tc.handlers)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d problems %q, want %d %q", len(got), got, len(tc.want), tc.want)
			}
			for i := range got {
				if !strings.Contains(got[i], tc.want[i]) {
					t.Errorf("problem %d: got %q, want it to contain %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}
