package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

// An agent's life after it is admitted, in the operator binary on the local
// cluster: its autoscaler (agentruntime.md § runtime.autoscaling), idle
// reaping with the real garbage collector (§ Idle reaping) and the
// Workspace's agent quota (§ conditions, WithinWorkspaceQuota).

// The spec's autoscaling examples, verbatim (the runtime.autoscaling block
// of agentruntime.md § Standard HPA example and § KEDA example).
const (
	specHPAExample = `
enabled: true
type: hpa
minReplicas: 2
maxReplicas: 10
targetMemoryUtilizationPercentage: 70
targetCPUUtilizationPercentage: 80
scaleDownStabilizationSeconds: 300
`
	specKEDAExample = `
enabled: true
type: keda
minReplicas: 1  # 0 for scale-to-zero, which requires keda.triggers
maxReplicas: 20
keda:
  pollingInterval: 15
  cooldownPeriod: 60
  triggers:
    - type: prometheus
      metadata:
        serverAddress: "http://prometheus-server:9090"
        query: 'sum(omnia_agent_connections_active{agent="my-agent"})'
        threshold: "10"
`
)

// The default KEDA trigger's fixed address and query
// (agentruntime.md § runtime.autoscaling.keda), written out here rather
// than taken from the operator so that the spec is what is checked.
const (
	specDefaultPrometheusAddress = "http://omnia-prometheus-server.omnia-system.svc.cluster.local/prometheus"
	specDefaultQueryFormat       = `sum(omnia_agent_connections_active{agent="%s",namespace="%s"}) or vector(0)`
)

// operatorManagerPrefix is the prefix of every field manager the operator
// applies with (agentruntime.FieldManager, and the replicas hand-off's).
const operatorManagerPrefix = agentruntime.FieldManager

var scaledObjectGVK = workload.ScaledObjectGVK

