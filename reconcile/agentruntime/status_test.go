package agentruntime

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/reconcile/transitions"
	"github.com/altairalabs/omnia/rules"
)

// TestComputeStatus checks the pure status function: resolution conditions
// from findings, the phase table, DeploymentReady from a Deployment status
// written here only (never in an e2e), ReservedEnvClean from dropped keys.
func TestComputeStatus(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ready := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: ptr.To(int32(2))},
		Status: appsv1.DeploymentStatus{ReadyReplicas: 1, AvailableReplicas: 1}}
	notReady := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: ptr.To(int32(1))}}
	finding := func(ruleID, cond, reason string) rules.Finding {
		return rules.Finding{RuleID: ruleID, Condition: cond, Reason: reason, Message: "m"}
	}
	for _, tc := range []struct {
		name      string
		in        statusInput
		wantPhase v1alpha1.AgentRuntimePhase
		wantConds map[string]string // type -> reason
	}{
		{
			name:      "ready inputs and a ready replica: Running",
			in:        statusInput{frameworkImageOK: true, deployment: ready, serviceApplied: true},
			wantPhase: v1alpha1.AgentRuntimePhaseRunning,
			wantConds: map[string]string{"Ready": v1alpha1.AgentRuntimeReasonAgentReady, "DeploymentReady": v1alpha1.AgentRuntimeReasonDeploymentAvailable, "ServiceReady": v1alpha1.AgentRuntimeReasonServiceCreated, "ToolRegistryReady": v1alpha1.AgentRuntimeReasonNoToolRegistry},
		},
		{
			name:      "no ready replica yet: Pending",
			in:        statusInput{frameworkImageOK: true, deployment: notReady, serviceApplied: true},
			wantPhase: v1alpha1.AgentRuntimePhasePending,
			wantConds: map[string]string{"DeploymentReady": v1alpha1.AgentRuntimeReasonDeploymentUnavailable},
		},
		{
			name:      "missing PromptPack: Failed with PromptPackNotFound",
			in:        statusInput{frameworkImageOK: true, findings: []rules.Finding{finding("agentruntime/promptpack-resolves", "PromptPackReady", v1alpha1.AgentRuntimeReasonPromptPackNotFound)}},
			wantPhase: v1alpha1.AgentRuntimePhaseFailed,
			wantConds: map[string]string{"PromptPackReady": v1alpha1.AgentRuntimeReasonPromptPackNotFound, "Ready": v1alpha1.AgentRuntimeReasonPromptPackNotFound},
		},
		{
			name:      "missing Provider: Failed",
			in:        statusInput{frameworkImageOK: true, findings: []rules.Finding{finding("agentruntime/provider-exists", "ProviderReady", v1alpha1.AgentRuntimeReasonProviderNotFound)}},
			wantPhase: v1alpha1.AgentRuntimePhaseFailed,
			wantConds: map[string]string{"ProviderReady": v1alpha1.AgentRuntimeReasonProviderNotFound},
		},
		{
			name:      "capability mismatch: Pending",
			in:        statusInput{frameworkImageOK: true, findings: []rules.Finding{finding("agentruntime/provider-capabilities", "ProviderReady", v1alpha1.AgentRuntimeReasonCapabilityMismatch)}},
			wantPhase: v1alpha1.AgentRuntimePhasePending,
			wantConds: map[string]string{"ProviderReady": v1alpha1.AgentRuntimeReasonCapabilityMismatch},
		},
		{
			name:      "no framework image: FrameworkImageUnavailable, Pending",
			in:        statusInput{},
			wantPhase: v1alpha1.AgentRuntimePhasePending,
			wantConds: map[string]string{"FrameworkReady": v1alpha1.AgentRuntimeReasonFrameworkImageUnavailable, "DeploymentReady": v1alpha1.AgentRuntimeReasonDeploymentNotCreated},
		},
		{
			name:      "dropped reserved key: ReservedEnvClean False",
			in:        statusInput{frameworkImageOK: true, deployment: ready, serviceApplied: true, dropped: []workload.DroppedEnv{{Field: "spec.runtime.extraEnv[0].name", Name: "OMNIA_AGENT_NAME"}}},
			wantPhase: v1alpha1.AgentRuntimePhaseRunning,
			wantConds: map[string]string{"ReservedEnvClean": v1alpha1.AgentRuntimeReasonReservedEnvKey},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", Generation: 3}}
			tc.in.now = now
			st := computeStatus(ar, tc.in)
			if st.Phase != tc.wantPhase {
				t.Errorf("phase %q, want %q", st.Phase, tc.wantPhase)
			}
			for typ, reason := range tc.wantConds {
				c := meta.FindStatusCondition(st.Conditions, typ)
				if c == nil || c.Reason != reason {
					t.Errorf("%s: %+v, want reason %s", typ, c, reason)
				}
			}
			if st.ObservedGeneration != 3 {
				t.Errorf("observedGeneration %d, want 3", st.ObservedGeneration)
			}
			// Pure and stable: the same input on the computed status is unchanged.
			ar.Status = st
			if again := computeStatus(ar, tc.in); !equalStatus(again, st) {
				t.Errorf("recomputing changed the status")
			}
		})
	}
	ar := &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"}}
	st := computeStatus(ar, statusInput{frameworkImageOK: true, deployment: ready, serviceApplied: true, now: now})
	if st.Replicas == nil || *st.Replicas != (v1alpha1.AgentRuntimeReplicaStatus{Desired: 2, Ready: 1, Available: 1}) {
		t.Errorf("replicas %+v, want desired 2 ready 1 available 1", st.Replicas)
	}
}

