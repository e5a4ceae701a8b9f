package agentruntime

import (
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/rules"
)

// Fixtures the controller's tests share with workload's: the same agents,
// resolved inputs and expected objects, so a reconcile is checked against
// what the builders' own tests pin.

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

// richAgent sets most fields the builders read, so determinism is checked
// over maps (labels, annotations, node selector, providers) and every list.
func richAgent() *v1alpha1.AgentRuntime {
	return agent(func(ar *v1alpha1.AgentRuntime) {
		ar.Annotations = map[string]string{"omnia.altairalabs.ai/idle-timeout": "2h"}
		ar.Spec.Facades = []v1alpha1.AgentRuntimeFacade{
			{Type: v1alpha1.AgentRuntimeFacadeTypeA2A, A2A: &v1alpha1.AgentRuntimeFacadeA2A{TaskStore: &v1alpha1.AgentRuntimeA2ATaskStore{Type: "redis", RedisSecretRef: &v1alpha1.LocalObjectReference{Name: "tasks"}}}},
			{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, ExtraEnv: []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "debug"}, {Name: "OMNIA_PACK_MODE", Value: "compile"}}},
		}
		ar.Spec.Providers = v1alpha1.AgentRuntimeProviders{
			{Name: "judge", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "haiku"}},
			{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "sonnet"}},
			{Name: "embed-small", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "embed"}},
		}
		ar.Spec.Sandbox = &v1alpha1.AgentRuntimeSandbox{Enabled: true}
		ar.Spec.Media = &v1alpha1.AgentRuntimeMedia{Storage: &v1alpha1.AgentRuntimeMediaStorage{Type: "s3", S3: &v1alpha1.AgentRuntimeMediaS3{Bucket: "b", Region: "r"}, SecretRef: &v1alpha1.LocalObjectReference{Name: "s3"}}}
		ar.Spec.ExtraPodAnnotations = map[string]string{"a": "1", "b": "2", "c": "3"}
		ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{
			Replicas:     ptr.To[int32](2),
			NodeSelector: map[string]string{"x": "1", "y": "2"},
			ExtraEnv:     []corev1.EnvVar{{Name: "Z", Value: "1"}, {Name: "A", Value: "2"}},
		}
		ar.Spec.PodOverrides = &v1alpha1.PodOverrides{
			Labels:       map[string]string{"team": "a", "cost": "b"},
			Annotations:  map[string]string{"d": "4"},
			NodeSelector: map[string]string{"z": "3"},
			ExtraEnv:     []corev1.EnvVar{{Name: "M", Value: "3"}},
			ExtraVolumes: []runtime.RawExtension{{Raw: []byte(`{"name":"extra","emptyDir":{}}`)}},
		}
	})
}

func richResolved() workload.Resolved {
	r := resolved()
	r.PromptPack = &workload.ResolvedPromptPack{PackName: "p", Version: "1.0.0", ConfigMapName: "p-cm"}
	r.SandboxAPIURL = "http://omnia-operator.omnia-system.svc:8443"
	r.ToolRegistryName = "tools"
	r.Providers = map[string]workload.ResolvedProvider{
		"judge":       {Provider: provider("haiku", "h"), SecretKey: "api-key"},
		"default":     {Provider: provider("sonnet", "s"), SecretKey: "ANTHROPIC_API_KEY"},
		"embed-small": {Provider: provider("embed", "e"), SecretKey: "api-key"},
	}
	return r
}

// provider is a claude Provider reading its key from the Secret <name>-key.
func provider(name, model string) *v1alpha1.Provider {
	return &v1alpha1.Provider{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "agents"},
		Spec: v1alpha1.ProviderSpec{
			Type:       v1alpha1.ProviderTypeClaude,
			Model:      model,
			Credential: &v1alpha1.ProviderCredential{SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: name + "-key"}},
		},
	}
}

var testGateway = workload.GatewayRef{Namespace: "edge", Name: "public"}

func exposeOn(host string) *v1alpha1.AgentRuntimeFacadeExpose {
	return &v1alpha1.AgentRuntimeFacadeExpose{Enabled: true, Host: host}
}

// routesOf builds every exposed facade's route as applyExposure does.
func routesOf(ar *v1alpha1.AgentRuntime, gw workload.GatewayRef, domain string) []*gatewayv1.HTTPRoute {
	var out []*gatewayv1.HTTPRoute
	for _, e := range rules.AgentRuntimeExposedFacades(ar, domain) {
		if e.ConflictsWith < 0 {
			if rt := workload.HTTPRoute(ar, e, gw); rt != nil {
				out = append(out, rt)
			}
		}
	}
	return out
}

// consistentHash is the trafficPolicy a sticky session gives a subset.
func consistentHash(header string) map[string]any {
	return map[string]any{"loadBalancer": map[string]any{"consistentHash": map[string]any{"httpHeaderName": header}}}
}
