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
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/altairalabs/omnia/test/e2e/framework"
)

// The platform's default-exposure Gateway and base domain, as the
// operator's flags name them.
const (
	gatewayNamespace = "omnia-e2e-edge"
	gatewayName      = "public"
	baseDomain       = "agents.example.com"
)

var suite *framework.Suite

func TestExposure(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia exposure e2e")
}

var _ = ReportAfterEach(framework.RecordSpecFailure)

var _ = BeforeSuite(func() {
	suite = framework.Start("exposure", framework.OperatorOptions{
		GatewayAPI: true,
		Args:       []string{"--default-exposure-gateway=" + gatewayNamespace + "/" + gatewayName, "--exposure-base-domain=" + baseDomain},
		Schemes:    []func(*runtime.Scheme) error{gatewayv1.Install},
	})

	// The platform's Gateway: HTTPS on 443 for every host under the base
	// domain (the operator only reads it: scheme and port of the URLs).
	framework.EnsureNamespace(suite.Client, gatewayNamespace)
	Expect(suite.Client.Create(context.Background(), &gatewayv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: gatewayNamespace, Name: gatewayName},
		Spec: gatewayv1.GatewaySpec{GatewayClassName: "example", Listeners: []gatewayv1.Listener{{
			Name: "https", Port: 443, Protocol: gatewayv1.HTTPSProtocolType, Hostname: ptr.To(gatewayv1.Hostname("*." + baseDomain)),
		}}},
	})).To(Succeed())
})

var _ = AfterSuite(func() { suite.Stop() })
