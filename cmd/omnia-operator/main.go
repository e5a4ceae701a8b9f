// Command omnia-operator is the manager: validating webhooks (and, as the
// control plane grows, controllers and the deploy API) over one shared cache,
// metrics registry and health endpoints. Every replica serves webhooks;
// controllers run on the leader.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/altairalabs/omnia/admission"
	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

func main() {
	var (
		metricsAddr   string
		probeAddr     string
		webhookPort   int
		webhookHost   string
		certDir       string
		modeName      string
		leaderElect   bool
		severities    = rules.SeverityOverrides{}
		zapOpts       = zap.Options{}
		leaderElectNS string
	)
	var (
		excludedNS     string
		allowDowngrade bool
	)
	flag.StringVar(&metricsAddr, "metrics-bind-address", ":8080", "address /metrics is served on; 0 disables it")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "address /healthz and /readyz are served on")
	flag.IntVar(&webhookPort, "webhook-port", 9443, "port the validating webhooks are served on (TLS)")
	flag.StringVar(&webhookHost, "webhook-host", "", "address the webhooks bind to; empty binds every interface")
	flag.StringVar(&certDir, "webhook-cert-dir", "/tmp/k8s-webhook-server/serving-certs", "directory holding the webhook's tls.crt and tls.key")
	flag.StringVar(&modeName, "enforcement-mode", string(admission.ModeEnforce), "global admission mode: enforce, warn or audit; a namespace label "+admission.NamespaceModeLabel+" may make it stricter (or laxer with --allow-namespace-downgrade)")
	flag.Var(severities, "rule-severity", "raise (or set) a rule's severity: <rule-id>=deny|warn; repeatable")
	flag.BoolVar(&leaderElect, "leader-elect", false, "elect a leader (through a Lease) so only one replica runs controllers")
	flag.StringVar(&leaderElectNS, "leader-election-namespace", "", "namespace of the leader-election Lease (defaults to the in-cluster namespace)")
	flag.StringVar(&excludedNS, "excluded-namespace", ownNamespace(), "namespace the webhooks never validate (the operator's own); the webhook registration's namespaceSelector must skip the same one")
	flag.BoolVar(&allowDowngrade, "allow-namespace-downgrade", false, "let the namespace label "+admission.NamespaceModeLabel+" choose a less strict mode than --enforcement-mode (enforce > warn > audit)")
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	log := ctrl.Log.WithName("omnia-operator")

	mode, err := admission.ParseMode(modeName)
	if err != nil {
		log.Error(err, "bad --enforcement-mode")
		os.Exit(2)
	}

	scheme := runtime.NewScheme()
	must(clientgoscheme.AddToScheme(scheme))
	must(v1alpha1.AddToScheme(scheme))

	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsserver.Options{BindAddress: metricsAddr},
		HealthProbeBindAddress:  probeAddr,
		LeaderElection:          leaderElect,
		LeaderElectionID:        "omnia-operator.omnia.altairalabs.ai",
		LeaderElectionNamespace: leaderElectNS,
		WebhookServer: webhook.NewServer(webhook.Options{
			Host:    webhookHost,
			Port:    webhookPort,
			CertDir: certDir,
		}),
	})
	if err != nil {
		log.Error(err, "creating the manager")
		os.Exit(1)
	}

	reader := mgr.GetClient()
	admission.Register(mgr.GetWebhookServer(), scheme, &admission.Config{
		Catalog:  rules.Default,
		Mode:     mode,
		Severity: severities,
		Facts:    rules.NoFacts{},
		Metrics:  admission.NewMetrics(metrics.Registry),
		NamespaceLabels: func(ctx context.Context, name string) (map[string]string, error) {
			ns := &corev1.Namespace{}
			if err := reader.Get(ctx, client.ObjectKey{Name: name}, ns); err != nil {
				return nil, err
			}
			return ns.Labels, nil
		},
		ExcludedNamespace:       excludedNS,
		AllowNamespaceDowngrade: allowDowngrade,
	})

	for _, setup := range controllerSetups {
		if err := setup(mgr); err != nil {
			log.Error(err, "setting up a controller")
			os.Exit(1)
		}
	}

	must(mgr.AddHealthzCheck("healthz", healthz.Ping))
	must(mgr.AddReadyzCheck("webhooks", mgr.GetWebhookServer().StartedChecker()))

	log.Info("starting", "enforcementMode", mode, "webhookPort", webhookPort)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "manager stopped")
		os.Exit(1)
	}
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
