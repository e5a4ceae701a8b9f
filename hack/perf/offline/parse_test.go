package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// testAccount is a four-document file: two agents, a Provider and a
// Workspace, of which agent-1 and workspace-3 break a rule.
func testAccount() *account {
	acc := &account{
		Documents: 4,
		Rules:     []string{"agentruntime/reserved-env-key", "workspace/schema:spec.services[].redis.existingSecret.key:pattern"},
		Objects: []document{
			{Index: 0, Kind: "Provider", Namespace: "team-0", Name: "claude-0"},
			{Index: 1, Kind: "AgentRuntime", Namespace: "team-0", Name: "agent-1"},
			{Index: 2, Kind: "AgentRuntime", Namespace: "team-1", Name: "agent-2"},
			{Index: 3, Kind: "Workspace", Name: "workspace-3"},
		},
	}
	acc.Violations = append(acc.Violations,
		struct {
			document
			Rule string `json:"rule"`
		}{acc.Objects[1], acc.Rules[0]},
		struct {
			document
			Rule string `json:"rule"`
		}{acc.Objects[3], acc.Rules[1]},
	)
	return acc
}

func keys(f flagged) map[string][]string {
	out := map[string][]string{}
	for rule, docs := range f {
		for k := range docs {
			out[rule] = append(out[rule], k.Kind+"/"+k.Name)
		}
	}
	return out
}

func TestParseOmniactlKeepsEveryRule(t *testing.T) {
	out := `[
  {"file": "m.yaml", "document": 2, "kind": "AgentRuntime", "namespace": "team-0", "name": "agent-1",
   "ruleID": "agentruntime/reserved-env-key", "severity": "deny"},
  {"file": "m.yaml", "document": 2, "kind": "AgentRuntime", "namespace": "team-0", "name": "agent-1",
   "ruleID": "agentruntime/tool-registry-exists", "severity": "warn"}
]`
	got, err := parseOmniactl(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"agentruntime/reserved-env-key":     {"AgentRuntime/agent-1"},
		"agentruntime/tool-registry-exists": {"AgentRuntime/agent-1"},
	}
	if !reflect.DeepEqual(keys(got), want) {
		t.Fatalf("got %v, want %v", keys(got), want)
	}
	if _, err := parseOmniactl(strings.NewReader("omniactl: no such file")); err == nil {
		t.Fatal("a non-JSON answer parsed")
	}
}

func TestParseGatorMapsConstraintsToRules(t *testing.T) {
	out := `[
    {
        "target": "admission.k8s.gatekeeper.sh",
        "msg": "[agentruntime/reserved-env-key] OMNIA_PACK_MODE is reserved",
        "constraint": {"apiVersion": "constraints.gatekeeper.sh/v1beta1", "kind": "OmniaReservedEnvKey",
            "metadata": {"name": "reserved-env-key", "annotations": {"omnia.altairalabs.ai/rule": "agentruntime/reserved-env-key"}}},
        "enforcementAction": "deny",
        "violatingObject": {"apiVersion": "omnia.altairalabs.ai/v1alpha1", "kind": "AgentRuntime",
            "metadata": {"name": "agent-1", "namespace": "team-0"}},
        "trace": null
    }
]`
	got, err := parseGator(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string][]string{"agentruntime/reserved-env-key": {"AgentRuntime/agent-1"}}; !reflect.DeepEqual(keys(got), want) {
		t.Fatalf("got %v, want %v", keys(got), want)
	}
	// gator prints nothing at all when nothing is violated.
	if got, err := parseGator(strings.NewReader("")); err != nil || len(got) != 0 {
		t.Fatalf("empty output: %v, %v", got, err)
	}
	unnamed := strings.Replace(out, `"annotations": {"omnia.altairalabs.ai/rule": "agentruntime/reserved-env-key"}`, `"annotations": {}`, 1)
	if _, err := parseGator(strings.NewReader(unnamed)); err == nil {
		t.Fatal("a constraint that names no rule was accepted")
	}
}

func TestParseKyvernoKeepsFailuresAndCountsErrors(t *testing.T) {
	out := `Applying 6 policy rule(s) to 4 resource(s)...
{"kind":"ClusterReport","apiVersion":"openreports.io/v1alpha1","metadata":{"name":"merged"},"results":[` +
		`{"policy":"omnia-reserved-env-key","rule":"reserved-env-key","result":"fail","resources":[{"kind":"AgentRuntime","namespace":"team-0","name":"agent-1"}]},` +
		`{"policy":"omnia-reserved-env-key","rule":"reserved-env-key","result":"pass","resources":[{"kind":"AgentRuntime","namespace":"team-1","name":"agent-2"}]},` +
		`{"policy":"omnia-secretref-key-format","rule":"secretref-key-format","result":"error","resources":[{"kind":"Workspace","name":"workspace-3"}]}]}
---
{"kind":"PolicyReport","results":[{"policy":"omnia-secretref-key-format","result":"fail","resources":[{"kind":"Workspace","name":"workspace-3"}]}]}
`
	policyRules := map[string]string{
		"omnia-reserved-env-key":     "agentruntime/reserved-env-key",
		"omnia-secretref-key-format": "workspace/schema:spec.services[].redis.existingSecret.key:pattern",
	}
	got, err := parseKyverno(strings.NewReader(out), policyRules)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"agentruntime/reserved-env-key":                                     {"AgentRuntime/agent-1"},
		"workspace/schema:spec.services[].redis.existingSecret.key:pattern": {"Workspace/workspace-3"},
	}
	if !reflect.DeepEqual(keys(got.Flagged), want) || got.Errors != 1 {
		t.Fatalf("got %v with %d errors, want %v with 1", keys(got.Flagged), got.Errors, want)
	}
	if _, err := parseKyverno(strings.NewReader(out), map[string]string{}); err == nil {
		t.Fatal("a policy outside policies/kyverno was accepted")
	}
	if _, err := parseKyverno(strings.NewReader("Error: failed to load policies\n"), policyRules); err == nil {
		t.Fatal("output without a report was accepted")
	}
}

