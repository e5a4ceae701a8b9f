// Package exposure runs external exposure (agentruntime.md §
// facades[].expose, status.facade.endpoints, status.a2a) end to end on the
// local cluster (test/controlplane: kube-apiserver, etcd,
// kube-controller-manager, kube-scheduler and a kwok Node) with the
// Gateway API's CRDs installed from their Go module before the operator
// binary starts, as its ServiceAccount with the generated RBAC.
//
// Why a suite of its own rather than specs in test/e2e: the operator runs
// with a default-exposure Gateway (--default-exposure-gateway,
// --exposure-base-domain), which test/e2e's operator does not have, and
// the cluster serves the Gateway API, which test/e2e's does not.
//
// No Gateway implementation runs in the local cluster. Where a spec needs a
// route accepted, it writes the route's status.parents itself, playing the
// third-party Gateway controller: that status is the Gateway's report on
// the route, never something the operator writes.
package exposure

import (
	"context"
	"errors"
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/altairalabs/omnia/test/controlplane"
)

// The platform's default-exposure Gateway and base domain, as the
// operator's flags name them.
const (
	gatewayNamespace = "omnia-e2e-edge"
	gatewayName      = "public"
	baseDomain       = "agents.example.com"
)

var (
	cluster   *controlplane.Cluster
	operator  *controlplane.Operator
	k8sClient client.Client
	logDir    string
	anyFailed bool
)

var _ = ReportAfterEach(func(r SpecReport) {
	if r.Failed() {
		anyFailed = true
	}
})

func TestExposure(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia exposure e2e")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(GinkgoLogr)
	var err error
	logDir, err = os.MkdirTemp("", "omnia-e2e-exposure-")
	Expect(err).NotTo(HaveOccurred())
	cluster, operator, err = controlplane.WithGatewayAPIOperatorCluster(controlplane.Options{}, logDir,
		"--default-exposure-gateway="+gatewayNamespace+"/"+gatewayName, "--exposure-base-domain="+baseDomain)
	Expect(err).NotTo(HaveOccurred())

	k8sClient, err = controlplane.NewClient(cluster.Environment.Config, gatewayv1.Install)
	Expect(err).NotTo(HaveOccurred())

	// The platform's Gateway: HTTPS on 443 for every host under the base
	// domain (the operator only reads it: scheme and port of the URLs).
	ctx := context.Background()
	Expect(k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: gatewayNamespace}})).To(Succeed())
	Expect(k8sClient.Create(ctx, &gatewayv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: gatewayNamespace, Name: gatewayName},
		Spec: gatewayv1.GatewaySpec{GatewayClassName: "example", Listeners: []gatewayv1.Listener{{
			Name: "https", Port: 443, Protocol: gatewayv1.HTTPSProtocolType, Hostname: ptr.To(gatewayv1.Hostname("*." + baseDomain)),
		}}},
	})).To(Succeed())
})

var _ = AfterSuite(func() {
	var errs []error
	if operator != nil {
		errs = append(errs, operator.StopChecked())
	}
	if cluster != nil {
		errs = append(errs, controlplane.StopEnvironment(cluster.Environment, cluster.Stop))
	}
	err := errors.Join(errs...)
	controlplane.KeepLogsIfFailed(logDir, err != nil || anyFailed, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
})
