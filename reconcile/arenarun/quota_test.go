package arenarun

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/test/arenaworker"
)

// maxConcurrentJobs holds a second run Pending (never Failed) until the
// first finishes, then admits it.
func TestQuotaHoldsRunPendingThenAdmits(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	readyProject(t, ns, "proj", nil)
	workspace(t, ns, v1alpha1.WorkspaceSpec{Quotas: &v1alpha1.WorkspaceQuotas{Arena: &v1alpha1.WorkspaceArenaQuota{MaxConcurrentJobs: ptr.To[int32](1)}}})
	newRun(t, ns, "first", v1alpha1.ArenaJobSpec{Providers: providers("gpt")})
	run := waitFor(t, ns, "first", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
	if c := condOf(run, v1alpha1.ArenaRunConditionWithinWorkspaceQuota); c == nil || c.Reason != v1alpha1.ArenaRunReasonQuotaSatisfied || c.Status != metav1.ConditionTrue {
		t.Fatalf("quota %+v", c)
	}
	newRun(t, ns, "second", v1alpha1.ArenaJobSpec{Providers: providers("gpt")})
	run = waitFor(t, ns, "second", "waiting", func(r *v1alpha1.ArenaRun) bool {
		c := condOf(r, v1alpha1.ArenaRunConditionWithinWorkspaceQuota)
		return c != nil && c.Reason == v1alpha1.ArenaRunReasonWaitingForConcurrentRunSlot
	})
	if run.Status.Phase != v1alpha1.ArenaRunPhasePending || condOf(run, "Ready").Reason != v1alpha1.ArenaRunReasonWaitingForWorkspaceQuota {
		t.Fatalf("phase %s ready %+v", run.Status.Phase, condOf(run, "Ready"))
	}
	if _, err := arenaworker.Run(ctx, runQueue(t, defaultRedisURL, ns, "first"), 1, arenaworker.Pass); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ns, "first", "Succeeded", phaseIs(v1alpha1.ArenaRunPhaseSucceeded))
	run = waitFor(t, ns, "second", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
	if c := condOf(run, v1alpha1.ArenaRunConditionWithinWorkspaceQuota); c.Reason != v1alpha1.ArenaRunReasonQuotaSatisfied {
		t.Fatalf("quota %+v", c)
	}
}
