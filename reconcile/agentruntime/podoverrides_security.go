package agentruntime

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/rules"
)

// The pod checks of podOverrides (rules agentruntime/pod-security and
// agentruntime/runtime-class-allowed) report on DeploymentReady: the pod
// they judge is the Deployment's. An agent one of them refuses — admitted
// while the webhook was off, in audit mode, before the rule existed, or
// since its namespace's Pod Security label was raised — gets no workload
// from this spec: nothing is applied (what exists is left as it is, so an
// earlier, allowed pod keeps serving), and DeploymentReady is False with
// the rule's reason and finding, instead of a Deployment whose ReplicaSet
// cannot create a pod (or, below the operator's floor, can).

// podChecksHold reports whether a pod check refuses the agent's pod.
func podChecksHold(findings []rules.Finding) bool {
	return len(byCondition(findings, v1alpha1.AgentRuntimeConditionDeploymentReady)) > 0
}

// podChecksCondition is DeploymentReady False from the pod checks'
// findings, and false when there are none (DeploymentReady then follows
// the applied Deployment).
func podChecksCondition(findings []rules.Finding, gen int64) (metav1.Condition, bool) {
	fs := byCondition(findings, v1alpha1.AgentRuntimeConditionDeploymentReady)
	if len(fs) == 0 {
		return metav1.Condition{}, false
	}
	return conditions.FromFindings(v1alpha1.AgentRuntimeConditionDeploymentReady, fs, "", "",
		v1alpha1.AgentRuntimeReasonPodSecurityViolation, gen), true
}
