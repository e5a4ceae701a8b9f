package rules

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// External auth (agentruntime.md § externalAuth, § facades[].managementPlane):
// which data-plane validators the facades' external listeners run, and the
// one decision the ExternalAuth condition reports False — a facade that can
// accept no callers at all. The controller sets the condition from the
// finding (conditions.FromFindings); the webhook warns and omniactl reports
// the same finding. It is reported, never refused: the spec says the
// condition reports it.

// External validators, in the order the external chain runs them.
const (
	ExternalAuthClientKeys = "clientKeys"
	ExternalAuthOIDC       = "oidc"
	ExternalAuthEdgeTrust  = "edgeTrust"
)

// AgentRuntimeExternalValidators are the validators spec.externalAuth
// enables, in the order the external chain runs them (clientKeys, oidc,
// edgeTrust). Empty: the chain is empty and every external listener answers
// 401.
func AgentRuntimeExternalValidators(ar *v1alpha1.AgentRuntime) []string {
	ea := ar.Spec.ExternalAuth
	if ea == nil {
		return nil
	}
	var out []string
	if ea.ClientKeys != nil {
		out = append(out, ExternalAuthClientKeys)
	}
	if ea.OIDC != nil {
		out = append(out, ExternalAuthOIDC)
	}
	if ea.EdgeTrust != nil {
		out = append(out, ExternalAuthEdgeTrust)
	}
	return out
}

func init() {
	Default.Register(Rule{
		ID:        "agentruntime/facade-accepts-callers",
		Kinds:     agentRuntimeKinds,
		Stage:     StageAdmission,
		Severity:  SeverityWarn,
		Condition: v1alpha1.AgentRuntimeConditionExternalAuth,
		Reason:    v1alpha1.AgentRuntimeReasonNoCallersAccepted,
		Doc: "A facade with managementPlane: false serves only its external listener, which runs only the data-plane validators of " +
			"spec.externalAuth; with none configured it can accept no callers at all. Reported (admission warning, ExternalAuth False " +
			"with NoCallersAccepted), not refused.",
		Spec:  "agentruntime.md#facadesmanagementplane",
		Check: checkAgentRuntimeFacadeAcceptsCallers,
	})
}

func checkAgentRuntimeFacadeAcceptsCallers(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil || len(AgentRuntimeExternalValidators(ar)) > 0 {
		return nil
	}
	var errs field.ErrorList
	for i := range ar.Spec.Facades {
		f := &ar.Spec.Facades[i]
		if f.ManagementPlane == nil || *f.ManagementPlane {
			continue
		}
		p := field.NewPath("spec", "facades").Index(i).Child("managementPlane")
		errs = append(errs, field.Invalid(p, false, fmt.Sprintf(
			"the %s facade has managementPlane: false and spec.externalAuth configures no data-plane validator, so it can accept no callers at all; "+
				"configure spec.externalAuth (clientKeys, oidc or edgeTrust) or keep the facade's management plane", agentRuntimeFacadeType(f))))
	}
	return errs
}
