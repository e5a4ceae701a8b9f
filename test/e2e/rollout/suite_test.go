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
	"errors"
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/altairalabs/omnia/test/controlplane"
)

var (
	cluster   *controlplane.Cluster
	operator  *controlplane.Operator
	k8sClient client.Client
	logDir    string
)

func TestRollout(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia rollout e2e")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(GinkgoLogr)
	var err error
	logDir, err = os.MkdirTemp("", "omnia-e2e-rollout-")
	Expect(err).NotTo(HaveOccurred())
	cluster, operator, err = controlplane.WithOperatorCluster(controlplane.Options{}, logDir)
	Expect(err).NotTo(HaveOccurred())

	k8sClient, err = controlplane.NewClient(cluster.Config)
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	// A permission the generated RBAC lacks (deleting the candidate
	// Deployment, writing the promoted spec) fails StopChecked.
	var errs []error
	if operator != nil {
		errs = append(errs, operator.StopChecked())
	}
	if cluster != nil {
		errs = append(errs, controlplane.StopEnvironment(cluster.Environment, cluster.Stop))
	}
	err := errors.Join(errs...)
	controlplane.KeepLogsIfFailed(logDir, err != nil || CurrentSpecReport().Failed(), GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
})