func TestParseKubectlTiesRefusalsToDocuments(t *testing.T) {
	acc := testAccount()
	stdout := `provider.omnia.altairalabs.ai/claude-0 created (server dry run)
agentruntime.omnia.altairalabs.ai/agent-2 created (server dry run)
`
	// A webhook refusal (no name: tied by order) and the API server's own
	// OpenAPI refusal (named, with no rule ID in its message).
	stderr := `Warning: [agentruntime/tool-registry-exists] spec.toolRegistryRef: ToolRegistry service-tools not found
Error from server (Invalid): error when creating "m.yaml": admission webhook "vagentruntime.omnia.altairalabs.ai" denied the request: AgentRuntime refused: [agentruntime/reserved-env-key] spec.runtime.extraEnv[0].name: OMNIA_PACK_MODE is reserved
Error from server (Invalid): error when creating "m.yaml": Workspace.omnia.altairalabs.ai "workspace-3" is invalid: spec.services[0].redis.existingSecret.key: Invalid value: "redis url": spec.services[0].redis.existingSecret.key in body should match '^[-._a-zA-Z0-9]+$'
`
	got, err := parseKubectl(strings.NewReader(stdout), strings.NewReader(stderr), acc)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"agentruntime/reserved-env-key":                                     {"AgentRuntime/agent-1"},
		"workspace/schema:spec.services[].redis.existingSecret.key:pattern": {"Workspace/workspace-3"},
	}
	if !reflect.DeepEqual(keys(got.Flagged), want) || got.Created != 2 || got.Refusals != 2 || got.Unattributed != 0 {
		t.Fatalf("got %v (created %d, refusals %d, unattributed %d), want %v", keys(got.Flagged), got.Created, got.Refusals, got.Unattributed, want)
	}

	// One refusal lost (kubectl stopped early, say): the order no longer
	// ties them, so only the refusal that names its object counts.
	lost := strings.SplitN(stderr, "\n", 3)
	got, err = parseKubectl(strings.NewReader(stdout), strings.NewReader(lost[0]+"\n"+lost[2]), acc)
	if err != nil {
		t.Fatal(err)
	}
	if got.Unattributed != 0 || len(got.Flagged["agentruntime/reserved-env-key"]) != 0 || len(got.Flagged[acc.Rules[1]]) != 1 {
		t.Fatalf("with a lost refusal: %v, unattributed %d", keys(got.Flagged), got.Unattributed)
	}
}

func TestParseRefusalReadsCELRuleIDs(t *testing.T) {
	line := `Error from server (Invalid): error when creating "m.yaml": AgentRuntime.omnia.altairalabs.ai "agent-53" is invalid: ` +
		`[spec.facades: Invalid value: "array": [agentruntime/function-needs-rest] mode function requires exactly one rest facade in spec.facades, ` +
		`spec.facades[0].async.workers: Invalid value: 65: spec.facades[0].async.workers in body should be less than or equal to 64]`
	r := parseRefusal(line)
	want := []string{"agentruntime/function-needs-rest", "agentruntime/schema:spec.facades[].async.workers:maximum"}
	if r.Kind != "AgentRuntime" || r.Name != "agent-53" || !reflect.DeepEqual(r.Rules, want) {
		t.Fatalf("got %+v, want AgentRuntime agent-53 %v", r, want)
	}
}

func TestReadPolicyRulesOfTheCommittedPolicies(t *testing.T) {
	got, err := readPolicyRules(filepath.Join("policies", "kyverno", "policies.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]bool{}
	for _, r := range got {
		rules[r] = true
	}
	if len(got) != 6 || len(rules) != 6 {
		t.Fatalf("policies/kyverno has %d policies for %d rules, want 6 and 6: %v", len(got), len(rules), got)
	}
	gator, err := readPolicyRules(filepath.Join("policies", "gator", "constraints.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range gator {
		if !rules[r] {
			t.Errorf("gator constraint for %s has no Kyverno policy", r)
		}
	}
	if len(gator) != 6 {
		t.Fatalf("policies/gator has %d constraints, want 6", len(gator))
	}
	bad := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(bad, []byte("metadata:\n  name: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readPolicyRules(bad); err == nil {
		t.Fatal("a policy that names no rule was accepted")
	}
}
