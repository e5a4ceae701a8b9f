package rules

import (
	"strings"
	"testing"
)

// TestSeverityOverridesRefuseWhatTheyCannotAffect: --rule-severity takes a
// Go rule that runs at admission and refuses, naming it, a schema rule (the
// API server enforces it) or a reconcile-stage rule (it never denies).
func TestSeverityOverridesRefuseWhatTheyCannotAffect(t *testing.T) {
	cases := []struct {
		arg     string
		ok      bool
		message string // a fragment of the refusal
	}{
		{"agentruntime/drain-timeout-range=deny", true, ""},
		{"agentruntime/reserved-env-key=warn", true, ""},
		// A reconcile-stage rule the webhook runs with cluster facts.
		{"agentruntime/promptpack-live-ref=warn", true, ""},
		{"agentruntime/provider-exists=deny", false, "agentruntime/provider-exists is a reconcile-stage rule"},
		{"provider/secret-found=deny", false, "provider/secret-found is a reconcile-stage rule"},
		{"toolregistry/platform-handler-fields=warn", false, "toolregistry/platform-handler-fields is a schema rule"},
		{"promptpack/source-exactly-one=warn", false, "promptpack/source-exactly-one is a schema rule"},
		{"agentruntime/nope=deny", false, `unknown rule ID "agentruntime/nope"`},
		{"agentruntime/drain-timeout-range=error", false, "not deny or warn"},
	}
	for _, c := range cases {
		s := SeverityOverrides{}
		err := s.Set(c.arg)
		switch {
		case c.ok && err != nil:
			t.Errorf("Set(%s) = %v, want accepted", c.arg, err)
		case !c.ok && err == nil:
			t.Errorf("Set(%s) accepted, want refused", c.arg)
		case !c.ok && !strings.Contains(err.Error(), c.message):
			t.Errorf("Set(%s) = %v, want it to say %q", c.arg, err, c.message)
		case !c.ok && len(s) != 0:
			t.Errorf("Set(%s) refused but recorded %v", c.arg, s)
		}
	}
}

// TestAdmissionFactsRules: the rules the webhook runs with cluster facts are
// exactly those the spec says it refuses with them (agentruntime.md,
// promptPackRef: a version or track on a live PromptPack, a rollout of one),
// the RuntimeClass limit (the Workspace's own class is allowed
// besides the operator's list, so the webhook reads the Workspace) and the
// hostile expose.host it refuses (outside the namespace's
// domain and its Workspace's grants).
func TestAdmissionFactsRules(t *testing.T) {
	var got []string
	for _, r := range Default.Rules() {
		if r.AdmissionFacts {
			got = append(got, r.ID)
		}
	}
	if want := "agentruntime/expose-host-outside-namespace-domain,agentruntime/promptpack-live-ref,agentruntime/runtime-class-allowed"; strings.Join(got, ",") != want {
		t.Errorf("AdmissionFacts rules = %v, want [%s]", got, want)
	}
	if !Default.NeedsAdmissionFacts(kindAgentRuntime) || Default.NeedsAdmissionFacts("Provider") {
		t.Error("NeedsAdmissionFacts: want AgentRuntime only")
	}
}
