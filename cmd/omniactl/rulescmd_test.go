package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/altairalabs/omnia/rules"
)

// TestRulesDocUpToDate fails when docs/rules.md is not what
// `omniactl rules -o markdown` writes.
func TestRulesDocUpToDate(t *testing.T) {
	code, out, errOut := omniactl(t, "", "rules", "-o", "markdown")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	have, err := os.ReadFile("../../docs/rules.md")
	if err != nil {
		t.Fatalf("reading docs/rules.md: %v; run `%s`", err, regenerate)
	}
	if string(have) != out {
		t.Fatalf("docs/rules.md is stale; run `%s`", regenerate)
	}
}

func TestRulesMarkdownHasEveryRule(t *testing.T) {
	_, out, _ := omniactl(t, "", "rules", "-o", "markdown")
	for _, r := range rules.Default.Rules() {
		if !strings.Contains(out, `<a id="`+r.ID+`"></a>`) {
			t.Errorf("no anchor for %s", r.ID)
		}
	}
	for _, section := range []string{"## AgentRuntime", "## Provider", "## ToolRegistry", "## ArenaJob",
		"## Derived schema rule IDs", "## Choices where the spec is ambiguous"} {
		if !strings.Contains(out, "\n"+section+"\n") {
			t.Errorf("no section %q", section)
		}
	}
}

func TestRulesTableAndJSON(t *testing.T) {
	code, out, _ := omniactl(t, "", "rules")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	header := strings.Fields(strings.SplitN(out, "\n", 2)[0])
	if strings.Join(header, " ") != "ID KINDS STAGE SEVERITY SOURCE CONDITION/REASON" {
		t.Errorf("header %v", header)
	}
	if !strings.Contains(out, "arenajob/schedule-cron-invalid") || !strings.Contains(out, "Ready/InvalidSchedule") {
		t.Errorf("table lacks the cron rule and its condition/reason:\n%s", out)
	}

	code, out, _ = omniactl(t, "", "rules", "-o", "json")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var got []jsonRule
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rules.Default.Rules()) {
		t.Fatalf("%d rules in JSON, catalog has %d", len(got), len(rules.Default.Rules()))
	}
	if code, _, _ := omniactl(t, "", "rules", "-o", "yaml"); code != exitInput {
		t.Errorf("unknown format: exit %d, want 2", code)
	}
}
