package workload

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Defaults of spec.runtime.autoscaling (agentruntime.md § runtime.autoscaling).
// The CRD defaults them on an agent's own block; a Workspace service group's
// block, or one built in memory, may leave them unset, so the builders apply
// them again.
const (
	DefaultAutoscalingMinReplicas        int32 = 1
	DefaultAutoscalingMaxReplicas        int32 = 100
	DefaultTargetMemoryUtilization       int32 = 70
	DefaultTargetCPUUtilization          int32 = 90
	DefaultScaleDownStabilizationSeconds int32 = 300
)

// The HPA's fixed scaling behaviour (agentruntime.md § runtime.autoscaling.keda,
// "for type: hpa the operator also sets scaling behaviour that has no
// field"): scale-up reacts at once and may add 100% of the pods or 4 pods
// every 15 seconds, whichever is larger; scale-down removes at most 50% of
// the pods per 60 seconds.
const (
	hpaScaleUpPercent       int32 = 100
	hpaScaleUpPods          int32 = 4
	hpaScaleUpPeriodSeconds int32 = 15
	hpaScaleDownPercent     int32 = 50
	hpaScaleDownPeriod      int32 = 60
)

// HPAName is the agent's HorizontalPodAutoscaler name: the Deployment's.
func HPAName(ar *v1alpha1.AgentRuntime) string { return DeploymentName(ar) }

// HorizontalPodAutoscaler builds the autoscaling/v2 HPA that scales the
// agent's Deployment for a (type hpa) autoscaling block: min/max replicas,
// a memory and a CPU utilisation target (memory first, as the spec lists
// them), and the fixed behaviour above with the block's
// scaleDownStabilizationSeconds.
//
// minReplicas 0 is KEDA scale-to-zero; an HPA cannot go below 1 (without
// the HPAScaleToZero feature gate the API server refuses 0), so it is
// raised to 1 here.
func HorizontalPodAutoscaler(ar *v1alpha1.AgentRuntime, a *v1alpha1.AgentRuntimeAutoscaling) *autoscalingv2.HorizontalPodAutoscaler {
	minReplicas := max(ptr.Deref(a.MinReplicas, DefaultAutoscalingMinReplicas), 1)
	return &autoscalingv2.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: autoscalingv2.SchemeGroupVersion.String(), Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: ObjectMeta(ar, HPAName(ar)),
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{
				APIVersion: "apps/v1",
				Kind:       "Deployment",
				Name:       DeploymentName(ar),
			},
			MinReplicas: ptr.To(minReplicas),
			MaxReplicas: ptr.Deref(a.MaxReplicas, DefaultAutoscalingMaxReplicas),
			Metrics: []autoscalingv2.MetricSpec{
				utilizationMetric(corev1.ResourceMemory, ptr.Deref(a.TargetMemoryUtilizationPercentage, DefaultTargetMemoryUtilization)),
				utilizationMetric(corev1.ResourceCPU, ptr.Deref(a.TargetCPUUtilizationPercentage, DefaultTargetCPUUtilization)),
			},
			Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{
				ScaleUp: &autoscalingv2.HPAScalingRules{
					StabilizationWindowSeconds: ptr.To[int32](0),
					SelectPolicy:               ptr.To(autoscalingv2.MaxChangePolicySelect),
					Policies: []autoscalingv2.HPAScalingPolicy{
						{Type: autoscalingv2.PercentScalingPolicy, Value: hpaScaleUpPercent, PeriodSeconds: hpaScaleUpPeriodSeconds},
						{Type: autoscalingv2.PodsScalingPolicy, Value: hpaScaleUpPods, PeriodSeconds: hpaScaleUpPeriodSeconds},
					},
				},
				ScaleDown: &autoscalingv2.HPAScalingRules{
					StabilizationWindowSeconds: ptr.To(ptr.Deref(a.ScaleDownStabilizationSeconds, DefaultScaleDownStabilizationSeconds)),
					// One policy: the selection is moot; set to the API
					// server's default so the stored object is the built one.
					SelectPolicy: ptr.To(autoscalingv2.MaxChangePolicySelect),
					Policies: []autoscalingv2.HPAScalingPolicy{
						{Type: autoscalingv2.PercentScalingPolicy, Value: hpaScaleDownPercent, PeriodSeconds: hpaScaleDownPeriod},
					},
				},
			},
		},
	}
}

// utilizationMetric is a Resource metric with an average-utilisation target.
func utilizationMetric(name corev1.ResourceName, percent int32) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{
			Name: name,
			Target: autoscalingv2.MetricTarget{
				Type:               autoscalingv2.UtilizationMetricType,
				AverageUtilization: ptr.To(percent),
			},
		},
	}
}