func equalStatus(a, b v1alpha1.AgentRuntimeStatus) bool {
	return equality.Semantic.DeepEqual(a, b)
}

// A healthy start (Provider not yet Ready, then no replica yet, then a
// ready replica) leaves one event, Ready turning True; losing the replica
// afterwards warns.
func TestAgentStartEvents(t *testing.T) {
	c := func(typ string, s metav1.ConditionStatus, reason string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: s, Reason: reason, Message: "m"}
	}
	ready, dep, prov := v1alpha1.AgentRuntimeConditionReady, v1alpha1.AgentRuntimeConditionDeploymentReady, v1alpha1.AgentRuntimeConditionProviderReady
	steps := [][]metav1.Condition{
		{c(prov, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonProviderNotReady), c(dep, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonDeploymentNotCreated), c(ready, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonProviderNotReady)},
		{c(prov, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonProvidersReady), c(dep, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonDeploymentUnavailable), c(ready, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonDeploymentUnavailable)},
		{c(prov, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonProvidersReady), c(dep, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonDeploymentAvailable), c(ready, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonAgentReady)},
	}
	var got []string
	var prev []metav1.Condition
	for _, cur := range steps {
		for _, e := range transitions.OfPolicy(prev, cur, eventPolicy) {
			got = append(got, e.Type+"/"+e.Action)
		}
		prev = cur
	}
	if len(got) != 1 || got[0] != corev1.EventTypeNormal+"/"+ready {
		t.Errorf("a healthy start: got %v, want [Normal/Ready]", got)
	}
	lost := []metav1.Condition{c(prov, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonProvidersReady), c(dep, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonDeploymentUnavailable), c(ready, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonDeploymentUnavailable)}
	evs := transitions.OfPolicy(prev, lost, eventPolicy)
	if len(evs) != 2 || evs[0].Type != corev1.EventTypeWarning || evs[1].Type != corev1.EventTypeWarning {
		t.Errorf("a lost replica: got %v, want Warnings for DeploymentReady and Ready", evs)
	}
	// A first fault is not a wait: it warns.
	if evs := transitions.OfPolicy(nil, []metav1.Condition{c(prov, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonProviderNotFound)}, eventPolicy); len(evs) != 1 || evs[0].Type != corev1.EventTypeWarning {
		t.Errorf("ProviderNotFound on first sight: got %v, want a Warning", evs)
	}
}
