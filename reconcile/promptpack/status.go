package promptpack

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/reconcile/policycheck"
	"github.com/altairalabs/omnia/rules"
)

// findingGroups are the findings sorted by what they set.
type findingGroups struct {
	// source set SourceValid.
	source []rules.Finding
	// label set LabelMatches (promptpack/label-matches).
	label []rules.Finding
	// other are deny findings naming no condition: they make the pack
	// Invalid directly. Warn findings naming no condition are advisory and
	// set nothing.
	other []rules.Finding
}

func groupFindings(findings []rules.Finding) findingGroups {
	var g findingGroups
	for _, f := range findings {
		switch {
		case f.Condition == v1alpha1.PromptPackConditionSourceValid:
			g.source = append(g.source, f)
		case f.Condition == v1alpha1.PromptPackConditionLabelMatches:
			g.label = append(g.label, f)
		case f.Condition == "" && f.Severity == rules.SeverityWarn:
			// advisory
		default:
			g.other = append(g.other, f)
		}
	}
	return g
}

// computeStatus is the pack's status from its findings and the verdict of
// the ValidationPolicy rules in force, at now. It starts from the stored
// status so conditions keep their lastTransitionTime. Pure: the caller
// compares it with the stored status and writes only a change.
func computeStatus(p *v1alpha1.PromptPack, findings []rules.Finding, validation policycheck.Verdict, now metav1.Time) v1alpha1.PromptPackStatus {
	st := *p.Status.DeepCopy()
	gen := p.Generation
	g := groupFindings(findings)

	ok := "the source is valid"
	if ref := p.Spec.Source.ConfigMapRef; ref != nil {
		ok = "ConfigMap " + ref.Name + " holds a pack.json with id " + p.Spec.PackName
		if p.Spec.Version != "" {
			ok += " and version " + p.Spec.Version
		}
	}
	conditions.Set(&st.Conditions,
		conditions.FromFindings(v1alpha1.PromptPackConditionSourceValid, g.source, v1alpha1.PromptPackReasonSourceValid, ok, v1alpha1.PromptPackReasonInvalidPackJSON, gen), now)

	conditions.Set(&st.Conditions,
		conditions.FromFindings(v1alpha1.PromptPackConditionLabelMatches, g.label, v1alpha1.PromptPackReasonLabelMatches,
			"the label "+rules.PromptPackLabel+" is the spec.packName "+p.Spec.PackName+": agents find the pack by it",
			v1alpha1.PromptPackReasonLabelMismatch, gen), now)

	ready := conditions.RollUp(st.Conditions, v1alpha1.PromptPackConditionReady, []string{v1alpha1.PromptPackConditionSourceValid}, v1alpha1.PromptPackReasonPackValid, "the pack validated", gen)
	if ready.Status == metav1.ConditionTrue && len(g.other) > 0 {
		ready = conditions.FromFindings(v1alpha1.PromptPackConditionReady, g.other, v1alpha1.PromptPackReasonPackValid, "", v1alpha1.PromptPackReasonInvalidSpec, gen)
	}
	conditions.Set(&st.Conditions, ready, now)

	st.Phase = v1alpha1.PromptPackPhaseInvalid
	if c := meta.FindStatusCondition(st.Conditions, v1alpha1.PromptPackConditionReady); c != nil && c.Status == metav1.ConditionTrue {
		st.Phase = v1alpha1.PromptPackPhaseReady
	}
	// Policy conditions last, after Ready and the phase: they never feed them.
	validation.Set(&st.Conditions, []string{v1alpha1.PromptPackConditionReady, v1alpha1.PromptPackConditionSourceValid,
		v1alpha1.PromptPackConditionLabelMatches}, gen, now)
	st.ObservedGeneration = gen
	return st
}
