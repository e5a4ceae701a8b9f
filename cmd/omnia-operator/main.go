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

	"github.com/altairalabs/omnia/admission"
	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

func main() {
	var (
		servers    serverFlags
		modeName   string
		severities = rules.SeverityOverrides{}
		zapOpts    = zap.Options{}
	)
	var (
		excludedNS     string
		allowDowngrade bool
	)
	servers.bind(flag.CommandLine)
	flag.StringVar(&modeName, "enforcement-mode", string(admission.ModeEnforce), "global admission mode: enforce, warn or audit; a namespace label "+admission.NamespaceModeLabel+" may make it stricter (or laxer with --allow-namespace-downgrade)")
	flag.Var(severities, "rule-severity", "raise (or set) a rule's severity: <rule-id>=deny|warn; repeatable")
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
	servers.watched, err = parseWatchNamespaces(*watchNamespaces, ownNamespace())
	if err != nil {
		log.Error(err, "bad --watch-namespaces")
		os.Exit(2)
	}
	podSecurity, err := podSecuritySettings(*podSecurityLevel, *agentRuntimeClasses)
	if err != nil {
		log.Error(err, "bad pod security flags")
		os.Exit(2)
	}

	scheme := runtime.NewScheme()
	must(clientgoscheme.AddToScheme(scheme))
	must(v1alpha1.AddToScheme(scheme))

	cfg := ctrl.GetConfigOrDie()
	cert := newServingCert(servers.certDir)
	mgr, err := ctrl.NewManager(cfg, servers.managerOptions(scheme, cert))
	if err != nil {
		log.Error(err, "creating the manager")
		os.Exit(1)
	}
	must(mgr.Add(cert))
	// The webhooks read Namespaces from the cache: start that informer with
	// the cache, so /readyz (cache sync) covers it.
	if _, err := mgr.GetCache().GetInformer(context.Background(), &corev1.Namespace{}); err != nil {
		log.Error(err, "starting the Namespace informer")
		os.Exit(1)
	}

	if err := setupLicense(mgr, ownNamespace()); err != nil {
		log.Error(err, "setting up the licence")
		os.Exit(1)
	}

	if err := setupPolicies(mgr); err != nil {
		log.Error(err, "setting up the policies")
		os.Exit(1)
	}

	reader := mgr.GetClient()
	webhookFacts, err := webhookClusterFacts(mgr)
	if err != nil {
		log.Error(err, "setting up the webhook's cluster facts")
		os.Exit(1)
	}
	admission.Register(mgr.GetWebhookServer(), scheme, &admission.Config{
		Catalog:        rules.Default,
		Policies:       policyStore,
		PolicyCompiler: policyEnv,
		Mode:           mode,
		Severity:       severities,
		Facts:          rules.LicenseFacts{Source: licenseStore},
		Metrics:        admission.NewMetrics(metrics.Registry),
		NamespaceLabels: func(ctx context.Context, name string) (map[string]string, error) {
			ns := &corev1.Namespace{}
			if err := reader.Get(ctx, client.ObjectKey{Name: name}, ns); err != nil {
				return nil, err
			}
			return ns.Labels, nil
		},
		// The same cached Namespaces, whole, for policy rules.
		Namespace: func(ctx context.Context, name string) (*corev1.Namespace, error) {
			ns := &corev1.Namespace{}
			if err := reader.Get(ctx, client.ObjectKey{Name: name}, ns); err != nil {
				return nil, err
			}
			ns.APIVersion, ns.Kind = "v1", "Namespace"
			return ns, nil
		},
		ExcludedNamespace:       excludedNS,
		WatchedNamespaces:       servers.watched,
		AllowNamespaceDowngrade: allowDowngrade,
		PodSecurity:             podSecurity,
		ClusterFacts:            webhookFacts,
	})

	if err := setupControllers(mgr); err != nil {
		log.Error(err, "setting up the controllers")
		os.Exit(1)
	}

	// The background audit judges with the catalog in force and runs again
	// shortly after any policy change.
	if err := setupAudit(mgr, policyStore.Catalog, policyStore.Changes); err != nil {
		log.Error(err, "setting up the background audit")
		os.Exit(1)
	}

	if err := setupDeployAPI(mgr, cert, servers.watched); err != nil {
		log.Error(err, "setting up the deploy API")
		os.Exit(1)
	}

	must(mgr.AddHealthzCheck("healthz", healthz.Ping))
	// Ready only once the caches have synced and the webhook server answers
	// a TLS handshake with its loaded serving certificate.
	must(mgr.AddReadyzCheck("webhook-certificate", cert.Checker))
	must(mgr.AddReadyzCheck("webhooks", mgr.GetWebhookServer().StartedChecker()))
	must(mgr.AddReadyzCheck("informers", cacheSynced(mgr.GetCache())))

	log.Info("starting", "enforcementMode", mode, "webhookPort", servers.webhookPort, "leaderElection", servers.leaderElect)
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
