package framework

import (
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/altairalabs/omnia/test/controlplane"
	testredis "github.com/altairalabs/omnia/test/redis"
)

// Suite is one e2e suite's running environment: what its specs use, and
// what Stop stops. Fields stay nil for what the suite did not start.
type Suite struct {
	// Name names the suite in its log directory and its closing line.
	Name string
	// LogDir holds the operator's and the cluster's logs and whatever
	// files the suite writes for the operator (keys, CA files, content);
	// Stop removes it unless something failed.
	LogDir string
	// Env is the control plane (kube-apiserver and etcd).
	Env *envtest.Environment
	// Cluster is Env with the controller-manager, scheduler and kwok Node;
	// nil when the suite runs on the API server alone.
	Cluster *controlplane.Cluster
	// Operator is the operator binary; nil when the suite starts none.
	Operator *controlplane.Operator
	// Client is an admin client whose scheme holds client-go's kinds, the
	// omnia.altairalabs.ai kinds and the suite's extra schemes.
	Client client.Client
	// Redis is the suite's private redis-server (StartRedis).
	Redis *testredis.Server
	// LicenceKey signs the licences the operator trusts
	// (OperatorOptions.TrustLicenceKey).
	LicenceKey ed25519.PrivateKey
	// Warnings collects the API server's warnings to Client
	// (OperatorOptions.CollectWarnings).
	Warnings *WarningLog

	started time.Time
}

// specFailed says a spec of this test binary (one suite) failed: the
// AfterSuite's own report does not say so, and the logs are wanted then.
var specFailed atomic.Bool

// RecordSpecFailure is each suite's ReportAfterEach, so that Stop keeps the
// logs when any spec failed.
func RecordSpecFailure(r ginkgo.SpecReport) {
	if r.Failed() {
		specFailed.Store(true)
	}
}

// NewSuite makes the suite's log directory; call it from BeforeSuite.
func NewSuite(name string) *Suite {
	ginkgo.GinkgoHelper()
	dir, err := os.MkdirTemp("", "omnia-e2e-"+name+"-")
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return &Suite{Name: name, LogDir: dir, started: time.Now()}
}

// Start is NewSuite and StartOperator, for a suite that needs nothing
// before its operator starts.
func Start(name string, o OperatorOptions) *Suite {
	ginkgo.GinkgoHelper()
	s := NewSuite(name)
	s.StartOperator(o)
	return s
}

// Stop stops what the suite started, the operator first: it runs as its
// ServiceAccount with the generated RBAC, so a permission the RBAC lacks
// shows up as a refusal in its log and fails Stop. The webhooks are removed
// before the control plane stops, so nothing calls a stopped operator. Then
// Redis stops and each of checks runs (e.g. on the operator's log); their
// errors fail the suite too. The logs are kept when anything failed. Call
// it from AfterSuite; a nil Suite (NewSuite failed) stops nothing.
func (s *Suite) Stop(checks ...func() error) {
	ginkgo.GinkgoHelper()
	if s == nil {
		return
	}
	var errs []error
	if s.Operator != nil {
		errs = append(errs, s.Operator.StopChecked())
	}
	switch {
	case s.Cluster != nil:
		errs = append(errs, controlplane.StopEnvironment(s.Env, s.Cluster.Stop))
	case s.Env != nil:
		errs = append(errs, controlplane.StopEnvironment(s.Env, s.Env.Stop))
	}
	if s.Redis != nil {
		s.Redis.Stop()
	}
	for _, check := range checks {
		errs = append(errs, check())
	}
	ginkgo.GinkgoWriter.Printf("%s e2e suite took %s\n", s.Name, time.Since(s.started).Round(time.Second))
	err := errors.Join(errs...)
	// No client means the start failed: the specs were skipped, so no spec
	// report says so, and the cluster's logs say why.
	startFailed := s.Client == nil
	controlplane.KeepLogsIfFailed(s.LogDir, err != nil || startFailed || specFailed.Load(), ginkgo.GinkgoWriter)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
}

// Path is elem joined under LogDir, where the suite writes the files it
// hands the operator, so that a failed run keeps them with the logs.
func (s *Suite) Path(elem ...string) string {
	return filepath.Join(append([]string{s.LogDir}, elem...)...)
}
