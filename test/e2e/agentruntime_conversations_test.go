package e2e

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

// The conditions that report how an agent's conversations are kept
// (agentruntime.md#conditions): SessionRecording, A2ATaskStoreShared and
// PrivacyPolicyResolved, and status.a2a, with the operator binary. None of
// them holds the agent back: it runs whatever they say.
var _ = Describe("AgentRuntime conversations", func() {
	ctx := context.Background()

	It("reports SessionRecording, A2ATaskStoreShared, PrivacyPolicyResolved and status.a2a, and runs either way", func() {
		ns := framework.CreateNamespace(suite.Client, "e2e-agent-conversations")
		createExampleDeps(ns, ExampleDeps{})
		ar := exampleAgent(ns)
		// The example autoscales up to 20 replicas; an a2a facade with the
		// default memory task store beside its websocket facade.
		ar.Spec.Facades = append(ar.Spec.Facades, v1alpha1.AgentRuntimeFacade{Type: v1alpha1.AgentRuntimeFacadeTypeA2A,
			A2A: &v1alpha1.AgentRuntimeFacadeA2A{}})
		Expect(suite.Client.Create(ctx, ar)).To(Succeed())

		By("running without a Workspace: not recorded, tasks per replica, no privacy policy")
		got := waitAgentRunning(ns, exampleAgentName)
		Expect(agentCondition(got, v1alpha1.AgentRuntimeConditionSessionRecording)).To(Equal("False/"+v1alpha1.AgentRuntimeReasonWorkspaceNotFound), conditionSummary(got))
		Expect(agentCondition(got, v1alpha1.AgentRuntimeConditionA2ATaskStoreShared)).To(Equal("False/"+v1alpha1.AgentRuntimeReasonMemoryTaskStoreMultiReplica), conditionSummary(got))
		Expect(agentCondition(got, v1alpha1.AgentRuntimeConditionPrivacyPolicyResolved)).To(Equal("True/"+v1alpha1.AgentRuntimeReasonNoPolicy), conditionSummary(got))
		Expect(agentCondition(got, v1alpha1.AgentRuntimeConditionReady)).To(HavePrefix("True/"), "none of them gates Ready")
		Expect(got.Status.A2A).NotTo(BeNil())
		Expect(got.Status.A2A.Endpoint).To(HavePrefix(fmt.Sprintf("http://%s.%s.svc.cluster.local:", exampleAgentName, ns)))
		Expect(got.Status.A2A.AgentCardURL).To(Equal(got.Status.A2A.Endpoint + "/.well-known/agent-card.json"))

		By("creating the namespace's Workspace with a session-api: conversations are recorded")
		ws := &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
		ws.Spec.Namespace.Name = ns
		ws.Spec.Services = []v1alpha1.WorkspaceServiceGroup{{Name: "default", Session: &v1alpha1.WorkspaceServiceBlock{Enabled: ptr.To(true)}}}
		Expect(suite.Client.Create(ctx, ws)).To(Succeed())
		DeferCleanup(func() { _ = suite.Client.Delete(context.Background(), ws) })
		waitAgent(ns, exampleAgentName, func(g Gomega, ar *v1alpha1.AgentRuntime) {
			g.Expect(agentCondition(ar, v1alpha1.AgentRuntimeConditionSessionRecording)).To(Equal("True/" + v1alpha1.AgentRuntimeReasonSessionServiceFound))
		})

		By("switching the task store to redis and naming a privacy policy")
		Eventually(func(g Gomega) {
			cur := getAgent(g, ns, exampleAgentName)
			for i := range cur.Spec.Facades {
				if cur.Spec.Facades[i].Type == v1alpha1.AgentRuntimeFacadeTypeA2A {
					cur.Spec.Facades[i].A2A.TaskStore = &v1alpha1.AgentRuntimeA2ATaskStore{Type: v1alpha1.AgentRuntimeA2ATaskStoreRedis, RedisURL: "redis://tasks.example.svc:6379"}
				}
			}
			cur.Spec.PrivacyPolicyRef = &v1alpha1.LocalObjectReference{Name: "strict"}
			g.Expect(suite.Client.Update(ctx, cur)).To(Succeed())
		}).WithTimeout(framework.Timeout).WithPolling(framework.Poll).Should(Succeed())
		got = waitAgent(ns, exampleAgentName, func(g Gomega, ar *v1alpha1.AgentRuntime) {
			g.Expect(agentCondition(ar, v1alpha1.AgentRuntimeConditionA2ATaskStoreShared)).To(Equal("True/" + v1alpha1.AgentRuntimeReasonRedisTaskStore))
			g.Expect(agentCondition(ar, v1alpha1.AgentRuntimeConditionPrivacyPolicyResolved)).To(Equal("True/" + v1alpha1.AgentRuntimeReasonAgentPolicy))
		})
		Expect(apimeta.FindStatusCondition(got.Status.Conditions, v1alpha1.AgentRuntimeConditionPrivacyPolicyResolved).Message).To(ContainSubstring(`"strict"`))

		By("removing the a2a facade: no A2ATaskStoreShared and no status.a2a")
		Eventually(func(g Gomega) {
			cur := getAgent(g, ns, exampleAgentName)
			cur.Spec.Facades = cur.Spec.Facades[:1]
			g.Expect(suite.Client.Update(ctx, cur)).To(Succeed())
		}).WithTimeout(framework.Timeout).WithPolling(framework.Poll).Should(Succeed())
		waitAgent(ns, exampleAgentName, func(g Gomega, ar *v1alpha1.AgentRuntime) {
			g.Expect(agentCondition(ar, v1alpha1.AgentRuntimeConditionA2ATaskStoreShared)).To(BeEmpty())
			g.Expect(ar.Status.A2A).To(BeNil())
		})
	})
})
