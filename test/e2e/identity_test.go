package e2e

import (
	"context"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/altairalabs/omnia/test/controlplane"
)

// The operator runs as it would in a cluster: as its ServiceAccount, with
// only the generated RBAC. Every spec of the suite then exercises that RBAC;
// AfterSuite fails on any permission the API server refused it.
var _ = Describe("the operator's identity", func() {
	It("is its ServiceAccount, not system:masters, and holds only the generated permissions", func() {
		cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(suite.LogDir, "operator.kubeconfig"))
		Expect(err).NotTo(HaveOccurred())
		cs, err := kubernetes.NewForConfig(cfg)
		Expect(err).NotTo(HaveOccurred())
		ctx := context.Background()

		review, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		user := review.Status.UserInfo
		Expect(user.Username).To(Equal("system:serviceaccount:" + controlplane.OperatorNamespace + ":" + controlplane.OperatorServiceAccount))
		Expect(user.Groups).NotTo(ContainElement("system:masters"))

		can := func(verb, group, resource, namespace string) bool {
			allowed, err := controlplane.Can(ctx, cs, verb, group, resource, namespace)
			Expect(err).NotTo(HaveOccurred())
			return allowed
		}
		// What it needs.
		Expect(can("patch", "omnia.altairalabs.ai", "providers/status", "")).To(BeTrue())
		Expect(can("get", "", "secrets", "")).To(BeTrue())
		Expect(can("update", "coordination.k8s.io", "leases", controlplane.OperatorNamespace)).To(BeTrue())
		// What it must not do.
		// It writes Secrets it makes (a run's queue Secret, the deploy API's
		// credential Secret, updated only while it carries the deploy's
		// mark: deploy/apply) and deletes two kinds of its own while their
		// owner lives: an agent's async queue copy when async is turned off
		// (agentruntime.md § facades[].async says it is deleted) and its
		// OIDC JWKS mirror when oidc is removed. RBAC cannot name "Secrets
		// the operator owns", so delete is granted like patch already is;
		// the controllers delete only a Secret of that fixed name whose
		// controller owner is the agent.
		Expect(can("update", "", "secrets", "")).To(BeTrue())
		Expect(can("delete", "", "secrets", "")).To(BeTrue())
		Expect(can("deletecollection", "", "secrets", "")).To(BeFalse(), "the operator deletes Secrets one by one, never a collection")
		Expect(can("update", "omnia.altairalabs.ai", "providers", "")).To(BeFalse(), "the operator writes only status")
		Expect(can("update", "coordination.k8s.io", "leases", "default")).To(BeFalse(), "leases only in its own namespace")
		Expect(can("create", "rbac.authorization.k8s.io", "clusterrolebindings", "")).To(BeFalse())
	})
})
