package catalog

import "testing"

// BenchmarkSearch10k: one ranked search page over a 10,000-entry workspace,
// including building the index from the objects (what the first request
// after a change to one of the workspace's objects does; the index is then
// cached: load.go, MaxCachedIndexes).
func BenchmarkSearch10k(b *testing.B) {
	objs := manyTools(10000)
	p := SearchParams{Query: "invoice billing", Limit: 10}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Build(objs).Search(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearch10kIndexed: the ranking alone, over a built index.
func BenchmarkSearch10kIndexed(b *testing.B) {
	ix := Build(manyTools(10000))
	p := SearchParams{Query: "invoice billing", Limit: 10}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ix.Search(p); err != nil {
			b.Fatal(err)
		}
	}
}
