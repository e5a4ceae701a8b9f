// Package rollout runs a progressive rollout end to end: the operator
// binary as `make run` starts it (webhooks over TLS, its ServiceAccount and
// the generated RBAC, leader election) on the local cluster
// (controlplane.WithOperatorCluster: kube-controller-manager, the scheduler
// and a kwok Node), so the stable and candidate Deployments get Ready pods
// from the cluster's own controllers. The operator runs on the real clock:
// the canary's pause is short (2s).
//
// Why a suite of its own: the rollout group's behaviour is judged on the
// operator binary with its own flags (none yet) without sharing a cluster
// with the specs of test/e2e.
package rollout

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/altairalabs/omnia/test/e2e/framework"
)

var suite *framework.Suite

func TestRollout(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia rollout e2e")
}

var _ = ReportAfterEach(framework.RecordSpecFailure)

var _ = BeforeSuite(func() {
	suite = framework.Start("rollout", framework.OperatorOptions{Cluster: true})
})

// A permission the generated RBAC lacks (deleting the candidate
// Deployment, writing the promoted spec) fails Stop.
var _ = AfterSuite(func() { suite.Stop() })
