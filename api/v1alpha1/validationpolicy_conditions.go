package v1alpha1

// The conditions a ValidationPolicy's status carries (docs/policies.md) and
// their reasons (hack/conditionsdoc generates docs/conditions.md from this
// file). The spec names no reason; these are the controller's, which also
// records each Ready transition as an event with the same reason.

const (
	// ValidationPolicyConditionReady is True when every rule of the policy
	// compiled and the policy is in force; the message counts the rules, or
	// summarises the compile errors status.ruleErrors lists.
	ValidationPolicyConditionReady = "Ready"
	// ValidationPolicyReasonCompiled (Ready=True, not named by the spec):
	// every rule compiled; the policy is in force.
	ValidationPolicyReasonCompiled = "Compiled"
	// ValidationPolicyReasonCompileFailed (Ready=False, not named by the
	// spec): at least one rule does not compile, so the policy is not in
	// force; the message names the first errors and status.ruleErrors holds
	// them all (bounded).
	ValidationPolicyReasonCompileFailed = "CompileFailed"
)
