// Command omnia-operator is the manager: validating webhooks, controllers
// and the deploy API over one shared cache, metrics registry and health
// endpoints. Every replica serves webhooks; controllers run on the leader.
//
// main does the wiring, in one place: it binds the flags (operatorFlags,
// a group per topic file) to the command line, parses them, builds the
// operator value holding what the setups share, and hands it to each setup
// in turn. Nothing is registered from init() and no flag lives in a
// package variable, so a test binds the flags to a flag set of its own.
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
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/altairalabs/omnia/admission"
	"github.com/altairalabs/omnia/api/v1alpha1"
)

func main() {
	flags := &operatorFlags{}
	flags.bind(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&flags.zap)))
	log := ctrl.Log.WithName("omnia-operator")

	// The flags the webhooks and the cache need are checked before the
	// operator connects to anything: a bad value is a usage error.
	mode, err := admission.ParseMode(flags.admission.mode)
	if err != nil {
		log.Error(err, "bad --enforcement-mode")
		os.Exit(2)
	}
	flags.servers.watched, err = parseWatchNamespaces(flags.watch.namespaces, ownNamespace())
	if err != nil {
		log.Error(err, "bad --watch-namespaces")
		os.Exit(2)
	}
	if _, err := flags.podSecurity.settings(); err != nil {
		log.Error(err, "bad pod security flags")
		os.Exit(2)
	}
	op := newOperator(flags)

	scheme := runtime.NewScheme()
	must(clientgoscheme.AddToScheme(scheme))
	must(v1alpha1.AddToScheme(scheme))

	cfg := ctrl.GetConfigOrDie()
	cert := newServingCert(flags.servers.certDir)
	mgr, err := ctrl.NewManager(cfg, flags.servers.managerOptions(scheme, cert))
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

	// Each setup stops the operator, named, when it fails. In this order:
	// the webhooks, the controllers and the audit read the licence and the
	// policies the first two set up.
	setup := func(what string, err error) {
		if err != nil {
			log.Error(err, "setting up "+what)
			os.Exit(1)
		}
	}
	setup("the licence", setupLicense(mgr, op))
	setup("the policies", setupPolicies(mgr, op))
	setup("the webhooks", setupWebhooks(mgr, op))
	setup("the controllers", setupControllers(mgr, op))
	setup("the background audit", setupAudit(mgr, op))
	setup("the deploy API", setupDeployAPI(mgr, op, cert))

	must(mgr.AddHealthzCheck("healthz", healthz.Ping))
	// Ready only once the caches have synced and the webhook server answers
	// a TLS handshake with its loaded serving certificate.
	must(mgr.AddReadyzCheck("webhook-certificate", cert.Checker))
	must(mgr.AddReadyzCheck("webhooks", mgr.GetWebhookServer().StartedChecker()))
	must(mgr.AddReadyzCheck("informers", cacheSynced(mgr.GetCache())))

	log.Info("starting", "enforcementMode", mode, "webhookPort", flags.servers.webhookPort, "leaderElection", flags.servers.leaderElect)
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
