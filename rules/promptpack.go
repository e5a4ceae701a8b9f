package rules

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// PromptPack rules: the schema's source rule and the pack-name label an
// agent finds the pack by.

const kindPromptPack = "PromptPack"

func init() {
	Default.Register(Rule{
		ID:       "promptpack/source-exactly-one",
		Kinds:    []string{kindPromptPack},
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Source:   SourceSchema,
		Doc:      "spec.source sets exactly one of configMapRef (a published pack) or live (an Arena project's working copy).",
		Spec:     "agentruntime.md#promptpackref",
	})
	// The spec says agents find a pack by this label; it does not say a pack
	// with another value is refused, so the rule warns. A pack without the
	// label is not a finding: the PromptPack controller adds it from
	// spec.packName.
	Default.Register(Rule{
		ID:        "promptpack/label-matches",
		Kinds:     []string{kindPromptPack},
		Stage:     StageAdmission,
		Severity:  SeverityWarn,
		Condition: v1alpha1.PromptPackConditionLabelMatches,
		Reason:    v1alpha1.PromptPackReasonLabelMismatch,
		Doc: "The label " + PromptPackLabel + ", when set, equals spec.packName: an AgentRuntime's promptPackRef.name finds the " +
			"PromptPacks labelled with it, so a pack labelled with another value is found under that value, not its spec.packName. " +
			"A pack without the label gets it from spec.packName (the PromptPack controller adds it, and never rewrites one a user set).",
		Spec:  "agentruntime.md#promptpackref",
		Check: checkPromptPackLabel,
	})
}

func checkPromptPackLabel(in Input) field.ErrorList {
	p, _ := in.Object.(*v1alpha1.PromptPack)
	if p == nil || p.Spec.PackName == "" {
		return nil // a missing packName is the schema's
	}
	path := field.NewPath("metadata", "labels").Key(PromptPackLabel)
	label, ok := p.Labels[PromptPackLabel]
	switch {
	case !ok:
		return nil // the PromptPack controller adds it from spec.packName
	case label != p.Spec.PackName:
		return field.ErrorList{field.Invalid(path, label,
			"the label "+PromptPackLabel+" is "+label+" but spec.packName is "+p.Spec.PackName+
				": agents find this pack under the label's value; set the label to "+p.Spec.PackName)}
	}
	return nil
}
