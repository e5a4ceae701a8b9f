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

// agentRuntimeOptions are set by the flag files of the controller's groups
// (agentruntime_<group>_flags.go): each appends a function filling its part
// of the Options from its flags, after flag parsing.
var agentRuntimeOptions []func(*agentruntime.Options) error

// The built-in images of the agent pod. The defaults name the project's
// release images; an installation pins them to a digest or a mirror with
// these flags (the images themselves are not built in this repository).
var (
	runtimeImage      = flag.String("runtime-image", "ghcr.io/altairalabs/omnia-runtime:latest", "the built-in runtime image (framework.type promptkit)")
	facadeImage       = flag.String("facade-image", "ghcr.io/altairalabs/omnia-facade:latest", "the built-in facade image")
	policyBrokerImage = flag.String("policy-broker-image", "ghcr.io/altairalabs/omnia-policy-broker:latest", "the policy-broker sidecar image")
)

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
}

// The AgentRuntime controller.
func setupAgentRuntime(mgr ctrl.Manager) error {
	opts := agentruntime.Options{
		FrameworkImages:         frameworkImages,
		BuiltinRuntimeImage:     *runtimeImage,
		FacadeImage:             *facadeImage,
		PolicyBrokerImage:       *policyBrokerImage,
		License:                 licenseStore,
		MaxConcurrentReconciles: *agentRuntimeWorkers,
		Policies:                controllerPolicies,
	}
	for _, set := range agentRuntimeOptions {
		if err := set(&opts); err != nil {
			return err
		}
	}
	return agentruntime.SetupWithManager(mgr, opts)
}
