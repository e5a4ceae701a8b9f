package workload

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// ScaledObjectGVK is KEDA's ScaledObject. The operator builds it as
// unstructured: KEDA's Go module is not a dependency of the operator (its
// CRD files are only read by the local cluster's setup), and a cluster
// without KEDA must still run the operator.
var ScaledObjectGVK = schema.GroupVersionKind{Group: "keda.sh", Version: "v1alpha1", Kind: "ScaledObject"}

// KEDAGroupKind is the ScaledObject's "group/Kind", as
// clusterfacts.Facts.CRDInstalled and clusterfacts.Installed spell it.
const KEDAGroupKind = "keda.sh/ScaledObject"

// Defaults of spec.runtime.autoscaling.keda (agentruntime.md §
// runtime.autoscaling.keda).
const (
	DefaultKEDAPollingInterval     int32 = 30
	DefaultKEDACooldownPeriod      int32 = 300
	DefaultKEDAConnectionThreshold int32 = 1000
)

// DefaultPrometheusServerAddress is the default trigger's fixed
// serverAddress: the Omnia Prometheus in omnia-system.
const DefaultPrometheusServerAddress = "http://omnia-prometheus-server.omnia-system.svc.cluster.local/prometheus"

// ScaledObjectName is the agent's ScaledObject name: the Deployment's.
// (KEDA names the HPA it creates from it keda-hpa-<name>, so it never
// collides with an HPA of the agent's own.)
func ScaledObjectName(ar *v1alpha1.AgentRuntime) string { return DeploymentName(ar) }

// DefaultConnectionsQuery is the default trigger's PromQL: the agent's
// active facade connections, 0 when no pod reports any (so the trigger
// scales to the minimum instead of erroring on an empty result).
func DefaultConnectionsQuery(ar *v1alpha1.AgentRuntime) string {
	return fmt.Sprintf(`sum(omnia_agent_connections_active{agent=%q,namespace=%q}) or vector(0)`, ar.Name, ar.Namespace)
}

// ScaledObject builds the KEDA ScaledObject that scales the agent's
// Deployment for a (type keda) autoscaling block: min/max replica counts,
// pollingInterval and cooldownPeriod, and the block's triggers, or, when it
// gives none, one Prometheus trigger on DefaultConnectionsQuery against
// connectionThreshold. Unlike an HPA, KEDA takes minReplicaCount 0
// (scale-to-zero).
func ScaledObject(ar *v1alpha1.AgentRuntime, a *v1alpha1.AgentRuntimeAutoscaling) *unstructured.Unstructured {
	k := a.Keda
	if k == nil {
		k = &v1alpha1.AgentRuntimeKeda{}
	}
	triggers := make([]any, 0, max(len(k.Triggers), 1))
	for _, t := range k.Triggers {
		// KEDA's schema requires metadata on every trigger.
		md := make(map[string]any, len(t.Metadata))
		for key, v := range t.Metadata {
			md[key] = v
		}
		triggers = append(triggers, map[string]any{"type": t.Type, "metadata": md})
	}
	if len(triggers) == 0 {
		triggers = append(triggers, map[string]any{
			"type": "prometheus",
			"metadata": map[string]any{
				"serverAddress": DefaultPrometheusServerAddress,
				"query":         DefaultConnectionsQuery(ar),
				"threshold":     strconv.Itoa(int(ptr.Deref(k.ConnectionThreshold, DefaultKEDAConnectionThreshold))),
			},
		})
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{
			"scaleTargetRef": map[string]any{
				"apiVersion": "apps/v1",
				"kind":       "Deployment",
				"name":       DeploymentName(ar),
			},
			"minReplicaCount": int64(ptr.Deref(a.MinReplicas, DefaultAutoscalingMinReplicas)),
			"maxReplicaCount": int64(ptr.Deref(a.MaxReplicas, DefaultAutoscalingMaxReplicas)),
			"pollingInterval": int64(ptr.Deref(k.PollingInterval, DefaultKEDAPollingInterval)),
			"cooldownPeriod":  int64(ptr.Deref(k.CooldownPeriod, DefaultKEDACooldownPeriod)),
			"triggers":        triggers,
		},
	}}
	u.SetGroupVersionKind(ScaledObjectGVK)
	m := ObjectMeta(ar, ScaledObjectName(ar))
	u.SetName(m.Name)
	u.SetNamespace(m.Namespace)
	u.SetLabels(m.Labels)
	u.SetOwnerReferences(m.OwnerReferences)
	return u
}

// NewScaledObject is an empty ScaledObject to read into or watch.
func NewScaledObject() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(ScaledObjectGVK)
	return u
}
