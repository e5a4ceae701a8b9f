package rules

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// The platform services this operator serves. `discovery` (the workspace
// catalog, deploy/catalog) is served; `arena` runs the caller's mounted
// project in its sandbox, which needs SandboxClaims, out of this operator's
// scope. The schema admits both (the spec's enum), so a registry declaring
// arena is stored: this rule reports it on HandlersValid (and as an
// admission warning), and the handler is left unserved rather than
// silently rendering tools nothing answers.

func init() {
	Default.Register(Rule{
		ID:        "toolregistry/platform-service-served",
		Kinds:     toolRegistryKinds,
		Stage:     StageAdmission,
		Severity:  SeverityWarn,
		Condition: v1alpha1.ToolRegistryConditionHandlersValid,
		Reason:    v1alpha1.ToolRegistryReasonValidationFailed,
		Doc: "A platform handler's platform.service is one this operator serves: discovery. arena needs SandboxClaims, which " +
			"this operator does not provide: the handler fails HandlersValid and its tools are not served.",
		Spec:  "toolregistry.md#service-arena",
		Check: checkToolRegistryPlatformServiceServed,
	})
}

func checkToolRegistryPlatformServiceServed(in Input) field.ErrorList {
	tr := toolRegistryOf(in)
	if tr == nil {
		return nil
	}
	var errs field.ErrorList
	for i := range tr.Spec.Handlers {
		h := &tr.Spec.Handlers[i]
		if h.Type != v1alpha1.ToolRegistryHandlerTypePlatform || h.Platform == nil ||
			h.Platform.Service != v1alpha1.ToolRegistryPlatformServiceArena {
			continue
		}
		errs = append(errs, field.Invalid(toolRegistryHandlersPath.Index(i).Child("platform", "service"), h.Platform.Service,
			"the arena platform service is not served by this operator (it needs SandboxClaims): the handler's tools are not "+
				"served; remove the handler, or use service discovery for the workspace catalog"))
	}
	return errs
}
