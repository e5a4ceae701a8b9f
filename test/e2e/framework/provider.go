package framework

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// WaitProviderPhase waits until the Provider ns/name reports phase.
func WaitProviderPhase(c client.Client, ns, name string, phase v1alpha1.ProviderPhase) {
	ginkgo.GinkgoHelper()
	WaitFor(c, &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}, func(g gomega.Gomega, p *v1alpha1.Provider) {
		g.Expect(p.Status.Phase).To(gomega.Equal(phase))
	}, "Provider %s/%s reaches phase %s", ns, name, phase)
}

// CreateMockProvider creates the mock Provider ns/name, which goes Ready
// without a vendor or a credential, and waits until it is Ready: the
// cheapest Provider an agent can reference.
func CreateMockProvider(c client.Client, ns, name string) {
	ginkgo.GinkgoHelper()
	gomega.Expect(c.Create(context.Background(), &v1alpha1.Provider{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeMock},
	})).To(gomega.Succeed())
	WaitProviderPhase(c, ns, name, v1alpha1.ProviderPhaseReady)
}
