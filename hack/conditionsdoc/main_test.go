package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/altairalabs/omnia/rules"
)

// root is the repository root, where the generator runs.
const root = "../.."

func TestConditionsDocUpToDate(t *testing.T) {
	kinds, err := parseConditions(filepath.Join(root, "api/v1alpha1"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := render(&b, kinds, rules.Default.Rules()); err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join(root, "docs/conditions.md"))
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(committed) {
		t.Fatal("docs/conditions.md is stale: run `go run ./hack/conditionsdoc > docs/conditions.md`")
	}
}

// TestRulesReportDocumentedConditions: a rule's condition and reason are
// declared, so the page lists every condition a finding can set. A rule
// that applies to several kinds (e.g. an ArenaJob's provider entries, which
// its ArenaRuns are judged by too) sets its condition on the kinds that
// declare it: at least one of its kinds with a conditions file must.
func TestRulesReportDocumentedConditions(t *testing.T) {
	kinds, err := parseConditions(filepath.Join(root, "api/v1alpha1"))
	if err != nil {
		t.Fatal(err)
	}
	declared := declaredConditions(kinds)
	for _, r := range rules.Default.Rules() {
		if r.Condition == "" {
			continue
		}
		var documented []string // the kinds with a conditions file
		found := false
		for _, kind := range r.Kinds {
			types, ok := declared[kind]
			if !ok {
				continue
			}
			documented = append(documented, kind)
			reasons, ok := types[r.Condition]
			if ok && (r.Reason == "" || reasons[r.Reason]) {
				found = true
			}
		}
		if len(documented) > 0 && !found {
			t.Errorf("rule %s sets condition %q with reason %q, which none of %v declares (api/v1alpha1/<kind>_conditions.go)",
				r.ID, r.Condition, r.Reason, documented)
		}
	}
}

func TestParseConditionsLayout(t *testing.T) {
	tests := []struct {
		name, src, wantErr string
		// extra, when set, is a second file of the kind,
		// widget_access_conditions.go, which sorts before widget_conditions.go.
		extra string
	}{
		{name: "a type and its reasons", src: `package v1alpha1
const (
	// WidgetConditionReady says the widget works.
	WidgetConditionReady = "Ready"
	// WidgetReasonWorks (Ready=True): it does.
	WidgetReasonWorks = "Works"
)
`},
		{name: "a reason without a comment", src: `package v1alpha1
const (
	// WidgetConditionReady says the widget works.
	WidgetConditionReady = "Ready"
	WidgetReasonWorks = "Works"
)
`, wantErr: "has no doc comment"},
		{name: "a type after a reason", src: `package v1alpha1
const (
	// WidgetReasonWorks: it does.
	WidgetReasonWorks = "Works"
	// WidgetConditionReady says the widget works.
	WidgetConditionReady = "Ready"
)
`, wantErr: "not the first constant"},
		{name: "two kinds in one file", src: `package v1alpha1
const (
	// WidgetConditionReady says the widget works.
	WidgetConditionReady = "Ready"
)
const (
	// GadgetConditionReady says the gadget works.
	GadgetConditionReady = "Ready"
)
`, wantErr: "one kind per file"},
		{name: "two files of one kind", src: `package v1alpha1
const (
	// WidgetConditionReady says the widget works.
	WidgetConditionReady = "Ready"
	// WidgetReasonWorks (Ready=True): it does.
	WidgetReasonWorks = "Works"
)
`, extra: `package v1alpha1
const (
	// WidgetConditionAccessible says the widget can be reached.
	WidgetConditionAccessible = "Accessible"
	// WidgetReasonReachable (Accessible=True): it can.
	WidgetReasonReachable = "Reachable"
)
const (
	// WidgetReasonPending (any type=Unknown): not checked yet.
	WidgetReasonPending = "Pending"
)
`},
		{name: "a value that is not a literal", src: `package v1alpha1
const (
	// WidgetConditionReady says the widget works.
	WidgetConditionReady = other
)
`, wantErr: "string literal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "widget_conditions.go"), []byte(tt.src), 0o600); err != nil {
				t.Fatal(err)
			}
			if tt.extra != "" {
				if err := os.WriteFile(filepath.Join(dir, "widget_access_conditions.go"), []byte(tt.extra), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			kinds, err := parseConditions(dir)
			if tt.wantErr == "" && tt.extra != "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(kinds) != 1 || kinds[0].Kind != "Widget" ||
					strings.Join(kinds[0].Files, ",") != "widget_conditions.go,widget_access_conditions.go" ||
					len(kinds[0].Types) != 2 || kinds[0].Types[0].Value != "Ready" || kinds[0].Types[1].Value != "Accessible" ||
					len(kinds[0].Types[0].Reasons) != 1 || len(kinds[0].Types[1].Reasons) != 1 ||
					len(kinds[0].Shared) != 1 || kinds[0].Shared[0].Value != "Pending" {
					t.Fatalf("parsed %+v", kinds)
				}
				return
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(kinds) != 1 || kinds[0].Kind != "Widget" || len(kinds[0].Types) != 1 || len(kinds[0].Types[0].Reasons) != 1 ||
					kinds[0].Types[0].Reasons[0].Doc != "(Ready=True): it does." {
					t.Fatalf("parsed %+v", kinds)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}
