package e2e

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/test/controlplane"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

// The AgentRuntime controller in the operator binary, on the local cluster:
// the Deployments it applies get ReplicaSets and Pods from the
// controller-manager, the scheduler binds them to the kwok Node and kwok
// reports them Ready. No spec writes any Deployment or Pod status.
// providerReadyRule sets ProviderReady False for a referenced Provider that
// exists but is not Ready.
const providerReadyRule = "agentruntime/provider-ready"

var _ = Describe("AgentRuntime", func() {
	ctx := context.Background()

	It("runs the spec's complete example with ready replicas, shown by `kubectl get agent`", func() {
		ns := framework.CreateNamespace(suite.Client, "e2e-agent-example")
		createExampleDeps(ns, ExampleDeps{})
		Expect(suite.Client.Create(ctx, exampleAgent(ns))).To(Succeed())

		ar := waitAgentRunning(ns, exampleAgentName)
		for _, t := range []string{
			v1alpha1.AgentRuntimeConditionPromptPackReady, v1alpha1.AgentRuntimeConditionProviderReady,
			v1alpha1.AgentRuntimeConditionToolRegistryReady, v1alpha1.AgentRuntimeConditionFrameworkReady,
			v1alpha1.AgentRuntimeConditionDeploymentReady, v1alpha1.AgentRuntimeConditionServiceReady,
			v1alpha1.AgentRuntimeConditionReady,
		} {
			Expect(meta.IsStatusConditionTrue(ar.Status.Conditions, t)).To(BeTrue(), "%s: %s", t, conditionSummary(ar))
		}
		Expect(ar.Status.ActiveVersion).To(Equal(examplePackVersion))
		Expect(ar.Status.ServiceEndpoint).To(Equal(fmt.Sprintf("%s.%s.svc.cluster.local:8080", exampleAgentName, ns)))

		By("running the pods the cluster made from the agent's Deployment")
		Eventually(func(g Gomega) {
			d := agentDeployment(g, ns, exampleAgentName)
			g.Expect(d.Status.ReadyReplicas).To(BeNumerically(">", 0))
			ready := 0
			for _, p := range agentPods(g, d) {
				g.Expect(p.Spec.NodeName).To(Equal(controlplane.NodeName), "pod %s is scheduled on the simulated Node", p.Name)
				if podIsReady(&p) {
					ready++
				}
			}
			g.Expect(ready).To(BeEquivalentTo(d.Status.ReadyReplicas))
			g.Expect(getAgent(g, ns, exampleAgentName).Status.Replicas.Ready).To(Equal(d.Status.ReadyReplicas),
				"status.replicas.ready follows the Deployment")
		}).WithTimeout(framework.Timeout).WithPolling(framework.Poll).Should(Succeed())

		By("showing the phase, ready replicas and version in `kubectl get agent`")
		Eventually(func(g Gomega) {
			ready := getAgent(g, ns, exampleAgentName).Status.Replicas.Ready
			rows := agentTable(g, ns)
			g.Expect(rows).To(HaveKey(exampleAgentName))
			g.Expect(rows[exampleAgentName]).To(And(
				HaveKeyWithValue("PHASE", "Running"),
				HaveKeyWithValue("READY", fmt.Sprint(ready)),
				HaveKeyWithValue("VERSION", examplePackVersion),
				HaveKey("INVOCATIONS"),
				HaveKey("LAST-SUCCESS"),
				HaveKey("AGE"),
			))
			g.Expect(ready).To(BeNumerically(">", 0))
		}).WithTimeout(framework.Timeout).WithPolling(framework.Poll).Should(Succeed())
	})

	It("holds an agent Pending while a Provider is not Ready, and runs it once the Provider is", func() {
		ns := framework.CreateNamespace(suite.Client, "e2e-agent-provider")
		createExampleDeps(ns, ExampleDeps{NoProviderSecret: true})
		framework.WaitProviderPhase(suite.Client, ns, exampleProvider, v1alpha1.ProviderPhaseError)
		Expect(suite.Client.Create(ctx, exampleAgent(ns))).To(Succeed())

		ar := waitAgent(ns, exampleAgentName, func(g Gomega, ar *v1alpha1.AgentRuntime) {
			g.Expect(ar.Status.Phase).To(Equal(v1alpha1.AgentRuntimePhasePending))
			g.Expect(agentCondition(ar, v1alpha1.AgentRuntimeConditionProviderReady)).To(Equal("False/"+v1alpha1.AgentRuntimeReasonProviderNotReady), conditionSummary(ar))
		})
		Expect(meta.IsStatusConditionFalse(ar.Status.Conditions, v1alpha1.AgentRuntimeConditionReady)).To(BeTrue(), conditionSummary(ar))
		Expect(meta.FindStatusCondition(ar.Status.Conditions, v1alpha1.AgentRuntimeConditionProviderReady).Message).To(
			HavePrefix("["+providerReadyRule+"]"), "the condition names the rule")
		// The reconcile that wrote this status applies the workload first
		// when nothing holds it back: no Deployment means it was held.
		err := suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: exampleAgentName}, &appsv1.Deployment{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "no Deployment while a Provider is not Ready (got %v)", err)

		By("creating the Providers' Secret: the Providers go Ready and the agent runs")
		createProviderSecret(ns)
		waitAgentRunning(ns, exampleAgentName)
	})

	It("fails an agent whose PromptPack does not exist with PromptPackNotFound, and runs it once the pack is published", func() {
		ns := framework.CreateNamespace(suite.Client, "e2e-agent-nopack")
		createExampleDeps(ns, ExampleDeps{NoPromptPack: true})
		Expect(suite.Client.Create(ctx, exampleAgent(ns))).To(Succeed())

		ar := waitAgentPhase(ns, exampleAgentName, v1alpha1.AgentRuntimePhaseFailed)
		Expect(agentCondition(ar, v1alpha1.AgentRuntimeConditionPromptPackReady)).To(Equal("False/PromptPackNotFound"))
		c := meta.FindStatusCondition(ar.Status.Conditions, v1alpha1.AgentRuntimeConditionPromptPackReady)
		Expect(c.Message).To(HavePrefix("[agentruntime/promptpack-resolves]"), "the condition names the rule")
		err := suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: exampleAgentName}, &appsv1.Deployment{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "no Deployment while the PromptPack is missing (got %v)", err)

		By("publishing the PromptPack")
		framework.CreateReadyPromptPack(suite.Client, ns, examplePackName, examplePackVersion)
		waitAgentRunning(ns, exampleAgentName)
	})

	It("refuses a reserved extraEnv key at admission, and drops and reports one that got past the webhook", func() {
		reserved := corev1.EnvVar{Name: "OMNIA_PACK_MODE", Value: "compile"}
		kept := corev1.EnvVar{Name: "LOG_LEVEL", Value: "debug"}
		withEnv := func(ar *v1alpha1.AgentRuntime) *v1alpha1.AgentRuntime {
			ar.Name = "reserved-env-agent"
			ar.Spec.Runtime.ExtraEnv = []corev1.EnvVar{kept, reserved}
			return ar
		}

		By("the webhook refusing it in an ordinary namespace, naming the rule")
		ns := framework.CreateNamespace(suite.Client, "e2e-agent-reserved")
		err := suite.Client.Create(ctx, withEnv(exampleAgent(ns)))
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(And(ContainSubstring("[agentruntime/reserved-env-key]"), ContainSubstring("OMNIA_PACK_MODE")))

		By("the operator dropping it from an agent the webhook skipped (its excluded namespace)")
		// The webhooks' namespaceSelector skips the operator's own
		// namespace, and the controller reconciles every namespace: the
		// way an object gets in without admission in a running cluster.
		ns = controlplane.OperatorNamespace
		createExampleDeps(ns, ExampleDeps{})
		DeferCleanup(deleteExampleDeps, ns)
		ar := withEnv(exampleAgent(ns))
		Expect(suite.Client.Create(ctx, ar)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(suite.Client.Delete(ctx, ar))).To(Succeed()) })

		got := waitAgentRunning(ns, ar.Name)
		Expect(agentCondition(got, v1alpha1.AgentRuntimeConditionReservedEnvClean)).To(Equal("False/ReservedEnvKey"))
		Expect(meta.FindStatusCondition(got.Status.Conditions, v1alpha1.AgentRuntimeConditionReservedEnvClean).Message).To(ContainSubstring("OMNIA_PACK_MODE"))

		Eventually(func(g Gomega) {
			d := agentDeployment(g, ns, ar.Name)
			pods := agentPods(g, d)
			g.Expect(pods).NotTo(BeEmpty())
			for _, spec := range []*corev1.PodSpec{&d.Spec.Template.Spec, &pods[0].Spec} {
				v, ok := containerEnvValue(spec, "runtime", reserved.Name)
				g.Expect(ok && v == "static").To(BeTrue(), "the runtime keeps the operator's %s=static, not the user's (got %q)", reserved.Name, v)
				n := 0
				for _, name := range containerEnvNames(spec, "runtime") {
					if name == reserved.Name {
						n++
					}
				}
				g.Expect(n).To(Equal(1), "the user's entry is dropped, not appended")
				v, ok = containerEnvValue(spec, "runtime", kept.Name)
				g.Expect(ok && v == kept.Value).To(BeTrue(), "an ordinary extraEnv entry is kept")
			}
		}).WithTimeout(framework.Timeout).WithPolling(framework.Poll).Should(Succeed())
	})

	It("re-reconciles every agent that uses a Provider when the Provider is edited", func() {
		ns := framework.CreateNamespace(suite.Client, "e2e-agent-provedit")
		createExampleDeps(ns, ExampleDeps{})
		first := exampleAgent(ns)
		second := exampleAgent(ns)
		second.Name = "second-agent"
		for _, ar := range []*v1alpha1.AgentRuntime{first, second} {
			Expect(suite.Client.Create(ctx, ar)).To(Succeed())
		}
		modelEnv := workload.ProviderEnvPrefix("default") + "MODEL"
		for _, ar := range []*v1alpha1.AgentRuntime{first, second} {
			waitAgentRunning(ns, ar.Name)
			Eventually(func(g Gomega) {
				v, _ := containerEnvValue(&agentDeployment(g, ns, ar.Name).Spec.Template.Spec, "runtime", modelEnv)
				g.Expect(v).To(Equal("claude-sonnet-4-20250514"))
			}).WithTimeout(framework.Timeout).WithPolling(framework.Poll).Should(Succeed())
		}

		By("changing the Provider's model")
		p := &v1alpha1.Provider{}
		Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: exampleProvider}, p)).To(Succeed())
		base := p.DeepCopy()
		p.Spec.Model = "claude-opus-4-1-20250805"
		Expect(suite.Client.Patch(ctx, p, client.MergeFrom(base))).To(Succeed())

		for _, ar := range []*v1alpha1.AgentRuntime{first, second} {
			Eventually(func(g Gomega) {
				v, _ := containerEnvValue(&agentDeployment(g, ns, ar.Name).Spec.Template.Spec, "runtime", modelEnv)
				g.Expect(v).To(Equal("claude-opus-4-1-20250805"), "agent %s's Deployment follows the edited Provider", ar.Name)
			}).WithTimeout(framework.Timeout).WithPolling(framework.Poll).Should(Succeed())
			waitAgentRunning(ns, ar.Name)
		}
	})
})
