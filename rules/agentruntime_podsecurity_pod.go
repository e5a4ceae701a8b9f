package rules

import (
	"encoding/json"
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// The agent pod as Pod Security judges it. The pod builder
// (reconcile/agentruntime) needs resolved cluster state to build the whole
// pod, and rules/ may not import it; but what Pod Security Standards look
// at is either fixed by the operator (security contexts, no host
// namespaces, no host ports) or written by the agent's author (volumes and
// pod annotations). Both halves live here, and the builder takes them from
// here, so the pod the rule judges and the pod the operator applies cannot
// drift apart (reconcile/agentruntime's TestPodSecurityViewMatchesBuilder
// checks them field by field on every example).

// Container names in the agent pod.
const (
	AgentRuntimeContainerFacade       = "facade"
	AgentRuntimeContainerRuntime      = "runtime"
	AgentRuntimeContainerPolicyBroker = "policy-broker"
)

// agentRuntimeContainers are the agent pod's containers, in pod order.
var agentRuntimeContainers = []string{AgentRuntimeContainerFacade, AgentRuntimeContainerRuntime, AgentRuntimeContainerPolicyBroker}

// AgentRuntimePodSecurityContext is the agent pod's security context:
// non-root, with the container runtime's default seccomp profile. No
// AgentRuntime field changes it (agentruntime.md#podoverrides: PodOverrides
// has no securityContext).
func AgentRuntimePodSecurityContext() *corev1.PodSecurityContext {
	return &corev1.PodSecurityContext{
		RunAsNonRoot:   ptr.To(true),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

// AgentRuntimeContainerSecurityContext is every agent container's security
// context, the policy broker's included: no privilege escalation, no
// capabilities, a read-only root filesystem (the builder mounts a writable
// /tmp), non-root. It meets the restricted Pod Security Standard.
func AgentRuntimeContainerSecurityContext() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false),
		ReadOnlyRootFilesystem:   ptr.To(true),
		RunAsNonRoot:             ptr.To(true),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
}

// AgentRuntimeUserPodAnnotations are the pod annotations the author writes:
// extraPodAnnotations with podOverrides.annotations merged over them
// ("your values win"; podOverrides win over extraPodAnnotations). The
// builder adds its own hash annotations on top. Never nil.
func AgentRuntimeUserPodAnnotations(ar *v1alpha1.AgentRuntime) map[string]string {
	out := map[string]string{}
	maps.Copy(out, ar.Spec.ExtraPodAnnotations)
	if po := ar.Spec.PodOverrides; po != nil {
		maps.Copy(out, po.Annotations)
	}
	return out
}

// agentRuntimePodAnnotationField is the field an effective pod annotation
// comes from: podOverrides.annotations when it sets the key, else
// extraPodAnnotations.
func agentRuntimePodAnnotationField(ar *v1alpha1.AgentRuntime, key string) *field.Path {
	if po := ar.Spec.PodOverrides; po != nil {
		if _, ok := po.Annotations[key]; ok {
			return field.NewPath("spec", "podOverrides", "annotations").Key(key)
		}
	}
	return field.NewPath("spec", "extraPodAnnotations").Key(key)
}

// AgentRuntimeExtraVolumes decodes podOverrides.extraVolumes, which the
// schema keeps as raw objects, into Volumes: the one decoding the builder
// mounts and the rules judge (encoding/json, so a key spelled in another
// case, e.g. "HostPath", is a hostPath for both). A value that is not a
// Volume is an error naming its field: the Deployment cannot be built (the
// API server would refuse it anyway).
func AgentRuntimeExtraVolumes(ar *v1alpha1.AgentRuntime) ([]corev1.Volume, error) {
	vols, ferr := v1alpha1.DecodeExtraVolumes(ar.Spec.PodOverrides, agentRuntimeExtraVolumesPath)
	if ferr != nil {
		return nil, ferr
	}
	return vols, nil
}

var (
	agentRuntimeExtraVolumesPath   = field.NewPath("spec", "podOverrides", "extraVolumes")
	agentRuntimeRuntimeVolumesPath = field.NewPath("spec", "runtime", "volumes")
)

// agentRuntimeUserVolume is one volume the author adds to the pod and the
// field it comes from.
type agentRuntimeUserVolume struct {
	path   *field.Path
	volume corev1.Volume
}

// agentRuntimeUserVolumes are the author's volumes in pod order:
// runtime.volumes, then podOverrides.extraVolumes. An extra volume that does
// not decode is left out: no pod is built from it (the builder refuses the
// spec, naming the field).
func agentRuntimeUserVolumes(ar *v1alpha1.AgentRuntime) []agentRuntimeUserVolume {
	var out []agentRuntimeUserVolume
	if rt := ar.Spec.Runtime; rt != nil {
		for i := range rt.Volumes {
			out = append(out, agentRuntimeUserVolume{agentRuntimeRuntimeVolumesPath.Index(i), *rt.Volumes[i].DeepCopy()})
		}
	}
	if po := ar.Spec.PodOverrides; po != nil {
		for i, raw := range po.ExtraVolumes {
			var v corev1.Volume
			if json.Unmarshal(raw.Raw, &v) != nil || v.Name == "" {
				continue
			}
			out = append(out, agentRuntimeUserVolume{agentRuntimeExtraVolumesPath.Index(i), v})
		}
	}
	return out
}

// AgentRuntimePodSecurityView is the agent's pod as Pod Security Standards
// see it: the operator's fixed pod (its security contexts, its three
// containers, no host namespace, port or probe host) with the author's
// volumes and pod annotations. The operator's own volumes (the pack's
// ConfigMap, an emptyDir, the media claim, the JWKS Secret) are left out:
// they depend on resolved state and are of kinds every level allows.
func AgentRuntimePodSecurityView(ar *v1alpha1.AgentRuntime) (*metav1.ObjectMeta, *corev1.PodSpec) {
	meta := &metav1.ObjectMeta{Annotations: AgentRuntimeUserPodAnnotations(ar)}
	spec := agentRuntimeFixedPodSpec()
	for _, v := range agentRuntimeUserVolumes(ar) {
		spec.Volumes = append(spec.Volumes, v.volume)
	}
	return meta, spec
}

// agentRuntimeFixedPodSpec is the part of the agent pod no author writes.
func agentRuntimeFixedPodSpec() *corev1.PodSpec {
	spec := &corev1.PodSpec{SecurityContext: AgentRuntimePodSecurityContext()}
	for _, name := range agentRuntimeContainers {
		spec.Containers = append(spec.Containers, corev1.Container{Name: name, SecurityContext: AgentRuntimeContainerSecurityContext()})
	}
	return spec
}
