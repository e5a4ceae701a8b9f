package rules

import (
	"fmt"
	"regexp"
	"sort"
)

// Policy rules: a platform team's own rules (the ValidationPolicy kind),
// compiled by policies/ and added to a copy of the catalog at run time. They
// are Rules like the built-in ones — same Finding shape, same severities and
// --rule-severity overrides, same ratchet — with three differences kept here:
// their IDs are `policy/<policy>/<rule>`, they are added without panicking
// (a user's mistake is not a programming error), and the policy's
// validationActions bound what admission may do with their findings.

// PolicyRulePrefix starts every policy rule's ID.
const PolicyRulePrefix = "policy/"

// policyIDPattern is `policy/<policy name>/<rule id>`: the policy's name is a
// DNS subdomain (a cluster-scoped object's name), the rule's ID kebab case.
var policyIDPattern = regexp.MustCompile(`^policy/[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/[a-z0-9]+(-[a-z0-9]+)*$`)

// PolicyRuleID is the catalog ID of rule in policy.
func PolicyRuleID(policy, rule string) string { return PolicyRulePrefix + policy + "/" + rule }

// IsPolicyRuleID reports whether id is well formed as a policy rule's ID.
func IsPolicyRuleID(id string) bool { return policyIDPattern.MatchString(id) }

// AdmissionActions bound what admission does with a policy rule's finding
// (its policy's validationActions). Nil on a rule means every action, as for
// the built-in rules.
type AdmissionActions struct {
	// Deny lets a deny-severity finding refuse. Without it the finding's
	// severity is at most warn, whatever the rule's severity or override.
	Deny bool
	// Warn returns a finding as an admission warning.
	Warn bool
	// Audit records a finding as an audit annotation.
	Audit bool
}

// With returns a new catalog holding c's rules and extra, which must all be
// policy rules (IDs `policy/<policy>/<rule>`, Source policy). c is not
// changed, so a consumer holding the old catalog keeps a consistent view
// while policies change. It returns an error, not a panic, on a malformed or
// repeated ID: extra comes from users.
func (c *Catalog) With(extra []Rule) (*Catalog, error) {
	out := &Catalog{
		rules:  make(map[string]*Rule, len(c.rules)+len(extra)),
		order:  make([]string, 0, len(c.order)+len(extra)),
		pruned: c.pruned,
	}
	for id, r := range c.rules {
		out.rules[id] = r
	}
	out.order = append(out.order, c.order...)
	for _, r := range extra {
		if !IsPolicyRuleID(r.ID) {
			return nil, fmt.Errorf("policy rule ID %q is not policy/<policy>/<rule>", r.ID)
		}
		if _, dup := out.rules[r.ID]; dup {
			return nil, fmt.Errorf("rule ID %q is already in the catalog", r.ID)
		}
		if r.Check == nil || len(r.Kinds) == 0 || r.Stage == "" || r.Doc == "" {
			return nil, fmt.Errorf("policy rule %q needs a check, kinds, a stage and a doc", r.ID)
		}
		switch r.Severity {
		case SeverityDeny, SeverityWarn:
		default:
			return nil, fmt.Errorf("policy rule %q has severity %q, not deny or warn", r.ID, r.Severity)
		}
		r.Source = SourcePolicy
		rule := r
		out.rules[r.ID] = &rule
		out.order = append(out.order, r.ID)
	}
	sort.Strings(out.order)
	return out, nil
}

// boundByActions applies a policy rule's admission actions to its finding.
func (r *Rule) boundByActions(f Finding) Finding {
	a := r.AdmissionActions
	if a == nil {
		return f
	}
	if !a.Deny && f.Severity == SeverityDeny {
		f.Severity = SeverityWarn
	}
	f.AuditOnly = !a.Deny && !a.Warn
	f.Audit = a.Audit
	return f
}
