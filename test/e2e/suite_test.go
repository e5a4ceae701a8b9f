// Package e2e runs Ginkgo suites on the local cluster `make run` starts
// (test/controlplane WithOperatorCluster: kube-apiserver and etcd,
// kube-controller-manager, kube-scheduler and a kwok-simulated Node) with
// the operator binary running exactly as `make run` runs it: webhooks
// registered over TLS, controllers on, as its ServiceAccount with the
// generated RBAC and leader election on. The Deployments the operator
// applies get ReplicaSets and Ready Pods from the cluster's own controllers;
// no spec writes a Deployment's or Pod's status. The whole suite runs on the
// cluster rather than a second suite on it beside this one: the components
// add about a second to the suite's start (measured), and a second control
// plane would cost a whole start. Probes go to local servers the specs
// start; nothing reaches the internet. The suite's start and stop, and the
// helpers its specs share with the other e2e suites (namespaces, prompt
// packs, waits), are test/e2e/framework's.
package e2e

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/altairalabs/omnia/test/e2e/framework"
)

var suite *framework.Suite

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia e2e")
}

var _ = ReportAfterEach(framework.RecordSpecFailure)

var _ = BeforeSuite(func() {
	suite = framework.Start("root", framework.OperatorOptions{Cluster: true})
})

// The operator runs as its ServiceAccount: a permission the generated RBAC
// lacks shows up as a refusal in its log, and fails Stop.
var _ = AfterSuite(func() { suite.Stop() })
