package rules

import (
	"fmt"
	"regexp"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Catalog is a set of rules keyed by ID.
type Catalog struct {
	rules map[string]*Rule
	order []string
	// pruned maps a pruned field's path to the rule reporting it.
	pruned map[string]*Rule
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog { return &Catalog{rules: map[string]*Rule{}, pruned: map[string]*Rule{}} }

var idPattern = regexp.MustCompile(`^[a-z]+/[a-z0-9]+(-[a-z0-9]+)*$`)

// Register adds a rule. It panics on a malformed or repeated ID: the catalog
// is built at init time and a bad entry is a programming error.
func (c *Catalog) Register(r Rule) {
	if !idPattern.MatchString(r.ID) {
		panic(fmt.Sprintf("rules: malformed rule ID %q (want <kind>/<kebab-name>)", r.ID))
	}
	if _, dup := c.rules[r.ID]; dup {
		panic(fmt.Sprintf("rules: rule ID %q registered twice", r.ID))
	}
	if r.Source == "" {
		r.Source = SourceGo
	}
	if r.Source == SourceGo && (r.Check == nil) == (len(r.PrunedFields) == 0) {
		panic(fmt.Sprintf("rules: go rule %q needs exactly one of a check or pruned fields", r.ID))
	}
	if len(r.PrunedFields) > 0 && r.PrunedMessage == "" {
		panic(fmt.Sprintf("rules: rule %q on pruned fields has no message", r.ID))
	}
	if r.AdmissionFacts && (r.Stage != StageReconcile || r.Source != SourceGo) {
		panic(fmt.Sprintf("rules: rule %q: only a Go reconcile-stage rule is marked AdmissionFacts", r.ID))
	}
	if len(r.Kinds) == 0 || r.Stage == "" || r.Severity == "" || r.Doc == "" || r.Spec == "" {
		panic(fmt.Sprintf("rules: rule %q needs kinds, stage, severity, doc and spec", r.ID))
	}
	rule := r
	c.rules[r.ID] = &rule
	for _, path := range r.PrunedFields {
		c.pruned[path] = &rule
	}
	c.order = append(c.order, r.ID)
	sort.Strings(c.order)
}

// Applies reports whether r judges in: it is for kind, and its policy (if
// any) selects the object.
func (r *Rule) Applies(kind string, in Input) bool {
	if !slices.Contains(r.Kinds, kind) {
		return false
	}
	if in.Facts == nil {
		in.Facts = NoFacts{}
	}
	return r.Match == nil || r.Match(in)
}

// Lookup returns the rule with the given ID.
func (c *Catalog) Lookup(id string) (*Rule, bool) {
	r, ok := c.rules[id]
	return r, ok
}

// NeedsAdmissionFacts reports whether a Go rule for kind is marked
// AdmissionFacts: the webhook then evaluates kind with cluster facts.
func (c *Catalog) NeedsAdmissionFacts(kind string) bool {
	for _, r := range c.rules {
		if r.AdmissionFacts && r.Check != nil && slices.Contains(r.Kinds, kind) {
			return true
		}
	}
	return false
}

// Rules returns every rule, sorted by ID.
func (c *Catalog) Rules() []*Rule {
	out := make([]*Rule, 0, len(c.order))
	for _, id := range c.order {
		out = append(out, c.rules[id])
	}
	return out
}

// Options select which rules Evaluate runs and how severe they are.
type Options struct {
	// Stages to run; empty runs every stage.
	Stages []Stage
	// AdmissionFacts also runs the reconcile-stage rules marked
	// AdmissionFacts (the webhook, with facts from its cache).
	AdmissionFacts bool
	// Severity overrides a rule's default severity, by rule ID.
	Severity map[string]Severity
}

func (o Options) wantRule(r *Rule) bool {
	return len(o.Stages) == 0 || slices.Contains(o.Stages, r.Stage) || (o.AdmissionFacts && r.AdmissionFacts)
}

// Evaluate runs the Go rules that apply to in.Object's kind and returns their
// findings. Schema rules are evaluated by ValidateSchema (package schema).
func (c *Catalog) Evaluate(kind string, in Input, opts Options) []Finding {
	if in.Facts == nil {
		in.Facts = NoFacts{}
	}
	if in.scratch == nil {
		in.scratch = &Scratch{}
	}
	var out []Finding
	for _, id := range c.order {
		r := c.rules[id]
		if r.Check == nil || !slices.Contains(r.Kinds, kind) || !opts.wantRule(r) {
			continue
		}
		if r.Match != nil && !r.Match(in) {
			continue
		}
		for _, err := range r.Check(in) {
			out = append(out, r.finding(err, opts))
		}
	}
	return out
}

func (r *Rule) finding(err *field.Error, opts Options) Finding {
	sev := r.Severity
	if s, ok := opts.Severity[r.ID]; ok {
		sev = s
	}
	return r.boundByActions(Finding{
		RuleID:    r.ID,
		Field:     err.Field,
		Severity:  sev,
		Stage:     r.Stage,
		Source:    r.Source,
		Reason:    r.Reason,
		Condition: r.Condition,
		Message:   err.Detail,
	})
}

// Default is the catalog every consumer uses; each kind's file registers its
// rules into it at init.
var Default = NewCatalog()
