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
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/altairalabs/omnia/api/v1alpha1"
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

	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	k8sClient, err = client.New(cluster.Config, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	if operator != nil {
		operator.Stop()
		// The operator runs as its ServiceAccount: a permission the
		// generated RBAC lacks (deleting the candidate Deployment, writing
		// the promoted spec) shows up as a refusal in its log.
		forbidden, err := operator.Forbidden()
		Expect(err).NotTo(HaveOccurred())
		Expect(forbidden).To(BeEmpty(), "the API server refused the operator permissions (fix the +kubebuilder:rbac markers)")
	}
	if cluster != nil {
		controlplane.RemoveWebhooks(cluster.Environment)
		Expect(cluster.Stop()).To(Succeed())
	}
	if !CurrentSpecReport().Failed() {
		_ = os.RemoveAll(logDir)
	} else {
		GinkgoWriter.Printf("operator and cluster component logs kept in %s\n", logDir)
	}
})
