package agentruntime

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/rules"
)

// setQuotaStatus writes the Workspace quota verdict into st: the
// WithinWorkspaceQuota condition, present only when the Workspace sets an
// agent quota (removed otherwise); and, for an agent the Workspace has not
// admitted, Ready False with reason WorkspaceQuotaExceeded and phase
// Pending (agentruntime.md#conditions). The quota is what holds such an
// agent back even when another condition is False too, so it names Ready's
// reason and the phase stays Pending as the spec says. A clamped agent is
// otherwise reconciled as usual: Ready and the phase are left alone. It
// runs after the Ready roll-up and the phase, and is pure.
func setQuotaStatus(st *v1alpha1.AgentRuntimeStatus, v rules.AgentRuntimeQuotaVerdict, gen int64, now metav1.Time) {
	if !v.Applies {
		conditions.Remove(&st.Conditions, v1alpha1.AgentRuntimeConditionWithinWorkspaceQuota)
		return
	}
	conditions.Set(&st.Conditions, metav1.Condition{Type: v1alpha1.AgentRuntimeConditionWithinWorkspaceQuota, Status: v.Status,
		Reason: v.Reason, Message: conditions.Truncate(v.Message, 4096), ObservedGeneration: gen}, now)
	if v.Admitted {
		return
	}
	conditions.Set(&st.Conditions, metav1.Condition{Type: v1alpha1.AgentRuntimeConditionReady, Status: metav1.ConditionFalse,
		Reason: v1alpha1.AgentRuntimeReasonWorkspaceQuotaExceeded, Message: conditions.Truncate(v.Message, 4096), ObservedGeneration: gen}, now)
	st.Phase = v1alpha1.AgentRuntimePhasePending
}
