package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
)

// docKey identifies a document by kind and name: the generated file's names
// are unique (they carry the document's index), and every tool reports both,
// while not every one reports the namespace (kubectl's "is invalid" error
// does not).
type docKey struct{ Kind, Name string }

// flagged is which documents a tool flagged, per catalog rule ID.
type flagged map[string]map[docKey]bool

func (f flagged) add(rule string, k docKey) {
	if f[rule] == nil {
		f[rule] = map[docKey]bool{}
	}
	f[rule][k] = true
}

// account is the generator's own description of the file it wrote
// (go run ./cmd/omniactl/testdata-gen -expected FILE): every document, the
// namespaces to create first, the six rules and where it broke each.
type account struct {
	Documents  int        `json:"documents"`
	Rules      []string   `json:"rules"`
	Namespaces []string   `json:"namespaces"`
	Objects    []document `json:"objects"`
	Violations []struct {
		document
		Rule string `json:"rule"`
	} `json:"violations"`
}

type document struct {
	Index     int    `json:"index"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

func (d document) key() docKey { return docKey{Kind: d.Kind, Name: d.Name} }

// readAccount reads and checks the generator's account.
func readAccount(path string) (*account, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	acc := &account{}
	if err := json.Unmarshal(data, acc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(acc.Objects) != acc.Documents || len(acc.Rules) == 0 {
		return nil, fmt.Errorf("%s: %d objects for %d documents and %d rules", path, len(acc.Objects), acc.Documents, len(acc.Rules))
	}
	return acc, nil
}

// expected is what every tool must flag: the generator's account of where
// it put each violation, never any tool's answer.
func (a *account) expected() flagged {
	out := flagged{}
	for _, v := range a.Violations {
		out.add(v.Rule, v.key())
	}
	return out
}

// ruleComparison is one tool's answer for one rule beside the expected one.
type ruleComparison struct {
	Rule     string
	Expected int
	Flagged  int
	// Missed are expected documents the tool did not flag; Extra are
	// documents it flagged that the generator did not break.
	Missed, Extra []docKey
}

// comparison is one tool's answer for the six rules.
type comparison struct {
	Rules []ruleComparison
	// OtherRules counts findings of rules outside the six (omniactl and the
	// API server run every rule; the generated file should break none).
	OtherRules map[string]int
}

// exact reports whether the tool flagged exactly the expected documents for
// every one of the six rules.
func (c comparison) exact() bool {
	for _, r := range c.Rules {
		if len(r.Missed) > 0 || len(r.Extra) > 0 {
			return false
		}
	}
	return true
}

// mismatches counts missed plus extra documents over the six rules.
func (c comparison) mismatches() int {
	n := 0
	for _, r := range c.Rules {
		n += len(r.Missed) + len(r.Extra)
	}
	return n
}

// compare holds got against want for each of rules (the six); a rule got
// reports outside them is counted in OtherRules.
func compare(rules []string, want, got flagged) comparison {
	c := comparison{OtherRules: map[string]int{}}
	for _, rule := range rules {
		rc := ruleComparison{Rule: rule, Expected: len(want[rule]), Flagged: len(got[rule])}
		for k := range want[rule] {
			if !got[rule][k] {
				rc.Missed = append(rc.Missed, k)
			}
		}
		for k := range got[rule] {
			if !want[rule][k] {
				rc.Extra = append(rc.Extra, k)
			}
		}
		sortKeys(rc.Missed)
		sortKeys(rc.Extra)
		c.Rules = append(c.Rules, rc)
	}
	for rule, docs := range got {
		if !slices.Contains(rules, rule) {
			c.OtherRules[rule] = len(docs)
		}
	}
	return c
}

func sortKeys(ks []docKey) {
	slices.SortFunc(ks, func(a, b docKey) int {
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}
