package framework

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition returns "<status>/<reason>" of the condition of type t in
// conds, or "" when it is not set: one string a spec compares, which says
// both in its failure message.
func Condition(conds []metav1.Condition, t string) string {
	c := meta.FindStatusCondition(conds, t)
	if c == nil {
		return ""
	}
	return string(c.Status) + "/" + c.Reason
}
