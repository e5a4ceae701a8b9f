package framework

import (
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/altairalabs/omnia/test/controlplane"
)

// OperatorOptions says how a suite's operator and control plane differ from
// test/e2e's: each suite of its own exists for one of these.
type OperatorOptions struct {
	// Cluster starts the local cluster (the controller-manager, the
	// scheduler and a kwok Node) rather than the API server alone, so the
	// Deployments the operator applies get Ready pods.
	Cluster bool
	// GatewayAPI installs the Gateway API's CRDs before the operator
	// starts (it looks for the HTTPRoute kind once, at startup). It starts
	// the local cluster, as Cluster does.
	GatewayAPI bool
	// ControlPlane is passed to test/controlplane as is (Istio's CRDs, the
	// operator's RBAC source, its environment).
	ControlPlane controlplane.Options
	// Args are the operator's flags.
	Args []string
	// Schemes add kinds to the client's scheme (e.g. gatewayv1.Install).
	Schemes []func(*runtime.Scheme) error
	// TrustLicenceKey generates Suite.LicenceKey and starts the operator
	// trusting it (--license-public-key); the suite starts open-core until
	// InstallLicence.
	TrustLicenceKey bool
	// CollectWarnings puts the API server's warnings to the client into
	// Suite.Warnings instead of the log, for specs that check an admission
	// warning.
	CollectWarnings bool
}

// operatorReady bounds the wait for the operator's readiness endpoint: a
// start on a shared, loaded machine can take more than a minute.
const operatorReady = 2 * time.Minute

// StartOperator starts the control plane with the webhooks registered over
// TLS and the operator binary serving them as `make run` runs it (as its
// ServiceAccount with the generated RBAC, leader election on), waits until
// it is ready, and builds the suite's client. Controller-runtime's log (the
// client's warnings among it) goes to the Ginkgo log.
func (s *Suite) StartOperator(o OperatorOptions) {
	ginkgo.GinkgoHelper()
	logf.SetLogger(ginkgo.GinkgoLogr)
	args := o.Args
	if o.TrustLicenceKey {
		args = append(args, "--license-public-key", s.trustLicenceKey())
	}
	var err error
	switch {
	case o.GatewayAPI:
		s.Cluster, s.Operator, err = controlplane.WithGatewayAPIOperatorCluster(o.ControlPlane, s.LogDir, args...)
	case o.Cluster:
		s.Cluster, s.Operator, err = controlplane.WithOperatorCluster(o.ControlPlane, s.LogDir, args...)
	default:
		s.Env, s.Operator, err = controlplane.WithOperator(o.ControlPlane, s.LogDir, args...)
	}
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	if s.Cluster != nil {
		s.Env = s.Cluster.Environment
	}
	gomega.Expect(s.Operator.WaitReady(operatorReady)).To(gomega.Succeed())
	s.newClient(o.Schemes, o.CollectWarnings)
}

// StartCluster starts the local cluster without the operator, its
// components' logs under LogDir/cluster, and builds the suite's client: for
// a suite that runs controllers in-process (test/e2e/arenaschedule).
func (s *Suite) StartCluster(opts controlplane.Options) {
	ginkgo.GinkgoHelper()
	var err error
	s.Cluster, err = controlplane.StartCluster(opts, s.Path("cluster"))
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	s.Env = s.Cluster.Environment
	s.newClient(nil, false)
}

func (s *Suite) newClient(schemes []func(*runtime.Scheme) error, collectWarnings bool) {
	ginkgo.GinkgoHelper()
	cfg := *s.Env.Config
	if collectWarnings {
		s.Warnings = &WarningLog{}
		cfg.WarningHandlerWithContext = s.Warnings
	}
	var err error
	s.Client, err = controlplane.NewClient(&cfg, schemes...)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
}
