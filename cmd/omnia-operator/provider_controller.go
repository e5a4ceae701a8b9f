package main

import (
	"flag"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/reconcile/provider"
)

// providerFlags are the Provider controller's flags: the vendor egress
// policy, from --credential-probe and --credential-probe-hosts (a bad value
// stops the operator at flag parsing).
type providerFlags struct {
	egress provider.Egress
}

func (f *providerFlags) bind(fs *flag.FlagSet) {
	fs.Func("credential-probe",
		"on|off (default on): off turns vendor egress off entirely — no Provider credential probe and no endpoint health check; "+
			"CredentialValid and EndpointReachable are then Unknown (CredentialProbeDisabled, EndpointProbeDisabled)",
		func(s string) error {
			off, err := provider.ParseCredentialProbeMode(s)
			f.egress.Off = off
			return err
		})
	fs.Func("credential-probe-hosts",
		"comma-separated host or host:port list (host alone means port 443) to which a Provider's credential may be sent over https "+
			"besides the vendor's default host (e.g. openrouter.ai,llm-gateway.internal:8443); any other spec.baseURL gets no request "+
			"and CredentialValid Unknown (CredentialProbeHostNotAllowed)",
		func(s string) error {
			hosts, err := provider.ParseCredentialProbeHosts(s)
			f.egress.CredentialHosts = append(f.egress.CredentialHosts, hosts...)
			return err
		})
}

// The Provider controller, with its default options: the real clock,
// probes every 30s with a 10s timeout through netguard's transport, run
// on the shared prober, Unavailable after 5 minutes of endpoint failures.
func setupProvider(mgr ctrl.Manager, op *operator) error {
	probes, err := op.probeRunner(mgr)
	if err != nil {
		return err
	}
	return provider.SetupWithManager(mgr, provider.Options{Egress: op.flags.provider.egress, Prober: probes, Common: ctrlopts.Common{License: op.license, MaxConcurrentReconciles: op.flags.workers.provider},
		Policies: op.policies})
}
