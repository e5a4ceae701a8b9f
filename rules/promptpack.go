package rules

// PromptPack is one of the minimal kinds the contracts reference; its only
// rule is the schema's.
func init() {
	Default.Register(Rule{
		ID:       "promptpack/source-exactly-one",
		Kinds:    []string{"PromptPack"},
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Source:   SourceSchema,
		Doc:      "spec.source sets exactly one of configMapRef (a published pack) or live (an Arena project's working copy).",
		Spec:     "agentruntime.md#promptpackref",
	})
}
