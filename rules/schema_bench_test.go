package rules_test

import (
	"context"
	"testing"

	"github.com/altairalabs/omnia/rules"
)

// BenchmarkSchemaValidate is the schema evaluation of each spec example as
// omniactl check and the deploy API run it (plan: the CEL plan and
// schema adaptors built once per CRD), and with the API server's own CEL
// validator (upstream: rules.SchemaValidator.ValidateUpstream, the
// reference the differential tests hold the plan to). Compare with
//
//	go test -run '^$' -bench SchemaValidate -benchmem -count 6 ./rules/ | tee /tmp/schema.txt
//	go tool benchstat -col /path /tmp/schema.txt
func BenchmarkSchemaValidate(b *testing.B) {
	sv, err := rules.DefaultSchema()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	paths := map[string]func(ctx context.Context, obj, old map[string]any) (rules.SchemaResult, error){
		"plan":     sv.Validate,
		"upstream": sv.ValidateUpstream,
	}
	for _, ex := range benchExamples(b) {
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
