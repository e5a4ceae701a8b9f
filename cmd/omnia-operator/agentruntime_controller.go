package main

import (
	"flag"
	"fmt"
	"strings"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/reconcile/agentruntime"
	"github.com/altairalabs/omnia/reconcile/ctrlopts"
)

// agentRuntimeFlags are the AgentRuntime controller's flags: the built-in
// images of the agent pod here, and a group per part of the controller,
// each in its agentruntime_<group>_flags.go.
type agentRuntimeFlags struct {
	// The built-in images of the agent pod. The defaults name the
	// project's release images; an installation pins them to a digest or
	// a mirror with these flags (the images themselves are not built in
	// this repository).
	runtimeImage      string
	facadeImage       string
	policyBrokerImage string
	// frameworkImages are the --framework-image=<type>=<image> entries.
	frameworkImages map[string]string

	analysis     analysisFlags
	async        asyncFlags
	exposure     exposureFlags
	externalAuth externalAuthFlags
}

func (f *agentRuntimeFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&f.runtimeImage, "runtime-image", "ghcr.io/altairalabs/omnia-runtime:latest", "the built-in runtime image (framework.type promptkit)")
	fs.StringVar(&f.facadeImage, "facade-image", "ghcr.io/altairalabs/omnia-facade:latest", "the built-in facade image")
	fs.StringVar(&f.policyBrokerImage, "policy-broker-image", "ghcr.io/altairalabs/omnia-policy-broker:latest", "the policy-broker sidecar image")
	f.frameworkImages = map[string]string{}
	fs.Func("framework-image",
		"<type>=<image>: the runtime image for a framework.type when the agent sets no framework.image; repeatable",
		func(s string) error {
			typ, img, ok := strings.Cut(s, "=")
			if !ok || typ == "" || img == "" {
				return fmt.Errorf("--framework-image %q: want <type>=<image>", s)
			}
			f.frameworkImages[typ] = img
			return nil
		})
	f.analysis.bind(fs)
	f.async.bind(fs)
	f.exposure.bind(fs)
	f.externalAuth.bind(fs)
}

// applyImages sets the agent pod's images.
func (f agentRuntimeFlags) applyImages(o *agentruntime.Options) {
	o.FrameworkImages = f.frameworkImages
	o.BuiltinRuntimeImage = f.runtimeImage
	o.FacadeImage = f.facadeImage
	o.PolicyBrokerImage = f.policyBrokerImage
}

// The AgentRuntime controller: its options are the operator's shared
// objects and what each flag group sets, the first group whose flags do
// not hold stopping the operator.
func setupAgentRuntime(mgr ctrl.Manager, op *operator) error {
	f := op.flags
	opts := agentruntime.Options{
		Common: ctrlopts.Common{License: op.license, MaxConcurrentReconciles: f.workers.agentRuntime},

		Policies: op.policies,
	}
	f.agentRuntime.applyImages(&opts)
	f.agentRuntime.analysis.apply(&opts, op.probeRunner)
	if err := f.agentRuntime.async.apply(&opts, f.redisTenant.credentials); err != nil {
		return err
	}
	for _, apply := range []func(*agentruntime.Options) error{
		f.agentRuntime.exposure.apply,
		f.agentRuntime.externalAuth.apply,
		f.platform.apply,
		f.podSecurity.apply,
	} {
		if err := apply(&opts); err != nil {
			return err
		}
	}
	return agentruntime.SetupWithManager(mgr, opts)
}
