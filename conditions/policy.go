package conditions

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Policy conditions: what a reconciler reports of a platform team's policy
// rules (the ValidationPolicy kind). A policy rule that names a condition
// type sets that condition; the other rules share one PolicyCompliant
// condition. Findings are listed as "[rule] field: message".
//
// Policy conditions never feed an object's phase or Ready: they are the
// platform team's compliance signal, not the health of the spec, so a
// reconciler sets them after it has computed its own conditions and phase,
// and never rolls them up.
const (
	// ConditionPolicyCompliant lists the findings of the policy rules that
	// apply to the object and name no condition of their own.
	ConditionPolicyCompliant = "PolicyCompliant"
	// ReasonPolicyViolation: False, a rule reporting to the condition has a
	// finding on the object.
	ReasonPolicyViolation = "PolicyViolation"
	// ReasonPolicyCompliant: a rule's own condition is True, every rule
	// reporting to it applies to the object and found nothing.
	ReasonPolicyCompliant = "PolicyCompliant"
	// ReasonCompliant: PolicyCompliant is True, every rule reporting to it
	// applies to the object and found nothing (docs/policies.md).
	ReasonCompliant = "Compliant"
)

// MaxPolicyFindings bounds how many findings a policy condition's message
// lists; the rest are counted ("and N more"). The message is also bounded in
// bytes, as every condition message is.
const MaxPolicyFindings = 20

// maxPolicyRuleIDs bounds how many rule IDs a True policy condition names.
const maxPolicyRuleIDs = 10

// PolicyRule is one policy rule that applies to the object (its policy
// matches the object's kind and selects it) and what it found there.
type PolicyRule[F Finding] struct {
	// ID is the rule's catalog ID, policy/<policy>/<rule>.
	ID string
	// Condition is the condition type the rule sets; empty, it reports to
	// PolicyCompliant.
	Condition string
	// Findings are the rule's findings on the object; none, it complies.
	Findings []F
}

// IsPolicyCondition reports whether c was set by SetPolicy: its type is
// PolicyCompliant, or its reason is PolicyViolation or PolicyCompliant (the
// reasons of a rule's own condition). Reconcilers never use those for their
// own conditions.
func IsPolicyCondition(c metav1.Condition) bool {
	return c.Type == ConditionPolicyCompliant || c.Reason == ReasonPolicyViolation || c.Reason == ReasonPolicyCompliant
}

// SetPolicy puts the conditions of the applying policy rules into *conds and
// removes every policy condition they no longer produce (a rule deleted, its
// policy no longer selecting the object, its condition renamed), so a
// condition set from a policy that no longer applies does not linger. With
// no rule applying, no policy condition remains.
//
// A rule whose condition type is one the reconciler sets itself (named in
// reserved, Ready, or already on the object with a reason of the
// reconciler's) reports to PolicyCompliant instead: a policy never
// overwrites a condition the controller's phase, roll-ups or requeues read.
//
// Each condition is False (ReasonPolicyViolation) listing its rules'
// findings, at most MaxPolicyFindings of them, sorted so that an unchanged
// verdict gives an unchanged message; or True naming its rules (reason
// Compliant on PolicyCompliant, PolicyCompliant on a rule's own condition). It reports whether *conds changed: an unchanged verdict changes
// nothing (conditions.Set keeps lastTransitionTime), so it adds no write.
func SetPolicy[F Finding](conds *[]metav1.Condition, applying []PolicyRule[F], reserved []string, generation int64, now metav1.Time) bool {
	owned := map[string]bool{"Ready": true}
	for _, t := range reserved {
		owned[t] = true
	}
	for _, c := range *conds {
		if !IsPolicyCondition(c) {
			owned[c.Type] = true
		}
	}
	type group struct {
		ids      []string
		findings []string
	}
	groups := map[string]*group{}
	for _, r := range applying {
		t := r.Condition
		if t == "" || owned[t] {
			t = ConditionPolicyCompliant
		}
		g := groups[t]
		if g == nil {
			g = &group{}
			groups[t] = g
		}
		g.ids = append(g.ids, r.ID)
		for _, f := range r.Findings {
			g.findings = append(g.findings, f.String())
		}
	}
	types := make([]string, 0, len(groups))
	for t := range groups {
		types = append(types, t)
	}
	sort.Strings(types)

	changed := false
	for _, t := range types {
		changed = Set(conds, policyCondition(t, groups[t].ids, groups[t].findings, generation), now) || changed
	}
	var stale []string
	for _, c := range *conds {
		if IsPolicyCondition(c) && groups[c.Type] == nil {
			stale = append(stale, c.Type)
		}
	}
	for _, t := range stale {
		changed = Remove(conds, t) || changed
	}
	return changed
}

// policyCondition is one policy condition from its rules' IDs and rendered
// findings.
func policyCondition(condType string, ids, findings []string, generation int64) metav1.Condition {
	c := metav1.Condition{Type: condType, ObservedGeneration: generation}
	if len(findings) == 0 {
		ids = slices.Clone(ids)
		sort.Strings(ids)
		c.Status, c.Reason = metav1.ConditionTrue, ReasonPolicyCompliant
		if condType == ConditionPolicyCompliant {
			c.Reason = ReasonCompliant
		}
		c.Message = Truncate("complies with "+boundedList(ids, maxPolicyRuleIDs, ", "), maxMessage)
		return c
	}
	findings = slices.Clone(findings)
	sort.Strings(findings)
	findings = slices.Compact(findings)
	c.Status, c.Reason = metav1.ConditionFalse, ReasonPolicyViolation
	c.Message = Truncate(boundedList(findings, MaxPolicyFindings, "; "), maxMessage)
	return c
}

// boundedList joins the first max items with sep and counts the rest.
func boundedList(items []string, max int, sep string) string {
	if len(items) <= max {
		return strings.Join(items, sep)
	}
	return strings.Join(items[:max], sep) + sep + "and " + strconv.Itoa(len(items)-max) + " more"
}
