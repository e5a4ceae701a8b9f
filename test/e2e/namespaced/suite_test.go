// Package namespaced runs the namespace-scoped install (config/namespaced,
// docs/install.md § Namespace-scoped install) end to end: the operator
// binary with --watch-namespaces=team-a,team-b, as its ServiceAccount with
// exactly the roles and bindings `kubectl kustomize config/namespaced`
// gives, against a real API server with the webhooks registered over TLS.
//
// Why a suite of its own: the grants and the flag are install-wide, and
// the test/e2e suite's operator runs with config/default's.
package namespaced

import (
	"errors"
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/altairalabs/omnia/test/controlplane"
)

// The namespaces config/namespaced watches, and one it does not.
const (
	watchedA  = "team-a"
	watchedB  = "team-b"
	unwatched = "team-c"
)

var (
	env       *envtest.Environment
	operator  *controlplane.Operator
	k8sClient client.Client
	logDir    string
	anyFailed bool
)

var _ = ReportAfterEach(func(r SpecReport) {
	if r.Failed() {
		anyFailed = true
	}
})

func TestNamespaced(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia namespace-scoped install e2e")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(GinkgoLogr)
	var err error
	logDir, err = os.MkdirTemp("", "omnia-namespaced-e2e-")
	Expect(err).NotTo(HaveOccurred())
	env, operator, err = controlplane.WithOperator(controlplane.Options{OperatorRBAC: "config/namespaced"}, logDir,
		"--watch-namespaces="+watchedA+","+watchedB)
	Expect(err).NotTo(HaveOccurred())
	Expect(operator.WaitReady(2 * time.Minute)).To(Succeed())
	k8sClient, err = controlplane.NewClient(env.Config)
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	var errs []error
	if operator != nil {
		// StopChecked fails on any request the API server refused the
		// operator: an informer or read outside its grants shows here.
		errs = append(errs, operator.StopChecked())
	}
	if env != nil {
		errs = append(errs, controlplane.StopEnvironment(env, env.Stop))
	}
	err := errors.Join(errs...)
	controlplane.KeepLogsIfFailed(logDir, err != nil || anyFailed || CurrentSpecReport().Failed(), GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
})
