package schema_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/rules/schema"
)

// benchExample is one spec example (config/samples), decoded as omniactl
// decodes a file (a map with int64 numbers).
type benchExample struct {
	kind, name string
	manifest   map[string]any
}

// benchExamples loads the spec's complete examples, sorted by
// <Kind>/<example>; each must pass the schema.
func benchExamples(b *testing.B, sv *schema.Validator) []benchExample {
	b.Helper()
	var out []benchExample
	for file, data := range specExamples(b) {
		j, err := yaml.YAMLToJSON(data)
		if err != nil {
			b.Fatal(err)
		}
		var m map[string]any
		if err := utiljson.Unmarshal(j, &m); err != nil {
			b.Fatal(err)
		}
		res, err := sv.ValidateCreate(context.Background(), m)
		if err != nil {
			b.Fatalf("%s: %v", file, err)
		}
		if len(res.Errors) > 0 {
			b.Fatalf("%s: the spec example breaks schema rules: %v", file, res.Errors)
		}
		kind, _ := m["kind"].(string)
		out = append(out, benchExample{kind: kind, name: strings.TrimSuffix(filepath.Base(file), ".yaml"), manifest: m})
	}
	slices.SortFunc(out, func(a, b benchExample) int { return strings.Compare(a.kind+"/"+a.name, b.kind+"/"+b.name) })
	return out
}

// specExamples reads the spec's complete examples, keyed by file.
func specExamples(tb testing.TB) map[string][]byte {
	tb.Helper()
	files, err := filepath.Glob("../../config/samples/*/*.yaml")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no spec examples under ../../config/samples (%v)", err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out[f] = data
	}
	return out
}

// BenchmarkSchemaValidate is the schema evaluation of each spec example as
// omniactl check and the deploy API run it (plan: the CEL plan and
// schema adaptors built once per CRD), and with the API server's own CEL
// validator (upstream: Validator.ValidateUpstream, the reference the
// differential tests hold the plan to). Compare with
//
//	go test -run '^$' -bench SchemaValidate -benchmem -count 6 ./rules/schema/ | tee /tmp/schema.txt
//	go tool benchstat -col /path /tmp/schema.txt
func BenchmarkSchemaValidate(b *testing.B) {
	sv, err := schema.Default()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	paths := map[string]func(ctx context.Context, obj, old map[string]any) (schema.Result, error){
		"plan":     sv.ValidateUpdate,
		"upstream": sv.ValidateUpstream,
	}
	for _, ex := range benchExamples(b, sv) {
		for _, name := range []string{"plan", "upstream"} {
			validate := paths[name]
			b.Run(ex.kind+"/"+ex.name+"/path="+name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := validate(ctx, ex.manifest, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
