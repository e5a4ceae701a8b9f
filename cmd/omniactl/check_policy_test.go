package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// Policies for omniactl check --policy: one in CEL, one in Rego, each with
// an accepted and a rejected document below.
const (
	// celPolicy refuses OpenAI Providers in namespaces labelled env=prod.
	celPolicy = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: ValidationPolicy
metadata: {name: prod-providers}
spec:
  matchKinds: [Provider]
  namespaceSelector: {matchLabels: {env: prod}}
  rules:
  - id: no-openai
    cel: "object.spec.type != 'openai'"
    fieldPath: spec.type
    message: OpenAI is not approved for production
`
	// regoPolicy refuses Providers whose model is a moving "-latest" alias.
	regoPolicy = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: ValidationPolicy
metadata: {name: models}
spec:
  matchKinds: [Provider]
  rules:
  - id: model-pinned
    rego: |
      package omnia.models

      violation contains {"msg": sprintf("model %q is an alias that changes under you: pin a version", [m]), "field": "spec.model"} if {
        m := input.object.spec.model
        endswith(m, "-latest")
      }
`
	prodNamespace = `apiVersion: v1
kind: Namespace
metadata: {name: prod, labels: {env: prod}}
`
	// providerProdOpenAI breaks the CEL policy (prod, openai).
	providerProdOpenAI = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: Provider
metadata: {name: gpt, namespace: prod}
spec:
  type: openai
  model: gpt-4o
`
	// providerProdClaude passes both policies.
	providerProdClaude = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: Provider
metadata: {name: claude, namespace: prod}
spec:
  type: claude
  model: claude-sonnet-4-20250514
`
	// providerDevOpenAI is OpenAI outside prod: the CEL policy does not
	// select it.
	providerDevOpenAI = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: Provider
metadata: {name: gpt, namespace: dev}
spec:
  type: openai
  model: gpt-4o
`
	// providerLatest breaks the Rego policy.
	providerLatest = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: Provider
metadata: {name: local, namespace: dev}
spec:
  type: claude
  model: claude-sonnet-latest
`
)

// policyFindings keeps the policy rules' findings as "<ns>/<name> <rule> <field> <severity>".
func policyFindings(fs []jsonFinding) []string {
	var out []string
	for _, f := range fs {
		if strings.HasPrefix(f.RuleID, "policy/") {
			out = append(out, f.Namespace+"/"+f.Name+" "+f.RuleID+" "+f.Field+" "+string(f.Severity))
		}
	}
	slices.Sort(out)
	return out
}

// denials keeps the deny findings as "<ns>/<name> <rule> <field>".
func denials(fs []jsonFinding) []string {
	var out []string
	for _, f := range fs {
		if f.Severity == "deny" {
			out = append(out, f.Namespace+"/"+f.Name+" "+f.RuleID+" "+f.Field)
		}
	}
	slices.Sort(out)
	return out
}

func TestCheckPolicy(t *testing.T) {
	dir := t.TempDir()
	policyDir := dir + "/policies"
	writeFile(t, policyDir, "cel.yaml", celPolicy)
	writeFile(t, policyDir, "nested/rego.yml", regoPolicy)
	writeFile(t, policyDir, "README.md", "not a manifest: skipped in a directory")
	celFile := policyDir + "/cel.yaml"
	regoFile := policyDir + "/nested/rego.yml"

	cases := []struct {
		name     string
		docs     []string
		policies []string
		extra    []string
		wantCode int
		want     []string // policy findings
	}{
		{name: "cel accepts claude in prod", docs: []string{prodNamespace, providerProdClaude}, policies: []string{celFile},
			wantCode: exitOK},
		{name: "cel rejects openai in prod", docs: []string{prodNamespace, providerProdOpenAI}, policies: []string{celFile},
			wantCode: exitDenied, want: []string{"prod/gpt policy/prod-providers/no-openai spec.type deny"}},
		{name: "namespaceSelector: openai outside prod is not selected", docs: []string{prodNamespace, providerDevOpenAI}, policies: []string{celFile},
			wantCode: exitOK},
		{name: "namespaceSelector: without the Namespace document prod has no env label", docs: []string{providerProdOpenAI}, policies: []string{celFile},
			wantCode: exitOK},
		{name: "rego accepts a pinned model", docs: []string{providerDevOpenAI}, policies: []string{regoFile},
			wantCode: exitOK},
		{name: "rego rejects a -latest model", docs: []string{providerLatest}, policies: []string{regoFile},
			wantCode: exitDenied, want: []string{"dev/local policy/models/model-pinned spec.model deny"}},
		{name: "a directory of policies: both apply", docs: []string{prodNamespace, providerProdOpenAI, providerLatest}, policies: []string{policyDir},
			wantCode: exitDenied, want: []string{
				"dev/local policy/models/model-pinned spec.model deny",
				"prod/gpt policy/prod-providers/no-openai spec.type deny",
			}},
		{name: "severity override of a policy rule", docs: []string{providerLatest}, policies: []string{regoFile},
			extra: []string{"--rule-severity", "policy/models/model-pinned=warn"}, wantCode: exitOK,
			want: []string{"dev/local policy/models/model-pinned spec.model warn"}},
		{name: "a policy given with -f is only checked against its schema", docs: []string{celPolicy, prodNamespace, providerProdOpenAI},
			wantCode: exitOK},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := writeFile(t, dir, "case-"+string(rune('a'+i))+".yaml", docs(tc.docs...))
			args := []string{"check", "-f", file, "-o", "json"}
			for _, p := range tc.policies {
				args = append(args, "--policy", p)
			}
			args = append(args, tc.extra...)
			code, out, errOut := omniactl(t, "", args...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s\nstdout:\n%s", code, tc.wantCode, errOut, out)
			}
			fs := findingsJSON(t, out)
			if got := policyFindings(fs); !slices.Equal(got, tc.want) {
				t.Errorf("policy findings:\n  got  %v\n  want %v", got, tc.want)
			}
			// Only policy rules deny these documents: the exit code is theirs.
			for _, d := range denials(fs) {
				if !strings.Contains(d, " policy/") {
					t.Errorf("a built-in rule denies: %s", d)
				}
			}
		})
	}
}

