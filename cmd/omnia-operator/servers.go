package main

import (
	"crypto/tls"
	"flag"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

// Leader election: the Lease lives in the operator's namespace (omnia-system
// in config/default); controller-runtime's lock gets, creates and updates it
// and records the leadership change as a core event there.
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;create;update,namespace=omnia-system
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch,namespace=omnia-system

// Metrics are served over HTTPS to authenticated and authorized clients only:
// the filter asks the API server to review the caller's bearer token and
// whether it may get the /metrics path (config/rbac/metrics_reader_role.yaml
// grants that to scrapers).
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// LeaderElectionID names the Lease the replicas compete for.
const LeaderElectionID = "omnia-operator.omnia.altairalabs.ai"

// serverFlags are the flags of the manager's servers (webhooks, metrics,
// health probes) and of leader election.
type serverFlags struct {
	metricsAddr    string
	metricsCertDir string
	probeAddr      string
	webhookPort    int
	webhookHost    string
	certDir        string
	enableHTTP2    bool

	leaderElect   bool
	leaderElectNS string
	leaseDuration time.Duration
	renewDeadline time.Duration
	retryPeriod   time.Duration

	pprof pprofFlags

	// watched are the namespaces of --watch-namespaces, set after parsing
	// (nil: every namespace).
	watched []string
}

func (f *serverFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&f.metricsAddr, "metrics-bind-address", ":8443", "address /metrics is served on over HTTPS (authenticated and authorized through the API server); 0 disables it")
	fs.StringVar(&f.metricsCertDir, "metrics-cert-dir", "", "directory holding the metrics server's tls.crt and tls.key; empty (or no files there) serves a self-signed certificate")
	fs.StringVar(&f.probeAddr, "health-probe-bind-address", ":8081", "address /healthz and /readyz are served on")
	fs.IntVar(&f.webhookPort, "webhook-port", 9443, "port the validating webhooks are served on (TLS)")
	fs.StringVar(&f.webhookHost, "webhook-host", "", "address the webhooks bind to; empty binds every interface")
	fs.StringVar(&f.certDir, "webhook-cert-dir", "/tmp/k8s-webhook-server/serving-certs", "directory holding the webhook's tls.crt and tls.key; the operator is not ready until they load")
	fs.BoolVar(&f.enableHTTP2, "enable-http2", false, "serve HTTP/2 on the webhook and metrics servers (off by default: HTTP/2 stream-reset and rapid-reset attacks, CVE-2023-44487 and CVE-2023-39325)")
	fs.BoolVar(&f.leaderElect, "leader-elect", true, "elect a leader (through a Lease) so only one replica runs controllers; every replica serves webhooks")
	fs.StringVar(&f.leaderElectNS, "leader-election-namespace", "", "namespace of the leader-election Lease (defaults to the in-cluster namespace)")
	fs.DurationVar(&f.leaseDuration, "leader-elect-lease-duration", 15*time.Second, "how long a non-leader waits after the last renewal before taking the Lease over")
	fs.DurationVar(&f.renewDeadline, "leader-elect-renew-deadline", 10*time.Second, "how long the leader keeps retrying to renew before it gives up leadership")
	fs.DurationVar(&f.retryPeriod, "leader-elect-retry-period", 2*time.Second, "how often candidates try to acquire or renew the Lease")
	f.pprof.bind(fs)
}

// tlsOpts returns the TLS options shared by the webhook and metrics servers.
func (f *serverFlags) tlsOpts() []func(*tls.Config) {
	if f.enableHTTP2 {
		return nil
	}
	return []func(*tls.Config){func(c *tls.Config) {
		// Offer only HTTP/1.1 in ALPN: the servers then never speak HTTP/2.
		c.NextProtos = []string{"http/1.1"}
	}}
}

// managerOptions builds the manager's options: the webhook server serving
// cert's certificate, metrics over HTTPS behind the API server's
// authentication and authorization, leader election, and a cache that never
// holds Secret data.
func (f *serverFlags) managerOptions(scheme *runtime.Scheme, cert *servingCert) ctrl.Options {
	tlsOpts := f.tlsOpts()
	webhookTLS := append(append([]func(*tls.Config){}, tlsOpts...), func(c *tls.Config) {
		// The certificate comes from cert, which tolerates a directory that
		// is still empty (cert-manager has not issued yet): the server runs,
		// refuses handshakes and /readyz says why, instead of the process
		// exiting.
		c.GetCertificate = cert.GetCertificate
	})
	leaseDuration, renewDeadline, retryPeriod := f.leaseDuration, f.renewDeadline, f.retryPeriod
	return ctrl.Options{
		Scheme: scheme,
		Metrics: metricsserver.Options{
			BindAddress:    f.metricsAddr,
			SecureServing:  true,
			CertDir:        f.metricsCertDir,
			FilterProvider: filters.WithAuthenticationAndAuthorization,
			TLSOpts:        tlsOpts,
		},
		HealthProbeBindAddress:  f.probeAddr,
		PprofBindAddress:        f.pprof.addr,
		LeaderElection:          f.leaderElect,
		LeaderElectionID:        LeaderElectionID,
		LeaderElectionNamespace: f.leaderElectNS,
		// The process exits right after the manager stops, so the leader
		// may hand the Lease back on SIGTERM: the next replica takes over
		// at once instead of after the lease duration.
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &leaseDuration,
		RenewDeadline:                 &renewDeadline,
		RetryPeriod:                   &retryPeriod,
		Cache:                         cacheOptions(f.watched),
		Client: client.Options{Cache: &client.CacheOptions{
			// Secrets and ConfigMaps are never cached with their data: a
			// read through the manager's client goes to the API server. The
			// Provider controller watches Secrets, the PromptPack controller
			// ConfigMaps, as metadata only.
			DisableFor: []client.Object{&corev1.Secret{}, &corev1.ConfigMap{}},
			// Unstructured reads come from the cache too: the only
			// unstructured kind the operator reads is KEDA's ScaledObject
			// (built without KEDA's Go types), which the AgentRuntime
			// controller watches, so its per-reconcile read is local.
			Unstructured: true,
		}},
		WebhookServer: webhook.NewServer(webhook.Options{
			Host:    f.webhookHost,
			Port:    f.webhookPort,
			CertDir: f.certDir,
			TLSOpts: webhookTLS,
		}),
	}
}
