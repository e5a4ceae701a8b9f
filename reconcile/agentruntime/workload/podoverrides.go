package workload

import (
	"maps"

	corev1 "k8s.io/api/core/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// The podOverrides merge, as agentruntime.md#podoverrides's tables say. The
// container-level fields (extraEnv, extraEnvFrom, extraVolumeMounts) are
// applied by the container builders, to the facade and runtime containers
// only, never to the policy-broker sidecar; extraVolumes by podVolumes.

// podLabels are the pod's labels: podOverrides.labels merged under the
// operator's labels ("operator-set keys win on collision"), so an override
// can never move a pod out of the Deployment's selector.
func podLabels(ar *v1alpha1.AgentRuntime) map[string]string {
	out := map[string]string{}
	if po := ar.Spec.PodOverrides; po != nil {
		maps.Copy(out, po.Labels)
	}
	maps.Copy(out, Labels(ar))
	return out
}

// podAnnotations are extraPodAnnotations with podOverrides.annotations
// merged over them ("your values win"; podOverrides win over
// extraPodAnnotations: rules.AgentRuntimeUserPodAnnotations, the merge the
// agentruntime/pod-security rule judges), and the operator's
// ConfigHashAnnotation.
func podAnnotations(ar *v1alpha1.AgentRuntime) map[string]string {
	out := rules.AgentRuntimeUserPodAnnotations(ar)
	out[ConfigHashAnnotation] = ConfigHash(ar)
	return out
}

// nodeSelector is runtime.nodeSelector with podOverrides.nodeSelector
// merged over it by key ("your values win"). Nil when empty.
func nodeSelector(ar *v1alpha1.AgentRuntime) map[string]string {
	out := map[string]string{}
	if rt := ar.Spec.Runtime; rt != nil {
		maps.Copy(out, rt.NodeSelector)
	}
	if po := ar.Spec.PodOverrides; po != nil {
		maps.Copy(out, po.NodeSelector)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// tolerations are runtime.tolerations, then podOverrides.tolerations ("appended").
func tolerations(ar *v1alpha1.AgentRuntime) []corev1.Toleration {
	var out []corev1.Toleration
	if rt := ar.Spec.Runtime; rt != nil {
		for i := range rt.Tolerations {
			out = append(out, *rt.Tolerations[i].DeepCopy())
		}
	}
	if po := ar.Spec.PodOverrides; po != nil {
		for i := range po.Tolerations {
			out = append(out, *po.Tolerations[i].DeepCopy())
		}
	}
	return out
}

// imagePullSecrets are podOverrides.imagePullSecrets ("appended" to none:
// the operator sets no pull secret of its own).
func imagePullSecrets(ar *v1alpha1.AgentRuntime) []corev1.LocalObjectReference {
	po := ar.Spec.PodOverrides
	if po == nil || len(po.ImagePullSecrets) == 0 {
		return nil
	}
	return append([]corev1.LocalObjectReference(nil), po.ImagePullSecrets...)
}

// PodServiceAccountName is the pod's ServiceAccount:
// podOverrides.serviceAccountName, else the Workspace's
// spec.runtime.serviceAccountName, else `<agentruntime>-facade`. The
// RoleBinding binds the facade Role to this account, so the facade can read
// its agent whichever account the pod runs as.
func PodServiceAccountName(ar *v1alpha1.AgentRuntime, r *Resolved) string {
	if po := ar.Spec.PodOverrides; po != nil && po.ServiceAccountName != "" {
		return po.ServiceAccountName
	}
	if r != nil && r.WorkspaceServiceAccountName != "" {
		return r.WorkspaceServiceAccountName
	}
	return ServiceAccountName(ar)
}

// runtimeClassName is podOverrides.runtimeClassName, else the Workspace's
// spec.runtime.runtimeClassName, else nil (the cluster default). It applies
// to the whole pod, policy-broker included.
func runtimeClassName(ar *v1alpha1.AgentRuntime, r *Resolved) *string {
	if po := ar.Spec.PodOverrides; po != nil && po.RuntimeClassName != "" {
		return &po.RuntimeClassName
	}
	if r.WorkspaceRuntimeClassName != "" {
		s := r.WorkspaceRuntimeClassName
		return &s
	}
	return nil
}

// priorityClassName is podOverrides.priorityClassName; the operator has no
// default of its own, so empty leaves the cluster default.
func priorityClassName(ar *v1alpha1.AgentRuntime) string {
	if po := ar.Spec.PodOverrides; po != nil {
		return po.PriorityClassName
	}
	return ""
}

// extraEnvFrom is podOverrides.extraEnvFrom, appended to the facade and
// runtime containers. A reserved key from such a source is overridden by the
// operator's explicit env entries (Kubernetes prefers env over envFrom).
func extraEnvFrom(ar *v1alpha1.AgentRuntime) []corev1.EnvFromSource {
	po := ar.Spec.PodOverrides
	if po == nil || len(po.ExtraEnvFrom) == 0 {
		return nil
	}
	out := make([]corev1.EnvFromSource, 0, len(po.ExtraEnvFrom))
	for i := range po.ExtraEnvFrom {
		out = append(out, *po.ExtraEnvFrom[i].DeepCopy())
	}
	return out
}
