package workload

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// The merge of agentruntime.md#podoverrides, row by row.
func TestPodOverridesMerge(t *testing.T) {
	toleration := func(k string) corev1.Toleration {
		return corev1.Toleration{Key: k, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	}
	ar := agent(func(ar *v1alpha1.AgentRuntime) {
		ar.Spec.ExtraPodAnnotations = map[string]string{"shared": "extraPodAnnotations", "only-extra": "e"}
		ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{
			NodeSelector: map[string]string{"pool": "runtime", "zone": "a"},
			Tolerations:  []corev1.Toleration{toleration("runtime")},
			Volumes:      []corev1.Volume{{Name: "mock", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "mock"}}}}},
			VolumeMounts: []corev1.VolumeMount{{Name: "mock", MountPath: "/etc/omnia/mock", ReadOnly: true}},
		}
		ar.Spec.PodOverrides = &v1alpha1.PodOverrides{
			ServiceAccountName: "custom-sa",
			PriorityClassName:  "high",
			RuntimeClassName:   "gvisor",
			Labels:             map[string]string{"team": "a", LabelInstance: "hijack", LabelName: "hijack"},
			Annotations:        map[string]string{"shared": "podOverrides"},
			NodeSelector:       map[string]string{"pool": "override"},
			Tolerations:        []corev1.Toleration{toleration("override")},
			ImagePullSecrets:   []corev1.LocalObjectReference{{Name: "pull"}},
			ExtraVolumes:       []runtime.RawExtension{{Raw: []byte(`{"name":"scratch","emptyDir":{}}`)}},
			ExtraVolumeMounts:  []corev1.VolumeMount{{Name: "scratch", MountPath: "/scratch"}},
		}
	})
	r := resolved()
	r.WorkspaceServiceAccountName = "workspace-sa"
	r.WorkspaceRuntimeClassName = "kata"
	d, _, err := Deployment(ar, r)
	if err != nil {
		t.Fatal(err)
	}
	pod := &d.Spec.Template.Spec
	checks := []struct {
		row       string
		got, want any
	}{
		{"serviceAccountName replaces the default", pod.ServiceAccountName, "custom-sa"},
		{"priorityClassName", pod.PriorityClassName, "high"},
		{"runtimeClassName beats the Workspace's", *pod.RuntimeClassName, "gvisor"},
		{"labels: operator keys win", d.Spec.Template.Labels[LabelInstance] + "," + d.Spec.Template.Labels[LabelName] + "," + d.Spec.Template.Labels["team"], "support,omnia-agent,a"},
		{"annotations: podOverrides win over extraPodAnnotations", d.Spec.Template.Annotations, map[string]string{"shared": "podOverrides", "only-extra": "e", ConfigHashAnnotation: ConfigHash(ar)}},
		{"nodeSelector merged by key, your values win", pod.NodeSelector, map[string]string{"pool": "override", "zone": "a"}},
		{"tolerations appended after runtime's", pod.Tolerations, []corev1.Toleration{toleration("runtime"), toleration("override")}},
		{"imagePullSecrets appended", pod.ImagePullSecrets, []corev1.LocalObjectReference{{Name: "pull"}}},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.row, c.got, c.want)
		}
	}
	var vols []string
	for _, v := range pod.Volumes {
		vols = append(vols, v.Name)
	}
	if want := []string{VolumeTmp, VolumeFacadeToken, "mock", "scratch"}; !slices.Equal(vols, want) {
		t.Errorf("volumes = %v, want %v (operator, runtime.volumes, extraVolumes appended)", vols, want)
	}
	mounts := func(c *corev1.Container) []string {
		var out []string
		for _, m := range c.VolumeMounts {
			out = append(out, m.Name)
		}
		return out
	}
	if got := mounts(container(t, pod, ContainerFacade)); !slices.Equal(got, []string{VolumeTmp, VolumeFacadeToken, "scratch"}) {
		t.Errorf("facade mounts = %v", got)
	}
	if got := mounts(container(t, pod, ContainerRuntime)); !slices.Equal(got, []string{VolumeTmp, "mock", "scratch"}) {
		t.Errorf("runtime mounts = %v (runtime.volumeMounts only here)", got)
	}
	if got := mounts(container(t, pod, ContainerPolicyBroker)); len(got) != 0 {
		t.Errorf("policy-broker mounts = %v; extraVolumeMounts skip operator sidecars", got)
	}
	if rb := RoleBinding(ar, r); rb.Subjects[0].Name != "custom-sa" {
		t.Errorf("RoleBinding subject = %s; it follows the pod's ServiceAccount", rb.Subjects[0].Name)
	}
	// Operator labels survive whatever podOverrides.labels say, so the pod
	// stays in its Deployment's selector.
	if !maps.Equal(d.Spec.Selector.MatchLabels, SelectorLabels(ar)) {
		t.Errorf("selector = %v", d.Spec.Selector.MatchLabels)
	}
}

