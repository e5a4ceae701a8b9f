package manifestgen

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// documents splits a generated file back into its documents.
func documents(t *testing.T, n int) []map[string]any {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, n); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, doc := range strings.Split(buf.String(), "---\n") {
		obj := map[string]any{}
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatalf("document %d does not parse: %v\n%s", len(out), err, doc)
		}
		out = append(out, obj)
	}
	return out
}

func field(obj map[string]any, path ...string) any {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

// Describe must name each document as the file does: the comparison keys
// every tool's answer by kind and name.
func TestDescribeMatchesTheWrittenDocuments(t *testing.T) {
	docs := documents(t, 1000)
	if len(docs) != 1000 {
		t.Fatalf("wrote %d documents, want 1000", len(docs))
	}
	names := map[string]bool{}
	for i, obj := range docs {
		d := Describe(i)
		if d.Index != i || obj["kind"] != d.Kind || field(obj, "metadata", "name") != d.Name {
			t.Fatalf("document %d is %v %v, Describe says %+v", i, obj["kind"], field(obj, "metadata", "name"), d)
		}
		ns, _ := field(obj, "metadata", "namespace").(string)
		if ns != d.Namespace {
			t.Fatalf("document %d namespace %q, Describe says %q", i, ns, d.Namespace)
		}
		if names[d.Name] {
			t.Fatalf("name %s written twice", d.Name)
		}
		names[d.Name] = true
	}
}

// Each violation the generator reports must be there in the document, and
// no other document may carry any of the six conditions.
func TestViolationsAreWhereTheGeneratorSays(t *testing.T) {
	const n = 5000
	docs := documents(t, n)
	want := map[int]string{}
	perRule := map[string]int{}
	for _, v := range Violations(n) {
		want[v.Index] = v.Rule
		perRule[v.Rule]++
	}
	for _, rule := range Rules {
		if perRule[rule] != n/violationPeriod {
			t.Errorf("%s: %d violations in %d documents, want %d", rule, perRule[rule], n, n/violationPeriod)
		}
	}
	for i, obj := range docs {
		if got := breaks(obj); got != want[i] {
			t.Errorf("document %d (%s) breaks %q, the generator says %q", i, Describe(i).Name, got, want[i])
		}
	}
}

// breaks reads which of the six conditions a generated document meets,
// straight from its fields (an independent reading of the rules' conditions).
func breaks(obj map[string]any) string {
	spec, _ := obj["spec"].(map[string]any)
	switch obj["kind"] {
	case "Provider":
		if spec["platform"] != nil && spec["auth"] == nil {
			return RulePlatformRequiresAuth
		}
	case "Workspace":
		for _, g := range spec["services"].([]any) {
			key, _ := field(g.(map[string]any), "redis", "existingSecret", "key").(string)
			if strings.ContainsAny(key, " !@#$%^&*()=+[]{}|\\;:'\",<>/?") {
				return RuleSecretRefKeyFormat
			}
		}
	case "AgentRuntime":
		if env, ok := field(spec, "runtime", "extraEnv").([]any); ok {
			for _, e := range env {
				if strings.HasPrefix(fmt.Sprint(e.(map[string]any)["name"]), "OMNIA_") {
					return RuleReservedEnvKey
				}
			}
		}
		facades, _ := spec["facades"].([]any)
		rest, websocket := 0, 0
		for _, f := range facades {
			fm := f.(map[string]any)
			switch fm["type"] {
			case "rest":
				rest++
			case "websocket":
				websocket++
			}
			if w, ok := field(fm, "async", "workers").(float64); ok && w > 64 {
				return RuleAsyncMaxWorkers
			}
		}
		if spec["mode"] == "function" {
			if websocket > 0 {
				return RuleFacadeTypeForMode
			}
			if rest != 1 {
				return RuleFunctionNeedsRest
			}
		}
	}
	return ""
}

func TestNamespacesCoverTheNamespacedDocuments(t *testing.T) {
	for _, n := range []int{1, 7, 500, 5000} {
		have := map[string]bool{}
		for _, ns := range Namespaces(n) {
			have[ns] = true
		}
		for i := 0; i < n; i++ {
			if d := Describe(i); d.Namespace != "" && !have[d.Namespace] {
				t.Fatalf("n=%d: document %d is in %s, which Namespaces omits", n, i, d.Namespace)
			}
		}
	}
}
