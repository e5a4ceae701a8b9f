package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestExpectedComesFromTheAccount(t *testing.T) {
	acc := testAccount()
	data, err := json.Marshal(acc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "expected.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	read, err := readAccount(path)
	if err != nil {
		t.Fatal(err)
	}
	want := flagged{}
	want.add("agentruntime/reserved-env-key", docKey{"AgentRuntime", "agent-1"})
	want.add("workspace/schema:spec.services[].redis.existingSecret.key:pattern", docKey{"Workspace", "workspace-3"})
	if got := read.expected(); len(got) != 2 || !got[acc.Rules[0]][docKey{"AgentRuntime", "agent-1"}] || !got[acc.Rules[1]][docKey{"Workspace", "workspace-3"}] {
		t.Fatalf("expected() = %v, want %v", got, want)
	}

	// An account whose objects do not cover its documents is refused.
	acc.Documents = 5
	data, _ = json.Marshal(acc)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readAccount(path); err == nil {
		t.Fatal("an account with 4 objects for 5 documents was accepted")
	}
}

func TestCompareReportsMissedExtraAndOtherRules(t *testing.T) {
	acc := testAccount()
	want := acc.expected()

	same := flagged{}
	same.add(acc.Rules[0], docKey{"AgentRuntime", "agent-1"})
	same.add(acc.Rules[1], docKey{"Workspace", "workspace-3"})
	same.add("agentruntime/tool-registry-exists", docKey{"AgentRuntime", "agent-2"})
	c := compare(acc.Rules, want, same)
	if !c.exact() || c.mismatches() != 0 || c.OtherRules["agentruntime/tool-registry-exists"] != 1 {
		t.Fatalf("the expected answer plus another rule: %+v", c)
	}

	off := flagged{}
	off.add(acc.Rules[0], docKey{"AgentRuntime", "agent-2"}) // wrong document
	c = compare(acc.Rules, want, off)
	if c.exact() || c.mismatches() != 3 {
		t.Fatalf("one wrong and one missing document: exact=%v mismatches=%d, want false and 3", c.exact(), c.mismatches())
	}
	r0 := c.Rules[0]
	if r0.Expected != 1 || r0.Flagged != 1 || len(r0.Missed) != 1 || r0.Missed[0].Name != "agent-1" || len(r0.Extra) != 1 || r0.Extra[0].Name != "agent-2" {
		t.Fatalf("rule %s: %+v", r0.Rule, r0)
	}
	if r1 := c.Rules[1]; r1.Flagged != 0 || len(r1.Missed) != 1 || len(r1.Extra) != 0 {
		t.Fatalf("rule %s: %+v", r1.Rule, r1)
	}
}
