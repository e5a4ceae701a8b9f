package main

import (
	"bufio"
	"io"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/rules"
)

// kubectlResult is what `kubectl apply --dry-run=server` answered for a
// file: the documents refused, per catalog rule, read back from the errors.
type kubectlResult struct {
	Flagged flagged
	// Created counts the documents the API server accepted.
	Created int
	// Refusals counts the error messages; Unattributed those that could be
	// tied to no document (see parseKubectl).
	Refusals, Unattributed int
}

var (
	// kubectl prints "<resource>.<group>/<name> created (server dry run)"
	// for each document the API server accepted.
	kubectlCreated = regexp.MustCompile(`^\S+/(\S+) created \(server dry run\)$`)
	// The API server's own refusal (schema and CEL) names the object:
	// `AgentRuntime.omnia.altairalabs.ai "agent-53" is invalid: ...`.
	kubectlInvalid = regexp.MustCompile(`([A-Z][A-Za-z]+)\.[a-z0-9.-]+ "([^"]+)" is invalid`)
	// The operator's webhook refusal names only the kind: "AgentRuntime
	// refused: [rule] field: message; ...".
	kubectlWebhookKind = regexp.MustCompile(`denied the request: ([A-Z][A-Za-z]+) refused:`)
	// A rule ID carried in a message: a CEL rule's or a catalog finding's.
	kubectlRuleID = regexp.MustCompile(`\[([a-z]+/[a-z0-9]+(?:-[a-z0-9]+)*)\] `)
	// A plain OpenAPI constraint's field error, which carries no ID:
	// "<path>: Invalid value: <v>: <path> in body should ...", the path
	// said twice (checked in parseRefusal).
	kubectlSchemaError = regexp.MustCompile(`(?:^|[\s\[])([a-z][A-Za-z0-9_.\[\]]*): Invalid value: [^:]*: ([a-z][A-Za-z0-9_.\[\]]*) in body (should [^,]*)`)
)

// refusal is one error kubectl printed.
type refusal struct {
	Kind, Name string // Name is empty when the message does not say it
	Rules      []string
}

// parseKubectl reads kubectl's standard output (the documents accepted) and
// standard error (one "Error from server" line per refused document, in file
// order, after all the accepted ones) for the documents of acc.
//
// A webhook refusal does not name its object, so refusals are tied to
// documents by order: kubectl applies the file's documents one by one and
// reports the errors in that order, so the n-th refusal belongs to the n-th
// document that was not accepted. When a refusal names its object, that name
// must agree; a refusal that cannot be tied (the counts differ, or the names
// disagree) is counted as Unattributed rather than guessed.
func parseKubectl(stdout, stderr io.Reader, acc *account) (kubectlResult, error) {
	out := kubectlResult{Flagged: flagged{}}
	created := map[string]bool{}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if m := kubectlCreated.FindStringSubmatch(strings.TrimSpace(sc.Text())); m != nil {
			created[m[1]] = true
		}
	}
	if err := sc.Err(); err != nil {
		return out, err
	}
	out.Created = len(created)

	var refusals []refusal
	sc = bufio.NewScanner(stderr)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "Error from server") {
			continue
		}
		refusals = append(refusals, parseRefusal(line))
	}
	if err := sc.Err(); err != nil {
		return out, err
	}
	out.Refusals = len(refusals)

	var refused []document
	for _, d := range acc.Objects {
		if !created[d.Name] {
			refused = append(refused, d)
		}
	}
	byOrder := len(refused) == len(refusals)
	byName := map[string]document{}
	for _, d := range acc.Objects {
		byName[d.Name] = d
	}
	for i, r := range refusals {
		var doc document
		switch {
		case byOrder && (r.Name == "" || r.Name == refused[i].Name) && (r.Kind == "" || r.Kind == refused[i].Kind):
			doc = refused[i]
		case r.Name != "" && byName[r.Name].Name != "" && !byOrder:
			doc = byName[r.Name]
		default:
			out.Unattributed++
			continue
		}
		for _, rule := range r.Rules {
			out.Flagged.add(rule, doc.key())
		}
	}
	return out, nil
}

// parseRefusal reads the kind, name and rule IDs of one error line.
func parseRefusal(line string) refusal {
	var r refusal
	if m := kubectlInvalid.FindStringSubmatch(line); m != nil {
		r.Kind, r.Name = m[1], m[2]
	} else if m := kubectlWebhookKind.FindStringSubmatch(line); m != nil {
		r.Kind = m[1]
	}
	seen := map[string]bool{}
	addRule := func(id string) {
		if !seen[id] {
			seen[id] = true
			r.Rules = append(r.Rules, id)
		}
	}
	for _, m := range kubectlRuleID.FindAllStringSubmatch(line, -1) {
		addRule(m[1])
	}
	for _, m := range kubectlSchemaError.FindAllStringSubmatch(line, -1) {
		if m[1] != m[2] {
			continue
		}
		// The same derivation omniactl makes from the same field error
		// (rules.schemaFinding), so both name the constraint alike.
		addRule(rules.SchemaRuleID(r.Kind, m[1], rules.SchemaConstraint(field.ErrorTypeInvalid, m[3])))
	}
	return r
}
