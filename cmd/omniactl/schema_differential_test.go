package main

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/altairalabs/omnia/rules/schema"
)

// TestSchemaPlanMatchesUpstreamOn5000Documents: on the 5,000 generated
// documents BenchmarkCheck5000 measures, and on mutations of every fiftieth
// (a leaf of the wrong type, a removed key, emptied strings, a duplicated
// list item; each as a create and as updates to and from the original),
// the schema validator omniactl check runs (CEL plan and adaptors compiled
// once per CRD) gives exactly the answer of the API server's own validator
// (schema.Validator.ValidateUpstream).
func TestSchemaPlanMatchesUpstreamOn5000Documents(t *testing.T) {
	sv, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	path := writeBenchFile(t, t.TempDir(), 5000)
	docs, err := loadDocuments([]string{path}, nil, checkConfig{}, 2)
	if err != nil {
		t.Fatal(err)
	}

	type evaluation struct {
		name     string
		obj, old map[string]any
	}
	var cases []evaluation
	mutated := 0
	for i := range docs {
		if docs[i].class != classOmnia {
			continue
		}
		var obj map[string]any
		if err := utiljson.Unmarshal(docs[i].raw, &obj); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("document %d", docs[i].index)
		cases = append(cases, evaluation{name: name, obj: obj})
		if i%50 != 0 {
			continue
		}
		for _, m := range mutations(obj, i) {
			mutated++
			cases = append(cases,
				evaluation{name: name + " " + m.name, obj: m.obj},
				evaluation{name: name + " " + m.name + " (update from the original)", obj: m.obj, old: obj},
				evaluation{name: name + " original (update from " + m.name + ")", obj: obj, old: m.obj})
		}
	}
	if len(cases) < 5000 {
		t.Fatalf("%d evaluations, want at least the 5,000 documents", len(cases))
	}

	ctx := context.Background()
	var (
		mu       sync.Mutex
		failures []string
		findings int
	)
	parallel(len(cases), 2, func(i int) {
		c := cases[i]
		got, gotErr := sv.ValidateUpdate(ctx, c.obj, c.old) // a nil old is a create
		want, wantErr := sv.ValidateUpstream(ctx, c.obj, c.old)
		diff := ""
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			diff = fmt.Sprintf("error %v, upstream %v", gotErr, wantErr)
		} else {
			diff = got.Diff(want)
		}
		mu.Lock()
		defer mu.Unlock()
		findings += len(want.Errors)
		if diff != "" {
			failures = append(failures, c.name+": "+diff)
		}
	})
	sort.Strings(failures)
	for _, f := range failures[:min(len(failures), 10)] {
		t.Error(f)
	}
	if len(failures) > 10 {
		t.Errorf("... and %d more differences", len(failures)-10)
	}
	// The mutations must give the validators something to disagree on.
	if findings < mutated {
		t.Errorf("only %d schema findings for %d mutations: they no longer break schema rules", findings, mutated)
	}
}

// mutation is a changed copy of a document.
type mutation struct {
	name string
	obj  map[string]any
}

// mutations returns the changes TestSchemaPlanMatchesUpstreamOn5000Documents
// judges for obj, the seed choosing which leaf, key and list are changed.
func mutations(obj map[string]any, seed int) []mutation {
	var out []mutation
	leaves := leafPaths(obj["spec"], nil)
	if len(leaves) > 0 {
		leaf := leaves[seed%len(leaves)]
		m := runtime.DeepCopyJSON(obj)
		setAt(m["spec"], leaf, wrongType(getAt(obj["spec"], leaf)))
		out = append(out, mutation{name: fmt.Sprintf("wrong type at spec%v", leaf), obj: m})

		m = runtime.DeepCopyJSON(obj)
		parent, last := leaf[:len(leaf)-1], leaf[len(leaf)-1]
		if key, ok := last.(string); ok {
			if pm, ok := getAt(m["spec"], parent).(map[string]any); ok {
				delete(pm, key)
				out = append(out, mutation{name: fmt.Sprintf("without spec%v", leaf), obj: m})
			}
		}
	}
	m := runtime.DeepCopyJSON(obj)
	for _, leaf := range leaves {
		if _, ok := getAt(m["spec"], leaf).(string); ok {
			setAt(m["spec"], leaf, "")
		}
	}
	out = append(out, mutation{name: "with every string empty", obj: m})

	for _, leaf := range listPaths(obj["spec"], nil) {
		m := runtime.DeepCopyJSON(obj)
		list := getAt(m["spec"], leaf).([]any)
		if len(list) == 0 {
			continue
		}
		setAt(m["spec"], leaf, append(list, runtime.DeepCopyJSONValue(list[0])))
		out = append(out, mutation{name: fmt.Sprintf("with spec%v's first item twice", leaf), obj: m})
		break
	}
	return out
}

// leafPaths lists the paths (map keys and list indices) of v's scalars, in
// a stable order.
func leafPaths(v any, prefix []any) [][]any {
	var out [][]any
	schema.WalkJSON(v, prefix, func(path []any, value any) {
		switch value.(type) {
		case map[string]any, []any:
		default:
			out = append(out, path)
		}
	})
	return out
}

// listPaths lists the paths of v's lists, in a stable order.
func listPaths(v any, prefix []any) [][]any {
	var out [][]any
	schema.WalkJSON(v, prefix, func(path []any, value any) {
		if _, ok := value.([]any); ok {
			out = append(out, path)
		}
	})
	return out
}

func getAt(v any, path []any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v
}

func setAt(v any, path []any, value any) {
	parent := getAt(v, path[:len(path)-1])
	switch k := path[len(path)-1].(type) {
	case string:
		parent.(map[string]any)[k] = value
	case int:
		parent.([]any)[k] = value
	}
}

// wrongType is a value of another JSON type than v.
func wrongType(v any) any {
	switch v.(type) {
	case string:
		return int64(7)
	case bool:
		return "yes"
	case int64, float64:
		return "seven"
	}
	return true
}
