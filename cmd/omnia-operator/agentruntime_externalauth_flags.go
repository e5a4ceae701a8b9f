package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/altairalabs/omnia/reconcile/agentruntime"
	"github.com/altairalabs/omnia/reconcile/oidcfetch"
)

// Flags of the AgentRuntime controller's external-auth group: the OIDC
// issuer fetches that mirror each agent's JWKS (agentruntime.md §
// externalAuth).
var (
	oidcCAFile = flag.String("oidc-ca-file", "",
		"PEM file of extra certificate authorities, appended to the system roots, that verify OIDC issuers' certificates (externalAuth.oidc); empty: the system roots only")
	oidcFetchTimeout = flag.Duration("oidc-fetch-timeout", oidcfetch.DefaultTimeout,
		"cut one OIDC JWKS fetch (discovery document and JWKS) at this duration")
	oidcJWKSRefresh = flag.Duration("oidc-jwks-refresh", agentruntime.DefaultJWKSRefresh,
		"how often a mirrored OIDC JWKS is fetched again")
)

func init() {
	agentRuntimeOptions = append(agentRuntimeOptions, externalAuthOptions)
}

// externalAuthOptions sets the external-auth group's options from the flags.
func externalAuthOptions(o *agentruntime.Options) error {
	fo := oidcfetch.Options{Timeout: *oidcFetchTimeout}
	if *oidcCAFile != "" {
		pem, err := os.ReadFile(*oidcCAFile)
		if err != nil {
			return fmt.Errorf("--oidc-ca-file: %w", err)
		}
		if fo.RootCAs, err = oidcfetch.RootsWith(pem); err != nil {
			return fmt.Errorf("--oidc-ca-file %s: %w", *oidcCAFile, err)
		}
	}
	if *oidcJWKSRefresh <= 0 {
		return fmt.Errorf("--oidc-jwks-refresh must be positive, got %s", *oidcJWKSRefresh)
	}
	o.ExternalAuth.Fetcher = oidcfetch.New(fo)
	o.ExternalAuth.RefreshInterval = *oidcJWKSRefresh
	return nil
}
