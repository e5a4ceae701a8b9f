package main

import (
	"flag"

	"github.com/altairalabs/omnia/reconcile/agentruntime"
	"github.com/altairalabs/omnia/rules"
)

// The operator's limits on the agent pods it builds (rules
// agentruntime/pod-security and agentruntime/runtime-class-allowed). The
// webhook, the AgentRuntime controller and the deploy API judge with the
// same settings.
var (
	podSecurityLevel = flag.String("pod-security-level", rules.DefaultPodSecurityLevel,
		"the Pod Security Standard (privileged, baseline or restricted) every agent pod meets whatever its namespace's "+
			"pod-security.kubernetes.io/enforce label says; the stricter of the two applies. privileged: the namespace label alone")
	agentRuntimeClasses = flag.String("agent-runtime-classes", "",
		"comma-separated RuntimeClasses an AgentRuntime's podOverrides.runtimeClassName may name (besides its Workspace's "+
			"spec.runtime.runtimeClassName); empty: any")
)

func init() {
	agentRuntimeOptions = append(agentRuntimeOptions, func(o *agentruntime.Options) error {
		s, err := podSecuritySettings(*podSecurityLevel, *agentRuntimeClasses)
		o.PodSecurity = s
		return err
	})
}

// podSecuritySettings checks and converts the two flags.
func podSecuritySettings(level, classes string) (rules.PodSecuritySettings, error) {
	return rules.ParsePodSecuritySettings(level, classes)
}
