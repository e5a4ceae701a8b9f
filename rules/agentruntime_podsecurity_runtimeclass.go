package rules

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// agentruntime/runtime-class-allowed: podOverrides.runtimeClassName picks
// the container runtime every container of the agent's pod runs under —
// the sandbox (gVisor, Kata) the platform put the agents in, or a plain
// runc handler out of it. The spec lets an agent choose ("Sets
// spec.runtimeClassName on the pod when non-empty"; it wins over the
// Workspace's spec.runtime.runtimeClassName), so by default any name is
// admitted; an operator that runs tenants in sandboxes lists the
// RuntimeClasses agents may choose with --agent-runtime-classes, and then
// an agent may name one of those or its Workspace's own class, nothing else.
// The Workspace is cluster state, so the rule is of the reconcile stage,
// run by the webhook with facts from its cache (AdmissionFacts): an agent
// naming another class is refused at admission, and one that got in anyway
// has its Deployment held back (DeploymentReady False,
// RuntimeClassNotAllowed).

func init() {
	Default.Register(Rule{
		ID:        "agentruntime/runtime-class-allowed",
		Kinds:     agentRuntimeKinds,
		Stage:     StageReconcile,
		Severity:  SeverityDeny,
		Condition: v1alpha1.AgentRuntimeConditionDeploymentReady,
		Reason:    v1alpha1.AgentRuntimeReasonRuntimeClassNotAllowed,
		Doc: "When the operator lists the RuntimeClasses agents may choose (--agent-runtime-classes), podOverrides.runtimeClassName " +
			"names one of them or the Workspace's spec.runtime.runtimeClassName; without the list any name is allowed, as the spec says. " +
			"The webhook runs it with facts from its cache; the reconciler holds the Deployment back (DeploymentReady False, " +
			"RuntimeClassNotAllowed).",
		AdmissionFacts: true,
		Spec:           "agentruntime.md#podoverrides",
		Check:          checkAgentRuntimeRuntimeClassAllowed,
	})
}

// AgentRuntimeRuntimeClassAllowed reports whether the agent's pod may run
// under podOverrides.runtimeClassName: always when it sets none or the
// operator lists no classes; else when the list holds it or it is the
// Workspace's own class.
func AgentRuntimeRuntimeClassAllowed(ar *v1alpha1.AgentRuntime, facts Facts) bool {
	po := ar.Spec.PodOverrides
	if po == nil || po.RuntimeClassName == "" {
		return true
	}
	allowed := PodSecuritySettingsOf(facts).RuntimeClasses
	if len(allowed) == 0 || slices.Contains(allowed, po.RuntimeClassName) {
		return true
	}
	ws, ok := facts.Workspace(ar.Namespace)
	return ok && ws != nil && ws.Spec.Runtime != nil && ws.Spec.Runtime.RuntimeClassName == po.RuntimeClassName
}

func checkAgentRuntimeRuntimeClassAllowed(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil || AgentRuntimeRuntimeClassAllowed(ar, in.Facts) {
		return nil
	}
	allowed := PodSecuritySettingsOf(in.Facts).RuntimeClasses
	rc := ar.Spec.PodOverrides.RuntimeClassName
	return field.ErrorList{field.Invalid(field.NewPath("spec", "podOverrides", "runtimeClassName"), rc,
		"RuntimeClass "+rc+" is not one the operator lets agents choose (--agent-runtime-classes: "+strings.Join(allowed, ", ")+
			") nor the Workspace's spec.runtime.runtimeClassName; remove podOverrides.runtimeClassName to run under the Workspace's "+
			"class, or name an allowed one")}
}
