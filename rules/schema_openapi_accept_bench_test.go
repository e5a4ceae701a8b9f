package rules

import (
	"os"
	"path/filepath"
	"testing"

	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// openAPIBenchCase is a spec example as OpenAPI validation sees it (pruned
// and defaulted) with its kind's compiled schema and acceptor.
type openAPIBenchCase struct {
	u      map[string]any
	ks     *kindSchema
	accept *openAPIAcceptor
}

func openAPIBenchCases(b *testing.B) []openAPIBenchCase {
	b.Helper()
	sv, err := DefaultSchema()
	if err != nil {
		b.Fatal(err)
	}
	acceptors, err := defaultAcceptors()
	if err != nil {
		b.Fatal(err)
	}
	files, err := filepath.Glob("../api/v1alpha1/testdata/examples/*/*.yaml")
	if err != nil || len(files) == 0 {
		b.Fatalf("no spec examples (%v)", err)
	}
	var out []openAPIBenchCase
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		j, err := yaml.YAMLToJSON(data)
		if err != nil {
			b.Fatal(err)
		}
		var u map[string]any
		if err := utiljson.Unmarshal(j, &u); err != nil {
			b.Fatal(err)
		}
		kind, _ := u["kind"].(string)
		ks := sv.kinds[kind]
		structuralpruning.Prune(u, ks.structural, true)
		structuraldefaulting.Default(u, ks.structural)
		out = append(out, openAPIBenchCase{u: u, ks: ks, accept: acceptors[kind]})
	}
	return out
}

// BenchmarkOpenAPIAccept is the fast acceptor's answer on each spec
// example (one op = all examples); compare BenchmarkOpenAPIUpstream, what a
// "not sure" costs.
func BenchmarkOpenAPIAccept(b *testing.B) {
	cases := openAPIBenchCases(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range cases {
			if !c.accept.Accepts(c.u) {
				b.Fatal("a valid spec example is not vouched for")
			}
		}
	}
}

// BenchmarkOpenAPIUpstream is kube-openapi's validation of the same
// examples, as the API server (and schema.go) runs it.
func BenchmarkOpenAPIUpstream(b *testing.B) {
	cases := openAPIBenchCases(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range cases {
			if errs := apiservervalidation.ValidateCustomResource(nil, c.u, c.ks.validator); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	}
}
