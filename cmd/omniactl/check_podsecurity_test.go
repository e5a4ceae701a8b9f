package main

import (
	"slices"
	"strings"
	"testing"
)

// podSecurityAgent is agentOK with extra spec lines.
func podSecurityAgent(specLines string) string {
	return strings.Replace(agentOK, "  facades: [{type: websocket}]\n", "  facades: [{type: websocket}]\n"+specLines, 1)
}

// podSecurityNamespace is the agents Namespace, enforcing level (none when empty).
func podSecurityNamespace(level string) string {
	labels := ""
	if level != "" {
		labels = "\n  labels: {pod-security.kubernetes.io/enforce: " + level + "}"
	}
	return "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: agents" + labels + "\n"
}

// TestCheckPodSecurity: omniactl check refuses the agent pods the webhook
// refuses, with the same rule IDs and fields (agentruntime/pod-security at
// the offending podOverrides field), judging at the Namespace document's
// enforce label and at --pod-security-level, whichever is stricter; and
// agentruntime/runtime-class-allowed under --agent-runtime-classes.
func TestCheckPodSecurity(t *testing.T) {
	hostRoot := podSecurityAgent("  podOverrides:\n    extraVolumes: [{name: root, hostPath: {path: /}}]\n    extraVolumeMounts: [{name: root, mountPath: /host}]\n")
	nfs := podSecurityAgent("  podOverrides:\n    extraVolumes: [{name: share, nfs: {server: nfs.example.com, path: /exports}}]\n")
	gvisor := podSecurityAgent("  podOverrides: {runtimeClassName: runc}\n")
	const (
		atVolume       = "support agentruntime/pod-security spec.podOverrides.extraVolumes[0]"
		atRuntimeClass = "support agentruntime/runtime-class-allowed spec.podOverrides.runtimeClassName"
	)
	for _, tc := range []struct {
		name  string
		agent string
		ns    string // the Namespace document's enforce label; "-" for no document
		flags []string
		want  []string // denials
	}{
		{name: "accepted: a plain agent at restricted", agent: agentOK, ns: "restricted", flags: []string{"--pod-security-level", "restricted"}},
		{name: "rejected: hostPath / at the default floor", agent: hostRoot, ns: "-", want: []string{atVolume}},
		{name: "accepted: hostPath / with the floor at privileged and no label", agent: hostRoot, ns: "-", flags: []string{"--pod-security-level", "privileged"}},
		{name: "accepted: nfs at the default floor", agent: nfs, ns: ""},
		{name: "rejected: nfs, the namespace (restricted) stricter than the floor", agent: nfs, ns: "restricted", want: []string{atVolume}},
		{name: "rejected: nfs, the floor (restricted) stricter than the namespace", agent: nfs, ns: "baseline",
			flags: []string{"--pod-security-level", "restricted"}, want: []string{atVolume}},
		{name: "accepted: any RuntimeClass without a list", agent: gvisor, ns: ""},
		{name: "accepted: a listed RuntimeClass", agent: gvisor, ns: "", flags: []string{"--agent-runtime-classes", "gvisor,runc"}},
		{name: "rejected: an unlisted RuntimeClass", agent: gvisor, ns: "", flags: []string{"--agent-runtime-classes", "gvisor"}, want: []string{atRuntimeClass}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := []string{tc.agent, providerClaude, secretCreds, packSupport, packSupportConfigMap}
			if tc.ns != "-" {
				in = append(in, podSecurityNamespace(tc.ns))
			}
			file := writeFile(t, t.TempDir(), "a.yaml", docs(in...))
			code, out, errOut := omniactl(t, "", append([]string{"check", "-f", file, "-o", "json"}, tc.flags...)...)
			wantCode := exitOK
			if len(tc.want) > 0 {
				wantCode = exitDenied
			}
			if code != wantCode {
				t.Fatalf("exit %d, want %d; stderr: %s", code, wantCode, errOut)
			}
			var denied []string
			for _, f := range findingsJSON(t, out) {
				if f.Severity == "deny" {
					denied = append(denied, strings.Join([]string{f.Name, f.RuleID, f.Field}, " "))
				}
			}
			slices.Sort(denied)
			if !slices.Equal(denied, tc.want) {
				t.Errorf("denials = %v, want %v", denied, tc.want)
			}
		})
	}
}

// TestCheckPodSecurityFlags: a bad level or RuntimeClass name is unusable
// input, naming the flag.
func TestCheckPodSecurityFlags(t *testing.T) {
	file := writeFile(t, t.TempDir(), "a.yaml", agentOK)
	for flag, value := range map[string]string{"--pod-security-level": "strict", "--agent-runtime-classes": "gVisor"} {
		code, _, errOut := omniactl(t, "", "check", "-f", file, flag, value)
		if code != exitInput || !strings.Contains(errOut, flag) {
			t.Errorf("%s %s: exit %d, stderr %q; want %d naming the flag", flag, value, code, errOut, exitInput)
		}
	}
}
