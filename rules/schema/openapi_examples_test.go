package schema

import (
	"os"
	"path/filepath"
	"testing"

	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// openAPIExample is a spec example as OpenAPI validation sees it (pruned
// and defaulted, as the API server does before validating) with its kind's
// compiled schema and acceptor.
type openAPIExample struct {
	file   string
	u      map[string]any
	ks     *kindSchema
	accept *openAPIAcceptor
}

// openAPIExamples loads every spec example under
// config/samples for the acceptor's tests and benchmarks.
func openAPIExamples(tb testing.TB) []openAPIExample {
	tb.Helper()
	sv, err := Default()
	if err != nil {
		tb.Fatal(err)
	}
	acceptors, err := defaultAcceptors()
	if err != nil {
		tb.Fatal(err)
	}
	files, err := filepath.Glob("../../config/samples/*/*.yaml")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no spec examples (%v)", err)
	}
	out := make([]openAPIExample, 0, len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		j, err := yaml.YAMLToJSON(data)
		if err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		var u map[string]any
		if err := utiljson.Unmarshal(j, &u); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		kind, _ := u["kind"].(string)
		ks, ok := sv.kinds[kind]
		if !ok {
			tb.Fatalf("%s: kind %q has no compiled schema", f, kind)
		}
		structuralpruning.Prune(u, ks.structural, true)
		structuraldefaulting.Default(u, ks.structural)
		out = append(out, openAPIExample{file: f, u: u, ks: ks, accept: acceptors[kind]})
	}
	return out
}
