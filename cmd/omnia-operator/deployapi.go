package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/go-logr/logr"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/server"
)

// The deploy API (docs/deploy-api.md): its own HTTPS listener on every
// replica, with the webhook's serving certificate, HTTP/1.1 only. Off
// unless --deploy-api-bind-address is set; `make run` turns it on.
//
// The deploy profile reads the workspace's Providers (granted to the
// Provider controller) and SkillSources from the cache; every route reads
// the Workspace, whose spec.namespace.name is the namespace it acts in.
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=skillsources;workspaces,verbs=get;list;watch

// deployAPIFlags configure the deploy API.
type deployAPIFlags struct {
	bindAddress string
	jwksFile    string
	jwksURL     string
	jwksCAFile  string
	issuer      string
	endpoint    string
	maxBody     int64
	maxInFlight int
	maxLifetime time.Duration

	// deployments are the deployments route's own flags.
	deployments deploymentsFlags
}

func (f *deployAPIFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&f.bindAddress, "deploy-api-bind-address", "",
		"address the deploy API is served on over HTTPS with the webhook's serving certificate (e.g. :9444); empty or 0 turns it off")
	fs.StringVar(&f.jwksFile, "deploy-api-jwks-file", "",
		"JWKS file (JSON Web Key Set) of the public keys the dashboard signs deploy API tokens with; re-read when it changes. With --deploy-api-bind-address, this or --deploy-api-jwks-url is required")
	fs.StringVar(&f.jwksURL, "deploy-api-jwks-url", "",
		"https URL of that JWKS instead of a file (e.g. the dashboard's): fetched on first use, again when a token names an unknown kid (at most every 30s) and every 5m; a failed fetch keeps the last keys")
	fs.StringVar(&f.jwksCAFile, "deploy-api-jwks-ca-file", "",
		"PEM CA bundle the --deploy-api-jwks-url server's certificate must chain to (default: the system roots)")
	fs.StringVar(&f.issuer, "deploy-api-token-issuer", "",
		"when set, a deploy API token's iss must equal it")
	fs.StringVar(&f.endpoint, "deploy-api-advertise-url", "",
		"the URL clients reach the deploy API at, reported as the deploy profile's api_endpoint (empty: api_endpoint is empty)")
	fs.Int64Var(&f.maxBody, "deploy-api-max-body-bytes", server.DefaultMaxBodyBytes,
		"largest deploy API request body; a larger one answers 413")
	fs.IntVar(&f.maxInFlight, "deploy-api-max-in-flight-per-caller", server.DefaultMaxInFlightPerCaller,
		"deploy API requests one caller (token subject) may have in progress; one more answers 429 with Retry-After")
	fs.DurationVar(&f.maxLifetime, "deploy-api-max-token-lifetime", auth.DefaultMaxTokenLifetime,
		"longest a deploy API token may live (exp − iat); a token without iat or exp, or living longer, is refused with 401")
	f.deployments.bind(fs)
}

// deployAPIBackends wire the routes' implementations, each set up in its
// route's file (the workspace catalog, the deployments Deployer, the plan
// Planner): each sets its field of the options. A route nobody sets
// answers 501.
var deployAPIBackends = []func(mgr ctrl.Manager, op *operator, o *server.Options) error{
	setupCatalog,
	setupDeployer,
	setupPlanner,
}

// enabled reports whether the deploy API is on.
func (f *deployAPIFlags) enabled() bool { return f.bindAddress != "" && f.bindAddress != "0" }

