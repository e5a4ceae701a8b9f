package framework

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CreateNamespace creates a namespace named <prefix>-<random> and returns
// its name: each spec gets its own, so specs never see each other's
// objects and none has to clean up.
func CreateNamespace(c client.Client, prefix string) string {
	ginkgo.GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	gomega.Expect(c.Create(context.Background(), ns)).To(gomega.Succeed())
	return ns.Name
}

// EnsureNamespace creates the namespace name unless it exists: for the
// fixed namespaces a suite's install or several specs share (the
// operator's, the watched ones).
func EnsureNamespace(c client.Client, name string) {
	ginkgo.GinkgoHelper()
	err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if !apierrors.IsAlreadyExists(err) {
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
	}
}
