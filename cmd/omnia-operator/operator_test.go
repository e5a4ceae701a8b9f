package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/test/controlplane"
)

// These tests run the operator binary against a real API server, as its
// ServiceAccount with the generated RBAC (controlplane.OperatorKubeconfig),
// and probe its servers from outside, as the kubelet, a scraper and the API
// server would. The webhook registrations are removed: several operators
// run side by side on their own ports, and object writes must not depend on
// which one is up.
var (
	env        *envtest.Environment
	binary     string
	kubeconfig string
	admin      client.Client
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	flag.Parse()
	if testing.Short() {
		return m.Run()
	}
	var err error
	binary, err = controlplane.BuildOperator()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(filepath.Dir(binary))
	env, err = controlplane.Start(controlplane.Options{Webhooks: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	controlplane.RemoveWebhooks(env)

	kc, err := controlplane.OperatorKubeconfig(env.Config)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "omnia-operator-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	kubeconfig = filepath.Join(dir, "operator.kubeconfig")
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		panic(err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	admin, err = client.New(env.Config, client.Options{Scheme: scheme})
	if err != nil {
		panic(err)
	}
	return m.Run()
}

// launch starts an operator process named name with its log in the test's
// directory, serving the webhook certificate in certDir on a port of its own;
// it is stopped (SIGTERM) when the test ends unless the test stopped it.
func launch(t *testing.T, name, certDir string, args ...string) *controlplane.Operator {
	t.Helper()
	needsAPIServer(t)
	port, err := controlplane.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	op, err := controlplane.LaunchOperator(controlplane.OperatorOptions{
		Binary:      binary,
		Kubeconfig:  kubeconfig,
		CertDir:     certDir,
		CAData:      env.WebhookInstallOptions.LocalServingCAData,
		WebhookPort: port,
		LogPath:     filepath.Join(t.TempDir(), name+".log"),
		Args:        args,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		op.Stop()
		if lines, err := op.Forbidden(); err != nil || len(lines) > 0 {
			t.Errorf("%s was refused permissions its RBAC should grant (err %v):\n%s", name, err, strings.Join(lines, "\n"))
		}
		if t.Failed() {
			if log, err := os.ReadFile(op.LogPath); err == nil {
				t.Logf("%s log:\n%s", name, log)
			}
		}
	})
	return op
}

// needsAPIServer skips the test under -short, where TestMain starts no
// control plane.
func needsAPIServer(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts kube-apiserver, etcd and operator processes")
	}
}

// operatorLog returns the operator's output so far.
func operatorLog(t *testing.T, op *controlplane.Operator) string {
	t.Helper()
	data, err := os.ReadFile(op.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// eventually retries f every 200ms until it succeeds or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, f func() error) {
	t.Helper()
	var err error
	if wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		err = f()
		return err == nil, nil
	}) != nil {
		t.Fatalf("%s within %s: %v", what, timeout, err)
	}
}

var nsSeq int

func namespace(t *testing.T) string {
	t.Helper()
	nsSeq++
	name := fmt.Sprintf("op-%d-%d", os.Getpid()%1000, nsSeq)
	if err := admin.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	return name
}

// hasStatus reports whether the Provider's controller has written its status.
func hasStatus(ns, name string) error {
	p := &v1alpha1.Provider{}
	if err := admin.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, p); err != nil {
		return err
	}
	if p.Status.Phase == "" || p.Status.ObservedGeneration != p.Generation {
		return fmt.Errorf("provider %s/%s has no status for generation %d yet: %+v", ns, name, p.Generation, p.Status)
	}
	return nil
}

func mockProvider(t *testing.T, ns, name string) {
	t.Helper()
	p := &v1alpha1.Provider{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeMock},
	}
	if err := admin.Create(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}

// leaseHolder returns the holder of the leader-election Lease.
func leaseHolder() (string, error) {
	l := &coordinationv1.Lease{}
	if err := admin.Get(context.Background(), client.ObjectKey{Namespace: controlplane.OperatorNamespace, Name: controlplane.LeaseName}, l); err != nil {
		return "", err
	}
	if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
		return "", fmt.Errorf("lease %s has no holder", controlplane.LeaseName)
	}
	return *l.Spec.HolderIdentity, nil
}
