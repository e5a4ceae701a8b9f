package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/altairalabs/omnia/reconcile/agentruntime"
	"github.com/altairalabs/omnia/reconcile/oidcfetch"
)

// externalAuthFlags are the AgentRuntime controller's external-auth group:
// the OIDC issuer fetches that mirror each agent's JWKS (agentruntime.md §
// externalAuth).
type externalAuthFlags struct {
	oidcCAFile       string
	oidcFetchTimeout time.Duration
	oidcJWKSRefresh  time.Duration
}

func (f *externalAuthFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&f.oidcCAFile, "oidc-ca-file", "",
		"PEM file of extra certificate authorities, appended to the system roots, that verify OIDC issuers' certificates (externalAuth.oidc); empty: the system roots only")
	fs.DurationVar(&f.oidcFetchTimeout, "oidc-fetch-timeout", oidcfetch.DefaultTimeout,
		"cut one OIDC JWKS fetch (discovery document and JWKS) at this duration")
	fs.DurationVar(&f.oidcJWKSRefresh, "oidc-jwks-refresh", agentruntime.DefaultJWKSRefresh,
		"how often a mirrored OIDC JWKS is fetched again")
}

// apply sets the external-auth group's options from the flags.
func (f externalAuthFlags) apply(o *agentruntime.Options) error {
	fo := oidcfetch.Options{Timeout: f.oidcFetchTimeout}
	if f.oidcCAFile != "" {
		pem, err := os.ReadFile(f.oidcCAFile)
		if err != nil {
			return fmt.Errorf("--oidc-ca-file: %w", err)
		}
		if fo.RootCAs, err = oidcfetch.RootsWith(pem); err != nil {
			return fmt.Errorf("--oidc-ca-file %s: %w", f.oidcCAFile, err)
		}
	}
	if f.oidcJWKSRefresh <= 0 {
		return fmt.Errorf("--oidc-jwks-refresh must be positive, got %s", f.oidcJWKSRefresh)
	}
	o.ExternalAuth.Fetcher = oidcfetch.New(fo)
	o.ExternalAuth.RefreshInterval = f.oidcJWKSRefresh
	return nil
}
