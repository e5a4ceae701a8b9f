package validationpolicy

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/policies"
)

// MaxRuleErrors bounds status.ruleErrors, as the CRD does.
const MaxRuleErrors = 128

// maxSummarised is how many errors the Ready message spells out; the rest
// are counted (ruleErrors lists them).
const maxSummarised = 5

// maxReadyMessage bounds the Ready message.
const maxReadyMessage = 2048

// Status returns the status of a policy at generation, compiled as c: Ready
// True (Compiled) when every rule compiled and the policy is in force, else
// False (CompileFailed) summarising the errors; ruleErrors bounded at
// MaxRuleErrors; observedGeneration. The Ready condition's
// lastTransitionTime moves only when its status does (conditions.Set). old
// is not modified.
func Status(old v1alpha1.ValidationPolicyStatus, generation int64, c *policies.Compiled, now metav1.Time) v1alpha1.ValidationPolicyStatus {
	st := *old.DeepCopy()
	st.ObservedGeneration = generation
	var errs []v1alpha1.ValidationPolicyRuleError
	if c != nil {
		errs = c.Errors
	}
	ready := metav1.Condition{Type: v1alpha1.ValidationPolicyConditionReady, ObservedGeneration: generation}
	if len(errs) == 0 {
		n := 0
		if c != nil {
			n = len(c.Rules)
		}
		ready.Status, ready.Reason = metav1.ConditionTrue, v1alpha1.ValidationPolicyReasonCompiled
		ready.Message = fmt.Sprintf("%d rules compiled and in force", n)
		if n == 1 {
			ready.Message = "1 rule compiled and in force"
		}
		st.RuleErrors = nil
	} else {
		ready.Status, ready.Reason = metav1.ConditionFalse, v1alpha1.ValidationPolicyReasonCompileFailed
		ready.Message = summarise(errs)
		if len(errs) > MaxRuleErrors {
			errs = errs[:MaxRuleErrors]
		}
		st.RuleErrors = append([]v1alpha1.ValidationPolicyRuleError(nil), errs...)
	}
	conditions.Set(&st.Conditions, ready, now)
	return st
}

// summarise is the Ready message of a policy with errors: how many, the
// first few as "[rule] field: message", bounded.
func summarise(errs []v1alpha1.ValidationPolicyRuleError) string {
	parts := make([]string, 0, maxSummarised+1)
	for i, e := range errs {
		if i == maxSummarised {
			parts = append(parts, fmt.Sprintf("and %d more (status.ruleErrors)", len(errs)-maxSummarised))
			break
		}
		parts = append(parts, "["+e.Rule+"] "+e.Field+": "+e.Message)
	}
	noun := "errors"
	if len(errs) == 1 {
		noun = "error"
	}
	msg := fmt.Sprintf("not in force: %d compile %s: %s", len(errs), noun, strings.Join(parts, "; "))
	return conditions.Truncate(msg, maxReadyMessage)
}