func TestServiceAccountAndRuntimeClassPrecedence(t *testing.T) {
	cases := []struct {
		name             string
		overrideSA, wsSA string
		overrideRC, wsRC string
		wantSA           string
		wantRC           *string
	}{
		{name: "defaults", wantSA: "support-facade"},
		{name: "workspace", wsSA: "ws-sa", wsRC: "kata", wantSA: "ws-sa", wantRC: strPtr("kata")},
		{name: "agent's own SA still inherits the Workspace runtimeClass", overrideSA: "mine", wsSA: "ws-sa", wsRC: "kata", wantSA: "mine", wantRC: strPtr("kata")},
		{name: "agent's own runtimeClass", overrideRC: "gvisor", wsRC: "kata", wantSA: "support-facade", wantRC: strPtr("gvisor")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ar := agent(func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.PodOverrides = &v1alpha1.PodOverrides{ServiceAccountName: tc.overrideSA, RuntimeClassName: tc.overrideRC}
			})
			r := resolved()
			r.WorkspaceServiceAccountName, r.WorkspaceRuntimeClassName = tc.wsSA, tc.wsRC
			pod, _ := mustDeployment(t, ar, r)
			if pod.ServiceAccountName != tc.wantSA {
				t.Errorf("serviceAccountName = %q, want %q", pod.ServiceAccountName, tc.wantSA)
			}
			if !reflect.DeepEqual(pod.RuntimeClassName, tc.wantRC) {
				t.Errorf("runtimeClassName = %v, want %v", pod.RuntimeClassName, tc.wantRC)
			}
		})
	}
}

func strPtr(s string) *string { return &s }

// An extraVolumes entry that is not a Volume stops the build with an error
// naming the field.
func TestExtraVolumesNotAVolume(t *testing.T) {
	for _, raw := range []string{`{"name": 3}`, `{"emptyDir":{}}`} {
		ar := agent(func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.PodOverrides = &v1alpha1.PodOverrides{ExtraVolumes: []runtime.RawExtension{{Raw: []byte(`{"name":"ok","emptyDir":{}}`)}, {Raw: []byte(raw)}}}
		})
		_, _, err := Deployment(ar, resolved())
		if err == nil || !strings.Contains(err.Error(), "spec.podOverrides.extraVolumes[1]") {
			t.Errorf("%s: err = %v, want one naming spec.podOverrides.extraVolumes[1]", raw, err)
		}
	}
}

// The pack, a local media claim and the PVCs the pod mounts.
func TestVolumesAndClaims(t *testing.T) {
	ar := agent(func(ar *v1alpha1.AgentRuntime) {
		ar.Spec.Media = &v1alpha1.AgentRuntimeMedia{Storage: &v1alpha1.AgentRuntimeMediaStorage{Type: "local", Local: &v1alpha1.AgentRuntimeMediaLocal{BasePath: "/media", VolumeClaim: "media-rwx"}}}
		ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Volumes: []corev1.Volume{
			{Name: "a", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "zeta"}}},
			{Name: "b", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "media-rwx"}}},
		}}
	})
	r := resolved()
	r.PromptPack = &ResolvedPromptPack{PackName: "p", Version: "1", ConfigMapName: "p-cm"}
	pod, _ := mustDeployment(t, ar, r)
	if got := ClaimNames(pod); !slices.Equal(got, []string{"media-rwx", "zeta"}) {
		t.Errorf("ClaimNames = %v", got)
	}
	rt, f := container(t, pod, ContainerRuntime), container(t, pod, ContainerFacade)
	if m := rt.VolumeMounts[0]; m.Name != VolumePromptPack || m.MountPath != PromptPackMountPath || !m.ReadOnly {
		t.Errorf("runtime's first mount = %+v, want the pack read-only", rt.VolumeMounts[0])
	}
	if v, _ := literal(rt, EnvPromptPackPath); v != "/etc/omnia/pack/pack.json" {
		t.Errorf("%s = %q", EnvPromptPackPath, v)
	}
	for _, c := range []*corev1.Container{rt, f} {
		if !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == VolumeMedia && m.MountPath == "/media" }) {
			t.Errorf("%s does not mount the media claim at /media: %v", c.Name, c.VolumeMounts)
		}
	}
}
