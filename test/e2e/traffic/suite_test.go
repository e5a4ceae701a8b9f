// Package traffic runs a rollout's traffic routing end to end: the operator
// binary as `make run` starts it (webhooks over TLS, its ServiceAccount and
// the generated RBAC, leader election) on the local cluster
// (controlplane.WithOperatorCluster with Istio's CRDs installed from
// istio.io/api's module before the operator starts), so an agent's rollout
// resolves to mode mesh and the operator's VirtualService carries the
// step's weight. No istiod runs: nothing acts on the Istio objects.
//
// Why a suite of its own: with Istio's CRDs served every rollout of the
// cluster resolves to mesh, which the other suites (replicaWeighted) must
// not see.
package traffic

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/altairalabs/omnia/test/controlplane"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

var suite *framework.Suite

func TestTraffic(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia rollout traffic e2e")
}

var _ = ReportAfterEach(framework.RecordSpecFailure)

var _ = BeforeSuite(func() {
	// The analysis step is enterprise: the operator trusts a test licence
	// key, and a licence signed with it is installed before the specs.
	suite = framework.Start("traffic", framework.OperatorOptions{
		Cluster: true, ControlPlane: controlplane.Options{Istio: true}, TrustLicenceKey: true,
	})
	suite.InstallLicence(context.Background(), "traffic-e2e", "traffic e2e")
})

// A permission the generated RBAC lacks (writing VirtualServices) fails
// Stop.
var _ = AfterSuite(func() { suite.Stop() })
