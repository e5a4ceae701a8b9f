package main

import (
	"flag"
	"fmt"
	"strings"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/reconcile/agentruntime"
)

// frameworkImages are the --framework-image=<type>=<image> entries.
var frameworkImages = map[string]string{}

func init() {
	flag.Func("framework-image",
		"<type>=<image>: the runtime image for a framework.type when the agent sets no framework.image; repeatable",
		func(s string) error {
			typ, img, ok := strings.Cut(s, "=")
			if !ok || typ == "" || img == "" {
				return fmt.Errorf("--framework-image %q: want <type>=<image>", s)
			}
			frameworkImages[typ] = img
			return nil
		})
	// The AgentRuntime controller. Built-in images: promptkit runtime,
	// facade and policy broker.
	controllerSetups = append(controllerSetups, func(mgr ctrl.Manager) error {
		return agentruntime.SetupWithManager(mgr, agentruntime.Options{
			FrameworkImages:     frameworkImages,
			BuiltinRuntimeImage: "ghcr.io/altairalabs/omnia-runtime:latest",
			FacadeImage:         "ghcr.io/altairalabs/omnia-facade:latest",
			PolicyBrokerImage:   "ghcr.io/altairalabs/omnia-policy-broker:latest",
		})
	})
}
