package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/altairalabs/omnia/cmd/omniactl/internal/manifestgen"
	"github.com/altairalabs/omnia/config/crd"
	"github.com/altairalabs/omnia/rules/schema"
)

// writeBenchFile writes n generated documents (AgentRuntimes and Providers)
// to a file under dir.
func writeBenchFile(tb testing.TB, dir string, n int) string {
	tb.Helper()
	path := filepath.Join(dir, "manifests.yaml")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := manifestgen.Write(f, n); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// BenchmarkCheck5000 is omniactl check's whole evaluation (read, parse,
// facts, schema + CEL + Go rules of every stage) of one 5,000-document file.
// The validators are built once per process, as in the binary.
func BenchmarkCheck5000(b *testing.B) {
	path := writeBenchFile(b, b.TempDir(), 5000)
	b.ReportAllocs()
	for b.Loop() {
		rep, err := check(context.Background(), []string{path}, nil, checkConfig{})
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Results) != 5000 {
			b.Fatalf("evaluated %d documents, want 5000", len(rep.Results))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/5000, "ns/doc")
}

// BenchmarkSchemaCompile is the start-up cost every check pays once before
// its first document: compiling the embedded CRDs (structural schemas,
// OpenAPI validators, CEL programs of every kind).
func BenchmarkSchemaCompile(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := schema.New(crd.Bases); err != nil {
			b.Fatal(err)
		}
	}
}
