// Command run-local is `make run`: it starts etcd and kube-apiserver (the
// binaries hack/build-control-plane.sh built into bin/) with their state under
// .local/, installs the project's CRDs, makes it a cluster with
// kube-controller-manager, kube-scheduler and a kwok-simulated Node (KEDA's
// and OpenReports' CRDs installed from their Go modules; logs under
// .local/cluster), registers the validating webhooks with a CA and serving
// certificate generated under .local/webhook-certs, runs the operator
// (bin/omnia-operator) against it as its ServiceAccount with the generated RBAC and leader election on (Lease in omnia-system), writes .local/kubeconfig once
// everything answers, and serves until interrupted. Unless started with
// --open-core it installs a development licence (license.go). The etcd data and the API
// data survives to the next run.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap/zapcore"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/altairalabs/omnia/admission"
	"github.com/altairalabs/omnia/test/controlplane"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "run-local:", err)
		os.Exit(1)
	}
}

func run() error {
	// envtest logs through controller-runtime; show its errors only.
	ctrllog.SetLogger(zap.New(zap.Level(zapcore.ErrorLevel)))
	stateDir := flag.String("state-dir", ".local", "directory holding etcd data, API server certificates and the kubeconfig (relative to the repository root unless absolute)")
	operatorBin := flag.String("operator", "bin/omnia-operator", "the omnia-operator binary (relative to the repository root unless absolute)")
	openCore := flag.Bool("open-core", false, "start without the development licence (make run OPEN_CORE=1): the open-core licence applies")
	gatewayAPI := flag.Bool("gateway-api", true, "install the Gateway API's CRDs (from sigs.k8s.io/gateway-api's module), so facades[].expose can create HTTPRoutes")
	istio := flag.Bool("istio", false, "install Istio's CRDs (from istio.io/api's module; make run ISTIO=1): rollouts then resolve an unset trafficRouting.mode to mesh")
	flag.Parse()

	root, err := controlplane.RepoRoot()
	if err != nil {
		return err
	}
	state, err := filepath.Abs(underRoot(root, *stateDir))
	if err != nil {
		return err
	}
	// The API server's certificates are made anew each run (envtest only
	// loads a CA it generated itself); the etcd data is what survives.
	if err := os.RemoveAll(filepath.Join(state, "apiserver")); err != nil {
		return err
	}
	for _, dir := range []string{"etcd", "apiserver"} {
		if err := os.MkdirAll(filepath.Join(state, dir), 0o700); err != nil {
			return err
		}
	}
	kubeconfigPath := filepath.Join(state, "kubeconfig")
	// A kubeconfig left by an earlier run must not look like readiness.
	_ = os.Remove(kubeconfigPath)
	crds, err := controlplane.LoadCRDs(nil)
	if err != nil {
		return err
	}

	env := &envtest.Environment{
		BinaryAssetsDirectory:    filepath.Join(root, "bin"),
		CRDs:                     crds,
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	env.ControlPlane.Etcd = &envtest.Etcd{DataDir: filepath.Join(state, "etcd")}
	env.ControlPlane.APIServer = &envtest.APIServer{CertDir: filepath.Join(state, "apiserver")}
	// The webhooks skip the operator's namespace; the registration and the
	// operator's --excluded-namespace take the same value.
	excluded := admission.DefaultExcludedNamespace
	hooks, err := controlplane.ValidatingWebhooks(excluded)
	if err != nil {
		return err
	}
	env.WebhookInstallOptions = envtest.WebhookInstallOptions{
		ValidatingWebhooks: hooks,
		LocalServingHost:   "127.0.0.1",
	}

	fmt.Fprintf(os.Stderr, "starting etcd and kube-apiserver (state in %s)\n", state)
	if _, err := env.Start(); err != nil {
		_ = env.Stop()
		return fmt.Errorf("starting the control plane: %w", err)
	}
	defer func() {
		fmt.Fprintln(os.Stderr, "stopping kube-apiserver and etcd")
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "run-local: stopping:", err)
		}
	}()

	// The controllers, the scheduler and the simulated Node: an applied
	// Deployment gets ready pods (no container runs). Stopped before the
	// API server (defers run last-in first-out).
	fmt.Fprintln(os.Stderr, "starting kube-controller-manager, kube-scheduler and kwok")
	comps, err := controlplane.StartComponents(env, filepath.Join(state, "cluster"))
	if err != nil {
		return err
	}
	defer comps.Stop()
	componentExited := comps.Exited()
	// Third-party CRDs the operator uses when served; installed before the
	// operator starts, which looks for them once at startup.
	if *gatewayAPI {
		if err := controlplane.InstallGatewayAPICRDs(env.Config); err != nil {
			return err
		}
	}
	if *istio {
		if err := controlplane.InstallIstioCRDs(env.Config); err != nil {
			return err
		}
	}

	kubeconfig, err := controlplane.AdminKubeconfig(env, "omnia-admin")
	if err != nil {
		return err
	}
	defer controlplane.RemoveWebhooks(env)

	// The operator reads its own copy of the kubeconfig and the webhook
	// serving certificate envtest generated for this run.
	certDir := filepath.Join(state, "webhook-certs")
	if err := controlplane.CopyCerts(env.WebhookInstallOptions.LocalServingCertDir, certDir); err != nil {
		return err
	}
	// The operator runs as its ServiceAccount with the generated RBAC, as
	// in a cluster, not as the admin the kubeconfig above is for.
	opKubeconfig, err := controlplane.OperatorKubeconfig(env.Config)
	if err != nil {
		return err
	}
	operatorKubeconfig := filepath.Join(state, "operator.kubeconfig")
	if err := os.WriteFile(operatorKubeconfig, opKubeconfig, 0o600); err != nil {
		return err
	}
	// The development licence (every feature, customer "local development"),
	// trusted by this operator only; --open-core starts without it.
	licenseArgs, err := setupDevLicense(context.Background(), env.Config, state, excluded, *openCore)
	if err != nil {
		return err
	}
	// The Arena work queue: a redis-server of this run under .local/redis
	// (Debian's package, installed by hack/ensure-redis.sh). With the
	// development licence the Arena controllers run (--arena) and use it as
	// the operator-wide queue; its URL reaches the operator in a 0600 file.
	arenaArgs, stopRedis, err := startArenaQueue(state)
	if err != nil {
		return err
	}
	defer stopRedis()
	// The deploy API, with a development token-signing key
	// (hack/deploy-token mints tokens with it).
	deployArgs, deployURL, err := setupDeployAPI(state, env.WebhookInstallOptions.LocalServingCAData)
	if err != nil {
		return err
	}
	op, err := controlplane.StartOperator(controlplane.OperatorOptions{
		Binary:      underRoot(root, *operatorBin),
		Kubeconfig:  operatorKubeconfig,
		CertDir:     certDir,
		CAData:      env.WebhookInstallOptions.LocalServingCAData,
		WebhookPort: env.WebhookInstallOptions.LocalServingPort,
		LogPath:     filepath.Join(state, "operator.log"),
		// The Arena controllers (enterprise) run in local development, as
		// enterprise.enabled in the chart, with their queue's redis-server
		// (arenaArgs holds --arena); with --open-core they still run and the
		// licence gates refuse what needs a licence.
		Args: append(append(append([]string{"--excluded-namespace", excluded}, licenseArgs...), arenaArgs...), deployArgs...),
	})
	if err != nil {
		return err
	}
	defer op.Stop()
	// "operator ready" means the webhooks answer: a client (the test, a
	// developer's kubectl) may create objects at once, and a webhook that
	// is not listening yet refuses them (connection refused).
	if err := op.WaitReady(2 * time.Minute); err != nil {
		return err
	}
	if *openCore {
		fmt.Fprintln(os.Stderr, "open-core: no licence installed (enterprise features are refused)")
	} else {
		fmt.Fprintf(os.Stderr, "development licence installed in %s/%s (customer %q, every feature; key and token under %s)\n",
			excluded, "arena-license", devLicenseCustomer, filepath.Join(state, "license"))
	}
	fmt.Fprintf(os.Stderr, "operator ready (webhooks on 127.0.0.1:%d, %s, log %s)\n", env.WebhookInstallOptions.LocalServingPort, op.MetricsURL, op.LogPath)
	fmt.Fprintf(os.Stderr, "deploy API at %s (CA %s; a token: go run ./hack/deploy-token -workspace <name>)\n",
		deployURL, filepath.Join(state, "deploy-api", "ca.crt"))
	// Prove the kubeconfig answers before publishing it, so a caller that
	// waits for the file can use it at once.
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		return err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	if _, err := dc.ServerVersion(); err != nil {
		return fmt.Errorf("the API server does not answer: %w", err)
	}
	tmp := kubeconfigPath + ".tmp"
	if err := os.WriteFile(tmp, kubeconfig, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, kubeconfigPath); err != nil {
		return err
	}
	rel, err := filepath.Rel(root, kubeconfigPath)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = kubeconfigPath
	}
	fmt.Printf("control plane ready: kubectl --kubeconfig %s get agents\n", rel)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	select {
	case <-ctx.Done():
	case err := <-op.Exited():
		_ = os.Remove(kubeconfigPath)
		return fmt.Errorf("the operator exited (log: %s): %v", op.LogPath, err)
	case err := <-componentExited:
		_ = os.Remove(kubeconfigPath)
		return fmt.Errorf("a cluster component stopped: %w", err)
	}
	// The kubeconfig's credentials die with this API server's session.
	_ = os.Remove(kubeconfigPath)
	return nil
}

// underRoot resolves a flag's path against the repository root unless it is
// absolute.
func underRoot(root, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(root, path)
}
