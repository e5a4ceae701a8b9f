package rules

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// podSecurityTestFacts are the base agent's facts with its Namespace's
// labels and its Workspace's runtime class.
type podSecurityTestFacts struct {
	agentRuntimeTestFacts
	nsLabels       map[string]string
	workspaceClass string
}

func (f podSecurityTestFacts) Namespace(name string) (*corev1.Namespace, bool) {
	if f.nsLabels == nil || name != agentRuntimeTestNamespace {
		return nil, false
	}
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.nsLabels}}, true
}

func (f podSecurityTestFacts) Workspace(namespace string) (*v1alpha1.Workspace, bool) {
	if f.workspaceClass == "" || namespace != agentRuntimeTestNamespace {
		return nil, false
	}
	return &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: "team"}, Spec: v1alpha1.WorkspaceSpec{
		Namespace: v1alpha1.WorkspaceNamespace{Name: namespace},
		Runtime:   &v1alpha1.WorkspaceRuntime{RuntimeClassName: f.workspaceClass},
	}}, true
}

// withPodSecurity: the operator's floor (empty: the default), the
// namespace's enforce label (empty: none), the allowed RuntimeClasses and
// the Workspace's class.
func withPodSecurity(floor, enforce string, classes []string, workspaceClass string) Facts {
	f := podSecurityTestFacts{agentRuntimeTestFacts: agentRuntimeBaseFacts(), workspaceClass: workspaceClass}
	if enforce != "" {
		f.nsLabels = map[string]string{"pod-security.kubernetes.io/enforce": enforce}
	}
	return WithPodSecuritySettings(f, PodSecuritySettings{Level: floor, RuntimeClasses: classes})
}

func extraVolumes(vols ...string) func(*v1alpha1.AgentRuntime) {
	return func(ar *v1alpha1.AgentRuntime) {
		if ar.Spec.PodOverrides == nil {
			ar.Spec.PodOverrides = &v1alpha1.PodOverrides{}
		}
		for _, v := range vols {
			ar.Spec.PodOverrides.ExtraVolumes = append(ar.Spec.PodOverrides.ExtraVolumes, runtime.RawExtension{Raw: []byte(v)})
		}
	}
}

func podAnnotations(extra, overrides map[string]string) func(*v1alpha1.AgentRuntime) {
	return func(ar *v1alpha1.AgentRuntime) {
		ar.Spec.ExtraPodAnnotations = extra
		if overrides != nil {
			ar.Spec.PodOverrides = &v1alpha1.PodOverrides{Annotations: overrides}
		}
	}
}

func runtimeClass(name string) func(*v1alpha1.AgentRuntime) {
	return func(ar *v1alpha1.AgentRuntime) { ar.Spec.PodOverrides = &v1alpha1.PodOverrides{RuntimeClassName: name} }
}

const (
	hostRoot    = `{"name":"root","hostPath":{"path":"/"}}`
	nfsVolume   = `{"name":"share","nfs":{"server":"nfs.example.com","path":"/exports"}}`
	apparmorKey = "container.apparmor.security.beta.kubernetes.io/runtime"
)

