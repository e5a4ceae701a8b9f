// Package conditions turns rule findings into metav1.Conditions and rolls
// Ready up from the others. It is pure: the caller passes the time, so a
// reconciler's clock is injectable and tests never sleep.
package conditions

import (
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Finding is what a condition needs from a rule finding; rules.Finding
// satisfies it. (conditions does not import rules: it needs only the reason
// and the finding's one rendering, "[rule] field: message", which rules owns.)
type Finding interface {
	GetReason() string
	String() string
}

// maxMessage bounds a condition message (the API allows 32768 bytes).
const maxMessage = 4096

// FromFindings returns the condition of type condType for a set of findings:
// False with the first finding's reason (or fallbackReason when the rule names
// none) and a message listing every finding as "[rule] field: message"; True
// with okReason and okMessage when there are none.
func FromFindings[F Finding](condType string, findings []F, okReason, okMessage, fallbackReason string, generation int64) metav1.Condition {
	if len(findings) == 0 {
		return metav1.Condition{Type: condType, Status: metav1.ConditionTrue, Reason: okReason, Message: okMessage, ObservedGeneration: generation}
	}
	reason := findings[0].GetReason()
	if reason == "" {
		reason = fallbackReason
	}
	parts := make([]string, 0, len(findings))
	for _, f := range findings {
		parts = append(parts, f.String())
	}
	return metav1.Condition{
		Type:               condType,
		Status:             metav1.ConditionFalse,
		Reason:             reason,
		Message:            Truncate(strings.Join(parts, "; "), maxMessage),
		ObservedGeneration: generation,
	}
}

// Truncate bounds s to at most max bytes, ending it with "..." when it is
// cut. It cuts on a UTF-8 boundary, so a message naming a non-ASCII value is
// still valid UTF-8 (the API server refuses a condition message that is
// not). Condition messages and event notes use it.
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const ellipsis = "..."
	if max < len(ellipsis) {
		return ellipsis[:max]
	}
	cut := max - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}

// Set puts c into *conds, replacing the condition of the same type. The
// lastTransitionTime is now when the status flips (or the condition is new)
// and kept otherwise. It reports whether anything changed.
func Set(conds *[]metav1.Condition, c metav1.Condition, now metav1.Time) bool {
	existing := meta.FindStatusCondition(*conds, c.Type)
	if existing == nil {
		c.LastTransitionTime = now
		*conds = append(*conds, c)
		return true
	}
	if existing.Status == c.Status {
		c.LastTransitionTime = existing.LastTransitionTime
	} else {
		c.LastTransitionTime = now
	}
	if *existing == c {
		return false
	}
	*existing = c
	return true
}

// Remove drops the condition of type condType; it reports whether one was there.
func Remove(conds *[]metav1.Condition, condType string) bool {
	return meta.RemoveStatusCondition(conds, condType)
}

// RollUp computes a Ready-style condition from others, checked in order: the
// first that is not True (a missing one counts as Unknown) makes it False
// (Unknown stays Unknown) with that condition's reason and message; when all
// are True it is True with okReason and okMessage.
func RollUp(conds []metav1.Condition, readyType string, order []string, okReason, okMessage string, generation int64) metav1.Condition {
	for _, t := range order {
		c := meta.FindStatusCondition(conds, t)
		if c == nil {
			return metav1.Condition{Type: readyType, Status: metav1.ConditionUnknown, Reason: "Awaiting" + t, Message: t + " has not been reported yet", ObservedGeneration: generation}
		}
		if c.Status != metav1.ConditionTrue {
			return metav1.Condition{Type: readyType, Status: c.Status, Reason: c.Reason, Message: t + ": " + c.Message, ObservedGeneration: generation}
		}
	}
	return metav1.Condition{Type: readyType, Status: metav1.ConditionTrue, Reason: okReason, Message: okMessage, ObservedGeneration: generation}
}
