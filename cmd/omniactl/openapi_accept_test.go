package main

import (
	"bytes"
	"testing"

	"github.com/altairalabs/omnia/cmd/omniactl/internal/manifestgen"
	"github.com/altairalabs/omnia/rules/schema"
)

// TestOpenAPIAcceptorOnGeneratedDocuments holds the schema validator's fast
// OpenAPI acceptor to the API server's validator on the 5,000 documents of
// a generated check file, decoded as check decodes them, and on every
// systematic mutation of each shape and each planted violation (the first
// 250 documents hold every variant: see manifestgen). The acceptor must
// never vouch for a value upstream refuses, and must vouch for every
// generated document upstream passes — else the fast path would buy a 5,000-document check
// nothing. (A few planted violations are OpenAPI constraints: upstream
// refuses those documents.)
func TestOpenAPIAcceptorOnGeneratedDocuments(t *testing.T) {
	sv, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := manifestgen.Write(&buf, 5000); err != nil {
		t.Fatal(err)
	}
	chunks, err := splitYAML(source{name: "generated.yaml", data: buf.Bytes()})
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 5000 {
		t.Fatalf("split %d documents, want 5000", len(chunks))
	}
	// Mutate one document of each shape (Provider, agent, function agent,
	// platform Provider, Workspace) and each document carrying a planted
	// violation.
	mutate := map[int]bool{0: true, 1: true, 3: true, 4: true, 25: true}
	for _, v := range manifestgen.Violations(250) {
		mutate[v.Document.Index] = true
	}
	var got schema.OpenAPIAcceptorCheck
	for i, c := range chunks {
		obj, err := parseChunk(c)
		if err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		if err := sv.CheckOpenAPIAcceptor(obj, mutate[i], &got); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
	}
	for _, u := range got.Unsound {
		t.Errorf("the acceptor vouched for a value upstream refuses: %s", u)
	}
	t.Logf("generated: %d valid (%d not sure), %d invalid; %d mutants of %d documents, %d refused upstream, %d vouched for",
		got.Valid, got.ValidNotSure, got.Invalid, got.Mutants, len(mutate), got.MutantsRefused, got.MutantsAccepted)
	if got.Valid+got.Invalid != 5000 || got.Valid < 4900 || got.ValidNotSure != 0 {
		t.Errorf("%d of 5000 generated documents pass upstream (%d refused) and the acceptor is not sure of %d; want almost all and 0", got.Valid, got.Invalid, got.ValidNotSure)
	}
	if got.MutantsRefused == 0 || got.MutantsAccepted == 0 {
		t.Errorf("mutations test nothing: %d mutants, %d refused upstream, %d vouched for", got.Mutants, got.MutantsRefused, got.MutantsAccepted)
	}
}
