package main

import (
	"flag"

	"github.com/altairalabs/omnia/reconcile/agentruntime"
	"github.com/altairalabs/omnia/rules"
)

// podSecurityFlags are the operator's limits on the agent pods it builds
// (rules agentruntime/pod-security and agentruntime/runtime-class-allowed).
// The webhook, the AgentRuntime controller and the deploy API judge with
// the same settings.
type podSecurityFlags struct {
	level   string
	classes string
}

func (f *podSecurityFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&f.level, "pod-security-level", rules.DefaultPodSecurityLevel,
		"the Pod Security Standard (privileged, baseline or restricted) every agent pod meets whatever its namespace's "+
			"pod-security.kubernetes.io/enforce label says; the stricter of the two applies. privileged: the namespace label alone")
	fs.StringVar(&f.classes, "agent-runtime-classes", "",
		"comma-separated RuntimeClasses an AgentRuntime's podOverrides.runtimeClassName may name (besides its Workspace's "+
			"spec.runtime.runtimeClassName); empty: any")
}

// settings checks and converts the two flags.
func (f podSecurityFlags) settings() (rules.PodSecuritySettings, error) {
	return rules.ParsePodSecuritySettings(f.level, f.classes)
}

// apply sets the AgentRuntime controller's pod limits.
func (f podSecurityFlags) apply(o *agentruntime.Options) error {
	s, err := f.settings()
	o.PodSecurity = s
	return err
}
