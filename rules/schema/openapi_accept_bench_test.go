package schema

import (
	"testing"

	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
)

// BenchmarkOpenAPIAccept is the fast acceptor's answer on each spec
// example (one op = all examples); compare BenchmarkOpenAPIUpstream, what a
// "not sure" costs.
func BenchmarkOpenAPIAccept(b *testing.B) {
	cases := openAPIExamples(b)
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
// examples, as the API server (and validator.go) runs it.
func BenchmarkOpenAPIUpstream(b *testing.B) {
	cases := openAPIExamples(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range cases {
			if errs := apiservervalidation.ValidateCustomResource(nil, c.u, c.ks.validator); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	}
}
