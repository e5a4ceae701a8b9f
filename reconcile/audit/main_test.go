package audit

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/test/controlplane"
)

// The audit tests run against a real API server (every Omnia CRD and the
// OpenReports CRDs installed, no webhook: objects with findings are stored
// as in a cluster whose webhook was off or in audit mode) with a manager
// whose cache the Auditor reads, as in the operator. The tests run one
// after the other: the audit is cluster-wide.
var (
	testEnv *envtest.Environment
	testMgr ctrl.Manager
	// direct reads and writes Omnia objects and Namespaces uncached;
	// reportsClient does the same for OpenReports.
	direct        client.Client
	reportsClient client.Client
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	var err error
	testEnv, err = controlplane.Start(controlplane.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = testEnv.Stop() }()
	if err := controlplane.InstallOpenReportsCRDs(testEnv.Config); err != nil {
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
	direct, err = client.New(testEnv.Config, client.Options{Scheme: scheme})
	if err != nil {
		panic(err)
	}
	reportsScheme := runtime.NewScheme()
	if err := openreportsv1alpha1.Install(reportsScheme); err != nil {
		panic(err)
	}
	reportsClient, err = client.New(testEnv.Config, client.Options{Scheme: reportsScheme})
	if err != nil {
		panic(err)
	}
	testMgr, err = ctrl.NewManager(testEnv.Config, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := testMgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "manager:", err)
		}
	}()
	if !testMgr.GetCache().WaitForCacheSync(ctx) {
		panic("cache did not sync")
	}
	code := m.Run()
	cancel()
	<-done
	return code
}

var nsSeq int

// namespace creates a namespace of the test's own.
func namespace(t *testing.T) string {
	t.Helper()
	nsSeq++
	name := fmt.Sprintf("audit-%d-%d", os.Getpid()%1000, nsSeq)
	if err := direct.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	return name
}

// poll retries f every 100ms until it returns nil or timeout passes.
func poll(t *testing.T, timeout time.Duration, what string, f func() error) {
	t.Helper()
	var err error
	if wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		err = f()
		return err == nil, nil
	}) != nil {
		t.Fatalf("%s within %s: %v", what, timeout, err)
	}
}
