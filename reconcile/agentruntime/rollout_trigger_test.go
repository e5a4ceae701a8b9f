package agentruntime

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func packVersions(vs ...string) []v1alpha1.PromptPack {
	out := make([]v1alpha1.PromptPack, 0, len(vs))
	for _, v := range vs {
		p := v1alpha1.PromptPack{ObjectMeta: metav1.ObjectMeta{Name: "prompts-" + v}}
		p.Spec.PackName, p.Spec.Version = "prompts", v
		p.Status.Phase = v1alpha1.PromptPackPhaseReady
		out = append(out, p)
	}
	return out
}

// TestTriggerCandidateVersion: which version the trigger sets as the
// candidate, by semver precedence on the channel.
func TestTriggerCandidateVersion(t *testing.T) {
	stable, pre := v1alpha1.AgentRuntimePromptPackTrackStable, v1alpha1.AgentRuntimePromptPackTrackPrerelease
	invalid := packVersions("1.3.0")
	invalid[0].Status.Phase = v1alpha1.PromptPackPhaseInvalid
	live := packVersions("")
	live[0].Spec.Source.Live = &v1alpha1.PromptPackLiveSource{}
	for _, tc := range []struct {
		name    string
		packs   []v1alpha1.PromptPack
		active  string
		channel v1alpha1.AgentRuntimePromptPackTrack
		last    string
		want    string // "" = none
	}{
		{"newer release on stable", packVersions("1.0.0", "1.1.0", "1.2.0"), "1.0.0", stable, "", "1.2.0"},
		{"semver order, not string order", packVersions("1.0.0", "1.10.0", "1.9.0"), "1.0.0", stable, "", "1.10.0"},
		{"only the active version", packVersions("1.0.0"), "1.0.0", stable, "", ""},
		{"only older versions", packVersions("0.9.0", "1.0.0"), "1.0.0", stable, "", ""},
		{"build metadata is not newer", packVersions("1.0.0+build.2"), "1.0.0", stable, "", ""},
		{"stable skips a prerelease", packVersions("1.1.0-rc.1"), "1.0.0", stable, "", ""},
		{"unset channel is stable", packVersions("1.1.0-rc.1", "1.0.1"), "1.0.0", "", "", "1.0.1"},
		{"prerelease sees a prerelease", packVersions("1.1.0-rc.1", "1.0.1"), "1.0.0", pre, "", "1.1.0-rc.1"},
		{"a release outranks its prerelease", packVersions("1.1.0-rc.2", "1.1.0"), "1.0.0", pre, "", "1.1.0"},
		{"prerelease identifiers compare numerically", packVersions("1.1.0-rc.2", "1.1.0-rc.10"), "1.0.0", pre, "", "1.1.0-rc.10"},
		{"a prerelease of the active version is older", packVersions("1.0.0-rc.1"), "1.0.0", pre, "", ""},
		{"invalid versions are skipped", packVersions("latest", "v2", "2.0", "1.0.1"), "1.0.0", stable, "", "1.0.1"},
		{"an active version that is not semver triggers nothing", packVersions("2.0.0"), "latest", stable, "", ""},
		{"an Invalid pack is skipped", invalid, "1.0.0", stable, "", ""},
		{"a live pack is skipped", live, "1.0.0", stable, "", ""},
		{"the version triggered last is not proposed again", packVersions("1.1.0"), "1.0.0", stable, "1.1.0", ""},
		{"a version newer than the one triggered last is", packVersions("1.1.0", "1.2.0"), "1.0.0", stable, "1.1.0", "1.2.0"},
		{"an older triggered version does not hold back", packVersions("1.1.0"), "1.0.0", stable, "0.5.0", "1.1.0"},
		{"an invalid triggered annotation is ignored", packVersions("1.1.0"), "1.0.0", stable, "garbage", "1.1.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := triggerCandidateVersion(tc.packs, tc.active, tc.channel, tc.last)
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("triggerCandidateVersion = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
}

// TestRolloutInProgress: a candidate differing from the spec, or a status
// still active or promoting, is a rollout the trigger must not override.
func TestRolloutInProgress(t *testing.T) {
	base := func(mut ...func(*v1alpha1.AgentRuntime)) *v1alpha1.AgentRuntime {
		return agent(append([]func(*v1alpha1.AgentRuntime){func(a *v1alpha1.AgentRuntime) {
			a.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts", Version: "1.0.0"}
			a.Spec.Rollout = &v1alpha1.AgentRuntimeRollout{Steps: []v1alpha1.AgentRuntimeRolloutStep{{}}}
		}}, mut...)...)
	}
	cand := func(c *v1alpha1.AgentRuntimeRolloutCandidate) func(*v1alpha1.AgentRuntime) {
		return func(a *v1alpha1.AgentRuntime) { a.Spec.Rollout.Candidate = c }
	}
	for _, tc := range []struct {
		name string
		ar   *v1alpha1.AgentRuntime
		want bool
	}{
		{"no candidate", base(), false},
		{"candidate equal to the spec (idle)", base(cand(&v1alpha1.AgentRuntimeRolloutCandidate{
			PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts", Version: "1.0.0"}})), false},
		{"empty candidate", base(cand(&v1alpha1.AgentRuntimeRolloutCandidate{})), false},
		{"candidate pack version differs", base(cand(&v1alpha1.AgentRuntimeRolloutCandidate{
			PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts", Version: "1.1.0"}})), true},
		{"candidate providers differ", base(cand(&v1alpha1.AgentRuntimeRolloutCandidate{
			ProviderRefs: v1alpha1.AgentRuntimeProviders{{Name: "llm"}}})), true},
		{"candidate tool registry differs", base(cand(&v1alpha1.AgentRuntimeRolloutCandidate{
			ToolRegistryRef: &v1alpha1.NamespacedObjectReference{Name: "tools"}})), true},
		{"status promoting", base(func(a *v1alpha1.AgentRuntime) {
			a.Status.Rollout = &v1alpha1.AgentRuntimeRolloutStatus{Promoting: true}
		}), true},
		{"status active", base(func(a *v1alpha1.AgentRuntime) { a.Status.Rollout = &v1alpha1.AgentRuntimeRolloutStatus{Active: true} }), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := rolloutInProgress(tc.ar); got != tc.want {
				t.Errorf("rolloutInProgress = %v, want %v", got, tc.want)
			}
		})
	}
}