// TestCheckPolicyRefused: a policy that is not valid or does not compile is
// unusable input (exit 2) naming the file, the document, the rule and the
// field.
func TestCheckPolicyRefused(t *testing.T) {
	dir := t.TempDir()
	provider := writeFile(t, dir, "provider.yaml", providerLatest)
	cases := []struct {
		name   string
		policy string
		want   []string
	}{
		{
			name: "cel on a field the kind does not have",
			policy: docs(regoPolicy, `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: ValidationPolicy
metadata: {name: broken}
spec:
  matchKinds: [Provider]
  rules:
  - id: typo
    cel: "object.spec.modle == 'x'"
`),
			want: []string{"bad.yaml: document 2: ValidationPolicy broken: [policy/broken/typo] spec.rules[0].cel: "},
		},
		{
			name: "rego that does not parse",
			policy: `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: ValidationPolicy
metadata: {name: broken-rego}
spec:
  matchKinds: [Provider]
  rules:
  - id: nonsense
    rego: "package x\nviolation contains {"
`,
			want: []string{"bad.yaml: document 1: ValidationPolicy broken-rego: [policy/broken-rego/nonsense] spec.rules[0].rego: "},
		},
		{
			name: "schema: cel and rego on one rule",
			policy: `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: ValidationPolicy
metadata: {name: both}
spec:
  matchKinds: [Provider]
  rules:
  - id: two
    cel: "true"
    rego: "package x"
`,
			want: []string{"bad.yaml: document 1: ValidationPolicy both: [validationpolicy/one-language] spec.rules[0]: "},
		},
		{
			name:   "not a policy",
			policy: providerLatest,
			want:   []string{"bad.yaml: document 1: omnia.altairalabs.ai/v1alpha1 Provider is not a omnia.altairalabs.ai/v1alpha1/ValidationPolicy"},
		},
		{
			name:   "two policies of one name",
			policy: docs(regoPolicy, regoPolicy),
			want:   []string{"ValidationPolicy models is also defined at "},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bad := writeFile(t, dir, "bad.yaml", tc.policy)
			code, out, errOut := omniactl(t, "", "check", "-f", provider, "--policy", bad, "-o", "json")
			if code != exitInput {
				t.Fatalf("exit %d, want %d; stdout:\n%s\nstderr:\n%s", code, exitInput, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr does not say %q:\n%s", w, errOut)
				}
			}
		})
	}

	// A severity override of a policy rule no policy defines would be
	// silently ignored: refused.
	code, _, errOut := omniactl(t, "", "check", "-f", provider, "--rule-severity", "policy/nope/rule=warn")
	if code != exitInput || !strings.Contains(errOut, "policy/nope/rule") {
		t.Errorf("override of an unknown policy rule: exit %d, stderr:\n%s", code, errOut)
	}
}

// TestCheckPolicySARIF: SARIF describes the policy rules in force from the
// catalog the documents were judged with.
func TestCheckPolicySARIF(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "all.yaml", providerLatest)
	policy := writeFile(t, dir, "rego.yaml", regoPolicy)
	code, out, errOut := omniactl(t, "", "check", "-f", file, "--policy", policy, "-o", "sarif")
	if code != exitDenied {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	var log sarifLog
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	idx := slices.IndexFunc(run.Tool.Driver.Rules, func(r sarifRule) bool { return r.ID == "policy/models/model-pinned" })
	if idx < 0 {
		t.Fatal("the SARIF rules do not describe policy/models/model-pinned")
	}
	if r := run.Tool.Driver.Rules[idx]; r.Properties["source"] != "policy" || r.DefaultConfiguration.Level != "error" {
		t.Errorf("policy rule described as %+v", r)
	}
	found := false
	for _, res := range run.Results {
		if res.RuleID == "policy/models/model-pinned" {
			found = true
			if res.RuleIndex != idx {
				t.Errorf("result ruleIndex %d, want %d", res.RuleIndex, idx)
			}
		}
	}
	if !found {
		t.Error("no SARIF result for policy/models/model-pinned")
	}
}
