package rules

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Licence gate of AgentRuntime's rollout: an analysis step runs a
// RolloutAnalysis, which is an enterprise feature (agentruntime.md, the
// Enterprise note under rollout steps). The licence's feature list names no
// separate feature for it, so the enterprise tier grants it. (The custom
// facade gate, agentruntime/custom-facade-license, is beside the other
// facade rules in agentruntime_refs.go.)

func init() {
	Default.Register(Rule{
		ID:       "agentruntime/rollout-analysis-license",
		Kinds:    agentRuntimeKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc: "A spec.rollout.steps[] analysis step needs the RolloutAnalysis CRD, an enterprise feature: refused unless the licence is of the enterprise tier " +
			"(an update that keeps an analysis step the stored agent already had is let through by the update ratchet).",
		Spec:  "agentruntime.md#rollout",
		Check: checkAgentRuntimeRolloutAnalysisLicense,
	})
}

func checkAgentRuntimeRolloutAnalysisLicense(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil || ar.Spec.Rollout == nil || in.Facts.License().Enterprise() {
		return nil
	}
	var errs field.ErrorList
	for i, step := range ar.Spec.Rollout.Steps {
		if step.Analysis != nil {
			errs = append(errs, field.Forbidden(field.NewPath("spec", "rollout", "steps").Index(i).Child("analysis"),
				"an analysis step needs an enterprise licence (RolloutAnalysis is an enterprise feature); install one, or use setWeight and pause steps"))
		}
	}
	return errs
}
