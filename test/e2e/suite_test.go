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
// start; nothing reaches the internet.
package e2e

import (
	"errors"
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/altairalabs/omnia/test/controlplane"
)

var (
	env       *envtest.Environment
	cluster   *controlplane.Cluster
	operator  *controlplane.Operator
	k8sClient client.Client
	logDir    string
)

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia e2e")
}

var _ = BeforeSuite(func() {
	// The client's warnings (e.g. a webhook's admission warning) go to the
	// Ginkgo log instead of controller-runtime's "SetLogger never called".
	logf.SetLogger(GinkgoLogr)
	var err error
	logDir, err = os.MkdirTemp("", "omnia-e2e-")
	Expect(err).NotTo(HaveOccurred())
	cluster, operator, err = controlplane.WithOperatorCluster(controlplane.Options{}, logDir)
	Expect(err).NotTo(HaveOccurred())
	env = cluster.Environment

	k8sClient, err = controlplane.NewClient(env.Config)
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	// The operator runs as its ServiceAccount: a permission the generated
	// RBAC lacks shows up as a refusal in its log, and fails StopChecked.
	var errs []error
	if operator != nil {
		errs = append(errs, operator.StopChecked())
	}
	if cluster != nil {
		errs = append(errs, controlplane.StopEnvironment(env, cluster.Stop))
	}
	err := errors.Join(errs...)
	controlplane.KeepLogsIfFailed(logDir, err != nil || CurrentSpecReport().Failed(), GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
})
