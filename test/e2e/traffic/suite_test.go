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
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/test/controlplane"
	"github.com/altairalabs/omnia/test/licencetest"
)

var (
	cluster   *controlplane.Cluster
	operator  *controlplane.Operator
	k8sClient client.Client
	logDir    string
)

func TestTraffic(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia rollout traffic e2e")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(GinkgoLogr)
	var err error
	logDir, err = os.MkdirTemp("", "omnia-e2e-traffic-")
	Expect(err).NotTo(HaveOccurred())
	// The analysis step is enterprise: the operator trusts a test licence
	// key, and a licence signed with it is installed below.
	_, licenceKey, err := ed25519.GenerateKey(rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	pub, err := licensing.MarshalPublicKeyPEM(licenceKey.Public())
	Expect(err).NotTo(HaveOccurred())
	pubPath := filepath.Join(logDir, "license.pub")
	Expect(os.WriteFile(pubPath, pub, 0o600)).To(Succeed())
	cluster, operator, err = controlplane.WithOperatorCluster(controlplane.Options{Istio: true}, logDir, "--license-public-key", pubPath)
	Expect(err).NotTo(HaveOccurred())

	k8sClient, err = controlplane.NewClient(cluster.Config)
	Expect(err).NotTo(HaveOccurred())
	Expect(licencetest.InstallLicence(context.Background(), k8sClient, licenceKey, "traffic-e2e", "traffic e2e")).To(Succeed())
})

var _ = AfterSuite(func() {
	// A permission the generated RBAC lacks (writing VirtualServices)
	// fails StopChecked.
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