var _ = Describe("AgentRuntime lifecycle", func() {
	ctx := context.Background()

	It("applies an HPA and a ScaledObject with the spec's settings", func() {
		ns := framework.CreateNamespace(suite.Client, "e2e-agent-autoscale")
		createExampleDeps(ns, ExampleDeps{})
		hpaAgent := agentWithAutoscaling(ns, "hpa-agent", specHPAExample)
		kedaAgent := agentWithAutoscaling(ns, "keda-agent", specKEDAExample)
		kedaDefault := agentWithAutoscaling(ns, "keda-default-agent", "{enabled: true, type: keda}")
		for _, ar := range []*v1alpha1.AgentRuntime{hpaAgent, kedaAgent, kedaDefault} {
			Expect(suite.Client.Create(ctx, ar)).To(Succeed())
		}

		By("an autoscaling/v2 HPA owned by the HPA agent, with the example's bounds and targets and the fixed behaviour")
		ar := waitAgent(ns, hpaAgent.Name, func(g Gomega, ar *v1alpha1.AgentRuntime) {
			g.Expect(agentCondition(ar, v1alpha1.AgentRuntimeConditionAutoscalingReady)).To(Equal("True/Scaling"), conditionSummary(ar))
		})
		hpa := &autoscalingv2.HorizontalPodAutoscaler{}
		Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: hpaAgent.Name}, hpa)).To(Succeed())
		Expect(metav1.IsControlledBy(hpa, ar)).To(BeTrue(), "the HPA is controlled by its agent: %v", hpa.OwnerReferences)
		Expect(hpa.Spec.ScaleTargetRef).To(Equal(autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: hpaAgent.Name}))
		Expect(hpa.Spec.MinReplicas).To(HaveValue(BeEquivalentTo(2)))
		Expect(hpa.Spec.MaxReplicas).To(BeEquivalentTo(10))
		Expect(hpaTargets(hpa)).To(Equal(map[corev1.ResourceName]int32{corev1.ResourceMemory: 70, corev1.ResourceCPU: 80}))
		Expect(hpa.Spec.Behavior).NotTo(BeNil())
		up, down := hpa.Spec.Behavior.ScaleUp, hpa.Spec.Behavior.ScaleDown
		Expect(up).NotTo(BeNil())
		Expect(up.StabilizationWindowSeconds).To(HaveValue(BeEquivalentTo(0)), "scale-up reacts at once")
		Expect(up.SelectPolicy).To(HaveValue(Equal(autoscalingv2.MaxChangePolicySelect)), "whichever policy adds more")
		Expect(up.Policies).To(ConsistOf(
			autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
			autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
		))
		Expect(down).NotTo(BeNil())
		Expect(down.StabilizationWindowSeconds).To(HaveValue(BeEquivalentTo(300)), "scaleDownStabilizationSeconds")
		Expect(down.Policies).To(ConsistOf(
			autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PercentScalingPolicy, Value: 50, PeriodSeconds: 60},
		))

		By("leaving the Deployment's replicas to the HPA: the cluster's HPA controller raises them to minReplicas")
		// runtime.replicas is 3 in the example ("ignored when autoscaling
		// is enabled"): the operator sets none, the API server defaults 1
		// and kube-controller-manager's HPA controller scales the
		// Deployment up to minReplicas 2 (it needs no metrics below the
		// minimum). Had the operator set 3, the HPA would leave 3 alone.
		Eventually(func(g Gomega) {
			d := agentDeployment(g, ns, hpaAgent.Name)
			g.Expect(d.Spec.Replicas).To(HaveValue(BeEquivalentTo(2)))
			g.Expect(replicasManagers(g, d)).NotTo(ContainElement(HavePrefix(operatorManagerPrefix)),
				"spec.replicas is not the operator's")
			g.Expect(d.Status.ReadyReplicas).To(BeEquivalentTo(2))
		}).WithTimeout(framework.Timeout).WithPolling(framework.Poll).Should(Succeed())
		noObject(ctx, newUnstructured(scaledObjectGVK.GroupVersion().String(), scaledObjectGVK.Kind), ns, hpaAgent.Name, "an HPA agent has no ScaledObject")

		By("a ScaledObject with the KEDA example's settings and triggers")
		ar = waitAgent(ns, kedaAgent.Name, func(g Gomega, ar *v1alpha1.AgentRuntime) {
			g.Expect(agentCondition(ar, v1alpha1.AgentRuntimeConditionAutoscalingReady)).To(Equal("True/Scaling"), conditionSummary(ar))
		})
		so := scaledObject(ns, kedaAgent.Name)
		Expect(metav1.IsControlledBy(so, ar)).To(BeTrue(), "the ScaledObject is controlled by its agent: %v", so.GetOwnerReferences())
		Expect(so.Object["spec"]).To(And(
			HaveKeyWithValue("scaleTargetRef", HaveKeyWithValue("name", kedaAgent.Name)),
			HaveKeyWithValue("pollingInterval", BeEquivalentTo(15)),
			HaveKeyWithValue("cooldownPeriod", BeEquivalentTo(60)),
			HaveKeyWithValue("minReplicaCount", BeEquivalentTo(1)),
			HaveKeyWithValue("maxReplicaCount", BeEquivalentTo(20)),
		))
		Expect(scaledObjectTriggers(so)).To(Equal([]trigger{{Type: "prometheus", Metadata: map[string]string{
			"serverAddress": "http://prometheus-server:9090",
			"query":         `sum(omnia_agent_connections_active{agent="my-agent"})`,
			"threshold":     "10",
		}}}))
		noObject(ctx, &autoscalingv2.HorizontalPodAutoscaler{}, ns, kedaAgent.Name, "a KEDA agent has no HPA of its own")
		Eventually(func(g Gomega) {
			g.Expect(replicasManagers(g, agentDeployment(g, ns, kedaAgent.Name))).NotTo(ContainElement(HavePrefix(operatorManagerPrefix)),
				"spec.replicas is not the operator's")
		}).WithTimeout(framework.Timeout).WithPolling(framework.Poll).Should(Succeed())

		By("the default Prometheus trigger for a KEDA agent without triggers, with the defaults")
		waitAgent(ns, kedaDefault.Name, func(g Gomega, ar *v1alpha1.AgentRuntime) {
			g.Expect(agentCondition(ar, v1alpha1.AgentRuntimeConditionAutoscalingReady)).To(Equal("True/Scaling"), conditionSummary(ar))
		})
		so = scaledObject(ns, kedaDefault.Name)
		Expect(so.Object["spec"]).To(And(
			HaveKeyWithValue("pollingInterval", BeEquivalentTo(30)),
			HaveKeyWithValue("cooldownPeriod", BeEquivalentTo(300)),
			HaveKeyWithValue("minReplicaCount", BeEquivalentTo(1)),
			HaveKeyWithValue("maxReplicaCount", BeEquivalentTo(100)),
		))
		Expect(scaledObjectTriggers(so)).To(Equal([]trigger{{Type: "prometheus", Metadata: map[string]string{
			"serverAddress": specDefaultPrometheusAddress,
			"query":         fmt.Sprintf(specDefaultQueryFormat, kedaDefault.Name, ns),
			"threshold":     "1000",
		}}}))
	})

	It("reaps an idle agent and the garbage collector removes what it owned", func() {
		ns := framework.CreateNamespace(suite.Client, "e2e-agent-idle")
		createExampleDeps(ns, ExampleDeps{})
		Expect(suite.Client.Create(ctx, exampleAgent(ns))).To(Succeed())
		ar := waitAgentRunning(ns, exampleAgentName)

		owned := []struct {
			obj  client.Object
			kind string
			name string
		}{
			{&appsv1.Deployment{}, "Deployment", workload.DeploymentName(ar)},
			{&corev1.Service{}, "Service", workload.ServiceName(ar)},
			{&corev1.ServiceAccount{}, "ServiceAccount", workload.ServiceAccountName(ar)},
			{&rbacv1.Role{}, "Role", workload.RoleName(ar)},
			{&rbacv1.RoleBinding{}, "RoleBinding", workload.RoleBindingName(ar)},
			{newUnstructured(scaledObjectGVK.GroupVersion().String(), scaledObjectGVK.Kind), "ScaledObject", workload.ScaledObjectName(ar)},
		}
		Eventually(func(g Gomega) {
			for _, o := range owned {
				g.Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: o.name}, o.obj)).To(Succeed(), "%s %s", o.kind, o.name)
				g.Expect(metav1.IsControlledBy(o.obj, ar)).To(BeTrue(), "%s %s is owned by the agent", o.kind, o.name)
			}
		}).WithTimeout(framework.Timeout).WithPolling(framework.Poll).Should(Succeed())
		deployment := agentDeployment(Default, ns, exampleAgentName)
		Expect(agentPods(Default, deployment)).NotTo(BeEmpty())

		By("annotating it with a timeout that ends a few seconds from now")
		// The agent is judged from its creation (it is never used here).
		// The timeout is set once the agent runs, so that it surely got
		// its workload, and ends a few seconds after this patch: the
		// operator reaps it on the requeue it schedules at the deadline,
		// on its real clock.
		age := time.Since(ar.CreationTimestamp.Time)
		timeout := time.Duration(math.Ceil(age.Seconds()))*time.Second + 3*time.Second
		patchAnnotation(ctx, ar, rules.AgentRuntimeIdleTimeoutAnnotation, timeout.String())

		Eventually(func(g Gomega) {
			err := suite.Client.Get(ctx, client.ObjectKeyFromObject(ar), &v1alpha1.AgentRuntime{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the idle agent is deleted (got %v)", err)
		}).WithTimeout(framework.Timeout).WithPolling(framework.Poll).Should(Succeed())

		By("recording a Normal IdleReaped event")
		Eventually(func(g Gomega) {
			g.Expect(agentEvents(g, ns, ar.UID)).To(ContainElement(And(
				HaveField("Type", corev1.EventTypeNormal), HaveField("Reason", "IdleReaped"),
				HaveField("Note", ContainSubstring(timeout.String())),
			)))
		}).WithTimeout(framework.Timeout).WithPolling(framework.Poll).Should(Succeed())

		By("the garbage collector removing its Deployment, pods, Service, ServiceAccount, Role, RoleBinding and ScaledObject")
		Eventually(func(g Gomega) {
			for _, o := range owned {
				err := suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: o.name}, o.obj)
				g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%s %s is garbage-collected (got %v)", o.kind, o.name, err)
			}
			g.Expect(agentPods(g, deployment)).To(BeEmpty(), "the Deployment's pods are gone")
		}).WithTimeout(framework.Timeout).WithPolling(framework.Poll).Should(Succeed())
	})

	It("keeps an agent with an invalid idle-timeout, with IdleTimeoutValid False and a Warning", func() {
		ns := framework.CreateNamespace(suite.Client, "e2e-agent-idlebad")
		createExampleDeps(ns, ExampleDeps{})
		bad := exampleAgent(ns)
		bad.Annotations = map[string]string{rules.AgentRuntimeIdleTimeoutAnnotation: "soon"}
		Expect(suite.Client.Create(ctx, bad)).To(Succeed(), "the webhook only warns about the value")

		ar := waitAgent(ns, bad.Name, func(g Gomega, ar *v1alpha1.AgentRuntime) {
			g.Expect(agentCondition(ar, v1alpha1.AgentRuntimeConditionIdleTimeoutValid)).To(Equal("False/InvalidIdleTimeout"), conditionSummary(ar))
		})
		Expect(meta.FindStatusCondition(ar.Status.Conditions, v1alpha1.AgentRuntimeConditionIdleTimeoutValid).Message).To(
			HavePrefix("[agentruntime/idle-timeout-annotation]"), "the condition names the rule")
		Eventually(func(g Gomega) {
			g.Expect(agentEvents(g, ns, ar.UID)).To(ContainElement(And(
				HaveField("Type", corev1.EventTypeWarning), HaveField("Reason", "InvalidIdleTimeout"),
			)))
		}).WithTimeout(framework.Timeout).WithPolling(framework.Poll).Should(Succeed())

		By("running it rather than deleting it")
		// An invalid value gives no deadline: the agent is reconciled as
		// usual and stays the object that was created.
		got := waitAgentRunning(ns, bad.Name)
		Expect(got.UID).To(Equal(ar.UID))
		Expect(got.DeletionTimestamp).To(BeNil())
	})

	It("clamps an agent's replicas to the Workspace quota and holds an agent beyond maxAgentRuntimes", func() {
		ns := framework.CreateNamespace(suite.Client, "e2e-agent-quota")
		createExampleDeps(ns, ExampleDeps{})
		ws := &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
		ws.Spec.Namespace.Name = ns
		ws.Spec.Quotas = &v1alpha1.WorkspaceQuotas{Agents: &v1alpha1.WorkspaceAgentQuota{
			MaxAgentRuntimes: ptr.To[int32](1), MaxReplicasPerAgent: ptr.To[int32](2),
		}}
		Expect(suite.Client.Create(ctx, ws)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(suite.Client.Delete(ctx, ws))).To(Succeed()) })

		// Static replicas: the example's KEDA block is removed (no
		// Workspace service group gives a default either).
		first := exampleAgent(ns)
		first.Name = "first-agent"
		first.Spec.Runtime.Autoscaling = nil
		first.Spec.Runtime.Replicas = ptr.To[int32](4)
		Expect(suite.Client.Create(ctx, first)).To(Succeed())

		By("running the first agent at maxReplicasPerAgent, 2 ready pods")
		ar := waitAgent(ns, first.Name, func(g Gomega, ar *v1alpha1.AgentRuntime) {
			g.Expect(ar.Status.Phase).To(Equal(v1alpha1.AgentRuntimePhaseRunning), conditionSummary(ar))
			g.Expect(agentCondition(ar, v1alpha1.AgentRuntimeConditionWithinWorkspaceQuota)).To(Equal("False/"+v1alpha1.AgentRuntimeReasonReplicasClamped), conditionSummary(ar))
			g.Expect(ar.Status.Replicas).NotTo(BeNil())
			g.Expect(ar.Status.Replicas.Ready).To(BeEquivalentTo(2))
		})
		Expect(meta.IsStatusConditionTrue(ar.Status.Conditions, v1alpha1.AgentRuntimeConditionReady)).To(BeTrue(), "a clamped agent is otherwise reconciled as usual: %s", conditionSummary(ar))
		Eventually(func(g Gomega) {
			d := agentDeployment(g, ns, first.Name)
			g.Expect(d.Spec.Replicas).To(HaveValue(BeEquivalentTo(2)))
			g.Expect(d.Status.ReadyReplicas).To(BeEquivalentTo(2))
			ready := 0
			for _, p := range agentPods(g, d) {
				if podIsReady(&p) {
					ready++
				}
			}
			g.Expect(ready).To(Equal(2), "two ready pods, not four")
		}).WithTimeout(framework.Timeout).WithPolling(framework.Poll).Should(Succeed())

		By("holding a second agent: maxAgentRuntimes is 1")
		second := exampleAgent(ns)
		second.Name = "second-agent"
		second.Spec.Runtime.Autoscaling = nil
		second.Spec.Runtime.Replicas = ptr.To[int32](1)
		Expect(suite.Client.Create(ctx, second)).To(Succeed())
		ar = waitAgent(ns, second.Name, func(g Gomega, ar *v1alpha1.AgentRuntime) {
			g.Expect(agentCondition(ar, v1alpha1.AgentRuntimeConditionWithinWorkspaceQuota)).To(
				Equal("False/"+v1alpha1.AgentRuntimeReasonAgentRuntimeQuotaExceeded), conditionSummary(ar))
		})
		Expect(ar.Status.Phase).To(Equal(v1alpha1.AgentRuntimePhasePending))
		Expect(agentCondition(ar, v1alpha1.AgentRuntimeConditionReady)).To(Equal("False/" + v1alpha1.AgentRuntimeReasonWorkspaceQuotaExceeded))
		// The reconcile that wrote this status would have applied the
		// workload first had the quota admitted the agent.
		err := suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: second.Name}, &appsv1.Deployment{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "no Deployment for an agent the Workspace has not admitted (got %v)", err)

		By("admitting the second agent once the first is deleted")
		Expect(suite.Client.Delete(ctx, first)).To(Succeed())
		ar = waitAgentRunning(ns, second.Name)
		Expect(agentCondition(ar, v1alpha1.AgentRuntimeConditionWithinWorkspaceQuota)).To(Equal("True/" + v1alpha1.AgentRuntimeReasonQuotaSatisfied))
	})
})

