package rules

// The ValidationPolicy kind's own schema rules (CEL markers on
// v1alpha1.ValidationPolicySpec and ValidationPolicyRule): the API server
// refuses a policy that breaks them before the operator compiles it, and
// omniactl reports them offline. The compile errors a policy's rules can
// have (a CEL type error, a forbidden Rego builtin) are not catalog rules:
// they are the policy's status.ruleErrors, from policies.Compile.
func init() {
	for _, r := range []Rule{
		{ID: "validationpolicy/deny-and-warn",
			Doc: "spec.validationActions may not hold both Deny and Warn: a deny finding is already reported in the refusal, a warn one as a warning."},
		{ID: "validationpolicy/one-language",
			Doc: "Each rule sets exactly one of cel and rego."},
		{ID: "validationpolicy/one-message",
			Doc: "Each rule sets at most one of message and messageExpression."},
		{ID: "validationpolicy/rego-message",
			Doc: "A Rego rule sets no messageExpression (it is CEL): its violations carry their own msg, or the rule sets message."},
		{ID: "validationpolicy/cel-nondeterministic",
			Doc: "allowNondeterministic is only for Rego rules: CEL has no time or random functions."},
	} {
		r.Kinds = []string{"ValidationPolicy"}
		r.Stage = StageAdmission
		r.Severity = SeverityDeny
		r.Source = SourceSchema
		r.Spec = "policies.md"
		Default.Register(r)
	}
}
