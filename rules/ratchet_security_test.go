package rules

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// securityRatchetCase is one update through the webhook's path: the new
// object evaluated with Old, then RatchetUpdate against the old object
// evaluated as a create under the same facts.
type securityRatchetCase struct {
	name          string
	kind          string
	old, obj      runtime.Object
	facts         Facts
	wantDenied    []string // rule|field still refusing
	wantRatcheted []string // rule|field let through as warnings
}

// TestSecurityRulesRatchet: the hostile-tenant rules refuse only
// what an update newly breaks. An agent admitted before its namespace was
// labelled restricted, or a project created before arenaproject/git-url
// existed, can still be relabelled (and its finalizer removed); a change
// that adds a violation is refused.
func TestSecurityRulesRatchet(t *testing.T) {
	const podSecurity = "agentruntime/pod-security"
	agent := func(mutations ...func(*v1alpha1.AgentRuntime)) *v1alpha1.AgentRuntime {
		ar := agentRuntimeBase()
		for _, m := range mutations {
			m(ar)
		}
		return ar
	}
	labelled := func(ar *v1alpha1.AgentRuntime) { ar.Labels = map[string]string{"team": "support"} }
	project := func(url string, labels map[string]string) *v1alpha1.ArenaProject {
		p := arenaProjectBase()
		p.Spec.Git.URL = url
		p.Labels = labels
		return p
	}
	const metadataURL = "https://169.254.169.254/repo.git"
	restricted := withPodSecurity("", "restricted", nil, "")

	cases := []securityRatchetCase{
		{
			name: "accepted: relabelling an agent whose nfs volume the namespace's new restricted label forbids",
			kind: kindAgentRuntime, facts: restricted,
			old:           agent(extraVolumes(nfsVolume)),
			obj:           agent(extraVolumes(nfsVolume), labelled),
			wantRatcheted: []string{podSecurity + "|spec.podOverrides.extraVolumes[0]"},
		},
		{
			name: "rejected: adding a hostPath volume beside the kept one",
			kind: kindAgentRuntime, facts: withPodSecurity("", "", nil, ""),
			old:           agent(extraVolumes(hostRoot)),
			obj:           agent(extraVolumes(hostRoot, `{"name":"etc","hostPath":{"path":"/etc"}}`)),
			wantDenied:    []string{podSecurity + "|spec.podOverrides.extraVolumes[1]"},
			wantRatcheted: []string{podSecurity + "|spec.podOverrides.extraVolumes[0]"},
		},
		{
			name: "accepted: adding a valid extra volume beside a stored one without a source",
			kind: kindAgentRuntime, facts: withPodSecurity("", "", nil, ""),
			old:           agent(extraVolumes(`{"name":"certs"}`)),
			obj:           agent(extraVolumes(`{"name":"certs"}`, `{"name":"cache","emptyDir":{}}`)),
			wantRatcheted: []string{"agentruntime/extra-volume-valid|spec.podOverrides.extraVolumes[0]"},
		},
		{
			name: "rejected: adding a second extra volume without a source",
			kind: kindAgentRuntime, facts: withPodSecurity("", "", nil, ""),
			old:           agent(extraVolumes(`{"name":"certs"}`)),
			obj:           agent(extraVolumes(`{"name":"certs"}`, `{"name":"more"}`)),
			wantDenied:    []string{"agentruntime/extra-volume-valid|spec.podOverrides.extraVolumes[1]"},
			wantRatcheted: []string{"agentruntime/extra-volume-valid|spec.podOverrides.extraVolumes[0]"},
		},
		{
			name: "accepted: relabelling a project whose URL names a metadata host",
			kind: kindArenaProject, facts: NoFacts{},
			old:           project(metadataURL, nil),
			obj:           project(metadataURL, map[string]string{"team": "support"}),
			wantRatcheted: []string{ArenaProjectGitURLRuleID + "|spec.git.url"},
		},
		{
			name: "rejected: pointing a clean project at a metadata host",
			kind: kindArenaProject, facts: NoFacts{},
			old:        project("https://github.com/acme/evals.git", nil),
			obj:        project(metadataURL, nil),
			wantDenied: []string{ArenaProjectGitURLRuleID + "|spec.git.url"},
		},
	}
	opts := Options{Stages: []Stage{StageAdmission}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			findings := Default.Evaluate(tc.kind, Input{Object: tc.obj, Old: tc.old, Facts: tc.facts}, opts)
			got := RatchetUpdate(tc.obj, tc.old, findings, func() []Finding {
				return Default.Evaluate(tc.kind, Input{Object: tc.old, Facts: tc.facts}, opts)
			})
			denied, ratcheted := ratchetOutcome(got)
			if !slices.Equal(denied, tc.wantDenied) {
				t.Errorf("denied %v, want %v", denied, tc.wantDenied)
			}
			if !slices.Equal(ratcheted, tc.wantRatcheted) {
				t.Errorf("ratcheted %v, want %v", ratcheted, tc.wantRatcheted)
			}
		})
	}
}
