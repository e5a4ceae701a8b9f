package rules_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
)

// Benchmarks on the spec's complete examples (config/samples),
// one sub-benchmark per <Kind>/<example>. Run with `make bench` or
//
//	go test -run '^$' -bench . -benchmem -count 6 ./rules/ ./admission/ | tee /tmp/bench.txt
//	go tool benchstat /tmp/bench.txt
//
// Targets on the 2-core reference machine: the webhook-stage rules ≤ 10 µs/op.

// benchExample is one example manifest, decoded as omniactl decodes a file
// (a map with int64 numbers), and the typed object the API server would
// hand the webhook (defaulted and pruned by the CRD schema).
type benchExample struct {
	kind, name string
	manifest   map[string]any
	typed      runtime.Object
}

func benchExamples(b *testing.B) []benchExample {
	b.Helper()
	sv, err := schema.Default()
	if err != nil {
		b.Fatal(err)
	}
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
		res, err := rules.ValidateSchema(context.Background(), sv, m, nil)
		if err != nil {
			b.Fatalf("%s: %v", file, err)
		}
		if len(res.Findings) > 0 {
			b.Fatalf("%s: the spec example breaks schema rules: %v", file, res.Findings)
		}
		typed, err := rules.Typed(res.Object)
		if err != nil {
			b.Fatalf("%s: %v", file, err)
		}
		kind, _ := m["kind"].(string)
		out = append(out, benchExample{
			kind:     kind,
			name:     strings.TrimSuffix(filepath.Base(file), ".yaml"),
			manifest: m,
			typed:    typed,
		})
	}
	slices.SortFunc(out, func(a, b benchExample) int { return strings.Compare(a.kind+"/"+a.name, b.kind+"/"+b.name) })
	return out
}

// BenchmarkAdmissionRules runs the webhook-stage rules exactly as the
// handler calls them (Default.Evaluate, stage admission, no facts beyond
// the licence) on an already decoded, defaulted object. Target ≤ 10 µs/op.
func BenchmarkAdmissionRules(b *testing.B) {
	opts := rules.Options{Stages: []rules.Stage{rules.StageAdmission}}
	for _, ex := range benchExamples(b) {
		b.Run(ex.kind+"/"+ex.name, func(b *testing.B) {
			in := rules.Input{Object: ex.typed, Facts: rules.NoFacts{}}
			if fs := rules.Default.Evaluate(ex.kind, in, opts); len(fs) > 0 {
				b.Fatalf("the spec example has admission findings: %v", fs)
			}
			b.ReportAllocs()
			for b.Loop() {
				rules.Default.Evaluate(ex.kind, in, opts)
			}
		})
	}
}

// BenchmarkFull runs omniactl check's evaluation of one manifest: the schema
// exactly as the API server runs it (pruning, defaulting, OpenAPI, CEL),
// then every Go rule of every stage with the facts omniactl would have for
// a lone file (none). The validators are built once, outside the loop.
func BenchmarkFull(b *testing.B) {
	sv, err := schema.Default()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, ex := range benchExamples(b) {
		b.Run(ex.kind+"/"+ex.name, func(b *testing.B) {
			if _, err := rules.Full(ctx, sv, rules.Default, ex.manifest, nil, rules.NoFacts{}, rules.Options{}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := rules.Full(ctx, sv, rules.Default, ex.manifest, nil, rules.NoFacts{}, rules.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAdmissionRulesFunctionAgent: a function-mode agent, whose two JSON
// Schemas the webhook-stage rules compile. Every op after the first hits the
// verdict memo, as repeated updates of one agent do.
func BenchmarkAdmissionRulesFunctionAgent(b *testing.B) {
	var m map[string]any
	doc := `{"apiVersion":"omnia.altairalabs.ai/v1alpha1","kind":"AgentRuntime","metadata":{"name":"summarise","namespace":"agents"},
"spec":{"mode":"function","promptPackRef":{"name":"summariser"},"facades":[{"type":"rest"},{"type":"mcp","mcp":{}}],
"inputSchema":{"type":"object","required":["text"],"properties":{"text":{"type":"string","maxLength":100000}}},
"outputSchema":{"type":"object","required":["summary"],"properties":{"summary":{"type":"string"},"bullets":{"type":"array","items":{"type":"string"}}}}}}`
	if err := utiljson.Unmarshal([]byte(doc), &m); err != nil {
		b.Fatal(err)
	}
	sv, err := schema.Default()
	if err != nil {
		b.Fatal(err)
	}
	res, err := rules.ValidateSchema(context.Background(), sv, m, nil)
	if err != nil || len(res.Findings) > 0 {
		b.Fatalf("function agent: %v %v", err, res.Findings)
	}
	typed, err := rules.Typed(res.Object)
	if err != nil {
		b.Fatal(err)
	}
	in := rules.Input{Object: typed, Facts: rules.NoFacts{}}
	opts := rules.Options{Stages: []rules.Stage{rules.StageAdmission}}
	b.ReportAllocs()
	for b.Loop() {
		if fs := rules.Default.Evaluate("AgentRuntime", in, opts); len(fs) > 0 {
			b.Fatalf("unexpected findings %v", fs)
		}
	}
}