// agentWithAutoscaling is the complete example named name in ns, with its
// runtime.autoscaling replaced by the YAML block given.
func agentWithAutoscaling(ns, name, autoscalingYAML string) *v1alpha1.AgentRuntime {
	ar := exampleAgent(ns)
	ar.Name = name
	a := &v1alpha1.AgentRuntimeAutoscaling{}
	Expect(yaml.UnmarshalStrict([]byte(autoscalingYAML), a)).To(Succeed())
	ar.Spec.Runtime.Autoscaling = a
	return ar
}

// hpaTargets maps the HPA's Resource metrics to their average-utilisation
// targets.
func hpaTargets(hpa *autoscalingv2.HorizontalPodAutoscaler) map[corev1.ResourceName]int32 {
	out := map[corev1.ResourceName]int32{}
	for _, m := range hpa.Spec.Metrics {
		Expect(m.Type).To(Equal(autoscalingv2.ResourceMetricSourceType))
		Expect(m.Resource.Target.Type).To(Equal(autoscalingv2.UtilizationMetricType))
		out[m.Resource.Name] = ptr.Deref(m.Resource.Target.AverageUtilization, -1)
	}
	return out
}

// replicasManagers lists the field managers that own the Deployment's
// spec.replicas (its managedFields).
func replicasManagers(g Gomega, d *appsv1.Deployment) []string {
	var out []string
	for _, mf := range d.ManagedFields {
		if mf.FieldsV1 == nil {
			continue
		}
		var fields struct {
			Spec map[string]json.RawMessage `json:"f:spec"`
		}
		g.Expect(json.Unmarshal(mf.FieldsV1.GetRawBytes(), &fields)).To(Succeed())
		if _, ok := fields.Spec["f:replicas"]; ok {
			out = append(out, mf.Manager)
		}
	}
	return out
}

