package main

import (
	"flag"
	"fmt"
	"net/url"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/reconcile/agentruntime"
)

// platformFlags is --platform-api-url: where agents reach the operator's
// own API (the deploy API listener, which serves the workspace catalog).
// With it, and a Workspace for the agent's namespace, a ToolRegistry's
// `platform` handler with `service: discovery` is rendered into the agent's
// tools (reconcile/agentruntime/platform_tools.go); without it the handler
// is skipped with a log line.
type platformFlags struct {
	apiURL string
}

func (f *platformFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&f.apiURL, "platform-api-url", "",
		"URL agents reach the operator's API at (its deploy API listener, e.g. https://omnia-operator.omnia-system.svc:9444), for platform discovery handlers' catalog tools; empty skips those handlers")
}

// apply sets the AgentRuntime controller's platform options.
func (f platformFlags) apply(o *agentruntime.Options) error {
	if f.apiURL != "" {
		if u, err := url.Parse(f.apiURL); err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
			return fmt.Errorf("--platform-api-url %q: want an http(s) URL with a host", f.apiURL)
		}
	}
	o.Platform = agentruntime.PlatformOptions{APIURL: f.apiURL, Log: ctrl.Log.WithName("agentruntime-platform")}
	return nil
}
