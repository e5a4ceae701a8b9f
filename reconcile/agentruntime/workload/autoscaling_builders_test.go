package workload

import (
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// The spec's two autoscaling examples (agentruntime.md §
// runtime.autoscaling), as an agent's spec.runtime.autoscaling.
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
minReplicas: 1
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

func autoscalingFrom(t *testing.T, doc string) *v1alpha1.AgentRuntimeAutoscaling {
	t.Helper()
	var a v1alpha1.AgentRuntimeAutoscaling
	if err := yaml.UnmarshalStrict([]byte(doc), &a); err != nil {
		t.Fatal(err)
	}
	return &a
}

// wantHPASpec is the HPA spec the operator must build: the targets given,
// and the fixed behaviour of agentruntime.md (scale-up 0 s window,
// max(100 %, 4 pods) per 15 s; scale-down at the given window, 50 % per 60 s).
func wantHPASpec(minR, maxR, mem, cpu, scaleDown int32) autoscalingv2.HorizontalPodAutoscalerSpec {
	util := func(n corev1.ResourceName, p int32) autoscalingv2.MetricSpec {
		return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
			Name: n, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To(p)}}}
	}
	return autoscalingv2.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "support"},
		MinReplicas:    ptr.To(minR),
		MaxReplicas:    maxR,
		Metrics:        []autoscalingv2.MetricSpec{util(corev1.ResourceMemory, mem), util(corev1.ResourceCPU, cpu)},
		Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{
			ScaleUp: &autoscalingv2.HPAScalingRules{
				StabilizationWindowSeconds: ptr.To[int32](0),
				SelectPolicy:               ptr.To(autoscalingv2.MaxChangePolicySelect),
				Policies: []autoscalingv2.HPAScalingPolicy{
					{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
					{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
				},
			},
			ScaleDown: &autoscalingv2.HPAScalingRules{
				StabilizationWindowSeconds: ptr.To(scaleDown),
				SelectPolicy:               ptr.To(autoscalingv2.MaxChangePolicySelect),
				Policies:                   []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 50, PeriodSeconds: 60}},
			},
		},
	}
}

func TestHorizontalPodAutoscaler(t *testing.T) {
	for _, tc := range []struct {
		name string
		doc  string
		want autoscalingv2.HorizontalPodAutoscalerSpec
	}{
		{"spec's HPA example", specHPAExample, wantHPASpec(2, 10, 70, 80, 300)},
		{"defaults: enabled only", "enabled: true", wantHPASpec(1, 100, 70, 90, 300)},
		{"own scale-down window", "{enabled: true, scaleDownStabilizationSeconds: 45, maxReplicas: 3}", wantHPASpec(1, 3, 70, 90, 45)},
		{"minReplicas 0 is raised to 1 (HPA cannot scale to zero)", "{enabled: true, minReplicas: 0}", wantHPASpec(1, 100, 70, 90, 300)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := agent()
			h := HorizontalPodAutoscaler(ar, autoscalingFrom(t, tc.doc))
			if !equality.Semantic.DeepEqual(h.Spec, tc.want) {
				got, _ := yaml.Marshal(h.Spec)
				want, _ := yaml.Marshal(tc.want)
				t.Errorf("HPA spec:\n%s\nwant:\n%s", got, want)
			}
			if h.Name != "support" || h.Namespace != "team-a" || h.Kind != "HorizontalPodAutoscaler" || h.APIVersion != "autoscaling/v2" {
				t.Errorf("HPA %s %s/%s", h.APIVersion+"/"+h.Kind, h.Namespace, h.Name)
			}
			if refs := h.OwnerReferences; len(refs) != 1 || refs[0].UID != ar.UID || !*refs[0].Controller {
				t.Errorf("owner references %+v, want the agent as controller", refs)
			}
			if h.Labels[LabelAgent] != ar.Name {
				t.Errorf("labels %v lack %s", h.Labels, LabelAgent)
			}
		})
	}
}

func TestScaledObject(t *testing.T) {
	target := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "support"}
	defaultTrigger := func(threshold string) []any {
		return []any{map[string]any{"type": "prometheus", "metadata": map[string]any{
			"serverAddress": "http://omnia-prometheus-server.omnia-system.svc.cluster.local/prometheus",
			"query":         `sum(omnia_agent_connections_active{agent="support",namespace="team-a"}) or vector(0)`,
			"threshold":     threshold,
		}}}
	}
	for _, tc := range []struct {
		name string
		doc  string
		want map[string]any
	}{
		{"spec's KEDA example", specKEDAExample, map[string]any{
			"scaleTargetRef": target, "minReplicaCount": int64(1), "maxReplicaCount": int64(20),
			"pollingInterval": int64(15), "cooldownPeriod": int64(60),
			"triggers": []any{map[string]any{"type": "prometheus", "metadata": map[string]any{
				"serverAddress": "http://prometheus-server:9090",
				"query":         `sum(omnia_agent_connections_active{agent="my-agent"})`,
				"threshold":     "10",
			}}},
		}},
		{"default trigger and defaults", "{enabled: true, type: keda}", map[string]any{
			"scaleTargetRef": target, "minReplicaCount": int64(1), "maxReplicaCount": int64(100),
			"pollingInterval": int64(30), "cooldownPeriod": int64(300), "triggers": defaultTrigger("1000"),
		}},
		{"default trigger at connectionThreshold", "{enabled: true, type: keda, keda: {connectionThreshold: 20}}", map[string]any{
			"scaleTargetRef": target, "minReplicaCount": int64(1), "maxReplicaCount": int64(100),
			"pollingInterval": int64(30), "cooldownPeriod": int64(300), "triggers": defaultTrigger("20"),
		}},
		{"scale-to-zero, trigger without metadata", "{enabled: true, type: keda, minReplicas: 0, keda: {triggers: [{type: cpu}]}}", map[string]any{
			"scaleTargetRef": target, "minReplicaCount": int64(0), "maxReplicaCount": int64(100),
			"pollingInterval": int64(30), "cooldownPeriod": int64(300),
			"triggers": []any{map[string]any{"type": "cpu", "metadata": map[string]any{}}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := agent()
			so := ScaledObject(ar, autoscalingFrom(t, tc.doc))
			spec, _, _ := unstructured.NestedMap(so.Object, "spec")
			if !equality.Semantic.DeepEqual(spec, tc.want) {
				got, _ := yaml.Marshal(spec)
				want, _ := yaml.Marshal(tc.want)
				t.Errorf("ScaledObject spec:\n%s\nwant:\n%s", got, want)
			}
			if so.GetAPIVersion() != "keda.sh/v1alpha1" || so.GetKind() != "ScaledObject" || so.GetName() != "support" || so.GetNamespace() != "team-a" {
				t.Errorf("ScaledObject %s %s %s/%s", so.GetAPIVersion(), so.GetKind(), so.GetNamespace(), so.GetName())
			}
			if refs := so.GetOwnerReferences(); len(refs) != 1 || refs[0].UID != ar.UID || !*refs[0].Controller {
				t.Errorf("owner references %+v, want the agent as controller", refs)
			}
			// Unstructured content must deep-copy (int64, not int32).
			_ = so.DeepCopy()
		})
	}
}