// newUnstructured is an empty object of the given apiVersion and kind.
func newUnstructured(apiVersion, kind string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	return u
}

// scaledObject reads the KEDA ScaledObject ns/name (the operator's are
// named after the agent) as unstructured: the e2e, like the operator, has
// no KEDA Go types.
func scaledObject(ns, name string) *unstructured.Unstructured {
	u := newUnstructured(scaledObjectGVK.GroupVersion().String(), scaledObjectGVK.Kind)
	Expect(suite.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u)).To(Succeed())
	return u
}

// trigger is one entry of a ScaledObject's spec.triggers.
type trigger struct {
	Type     string            `json:"type"`
	Metadata map[string]string `json:"metadata"`
}

// scaledObjectTriggers decodes the ScaledObject's spec.triggers.
func scaledObjectTriggers(so *unstructured.Unstructured) []trigger {
	raw, found, err := unstructured.NestedSlice(so.Object, "spec", "triggers")
	Expect(err).NotTo(HaveOccurred())
	Expect(found).To(BeTrue(), "spec.triggers")
	data, err := json.Marshal(raw)
	Expect(err).NotTo(HaveOccurred())
	var out []trigger
	Expect(json.Unmarshal(data, &out)).To(Succeed())
	return out
}

// noObject asserts that ns/name of the given kind does not exist.
func noObject(ctx context.Context, obj client.Object, ns, name, why string) {
	GinkgoHelper()
	err := suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, obj)
	Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%s (got %v)", why, err)
}

// patchAnnotation sets one annotation on the agent with a merge patch (no
// generation change).
func patchAnnotation(ctx context.Context, ar *v1alpha1.AgentRuntime, key, value string) {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{key: value}}})
	Expect(err).NotTo(HaveOccurred())
	Expect(suite.Client.Patch(ctx, ar.DeepCopy(), client.RawPatch(types.MergePatchType, patch))).To(Succeed())
}

// agentEvents lists the events.k8s.io Events in ns about the object with
// the given UID (the agent: its events outlive it).
func agentEvents(g Gomega, ns string, uid types.UID) []eventsv1.Event {
	list := &eventsv1.EventList{}
	g.Expect(suite.Client.List(context.Background(), list, client.InNamespace(ns))).To(Succeed())
	var out []eventsv1.Event
	for _, e := range list.Items {
		if e.Regarding.UID == uid {
			out = append(out, e)
		}
	}
	return out
}
