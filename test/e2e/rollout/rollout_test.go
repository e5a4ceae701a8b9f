package rollout

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

const (
	eventually = 2 * time.Minute
	poll       = 100 * time.Millisecond
)

// rolloutCondition is the agent's RolloutActive condition as status/reason.
func rolloutCondition(ar *v1alpha1.AgentRuntime) string {
	return framework.Condition(ar.Status.Conditions, v1alpha1.AgentRuntimeConditionRolloutActive)
}

var _ = Describe("AgentRuntime progressive rollout", func() {
	It("runs a short canary to promotion: the candidate Deployment comes and goes, status.rollout tracks each step", func() {
		ctx := context.Background()
		ns := framework.CreateNamespace(suite.Client, "rollout")
		framework.CreateReadyPromptPack(suite.Client, ns, "support-pack", "1.0.0")
		framework.CreateReadyPromptPack(suite.Client, ns, "support-pack", "2.0.0")

		ar := &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "support"}, Spec: v1alpha1.AgentRuntimeSpec{
			Facades:       []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}},
			PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "support-pack", Version: "1.0.0"},
			Rollout: &v1alpha1.AgentRuntimeRollout{
				Steps: []v1alpha1.AgentRuntimeRolloutStep{
					{SetWeight: ptr.To[int32](50)},
					{Pause: &v1alpha1.AgentRuntimeRolloutPause{Duration: "2s"}},
					{SetWeight: ptr.To[int32](100)},
				},
				Rollback: &v1alpha1.AgentRuntimeRolloutRollback{Mode: "automatic", ProgressDeadlineSeconds: ptr.To[int32](60)},
			},
		}}
		Expect(suite.Client.Create(ctx, ar)).To(Succeed())
		key := client.ObjectKeyFromObject(ar)
		By("the agent runs on 1.0.0 with an idle rollout")
		Eventually(func(g Gomega) {
			got := &v1alpha1.AgentRuntime{}
			g.Expect(suite.Client.Get(ctx, key, got)).To(Succeed())
			g.Expect(got.Status.Phase).To(Equal(v1alpha1.AgentRuntimePhaseRunning))
			g.Expect(rolloutCondition(got)).To(Equal("False/" + v1alpha1.AgentRuntimeReasonRolloutIdle))
			g.Expect(got.Status.Rollout).NotTo(BeNil())
			g.Expect(got.Status.Rollout.Active).To(BeFalse())
			g.Expect(got.Status.Rollout.StableVersion).To(Equal("1.0.0"))
		}).WithTimeout(eventually).WithPolling(250 * time.Millisecond).Should(Succeed())
		Expect(suite.Client.Get(ctx, key, &appsv1.Deployment{})).To(Succeed())

		By("setting the candidate to 2.0.0")
		Eventually(func() error {
			got := &v1alpha1.AgentRuntime{}
			if err := suite.Client.Get(ctx, key, got); err != nil {
				return err
			}
			got.Spec.Rollout.Candidate = &v1alpha1.AgentRuntimeRolloutCandidate{
				PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "support-pack", Version: "2.0.0"}}
			return suite.Client.Update(ctx, got)
		}).WithTimeout(30 * time.Second).WithPolling(poll).Should(Succeed())

		By("the rollout pauses at step 1 with weight 50 and a running candidate Deployment")
		candKey := client.ObjectKey{Namespace: ns, Name: workload.CandidateDeploymentName(ar)}
		var paused *v1alpha1.AgentRuntimeRolloutStatus
		sawCandidate := false
		Eventually(func(g Gomega) {
			got := &v1alpha1.AgentRuntime{}
			g.Expect(suite.Client.Get(ctx, key, got)).To(Succeed())
			if d := (&appsv1.Deployment{}); suite.Client.Get(ctx, candKey, d) == nil {
				sawCandidate = true
				g.Expect(d.Spec.Template.Labels).To(HaveKeyWithValue(workload.LabelRolloutTrack, workload.RolloutTrackCandidate))
				g.Expect(d.Spec.Selector.MatchLabels).To(HaveKeyWithValue(workload.LabelRolloutTrack, workload.RolloutTrackCandidate))
				g.Expect(d.OwnerReferences).To(HaveLen(1))
				g.Expect(d.OwnerReferences[0].UID).To(Equal(got.UID))
				g.Expect(d.Spec.ProgressDeadlineSeconds).To(Equal(ptr.To[int32](60)))
			}
			r := got.Status.Rollout
			g.Expect(r).NotTo(BeNil())
			g.Expect(r.Active).To(BeTrue())
			g.Expect(r.CurrentStep).To(Equal(ptr.To[int32](1)))
			paused = r.DeepCopy()
			g.Expect(rolloutCondition(got)).To(Equal("True/" + v1alpha1.AgentRuntimeReasonRolloutPaused))
		}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())
		Expect(sawCandidate).To(BeTrue(), "the candidate Deployment existed during the canary")
		Expect(paused.CurrentWeight).To(Equal(ptr.To[int32](50)))
		Expect(paused.StableVersion).To(Equal("1.0.0"))
		Expect(paused.CandidateVersion).To(Equal("2.0.0"))
		Expect(paused.StartedAt).NotTo(BeNil())
		Expect(paused.StepStartedAt).NotTo(BeNil())
		Expect(paused.TrafficRoutingMode).To(Equal(v1alpha1.AgentRuntimeTrafficRoutingMode("replicaWeighted")))
		Expect(paused.TrafficWeightEnforced).To(Equal(ptr.To(false)))
		Expect(paused.Promoting).To(BeFalse())

		By("after the 2s pause the candidate is promoted into the spec")
		Eventually(func(g Gomega) {
			got := &v1alpha1.AgentRuntime{}
			g.Expect(suite.Client.Get(ctx, key, got)).To(Succeed())
			g.Expect(rolloutCondition(got)).To(Equal("False/" + v1alpha1.AgentRuntimeReasonRolloutPromoted))
			g.Expect(got.Spec.PromptPackRef.Version).To(Equal("2.0.0"))
			g.Expect(got.Spec.Rollout.Candidate).To(BeNil())
			r := got.Status.Rollout
			g.Expect(r.Active).To(BeFalse())
			g.Expect(r.Promoting).To(BeFalse())
			g.Expect(r.CurrentStep).To(BeNil())
			g.Expect(r.StableVersion).To(Equal("2.0.0"))
			g.Expect(r.StartedAt).NotTo(BeNil())
			g.Expect(got.Status.ActiveVersion).To(Equal("2.0.0"))
		}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())

		By("each transition is an event on the agent")
		Eventually(func(g Gomega) {
			list := &eventsv1.EventList{}
			g.Expect(suite.Client.List(ctx, list, client.InNamespace(ns))).To(Succeed())
			reasons := map[string]bool{}
			for _, e := range list.Items {
				if e.Regarding.Kind == "AgentRuntime" && e.Regarding.Name == "support" {
					reasons[e.Reason] = true
				}
			}
			for _, r := range []string{agentruntime.EventRolloutStarted, agentruntime.EventRolloutStep,
				agentruntime.EventRolloutPromoting, agentruntime.EventRolloutPromoted} {
				g.Expect(reasons).To(HaveKey(r))
			}
		}).WithTimeout(eventually).WithPolling(250 * time.Millisecond).Should(Succeed())

		By("the candidate Deployment is deleted and the stable one runs 2.0.0")
		Eventually(func() bool {
			return apierrors.IsNotFound(suite.Client.Get(ctx, candKey, &appsv1.Deployment{}))
		}).WithTimeout(eventually).WithPolling(poll).Should(BeTrue())
		Eventually(func(g Gomega) {
			d := &appsv1.Deployment{}
			g.Expect(suite.Client.Get(ctx, key, d)).To(Succeed())
			g.Expect(d.Spec.Template.Labels).To(HaveKeyWithValue(workload.LabelRolloutTrack, workload.RolloutTrackStable))
			g.Expect(d.Status.ObservedGeneration).To(BeNumerically(">=", d.Generation))
			g.Expect(d.Status.AvailableReplicas).To(Equal(ptr.Deref(d.Spec.Replicas, 1)))
			g.Expect(d.Status.UpdatedReplicas).To(Equal(ptr.Deref(d.Spec.Replicas, 1)))
		}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())
	})
})
