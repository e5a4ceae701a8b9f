package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"sigs.k8s.io/yaml"
)

// The committed gator policies are run here with OPA (the engine gator
// embeds) on hand-written documents, one accepted and one refused per rule
// and the file's other shapes: a policy that flags the wrong documents would
// otherwise only show as a mismatch in a long benchmark run.

// policyCases are documents and the one rule each must be flagged for ("" for
// none). They follow the shapes testdata-gen writes.
var policyCases = []struct {
	name, rule, doc string
}{
	{"agent-mode agent", "", `
kind: AgentRuntime
metadata: {name: a, namespace: ns}
spec:
  facades: [{type: websocket, port: 8080}]
  runtime: {extraEnv: [{name: LOG_LEVEL, value: "1"}]}`},
	{"reserved key in runtime.extraEnv", "agentruntime/reserved-env-key", `
kind: AgentRuntime
metadata: {name: a, namespace: ns}
spec:
  facades: [{type: websocket}]
  runtime: {extraEnv: [{name: OMNIA_PACK_MODE, value: "1"}]}`},
	{"reserved key in a facade's extraEnv", "agentruntime/reserved-env-key", `
kind: AgentRuntime
metadata: {name: a, namespace: ns}
spec:
  facades: [{type: websocket, extraEnv: [{name: OMNIA_IDLE_TIMEOUT, value: "5m"}]}]`},
	{"function agent", "", `
kind: AgentRuntime
metadata: {name: a, namespace: ns}
spec:
  mode: function
  facades: [{type: rest, async: {enabled: true, workers: 64}}, {type: mcp}]`},
	{"function agent without rest", "agentruntime/function-needs-rest", `
kind: AgentRuntime
metadata: {name: a, namespace: ns}
spec:
  mode: function
  facades: [{type: mcp}]`},
	{"websocket in mode function", "agentruntime/facade-type-for-mode", `
kind: AgentRuntime
metadata: {name: a, namespace: ns}
spec:
  mode: function
  facades: [{type: rest}, {type: websocket}]`},
	{"async workers above 64", "agentruntime/schema:spec.facades[].async.workers:maximum", `
kind: AgentRuntime
metadata: {name: a, namespace: ns}
spec:
  mode: function
  facades: [{type: rest, async: {enabled: true, workers: 65}}]`},
	{"provider", "", `
kind: Provider
metadata: {name: p, namespace: ns}
spec: {type: claude, model: m, credential: {secretRef: {name: s}}}`},
	{"platform provider with auth", "", `
kind: Provider
metadata: {name: p, namespace: ns}
spec: {type: claude, model: m, platform: {type: bedrock, region: us-east-1}, auth: {type: workloadIdentity}}`},
	{"platform provider without auth", "provider/platform-requires-auth", `
kind: Provider
metadata: {name: p, namespace: ns}
spec: {type: claude, model: m, platform: {type: bedrock, region: us-east-1}}`},
	{"workspace", "", `
kind: Workspace
metadata: {name: w}
spec: {namespace: {name: w}, services: [{name: default, redis: {existingSecret: {name: r, key: url}}}]}`},
	{"workspace with a bad secret key", "workspace/schema:spec.services[].redis.existingSecret.key:pattern", `
kind: Workspace
metadata: {name: w}
spec: {namespace: {name: w}, services: [{name: default, redis: {existingSecret: {name: r, key: "redis url"}}}]}`},
}

// gatorTemplates reads policies/gator: each ConstraintTemplate's Rego by the
// kind of Constraint that uses it, and each Constraint's rule and kinds.
func gatorTemplates(t *testing.T) (regoByKind map[string]string, ruleByKind map[string]string, matchByKind map[string][]string) {
	t.Helper()
	regoByKind, ruleByKind, matchByKind = map[string]string{}, map[string]string{}, map[string][]string{}
	for _, file := range []string{"templates.yaml", "constraints.yaml"} {
		data, err := os.ReadFile(filepath.Join("policies", "gator", file))
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---\n") {
			var obj struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Annotations map[string]string `json:"annotations"`
				} `json:"metadata"`
				Spec struct {
					CRD struct {
						Spec struct {
							Names struct {
								Kind string `json:"kind"`
							} `json:"names"`
						} `json:"spec"`
					} `json:"crd"`
					Targets []struct {
						Rego string `json:"rego"`
					} `json:"targets"`
					Match struct {
						Kinds []struct {
							Kinds []string `json:"kinds"`
						} `json:"kinds"`
					} `json:"match"`
				} `json:"spec"`
			}
			if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			switch {
			case obj.Kind == "ConstraintTemplate":
				regoByKind[obj.Spec.CRD.Spec.Names.Kind] = obj.Spec.Targets[0].Rego
			case obj.Kind != "":
				ruleByKind[obj.Kind] = obj.Metadata.Annotations[ruleAnnotation]
				for _, k := range obj.Spec.Match.Kinds {
					matchByKind[obj.Kind] = append(matchByKind[obj.Kind], k.Kinds...)
				}
			}
		}
	}
	if len(regoByKind) != 6 || len(ruleByKind) != 6 {
		t.Fatalf("policies/gator: %d templates and %d constraints, want 6 and 6", len(regoByKind), len(ruleByKind))
	}
	return regoByKind, ruleByKind, matchByKind
}

func TestGatorPoliciesFlagExactlyTheirRule(t *testing.T) {
	regoByKind, ruleByKind, matchByKind := gatorTemplates(t)
	ctx := context.Background()
	queries := map[string]rego.PreparedEvalQuery{}
	for kind, module := range regoByKind {
		if ruleByKind[kind] == "" {
			t.Fatalf("template %s has no Constraint naming its rule", kind)
		}
		// ConstraintTemplate rego (spec.targets[].rego) is Rego v0.
		pkg := strings.Fields(strings.SplitN(strings.TrimSpace(module), "\n", 2)[0])[1]
		q, err := rego.New(rego.Query("data."+pkg+".violation"), rego.Module(kind+".rego", module),
			rego.SetRegoVersion(ast.RegoV0)).PrepareForEval(ctx)
		if err != nil {
			t.Fatalf("template %s does not compile: %v", kind, err)
		}
		queries[kind] = q
	}
	for _, c := range policyCases {
		obj := map[string]any{}
		if err := yaml.Unmarshal([]byte(c.doc), &obj); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for kind, q := range queries {
			if !slices.Contains(matchByKind[kind], obj["kind"].(string)) {
				continue
			}
			rs, err := q.Eval(ctx, rego.EvalInput(map[string]any{"review": map[string]any{"object": obj}}))
			if err != nil {
				t.Fatalf("%s: %s: %v", c.name, kind, err)
			}
			if len(rs) > 0 && len(rs[0].Expressions) > 0 {
				if v, ok := rs[0].Expressions[0].Value.([]any); ok && len(v) > 0 {
					got = append(got, ruleByKind[kind])
				}
			}
		}
		want := []string{}
		if c.rule != "" {
			want = []string{c.rule}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: flagged for %v, want %v", c.name, got, want)
		}
	}
}
