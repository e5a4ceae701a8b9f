package workload

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// Operator volumes. Their names carry an omnia- prefix so they do not
// collide with a user's runtime.volumes or podOverrides.extraVolumes.
const (
	// VolumePromptPack is the resolved pack's ConfigMap, read-only in the runtime.
	VolumePromptPack = "omnia-promptpack"
	// VolumeTmp is a writable /tmp for the facade and the runtime, whose
	// root filesystems are read-only.
	VolumeTmp = "omnia-tmp"
	// VolumeMedia is media.storage.local.volumeClaim, mounted at
	// local.basePath in the facade and the runtime.
	VolumeMedia = "omnia-media"
	// VolumeFacadeToken is the pod ServiceAccount's token, with the
	// cluster's CA and the namespace, mounted in the facade container only
	// (the facade patches its agent's status). The pod does not automount
	// it: the runtime container runs the tenant's own image, which must
	// not hold the facade's credential.
	VolumeFacadeToken = "omnia-facade-token"

	// ServiceAccountMountPath is where a Kubernetes client looks for the
	// token, ca.crt and namespace (client-go's in-cluster config).
	ServiceAccountMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"
	// facadeTokenSeconds is the projected token's lifetime; the kubelet
	// refreshes it at 80% (the default automount uses 3607 too).
	facadeTokenSeconds = 3607

	// PromptPackMountPath is where the pack's ConfigMap is mounted.
	PromptPackMountPath = "/etc/omnia/pack"
	// PromptPackFile is the pack's key in its ConfigMap.
	PromptPackFile = "pack.json"
	tmpMountPath   = "/tmp"
)

// podVolumes are the pod's volumes: the operator's (pack, tmp, facade
// token, tools, media claim), then runtime.volumes, then podOverrides.extraVolumes
// ("appended"), each list in the user's order. A user volume named like
// another is left for the API server to refuse when the Deployment is
// applied, as the spec says for extraVolumes.
func podVolumes(ar *v1alpha1.AgentRuntime, r *Resolved) ([]corev1.Volume, error) {
	var vols []corev1.Volume
	if p := r.PromptPack; p != nil && p.ConfigMapName != "" {
		vols = append(vols, corev1.Volume{Name: VolumePromptPack, VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: p.ConfigMapName},
				DefaultMode:          ptrInt32(0o444),
			},
		}})
	}
	vols = append(vols, corev1.Volume{Name: VolumeTmp, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	vols = append(vols, facadeTokenVolume())
	vols = append(vols, toolVolumes(ar, r.Tools)...)
	if v := a2aTokenVolume(ar, r); v != nil {
		vols = append(vols, *v)
	}
	if claim, _ := mediaClaim(ar); claim != "" {
		vols = append(vols, corev1.Volume{Name: VolumeMedia, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim},
		}})
	}
	if rt := ar.Spec.Runtime; rt != nil {
		for i := range rt.Volumes {
			vols = append(vols, *rt.Volumes[i].DeepCopy())
		}
	}
	extra, err := ExtraVolumes(ar)
	if err != nil {
		return nil, err
	}
	return append(vols, extra...), nil
}

// ExtraVolumes decodes podOverrides.extraVolumes into Volumes
// (rules.AgentRuntimeExtraVolumes: the decoding the agentruntime/pod-security
// rule judges). A value that is not a Volume is an error naming its field:
// the Deployment cannot be built.
func ExtraVolumes(ar *v1alpha1.AgentRuntime) ([]corev1.Volume, error) {
	return rules.AgentRuntimeExtraVolumes(ar)
}

// mediaClaim is media.storage.local.volumeClaim and the path it is mounted
// at (local.basePath, else media.basePath, else the default).
func mediaClaim(ar *v1alpha1.AgentRuntime) (claim, path string) {
	m := ar.Spec.Media
	if m == nil || m.Storage == nil || m.Storage.Type != "local" || m.Storage.Local == nil || m.Storage.Local.VolumeClaim == "" {
		return "", ""
	}
	path = stringOr(m.Storage.Local.BasePath, stringOr(m.BasePath, DefaultMediaBasePath))
	return m.Storage.Local.VolumeClaim, path
}

