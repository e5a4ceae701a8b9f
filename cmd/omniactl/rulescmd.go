package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/altairalabs/omnia/rules"
)

// regenerate is the command that writes docs/rules.md.
const regenerate = "go run ./cmd/omniactl rules -o markdown > docs/rules.md"

func runRules(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("omniactl rules", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("o", formatTable, "output: table, json or markdown")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitInput
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "omniactl rules: unexpected argument %q\n", fs.Arg(0))
		return exitInput
	}
	var err error
	switch *format {
	case formatTable:
		err = writeRulesTable(stdout, rules.Default)
	case formatJSON:
		err = writeRulesJSON(stdout, rules.Default)
	case "markdown", "md":
		err = writeRulesMarkdown(stdout, rules.Default)
	default:
		fmt.Fprintf(stderr, "omniactl rules: unknown output format %q (want table, json or markdown)\n", *format)
		return exitInput
	}
	if err != nil {
		fmt.Fprintln(stderr, "omniactl rules:", err)
		return exitInput
	}
	return exitOK
}

func conditionReason(r *rules.Rule) string {
	switch {
	case r.Condition != "" && r.Reason != "":
		return r.Condition + "/" + r.Reason
	case r.Condition != "":
		return r.Condition
	case r.Reason != "":
		return r.Reason
	}
	return "-"
}

// stageText is a rule's stage as the catalog listings print it: a
// reconcile-stage rule the webhook also runs with cluster facts says so.
func stageText(r *rules.Rule) string {
	if r.AdmissionFacts {
		return string(r.Stage) + " + admission"
	}
	return string(r.Stage)
}

func writeRulesTable(w io.Writer, cat *rules.Catalog) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKINDS\tSTAGE\tSEVERITY\tSOURCE\tCONDITION/REASON")
	for _, r := range cat.Rules() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, strings.Join(r.Kinds, ","), stageText(r), r.Severity, r.Source, conditionReason(r))
	}
	return tw.Flush()
}

// jsonRule is one catalog entry in `omniactl rules -o json`.
type jsonRule struct {
	ID       string         `json:"id"`
	Kinds    []string       `json:"kinds"`
	Stage    rules.Stage    `json:"stage"`
	Severity rules.Severity `json:"severity"`
	Source   rules.Source   `json:"source"`
	// AdmissionFacts: a reconcile-stage rule the webhook also runs, with
	// facts from its cache.
	AdmissionFacts bool   `json:"admissionFacts,omitempty"`
	Condition      string `json:"condition,omitempty"`
	Reason         string `json:"reason,omitempty"`
	Doc            string `json:"doc"`
	Spec           string `json:"spec"`
}

