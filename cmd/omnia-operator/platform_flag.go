package main

import (
	"flag"
	"fmt"
	"net/url"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/reconcile/agentruntime"
)

// --platform-api-url: where agents reach the operator's own API (the deploy
// API listener, which serves the workspace catalog). With it, and a
// Workspace for the agent's namespace, a ToolRegistry's `platform`
// handler with `service: discovery` is rendered into the agent's tools
// (reconcile/agentruntime/platform_tools.go); without it the handler is
// skipped with a log line.
var platformAPIURL string

func init() {
	flag.StringVar(&platformAPIURL, "platform-api-url", "",
		"URL agents reach the operator's API at (its deploy API listener, e.g. https://omnia-operator.omnia-system.svc:9444), for platform discovery handlers' catalog tools; empty skips those handlers")
	agentRuntimeOptions = append(agentRuntimeOptions, func(o *agentruntime.Options) error {
		if platformAPIURL != "" {
			if u, err := url.Parse(platformAPIURL); err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
				return fmt.Errorf("--platform-api-url %q: want an http(s) URL with a host", platformAPIURL)
			}
		}
		o.Platform = agentruntime.PlatformOptions{APIURL: platformAPIURL, Log: ctrl.Log.WithName("agentruntime-platform")}
		return nil
	})
}