func TestAgentRuntimePodSecurityRule(t *testing.T) {
	const id = "agentruntime/pod-security"
	allowedKinds := extraVolumes(`{"name":"a","emptyDir":{}}`, `{"name":"b","configMap":{"name":"c"}}`,
		`{"name":"c","secret":{"secretName":"s"}}`, `{"name":"d","persistentVolumeClaim":{"claimName":"p"}}`,
		`{"name":"e","projected":{"sources":[{"configMap":{"name":"c"}}]}}`)
	ruleTable[*v1alpha1.AgentRuntime]{kind: kindAgentRuntime, prefix: id, base: agentRuntimeBase,
		facts: func() Facts { return withPodSecurity("", "", nil, "") }}.run(t, []ruleCase[*v1alpha1.AgentRuntime]{
		// The operator's own pod meets even restricted.
		{name: "accepted: no user volume or annotation, at restricted", facts: withPodSecurity("restricted", "restricted", nil, "")},
		{name: "accepted: the restricted volume kinds, at restricted", mutate: allowedKinds, facts: withPodSecurity("restricted", "", nil, "")},
		{name: "accepted: an nfs volume at the baseline floor", mutate: extraVolumes(nfsVolume)},
		{name: "accepted: AppArmor runtime/default", mutate: podAnnotations(map[string]string{apparmorKey: "runtime/default"}, nil)},
		{name: "accepted: podOverrides.annotations wins over an unconfined extraPodAnnotations value",
			mutate: podAnnotations(map[string]string{apparmorKey: "unconfined"}, map[string]string{apparmorKey: "runtime/default"})},
		{name: "accepted: hostPath with the floor at privileged and no namespace label", mutate: extraVolumes(hostRoot),
			facts: withPodSecurity("privileged", "", nil, "")},

		// The attack: the node's root filesystem mounted into the agent.
		{name: "rejected: hostPath / in podOverrides.extraVolumes", mutate: extraVolumes(hostRoot),
			want: []ruleWant{{id, "spec.podOverrides.extraVolumes[0]"}}},
		{name: "rejected: a hostPath spelled HostPath (the builder decodes it as one)", mutate: extraVolumes(`{"name":"root","HostPath":{"path":"/"}}`),
			want: []ruleWant{{id, "spec.podOverrides.extraVolumes[0]"}}},
		{name: "rejected: hostPath in runtime.volumes", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Volumes: []corev1.Volume{{Name: "root",
				VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}}}}
		}, want: []ruleWant{{id, "spec.runtime.volumes[0]"}}},
		{name: "rejected: each of two hostPath volumes, at its own field", mutate: extraVolumes(`{"name":"ok","emptyDir":{}}`, hostRoot, `{"name":"etc","hostPath":{"path":"/etc"}}`),
			want: []ruleWant{{id, "spec.podOverrides.extraVolumes[1]"}, {id, "spec.podOverrides.extraVolumes[2]"}}},
		{name: "rejected: AppArmor unconfined in podOverrides.annotations", mutate: podAnnotations(nil, map[string]string{apparmorKey: "unconfined"}),
			want: []ruleWant{{id, "spec.podOverrides.annotations[" + apparmorKey + "]"}}},
		{name: "rejected: AppArmor unconfined in extraPodAnnotations", mutate: podAnnotations(map[string]string{apparmorKey: "unconfined"}, map[string]string{"team": "a"}),
			want: []ruleWant{{id, "spec.extraPodAnnotations[" + apparmorKey + "]"}}},
		{name: "rejected: hostPath with the floor at privileged in a namespace enforcing baseline", mutate: extraVolumes(hostRoot),
			facts: withPodSecurity("privileged", "baseline", nil, ""), want: []ruleWant{{id, "spec.podOverrides.extraVolumes[0]"}}},
		{name: "rejected: hostPath in a namespace labelled privileged (the floor still applies)", mutate: extraVolumes(hostRoot),
			facts: withPodSecurity("", "privileged", nil, ""), want: []ruleWant{{id, "spec.podOverrides.extraVolumes[0]"}}},

		// The stricter of the namespace's label and the operator's floor.
		{name: "rejected: nfs where the namespace (restricted) is stricter than the floor (baseline)", mutate: extraVolumes(nfsVolume),
			facts: withPodSecurity("baseline", "restricted", nil, ""), want: []ruleWant{{id, "spec.podOverrides.extraVolumes[0]"}}},
		{name: "rejected: nfs where the floor (restricted) is stricter than the namespace (baseline)", mutate: extraVolumes(nfsVolume),
			facts: withPodSecurity("restricted", "baseline", nil, ""), want: []ruleWant{{id, "spec.podOverrides.extraVolumes[0]"}}},
		{name: "rejected: nfs where the namespace's label is not a level (read as restricted, as PodSecurity admission does)",
			mutate: extraVolumes(nfsVolume), facts: withPodSecurity("", "strict", nil, ""), want: []ruleWant{{id, "spec.podOverrides.extraVolumes[0]"}}},
		{name: "accepted: nfs in a namespace enforcing baseline under the baseline floor", mutate: extraVolumes(nfsVolume),
			facts: withPodSecurity("baseline", "baseline", nil, "")},
		{name: "ratchet: an update keeping the hostPath is reported, not refused", mutate: extraVolumes(hostRoot), old: extraVolumes(hostRoot),
			want: []ruleWant{{id, "spec.podOverrides.extraVolumes[0]"}}},
	})
}

