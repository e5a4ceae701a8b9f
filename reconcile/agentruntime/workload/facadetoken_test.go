package workload

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// TestFacadeTokenOnlyInTheFacade: the pod does not automount
// the ServiceAccount token; the facade, which patches its agent's status,
// gets it at the path client-go's in-cluster config reads, and the runtime
// container (the tenant's own image) gets no mount of it, even when a
// runtime.volumeMounts or podOverrides.extraVolumeMounts entry names it
// (the rule agentruntime/operator-volume-mount refuses that at admission;
// the builder drops what got in).
func TestFacadeTokenOnlyInTheFacade(t *testing.T) {
	ar := &v1alpha1.AgentRuntime{}
	ar.Name, ar.Namespace = "agent", "team-a"
	ar.Spec.Facades = []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}}
	ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{
		VolumeMounts: []corev1.VolumeMount{{Name: VolumeFacadeToken, MountPath: ServiceAccountMountPath}}}
	ar.Spec.PodOverrides = &v1alpha1.PodOverrides{
		ExtraVolumeMounts: []corev1.VolumeMount{{Name: VolumeFacadeToken, MountPath: "/stolen"}}}
	d, _, err := Deployment(ar, Resolved{})
	if err != nil {
		t.Fatal(err)
	}
	pod := &d.Spec.Template.Spec
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Errorf("automountServiceAccountToken = %v, want false", pod.AutomountServiceAccountToken)
	}
	var vol *corev1.Volume
	for i := range pod.Volumes {
		if pod.Volumes[i].Name == VolumeFacadeToken {
			vol = &pod.Volumes[i]
		}
	}
	if vol == nil || vol.Projected == nil || len(vol.Projected.Sources) != 3 || vol.Projected.Sources[0].ServiceAccountToken == nil ||
		vol.Projected.Sources[0].ServiceAccountToken.Path != "token" {
		t.Fatalf("token volume = %+v, want a projected token, ca.crt and namespace", vol)
	}
	mountsOf := func(name string) []corev1.VolumeMount {
		var out []corev1.VolumeMount
		for _, m := range container(t, pod, name).VolumeMounts {
			if m.Name == VolumeFacadeToken {
				out = append(out, m)
			}
		}
		return out
	}
	if m := mountsOf(ContainerFacade); len(m) != 1 || m[0].MountPath != ServiceAccountMountPath || !m[0].ReadOnly {
		t.Errorf("facade token mounts = %+v, want one, read-only, at %s", m, ServiceAccountMountPath)
	}
	for _, name := range []string{ContainerRuntime, ContainerPolicyBroker} {
		if m := mountsOf(name); len(m) != 0 {
			t.Errorf("%s mounts the facade's token: %+v", name, m)
		}
	}
}
