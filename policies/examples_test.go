package policies_test

import (
	"bufio"
	"context"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/policies"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
)

// The worked examples of docs/policies.md are tested here, read from the
// page itself, so the page cannot drift from what the compiler accepts. A
// block is introduced by an HTML comment:
//
//	<!-- example-policy: NAME -->                       the policy
//	<!-- example-accept: NAME -->                       an object it accepts
//	<!-- example-reject: NAME rule=RULE-ID field=PATH --> an object it refuses
//
// followed by a ```yaml fence.

type docExample struct {
	name    string
	policy  string
	accept  []string
	rejects []docReject
}

type docReject struct {
	rule, field, yaml string
}

func readDocExamples(t *testing.T, path string) []*docExample {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	byName := map[string]*docExample{}
	var order []string
	get := func(name string) *docExample {
		if e, ok := byName[name]; ok {
			return e
		}
		e := &docExample{name: name}
		byName[name] = e
		order = append(order, name)
		return e
	}
	sc := bufio.NewScanner(f)
	var marker string
	var block *strings.Builder
	for sc.Scan() {
		line := sc.Text()
		switch {
		case block != nil && line == "```":
			words := strings.Fields(marker)
			e := get(words[1])
			switch words[0] {
			case "example-policy:":
				e.policy = block.String()
			case "example-accept:":
				e.accept = append(e.accept, block.String())
			case "example-reject:":
				r := docReject{yaml: block.String()}
				for _, w := range words[2:] {
					if v, ok := strings.CutPrefix(w, "rule="); ok {
						r.rule = v
					}
					if v, ok := strings.CutPrefix(w, "field="); ok {
						r.field = v
					}
				}
				e.rejects = append(e.rejects, r)
			}
			block, marker = nil, ""
		case block != nil:
			block.WriteString(line + "\n")
		case strings.HasPrefix(line, "<!-- example-"):
			marker = strings.TrimSuffix(strings.TrimPrefix(line, "<!-- "), " -->")
		case marker != "" && line == "```yaml":
			block = &strings.Builder{}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	out := make([]*docExample, 0, len(order))
	for _, n := range order {
		out = append(out, byName[n])
	}
	return out
}

// defaulted reads a manifest and returns it as the API server stores it
// (schema defaults applied), failing on any schema finding.
func defaulted(t *testing.T, sv *schema.Validator, doc string) map[string]any {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
		t.Fatalf("parsing %q: %v", doc, err)
	}
	res, err := rules.ValidateSchema(context.Background(), sv, obj, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) > 0 {
		t.Fatalf("the schema refuses the example: %v", res.Findings)
	}
	return res.Object
}

func TestDocsWorkedExamples(t *testing.T) {
	examples := readDocExamples(t, "../docs/policies.md")
	if len(examples) < 3 {
		t.Fatalf("docs/policies.md has %d worked examples, want at least 3", len(examples))
	}
	sv, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	env, err := policies.NewEnv(policies.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			if ex.policy == "" || len(ex.accept) == 0 || len(ex.rejects) == 0 {
				t.Fatalf("example %s needs a policy, an accepted and a rejected object", ex.name)
			}
			var p v1alpha1.ValidationPolicy
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(defaulted(t, sv, ex.policy), &p); err != nil {
				t.Fatal(err)
			}
			compiled := env.Compile(&p)
			if len(compiled.Errors) > 0 {
				t.Fatalf("the policy does not compile: %+v", compiled.Errors)
			}
			cat, err := rules.Default.With(compiled.Rules)
			if err != nil {
				t.Fatal(err)
			}
			judge := func(doc string) []rules.Finding {
				var obj map[string]any
				if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
					t.Fatal(err)
				}
				fs, err := rules.Full(context.Background(), sv, cat, obj, nil, rules.NoFacts{}, rules.Options{Stages: []rules.Stage{rules.StageAdmission}})
				if err != nil {
					t.Fatal(err)
				}
				var mine []rules.Finding
				for _, f := range fs {
					if strings.HasPrefix(f.RuleID, rules.PolicyRuleID(p.Name, "")) {
						mine = append(mine, f)
					}
				}
				return mine
			}
			for _, doc := range ex.accept {
				if fs := judge(doc); len(fs) > 0 {
					t.Errorf("accepted example has findings: %v", fs)
				}
			}
			for _, r := range ex.rejects {
				fs := judge(r.yaml)
				if len(fs) != 1 || fs[0].RuleID != r.rule || fs[0].Field != r.field {
					t.Errorf("rejected example: findings %v, want one of %s at %s", fs, r.rule, r.field)
				}
			}
		})
	}
}