func writeRulesJSON(w io.Writer, cat *rules.Catalog) error {
	out := []jsonRule{}
	for _, r := range cat.Rules() {
		out = append(out, jsonRule{ID: r.ID, Kinds: r.Kinds, Stage: r.Stage, Severity: r.Severity, Source: r.Source,
			AdmissionFacts: r.AdmissionFacts, Condition: r.Condition, Reason: r.Reason, Doc: r.Doc, Spec: r.Spec})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// primaryKinds come first in the document, in this order; other kinds follow
// alphabetically.
var primaryKinds = []string{"AgentRuntime", "Provider", "ToolRegistry", "ArenaJob", "ArenaRun"}

// ruleKindOrder returns the kinds that have rules, in document order.
func ruleKindOrder(cat *rules.Catalog) []string {
	seen := map[string]bool{}
	for _, r := range cat.Rules() {
		for _, k := range r.Kinds {
			seen[k] = true
		}
	}
	var out, rest []string
	for _, k := range primaryKinds {
		if seen[k] {
			out = append(out, k)
			delete(seen, k)
		}
	}
	for k := range seen {
		rest = append(rest, k)
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// homeKind is the kind whose section holds a rule's anchor: the kind its ID
// names, else its first kind.
func homeKind(r *rules.Rule) string {
	prefix, _, _ := strings.Cut(r.ID, "/")
	for _, k := range r.Kinds {
		if strings.ToLower(k) == prefix {
			return k
		}
	}
	return r.Kinds[0]
}

// mdCell escapes text for a Markdown table cell.
func mdCell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(oneLine(s), "|", `\|`), "\n", " ")
}

// writeRulesMarkdown writes docs/rules.md: one section per kind with an
// anchor per rule ID, the derived schema ID scheme, and the choices made
// where the spec is ambiguous.
func writeRulesMarkdown(w io.Writer, cat *rules.Catalog) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	all := cat.Rules()
	kinds := ruleKindOrder(cat)

	p("# Rule catalog\n\n")
	p("<!-- Generated from the catalog in rules/ by `%s`. Do not edit by hand: a test fails when this file is stale. -->\n\n", regenerate)
	p("Every rule the spec states is written once, in `rules/`, and every path asks the same catalog: the API server (schema rules, ")
	p("written as markers on the API types and compiled into the CRDs), the validating webhooks, the reconcilers and `omniactl check`. ")
	p("A finding carries the rule's ID, the field path, the severity and a message that names the field and says how to fix it.\n\n")
	p("- **ID** — `<kind>/<kebab-name>`, stable, never reused once retired. Plain OpenAPI constraints get derived IDs ")
	p("(see [Derived schema rule IDs](#derived-schema-rule-ids)).\n")
	p("- **Stage** — `admission` rules look at the object alone (plus the old object on update): they deny or warn at admission and set ")
	p("conditions on reconcile. `reconcile` rules need cluster facts (does the Provider exist, is its role right): they never deny or warn at ")
	p("admission and set conditions and phase — except `reconcile + admission` rules, which the spec says the webhook refuses too: ")
	p("the webhook runs them with facts from its cache and refuses while that cache has not synced. ")
	p("`omniactl check` runs both, with facts taken from the documents it was given.\n")
	p("- **Severity** — the default: `deny` refuses the object, `warn` admits it with an admission warning carrying the rule ID. ")
	p("An operator sets another with `--rule-severity <id>=deny|warn` (omnia-operator and `omniactl check`) for a Go rule that runs at admission; ")
	p("the flag refuses, naming it, a schema rule (always enforced by the API server) or a reconcile-stage rule (it never denies).\n")
	p("- **Source** — `schema`: enforced by the API server itself (OpenAPI or CEL in the CRD; the CEL message starts with `[<id>]`), ")
	p("evaluated offline by `omniactl check` with the API server's own validators. `go`: a check in `rules/`, run by the webhook ")
	p("(admission stage), the reconcilers and `omniactl check`.\n")
	p("- **Condition / reason** — the condition the reconciler sets from the rule and the spec's reason string, where the spec names them.\n\n")
	p("List the catalog with `omniactl rules` (`-o json` for tools).\n\n")

	p("## Contents\n\n")
	for _, k := range kinds {
		n := 0
		for _, r := range all {
			if slices.Contains(r.Kinds, k) {
				n++
			}
		}
		plural := "s"
		if n == 1 {
			plural = ""
		}
		p("- [%s](#%s) (%d rule%s)\n", k, strings.ToLower(k), n, plural)
	}
	p("- [Derived schema rule IDs](#derived-schema-rule-ids)\n")
	p("- [Choices where the spec is ambiguous](#choices-where-the-spec-is-ambiguous)\n\n")

	for _, k := range kinds {
		p("## %s\n\n", k)
		p("| Rule | Stage | Severity | Source | Condition / reason |\n|---|---|---|---|---|\n")
		var home []*rules.Rule
		for _, r := range all {
			if !slices.Contains(r.Kinds, k) {
				continue
			}
			p("| [`%s`](#%s) | %s | %s | %s | %s |\n", r.ID, r.ID, stageText(r), r.Severity, r.Source, mdCell(conditionReason(r)))
			if homeKind(r) == k {
				home = append(home, r)
			}
		}
		p("\n")
		for _, r := range home {
			p("<a id=\"%s\"></a>\n\n### `%s`\n\n%s\n\n", r.ID, r.ID, strings.TrimSpace(r.Doc))
			if len(r.Kinds) > 1 {
				p("- Kinds: %s\n", strings.Join(r.Kinds, ", "))
			}
			p("- Spec: `%s`\n", r.Spec)
			p("- Stage: %s · Severity: %s · Source: %s\n", stageText(r), r.Severity, r.Source)
			switch {
			case r.Condition != "" && r.Reason != "":
				p("- Condition: `%s`, reason `%s`\n", r.Condition, r.Reason)
			case r.Condition != "":
				p("- Condition: `%s`\n", r.Condition)
			case r.Reason != "":
				p("- Reason: `%s`\n", r.Reason)
			}
			p("\n")
		}
	}

	p("## Derived schema rule IDs\n\n")
	p("A plain OpenAPI constraint of a CRD (enum, pattern, range, length, item count, required, type) is written once, as a marker on the Go type; ")
	p("the checks of unknown fields and of object metadata are the API server's own. Neither is listed above. ")
	p("Every finding they produce — from the API server or from `omniactl check` — still has a stable ID, derived from the field and the constraint:\n\n")
	p("```\n<kind>/schema:<path>:<constraint>\n```\n\n")
	p("- `<kind>` is the lower-case kind (`agentruntime`, `provider`, …).\n")
	p("- `<path>` is the field path of the error with every list index or map key written `[]`: `spec.facades[1].port` becomes `spec.facades[].port`.\n")
	p("- `<constraint>` names the constraint: `required`, `enum`, `pattern`, `minimum`, `maximum`, `minLength`, `maxLength`, `minItems`, `maxItems`, ")
	p("`multipleOf`, `unique` (a duplicate in a set or map list), `type`, `forbidden`, or `invalid` for any other value error.\n")
	p("- `<kind>/schema:object:incomplete` is the API server's notice that CEL rules were skipped because the object already broke a constraint that blocks them; fix the other findings first.\n")
	p("- `<kind>/schema:unknown-field` is a field the schema does not declare, at any depth and under `metadata` (a typo such as `spec.modle` or `metadata.lables`): ")
	p("the finding's field is its path and its message the API server's strict decoding error, `unknown field \"spec.modle\"`. ")
	p("`kubectl apply` (strict field validation) is refused for it; a client without strict validation has the field dropped silently. ")
	p("A removed field with a rule of its own (`arenajob/loadtest-budgetlimit-removed`) is reported by that rule instead.\n")
	p("- `metadata` is validated with the API server's own validators (apimachinery's object-metadata validation with the DNS-subdomain name rule of custom resources); ")
	p("its findings take derived IDs on their `metadata` path: `<kind>/schema:metadata.name:invalid` (not a DNS subdomain, at most 253 characters) and `:required`, ")
	p("`metadata.generateName:invalid`, `metadata.namespace:invalid` (not a DNS label), `metadata.labels:invalid` (a key or value), `metadata.annotations:invalid` (a key) ")
	p("and `metadata.annotations:maxLength` (over 256 KiB in total), `metadata.finalizers:invalid`, `metadata.ownerReferences[].<field>:required` or `:invalid`; on update `metadata.name:invalid` and ")
	p("`metadata.namespace:invalid` also say the field is immutable. `<kind>/schema:metadata:invalid` is metadata that does not decode as object metadata (e.g. `labels` not a map).\n\n")
	p("Examples: `agentruntime/schema:spec.facades[].port:maximum`, `provider/schema:spec.type:enum`, `toolregistry/schema:spec.sandboxes:maxItems`. ")
	p("A CEL rule (`x-kubernetes-validations`) carries its catalog ID at the start of its message instead (`[provider/model-required] …`) and is listed above with source `schema`. ")
	p("`omniactl check -o json` prints the ID of every finding; the accept/reject tables under `api/v1alpha1/testdata/schema/` name a case for each constraint, ")
	p("and `rules/strict_test.go` and `cmd/omniactl/testdata/strict-rows.yaml` for unknown fields and metadata.\n\n")

	p("## Choices where the spec is ambiguous\n\n")
	p("%s", strings.TrimRight(choices, "\n")+"\n")

	_, err := io.WriteString(w, b.String())
	return err
}