// facadeTokenVolume is VolumeFacadeToken: what the default automount
// would project (token, ca.crt, namespace), as a volume the operator
// mounts where it chooses.
func facadeTokenVolume() corev1.Volume {
	return corev1.Volume{Name: VolumeFacadeToken, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: ptrInt32(0o444),
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To[int64](facadeTokenSeconds)}},
			{ConfigMap: &corev1.ConfigMapProjection{
				LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items:                []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}},
			}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{
				Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"},
			}}}},
		},
	}}}
}

// facadeMounts are the facade container's mounts: tmp, the ServiceAccount
// token, the media claim, then podOverrides.extraVolumeMounts.
func facadeMounts(ar *v1alpha1.AgentRuntime) []corev1.VolumeMount {
	mounts := []corev1.VolumeMount{
		{Name: VolumeTmp, MountPath: tmpMountPath},
		{Name: VolumeFacadeToken, MountPath: ServiceAccountMountPath, ReadOnly: true},
	}
	if claim, path := mediaClaim(ar); claim != "" {
		mounts = append(mounts, corev1.VolumeMount{Name: VolumeMedia, MountPath: path})
	}
	return append(mounts, overrideMounts(ar)...)
}

// runtimeMounts are the runtime container's mounts: the pack (read-only),
// tmp, the tools file, credentials and tokens (read-only), the media claim, runtime.volumeMounts, then
// podOverrides.extraVolumeMounts.
func runtimeMounts(ar *v1alpha1.AgentRuntime, r *Resolved) []corev1.VolumeMount {
	var mounts []corev1.VolumeMount
	if p := r.PromptPack; p != nil && p.ConfigMapName != "" {
		mounts = append(mounts, corev1.VolumeMount{Name: VolumePromptPack, MountPath: PromptPackMountPath, ReadOnly: true})
	}
	mounts = append(mounts, corev1.VolumeMount{Name: VolumeTmp, MountPath: tmpMountPath})
	mounts = append(mounts, toolMounts(toolVolumes(ar, r.Tools))...)
	if v := a2aTokenVolume(ar, r); v != nil {
		mounts = append(mounts, corev1.VolumeMount{Name: v.Name, MountPath: A2ATokensMountPath, ReadOnly: true})
	}
	if claim, path := mediaClaim(ar); claim != "" {
		mounts = append(mounts, corev1.VolumeMount{Name: VolumeMedia, MountPath: path})
	}
	if rt := ar.Spec.Runtime; rt != nil {
		mounts = append(mounts, userMounts(rt.VolumeMounts)...)
	}
	return append(mounts, overrideMounts(ar)...)
}

func overrideMounts(ar *v1alpha1.AgentRuntime) []corev1.VolumeMount {
	po := ar.Spec.PodOverrides
	if po == nil {
		return nil
	}
	return userMounts(po.ExtraVolumeMounts)
}

// userMounts copies a user's mounts, without those naming an operator
// volume (rules.AgentRuntimeOperatorVolume: the rule
// agentruntime/operator-volume-mount refuses them at admission; one that
// got in is dropped, so the runtime container never mounts the facade's
// token).
func userMounts(in []corev1.VolumeMount) []corev1.VolumeMount {
	out := make([]corev1.VolumeMount, 0, len(in))
	for i := range in {
		if rules.AgentRuntimeOperatorVolume(in[i].Name) {
			continue
		}
		out = append(out, *in[i].DeepCopy())
	}
	return out
}

// ClaimNames are the PersistentVolumeClaims a pod template mounts, sorted
// and unique: the controller checks they exist for the Volumes condition.
func ClaimNames(spec *corev1.PodSpec) []string {
	var names []string
	for i := range spec.Volumes {
		if c := spec.Volumes[i].PersistentVolumeClaim; c != nil && !slices.Contains(names, c.ClaimName) {
			names = append(names, c.ClaimName)
		}
	}
	slices.Sort(names)
	return names
}

func ptrInt32(v int32) *int32 { return &v }