// setupDeployAPI adds the deploy API's server to the manager as a runnable
// every replica runs, with its readiness check. It is a configuration error
// (the operator stops) to turn it on without keys: a JWKS file that loads,
// or an https JWKS URL. It serves cert, the webhook's certificate, and its
// routes see only the watched namespaces (--watch-namespaces).
func setupDeployAPI(mgr ctrl.Manager, op *operator, cert *servingCert) error {
	f := op.flags.deployAPI
	if !f.enabled() {
		return nil
	}
	log := ctrl.Log.WithName("deploy-api")
	keys, err := deployAPIKeys(f, log)
	if err != nil {
		return err
	}
	if f.maxBody <= 0 || f.maxInFlight <= 0 || f.maxLifetime <= 0 {
		return fmt.Errorf("--deploy-api-max-body-bytes (%d), --deploy-api-max-in-flight-per-caller (%d) and --deploy-api-max-token-lifetime (%s) must be positive",
			f.maxBody, f.maxInFlight, f.maxLifetime)
	}
	// The Workspace and the profile's kinds: their informers start with
	// the cache, so /readyz (cache sync) covers them and the first request
	// is local.
	for _, o := range []client.Object{&v1alpha1.Workspace{}, &v1alpha1.Provider{}, &v1alpha1.SkillSource{}} {
		if _, err := mgr.GetCache().GetInformer(context.Background(), o); err != nil {
			return fmt.Errorf("deploy API: starting the %T informer: %w", o, err)
		}
	}
	opts := server.Options{
		Verifier:             &auth.Verifier{Keys: keys, Issuer: f.issuer, MaxLifetime: f.maxLifetime},
		Reader:               mgr.GetCache(),
		APIEndpoint:          f.endpoint,
		MaxBodyBytes:         f.maxBody,
		MaxInFlightPerCaller: f.maxInFlight,
		WatchedNamespaces:    op.flags.servers.watched,
		Log:                  log,
	}
	for _, wire := range deployAPIBackends {
		if err := wire(mgr, op, &opts); err != nil {
			return err
		}
	}
	h, err := server.New(opts)
	if err != nil {
		return err
	}
	srv := &server.Server{BindAddress: f.bindAddress, Handler: h, GetCertificate: cert.GetCertificate, Log: log}
	if err := mgr.Add(srv); err != nil {
		return err
	}
	return mgr.AddReadyzCheck("deploy-api", srv.Started)
}

// deployAPIKeys is the deploy tokens' signing key set: exactly one of the
// JWKS file (which must load now) or the JWKS URL (fetched on first use).
func deployAPIKeys(f deployAPIFlags, log logr.Logger) (auth.KeySet, error) {
	keys, err := jwksKeySet(jwksSource{file: f.jwksFile, url: f.jwksURL, caFile: f.jwksCAFile, flag: "--deploy-api-jwks"}, log)
	if errors.Is(err, errNoJWKS) {
		return nil, errors.New("--deploy-api-bind-address needs --deploy-api-jwks-file or --deploy-api-jwks-url: the keys deploy API tokens are verified with")
	}
	return keys, err
}

// jwksSource is where one key set comes from: a file, or an https URL with
// an optional CA file; flag is the flags' common prefix, for errors.
type jwksSource struct {
	file, url, caFile, flag string
}

// errNoJWKS: neither the file nor the URL is set.
var errNoJWKS = errors.New("no JWKS configured")

// jwksKeySet is the key set of src: exactly one of the JWKS file (which
// must load now) or the JWKS URL (fetched on first use); errNoJWKS when
// neither is set.
func jwksKeySet(src jwksSource, log logr.Logger) (auth.KeySet, error) {
	switch {
	case src.file != "" && src.url != "":
		return nil, fmt.Errorf("%s-file and %s-url are exclusive", src.flag, src.flag)
	case src.file != "":
		keys, err := auth.NewFileKeys(src.file)
		if err != nil {
			return nil, err
		}
		keys.Log = log
		return keys, nil
	case src.url != "":
		var ca []byte
		if src.caFile != "" {
			var err error
			if ca, err = os.ReadFile(src.caFile); err != nil {
				return nil, fmt.Errorf("%s-ca-file: %w", src.flag, err)
			}
		}
		keys, err := auth.NewURLKeys(src.url, ca, 0)
		if err != nil {
			return nil, err
		}
		keys.Log = log
		return keys, nil
	}
	return nil, errNoJWKS
}
