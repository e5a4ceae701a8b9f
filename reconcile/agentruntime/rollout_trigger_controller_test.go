package agentruntime

import (
	"context"
	"testing"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// candidateVersion is the agent's spec.rollout.candidate.promptPackRef
// version, "" without one.
func candidateVersion(t *testing.T, key client.ObjectKey) string {
	t.Helper()
	ar := &v1alpha1.AgentRuntime{}
	if err := k8s.Get(context.Background(), key, ar); err != nil {
		t.Fatal(err)
	}
	if ar.Spec.Rollout == nil || ar.Spec.Rollout.Candidate == nil || ar.Spec.Rollout.Candidate.PromptPackRef == nil {
		return ""
	}
	return ar.Spec.Rollout.Candidate.PromptPackRef.Version
}

// setCandidateVersion writes the candidate as a user (or the step
// machine's rollback) would.
func setCandidateVersion(t *testing.T, key client.ObjectKey, version string) {
	t.Helper()
	ar := &v1alpha1.AgentRuntime{}
	if err := k8s.Get(context.Background(), key, ar); err != nil {
		t.Fatal(err)
	}
	ar.Spec.Rollout.Candidate = &v1alpha1.AgentRuntimeRolloutCandidate{
		PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts", Version: version}}
	if err := k8s.Update(context.Background(), ar); err != nil {
		t.Fatal(err)
	}
}

// TestReconcileRolloutTrigger: on the real API server, a newer release of
// the agent's pack on the stable channel becomes spec.rollout.candidate
// (a prerelease does not); a rollout in progress is never overridden; the
// write is done once; after a rollback (candidate reverted to the spec) the
// rolled-back version is not proposed again, a newer one is.
func TestReconcileRolloutTrigger(t *testing.T) {
	const ns = "ar-rollout-trigger"
	r, writes := newCountingReconciler(t)
	key := runnableAgent(t, ns, func(a *v1alpha1.AgentRuntime) {
		a.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts", Version: "1.0.0"}
		a.Spec.Rollout = &v1alpha1.AgentRuntimeRollout{
			Steps:   []v1alpha1.AgentRuntimeRolloutStep{{SetWeight: ptr.To[int32](10)}},
			Trigger: &v1alpha1.AgentRuntimeRolloutTrigger{PromptPackChannel: v1alpha1.AgentRuntimePromptPackTrackStable},
		}
	})

	reconcileAgent(t, r, key)
	if v := candidateVersion(t, key); v != "" {
		t.Fatalf("candidate %q with only the active version published, want none", v)
	}
	createPack(t, ns, "prompts", "1.1.0-rc.1", v1alpha1.PromptPackPhaseReady)
	reconcileAgent(t, r, key)
	if v := candidateVersion(t, key); v != "" {
		t.Fatalf("candidate %q from a prerelease on the stable channel, want none", v)
	}

	createPack(t, ns, "prompts", "1.1.0", v1alpha1.PromptPackPhaseReady)
	got := reconcileAgent(t, r, key)
	if v := candidateVersion(t, key); v != "1.1.0" {
		t.Fatalf("candidate %q after 1.1.0 was published, want 1.1.0", v)
	}
	if got.Annotations[TriggeredVersionAnnotation] != "1.1.0" {
		t.Errorf("annotation %s = %q, want 1.1.0", TriggeredVersionAnnotation, got.Annotations[TriggeredVersionAnnotation])
	}
	if got.Spec.PromptPackRef.Version != "1.0.0" {
		t.Errorf("spec.promptPackRef.version = %q, want the active 1.0.0 untouched", got.Spec.PromptPackRef.Version)
	}

	// A newer version while the rollout runs: the candidate stays, and
	// the trigger writes nothing (idempotent).
	createPack(t, ns, "prompts", "1.2.0", v1alpha1.PromptPackPhaseReady)
	reconcileAgent(t, r, key)
	writes.Store(0)
	reconcileAgent(t, r, key)
	if n := writes.Load(); n != 0 {
		t.Errorf("a reconcile with a rollout in progress made %d writes, want 0", n)
	}
	if v := candidateVersion(t, key); v != "1.1.0" {
		t.Fatalf("candidate %q: the running rollout of 1.1.0 was overridden", v)
	}

	// Rollback reverts the candidate to the spec: the idle agent gets the
	// next newer version, 1.2.0, not 1.1.0 again.
	// The first reconcile after the revert ends the running rollout (the
	// step machine's abort: status.rollout.active false); the next one
	// finds the agent idle and triggers.
	setCandidateVersion(t, key, "1.0.0")
	reconcileAgent(t, r, key)
	if v := candidateVersion(t, key); v != "1.0.0" {
		t.Fatalf("candidate %q while the reverted rollout was still active, want 1.0.0 (the trigger waits for it to end)", v)
	}
	reconcileAgent(t, r, key)
	if v := candidateVersion(t, key); v != "1.2.0" {
		t.Fatalf("candidate %q after 1.1.0 was rolled back, want 1.2.0", v)
	}
	setCandidateVersion(t, key, "1.0.0")
	reconcileAgent(t, r, key)
	reconcileAgent(t, r, key)
	if v := candidateVersion(t, key); v != "1.0.0" {
		t.Fatalf("candidate %q after 1.2.0 was rolled back with nothing newer, want 1.0.0 (idle)", v)
	}
}
