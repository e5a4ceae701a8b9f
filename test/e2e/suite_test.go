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
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/altairalabs/omnia/api/v1alpha1"
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

	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	k8sClient, err = client.New(env.Config, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	if operator != nil {
		operator.Stop()
		// The operator runs as its ServiceAccount: a permission the
		// generated RBAC lacks shows up as a refusal in its log.
		forbidden, err := operator.Forbidden()
		Expect(err).NotTo(HaveOccurred())
		Expect(forbidden).To(BeEmpty(), "the API server refused the operator permissions (fix the +kubebuilder:rbac markers)")
	}
	if cluster != nil {
		controlplane.RemoveWebhooks(env)
		Expect(cluster.Stop()).To(Succeed())
	}
	if !CurrentSpecReport().Failed() {
		_ = os.RemoveAll(logDir)
	} else {
		GinkgoWriter.Printf("operator and cluster component logs kept in %s\n", logDir)
	}
})
