package main

import (
	"flag"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/altairalabs/omnia/reconcile/agentruntime"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// exposureFlags are the platform's default-exposure Gateway (Helm
// defaultExposure; agentruntime.md § facades[].expose): without it
// expose.enabled does nothing.
type exposureFlags struct {
	gateway    string
	baseDomain string
}

func (f *exposureFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&f.gateway, "default-exposure-gateway", "",
		"<namespace>/<name>[/<sectionName>]: the Gateway every exposed facade's HTTPRoute attaches to (Helm defaultExposure); "+
			"empty: expose.enabled does nothing")
	fs.StringVar(&f.baseDomain, "exposure-base-domain", "",
		"the domain default exposure hosts are under: <agent>.<namespace>.<domain>, <agent>-<type>.<namespace>.<domain>; "+
			"required with --default-exposure-gateway")
}

// apply sets the AgentRuntime controller's exposure options.
func (f exposureFlags) apply(o *agentruntime.Options) error {
	exp, err := exposureOptions(f.gateway, f.baseDomain)
	if err != nil {
		return err
	}
	o.Exposure = exp
	return nil
}

// baseDomainFact is the base domain the host rules judge with
// (rules.Facts.ExposureBaseDomain) wherever the operator evaluates them —
// the webhook, the reconciler, the deploy API: --exposure-base-domain while
// a Gateway is configured, else "" (exposure off: no route is made, and no
// host is judged against a namespace's domain). exposureOptions refuses a
// domain without a Gateway at startup.
func (f exposureFlags) baseDomainFact() string {
	if f.gateway == "" {
		return ""
	}
	return f.baseDomain
}

// exposureOptions checks and converts the two flags.
func exposureOptions(gateway, baseDomain string) (agentruntime.ExposureOptions, error) {
	if gateway == "" {
		if baseDomain != "" {
			return agentruntime.ExposureOptions{}, fmt.Errorf("--exposure-base-domain needs --default-exposure-gateway")
		}
		return agentruntime.ExposureOptions{}, nil
	}
	ref, err := workload.ParseGatewayRef(gateway)
	if err != nil {
		return agentruntime.ExposureOptions{}, fmt.Errorf("--default-exposure-gateway: %w", err)
	}
	if errs := append(validation.IsDNS1123Label(ref.Namespace), validation.IsDNS1123Subdomain(ref.Name)...); len(errs) > 0 {
		return agentruntime.ExposureOptions{}, fmt.Errorf("--default-exposure-gateway %q: %v", gateway, errs)
	}
	if baseDomain == "" {
		return agentruntime.ExposureOptions{}, fmt.Errorf("--default-exposure-gateway needs --exposure-base-domain (the default hosts are under it)")
	}
	if errs := validation.IsDNS1123Subdomain(baseDomain); len(errs) > 0 {
		return agentruntime.ExposureOptions{}, fmt.Errorf("--exposure-base-domain %q: %v", baseDomain, errs)
	}
	return agentruntime.ExposureOptions{Gateway: &ref, BaseDomain: baseDomain}, nil
}