func TestAgentRuntimeRuntimeClassAllowedRule(t *testing.T) {
	const id = "agentruntime/runtime-class-allowed"
	ruleTable[*v1alpha1.AgentRuntime]{kind: kindAgentRuntime, prefix: id, base: agentRuntimeBase,
		facts: func() Facts { return withPodSecurity("", "", nil, "") }}.run(t, []ruleCase[*v1alpha1.AgentRuntime]{
		{name: "accepted: no runtimeClassName"},
		{name: "accepted: any class when the operator lists none (the spec's default)", mutate: runtimeClass("runc")},
		{name: "accepted: a listed class", mutate: runtimeClass("kata"), facts: withPodSecurity("", "", []string{"gvisor", "kata"}, "")},
		{name: "accepted: the Workspace's own class, though not listed", mutate: runtimeClass("kata"),
			facts: withPodSecurity("", "", []string{"gvisor"}, "kata")},
		{name: "accepted: no runtimeClassName under a list (the Workspace's class applies)", facts: withPodSecurity("", "", []string{"gvisor"}, "kata")},
		{name: "rejected: a class out of the list", mutate: runtimeClass("runc"), facts: withPodSecurity("", "", []string{"gvisor"}, ""),
			want: []ruleWant{{id, "spec.podOverrides.runtimeClassName"}}},
		{name: "rejected: leaving the Workspace's sandbox for an unlisted class", mutate: runtimeClass("runc"),
			facts: withPodSecurity("", "", []string{"gvisor"}, "kata"), want: []ruleWant{{id, "spec.podOverrides.runtimeClassName"}}},
	})
}

// TestAgentRuntimePodSecurityMessage: the finding names the level, who
// asks for it and the library's reason, and bounds what the author wrote.
func TestAgentRuntimePodSecurityMessage(t *testing.T) {
	ar := agentRuntimeBase()
	extraVolumes(hostRoot)(ar)
	ar.Spec.PodOverrides.Annotations = map[string]string{apparmorKey: strings.Repeat("x", 4096)}
	fs := Default.Evaluate(kindAgentRuntime, Input{Object: ar, Facts: withPodSecurity("", "restricted", nil, "")}, Options{Stages: []Stage{StageAdmission}})
	var msgs []string
	for _, f := range fs {
		if f.RuleID == "agentruntime/pod-security" {
			msgs = append(msgs, f.Message)
			if f.Reason != "PodSecurityViolation" || f.Condition != "DeploymentReady" || f.Severity != SeverityDeny {
				t.Errorf("finding %+v", f)
			}
			if len(f.Message) > 1024 {
				t.Errorf("message of %d bytes: the author's value is not bounded", len(f.Message))
			}
		}
	}
	if len(msgs) != 2 {
		t.Fatalf("findings = %v, want the volume's and the annotation's", fs)
	}
	for _, want := range []string{
		// Restricted's volume check replaces baseline's hostPath check.
		`hostPath volumes (volume "root") under "baseline:latest" (the operator's floor (--pod-security-level));`,
		`restricted volume types (volume "root" uses restricted volume type "hostPath") under "restricted:latest" ` +
			`(namespace agents's pod-security.kubernetes.io/enforce label)`,
		`forbidden AppArmor profile (annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/runtime="xxx`,
		`...) under "baseline:latest" (the operator's floor (--pod-security-level)) and "restricted:latest"`,
	} {
		if !strings.Contains(strings.Join(msgs, "\n"), want) {
			t.Errorf("messages %q do not say %q", msgs, want)
		}
	}
}

// TestParsePodSecurityLevel: the flags take Kubernetes' level names and
// RuntimeClass names only.
func TestParsePodSecurityLevel(t *testing.T) {
	for _, ok := range []string{"privileged", "baseline", "restricted"} {
		if got, err := ParsePodSecurityLevel(ok); err != nil || got != ok {
			t.Errorf("ParsePodSecurityLevel(%q) = %q, %v", ok, got, err)
		}
	}
	for _, bad := range []string{"", "Baseline", "strict"} {
		if _, err := ParsePodSecurityLevel(bad); err == nil {
			t.Errorf("ParsePodSecurityLevel(%q) accepted", bad)
		}
	}
	if got := PodSecuritySettingsOf(NoFacts{}); got.Level != "baseline" || got.RuntimeClasses != nil {
		t.Errorf("default settings = %+v", got)
	}
	if s, err := ParsePodSecuritySettings("restricted", " gvisor, kata ,"); err != nil || s.Level != "restricted" || strings.Join(s.RuntimeClasses, ",") != "gvisor,kata" {
		t.Errorf("ParsePodSecuritySettings = %+v, %v", s, err)
	}
	for _, bad := range [][2]string{{"strict", ""}, {"baseline", "gVisor"}, {"baseline", "a b"}} {
		if _, err := ParsePodSecuritySettings(bad[0], bad[1]); err == nil {
			t.Errorf("ParsePodSecuritySettings(%q, %q) accepted", bad[0], bad[1])
		}
	}
}
