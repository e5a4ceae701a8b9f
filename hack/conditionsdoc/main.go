// Command conditionsdoc writes docs/conditions.md: every condition type each
// kind sets, the reasons it carries and what they mean, from the constants
// in api/v1alpha1/<kind>_conditions.go, and the catalog rules that set each
// one (rules.Default). Run it from the repository root:
//
//	go run ./hack/conditionsdoc > docs/conditions.md
//
// A test fails when the committed page differs from what it writes.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/altairalabs/omnia/rules"
)

func main() {
	kinds, err := parseConditions("api/v1alpha1")
	if err != nil {
		fmt.Fprintln(os.Stderr, "conditionsdoc:", err)
		os.Exit(1)
	}
	if err := render(os.Stdout, kinds, rules.Default.Rules()); err != nil {
		fmt.Fprintln(os.Stderr, "conditionsdoc:", err)
		os.Exit(1)
	}
}

// setters are the rules that set a kind's conditions: by condition type,
// and by reason.
type setters struct {
	byType, byReason map[string][]string
}

// settersOf lists the rules of kind whose condition the kind declares: a
// rule shared with another kind sets its condition where it is declared.
func settersOf(kind string, declared map[string]map[string]bool, catalog []*rules.Rule) setters {
	s := setters{byType: map[string][]string{}, byReason: map[string][]string{}}
	for _, r := range catalog {
		if r.Condition == "" || !contains(r.Kinds, kind) || declared[r.Condition] == nil {
			continue
		}
		s.byType[r.Condition] = append(s.byType[r.Condition], r.ID)
		if r.Reason != "" {
			key := r.Condition + "/" + r.Reason
			s.byReason[key] = append(s.byReason[key], r.ID)
		}
	}
	for _, ids := range s.byType {
		sort.Strings(ids)
	}
	for _, ids := range s.byReason {
		sort.Strings(ids)
	}
	return s
}

// declaredConditions are the declared types of each kind with the reasons
// each carries (its own and the shared ones).
func declaredConditions(kinds []kindConditions) map[string]map[string]map[string]bool {
	out := map[string]map[string]map[string]bool{}
	for _, k := range kinds {
		types := out[k.Kind]
		if types == nil {
			types = map[string]map[string]bool{}
			out[k.Kind] = types
		}
		for _, ct := range k.Types {
			reasons := map[string]bool{}
			for _, r := range append(append([]constant{}, ct.Reasons...), k.Shared...) {
				reasons[r.Value] = true
			}
			types[ct.Value] = reasons
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func render(w io.Writer, kinds []kindConditions, catalog []*rules.Rule) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Conditions\n\n")
	p("<!-- Generated from api/v1alpha1/*_conditions.go and the rule catalog by `go run ./hack/conditionsdoc > docs/conditions.md`. Do not edit by hand: a test fails when this file is stale. -->\n\n")
	p("Every condition type a controller sets on each kind, the reasons it carries and what they mean. ")
	p("The constants are declared once, in `api/v1alpha1/<kind>_conditions.go`, and every controller, rule and test uses them. ")
	p("A condition a catalog rule sets lists the rule (see [the rule catalog](rules.md)); the reconciler sets it from the rule's findings, with the rule's reason when it fails.\n\n")
	p("## Contents\n\n")
	for _, k := range kinds {
		unit := "condition types"
		if len(k.Types) == 1 {
			unit = "condition type"
		}
		p("- [%s](#%s) (%d %s)\n", k.Kind, strings.ToLower(k.Kind), len(k.Types), unit)
	}
	for _, k := range kinds {
		s := settersOf(k.Kind, declaredConditions(kinds)[k.Kind], catalog)
		p("\n## %s\n\nDeclared in %s.\n", k.Kind, declaredIn(k.Files))
		for _, t := range k.Types {
			p("\n### `%s`\n\n%s\n", t.Value, t.Doc)
			if ids := s.byType[t.Value]; len(ids) > 0 {
				p("\nSet from the rules %s.\n", links(ids))
			}
			if len(t.Reasons) > 0 {
				p("\n| reason | meaning | rule |\n|---|---|---|\n")
				for _, r := range t.Reasons {
					p("| `%s` | %s | %s |\n", r.Value, cell(r.Doc), links(s.byReason[t.Value+"/"+r.Value]))
				}
			}
		}
		if len(k.Shared) > 0 {
			p("\n### Reasons more than one condition carries\n\n| reason | meaning |\n|---|---|\n")
			for _, r := range k.Shared {
				p("| `%s` | %s |\n", r.Value, cell(r.Doc))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// declaredIn names a kind's files: `api/v1alpha1/a`, `api/v1alpha1/b` and
// `api/v1alpha1/c`.
func declaredIn(files []string) string {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = "`api/v1alpha1/" + f + "`"
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func links(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = fmt.Sprintf("[`%s`](rules.md#%s)", id, id)
	}
	return strings.Join(out, ", ")
}

// cell escapes what would end a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
