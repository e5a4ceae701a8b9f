package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/catalog"
	"github.com/altairalabs/omnia/deploy/server"
)

// catalogFlags configure the workspace catalog's delegation tokens: a key
// set of their own, never the deploy API's (docs/catalog-api.md § The
// token), so a delegation token never verifies as a deploy API token nor
// the reverse.
type catalogFlags struct {
	jwksFile    string
	jwksURL     string
	jwksCAFile  string
	issuer      string
	maxLifetime time.Duration
}

func (f *catalogFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&f.jwksFile, "catalog-jwks-file", "",
		"JWKS file of the public keys delegation tokens (the workspace catalog's, on the deploy API listener) are signed with: a key set of their own, sharing no key with --deploy-api-jwks-*; re-read when it changes. Without it or --catalog-jwks-url the catalog is not served")
	fs.StringVar(&f.jwksURL, "catalog-jwks-url", "",
		"https URL of that JWKS instead of a file (fetched as --deploy-api-jwks-url is)")
	fs.StringVar(&f.jwksCAFile, "catalog-jwks-ca-file", "",
		"PEM CA bundle the --catalog-jwks-url server's certificate must chain to (default: the system roots)")
	fs.StringVar(&f.issuer, "catalog-token-issuer", "",
		"when set, a delegation token's iss must equal it")
	fs.DurationVar(&f.maxLifetime, "catalog-max-token-lifetime", auth.DefaultMaxDelegationLifetime,
		"longest a delegation token may live (exp − iat); a token without iat or exp, or living longer, is refused with 401")
}

// The workspace catalog (docs/catalog-api.md): GET .../catalog/{overview,
// search,get} on the deploy API's listener, answered from the manager's
// informer cache, each request authenticated by a delegation token for the
// URL's workspace, verified against the catalog's own keys. Without them
// the catalog is not served.
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=toolregistries;skillsources;providers;agentruntimes;promptpacks;workspaces,verbs=get;list;watch

// setupCatalog mounts the catalog on the deploy API's listener when its
// keys are configured. --platform-api-url without them is a configuration
// error: agents would be handed tools no key can authorize.
func setupCatalog(mgr ctrl.Manager, op *operator, o *server.Options) error {
	f := op.flags.catalog
	log := o.Log.WithName("catalog")
	keys, err := jwksKeySet(jwksSource{file: f.jwksFile, url: f.jwksURL, caFile: f.jwksCAFile, flag: "--catalog-jwks"}, log)
	if errors.Is(err, errNoJWKS) {
		if op.flags.platform.apiURL != "" {
			return errors.New("--platform-api-url renders the catalog's tools into agents, and the catalog needs --catalog-jwks-file or --catalog-jwks-url: the keys delegation tokens are verified with (a set of their own, not the deploy API's)")
		}
		log.Info("the workspace catalog is not served: no --catalog-jwks-file or --catalog-jwks-url")
		return nil
	}
	if err != nil {
		return err
	}
	if f.maxLifetime <= 0 {
		return fmt.Errorf("--catalog-max-token-lifetime (%s) must be positive", f.maxLifetime)
	}
	if err := separateKeySets(op.flags.deployAPI, f); err != nil {
		return err
	}
	// The catalog's kinds: their informers start with the cache, so
	// /readyz (cache sync) covers them and no request lists from the API
	// server.
	for _, obj := range []client.Object{&v1alpha1.ToolRegistry{}, &v1alpha1.SkillSource{}, &v1alpha1.Provider{},
		&v1alpha1.AgentRuntime{}, &v1alpha1.PromptPack{}, &v1alpha1.Workspace{}} {
		if _, err := mgr.GetCache().GetInformer(context.Background(), obj); err != nil {
			return fmt.Errorf("catalog API: starting the %T informer: %w", obj, err)
		}
	}
	h, err := catalog.NewHandler(catalog.Options{
		Verifier:             &auth.DelegationVerifier{Keys: keys, Issuer: f.issuer, MaxLifetime: f.maxLifetime},
		Reader:               mgr.GetCache(),
		MaxInFlightPerCaller: o.MaxInFlightPerCaller,
		RetryAfter:           o.RetryAfter,
		Log:                  log,
	})
	if err != nil {
		return err
	}
	o.Catalog = h
	return nil
}

// separateKeySets refuses the catalog's key source when it is the deploy
// API's (the same file or URL) or, for two files, when they publish a
// common public key. Two URLs are fetched only later: that they publish
// disjoint keys is the installer's to keep (docs/catalog-api.md).
func separateKeySets(d deployAPIFlags, c catalogFlags) error {
	if c.jwksURL != "" && strings.EqualFold(strings.TrimRight(c.jwksURL, "/"), strings.TrimRight(d.jwksURL, "/")) {
		return errors.New("--catalog-jwks-url is --deploy-api-jwks-url: delegation tokens need keys of their own")
	}
	if c.jwksFile == "" || d.jwksFile == "" {
		return nil
	}
	if sameFile(c.jwksFile, d.jwksFile) {
		return errors.New("--catalog-jwks-file is --deploy-api-jwks-file: delegation tokens need keys of their own")
	}
	dk, err := readJWKS(d.jwksFile)
	if err != nil {
		return err
	}
	ck, err := readJWKS(c.jwksFile)
	if err != nil {
		return err
	}
	if shared := auth.SharedKeys(ck, dk); len(shared) > 0 {
		return fmt.Errorf("--catalog-jwks-file and --deploy-api-jwks-file share the keys %v: delegation tokens need keys of their own", shared)
	}
	return nil
}

// sameFile reports whether two paths name one file (through links too).
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	aa, errA := filepath.Abs(a)
	ab, errB := filepath.Abs(b)
	return errA == nil && errB == nil && aa == ab
}

func readJWKS(path string) (auth.StaticKeys, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("JWKS file: %w", err)
	}
	keys, err := auth.ParseJWKS(data)
	if err != nil {
		return nil, fmt.Errorf("JWKS file %s: %w", path, err)
	}
	return keys, nil
}
