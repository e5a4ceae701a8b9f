package schema_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules/schema"
)

// yamlObjects decodes every document of a YAML stream as the API server
// decodes a body (integral numbers int64), keeping Omnia ones.
func yamlObjects(t *testing.T, data []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, doc := range bytes.Split(data, []byte("\n---")) {
		j, err := yaml.YAMLToJSON(doc)
		if err != nil {
			continue // a deliberately broken document: not this test's business
		}
		var m map[string]any
		if err := utiljson.Unmarshal(j, &m); err != nil || m == nil {
			continue
		}
		if m["apiVersion"] == v1alpha1.GroupVersion.String() {
			out = append(out, m)
		}
	}
	return out
}

// fuzzCorpusObjects decodes the rules package's committed FuzzEvaluate
// corpus the way the fuzz target does: the data as an object, stamped with
// the chosen kind (the fuzzer's byte indexes the sorted kinds).
func fuzzCorpusObjects(t *testing.T) []map[string]any {
	t.Helper()
	files, err := filepath.Glob("../testdata/fuzz/FuzzEvaluate/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no FuzzEvaluate corpus (%v)", err)
	}
	kinds := schema.Kinds()
	var out []map[string]any
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(raw), "\n")
		if len(lines) < 3 || !strings.HasPrefix(lines[1], "[]byte(") || !strings.HasPrefix(lines[2], "byte(") {
			t.Fatalf("%s: not a FuzzEvaluate corpus entry", f)
		}
		data, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		k, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[2], "byte("), ")"))
		kindByte := []rune(k) // a byte literal is written as a rune
		if err != nil || len(kindByte) != 1 {
			t.Fatalf("%s: kind byte %q: %v", f, lines[2], err)
		}
		j, err := yaml.YAMLToJSON([]byte(data))
		if err != nil {
			continue
		}
		var m map[string]any
		if err := utiljson.Unmarshal(j, &m); err != nil || m == nil {
			continue
		}
		m["apiVersion"] = v1alpha1.GroupVersion.String()
		m["kind"] = kinds[int(kindByte[0])%len(kinds)]
		out = append(out, m)
	}
	return out
}

// TestOpenAPIAcceptorAgreesWithUpstream holds the fast OpenAPI acceptor to
// the API server's validator on the spec examples, omniactl's test
// manifests and the fuzz corpus, and on every systematic mutation of each
// (null, wrong types, out-of-bound numbers, long and odd strings, missing
// and extra keys, long lists): it must never vouch for a value upstream
// refuses. It must also vouch for every valid spec example (otherwise the
// fast path would buy nothing), and must be not sure of some mutants
// (otherwise the mutations would test nothing).
func TestOpenAPIAcceptorAgreesWithUpstream(t *testing.T) {
	sv, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	var examples, others []map[string]any
	for _, data := range specExamples(t) {
		examples = append(examples, yamlObjects(t, data)...)
	}
	for _, f := range []string{"../../cmd/omniactl/testdata/strict-rows.yaml", "../../cmd/omniactl/testdata/webhook-rejects.yaml"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		others = append(others, yamlObjects(t, data)...)
	}
	others = append(others, fuzzCorpusObjects(t)...)

	var ex, all schema.OpenAPIAcceptorCheck
	for _, obj := range examples {
		if err := sv.CheckOpenAPIAcceptor(obj, true, &ex); err != nil {
			t.Fatal(err)
		}
	}
	for _, obj := range others {
		if err := sv.CheckOpenAPIAcceptor(obj, true, &all); err != nil && sv.Knows(obj["kind"].(string)) {
			t.Fatal(err)
		}
	}
	for _, c := range []schema.OpenAPIAcceptorCheck{ex, all} {
		for _, u := range c.Unsound {
			t.Errorf("the acceptor vouched for a value upstream refuses: %s", u)
		}
	}
	t.Logf("spec examples: %d valid (%d not sure), %d invalid; %d mutants, %d refused upstream, %d vouched for",
		ex.Valid, ex.ValidNotSure, ex.Invalid, ex.Mutants, ex.MutantsRefused, ex.MutantsAccepted)
	t.Logf("test manifests and fuzz corpus: %d valid (%d not sure), %d invalid; %d mutants, %d refused upstream, %d vouched for",
		all.Valid, all.ValidNotSure, all.Invalid, all.Mutants, all.MutantsRefused, all.MutantsAccepted)
	if ex.Valid == 0 || ex.ValidNotSure > 0 {
		t.Errorf("the acceptor is not sure of %d of %d valid spec examples; it should vouch for all", ex.ValidNotSure, ex.Valid)
	}
	if ex.MutantsRefused == 0 || ex.MutantsAccepted == 0 || ex.MutantsAccepted == ex.Mutants {
		t.Errorf("mutations test nothing: %d mutants, %d refused upstream, %d vouched for", ex.Mutants, ex.MutantsRefused, ex.MutantsAccepted)
	}
}
