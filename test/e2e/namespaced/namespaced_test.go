package namespaced

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/test/controlplane"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

// provider is a claude Provider whose credential Secret does not exist: a
// reconciled one reports SecretFound=False.
func provider(ns, name string) *v1alpha1.Provider {
	return &v1alpha1.Provider{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.ProviderSpec{
			Type:       v1alpha1.ProviderTypeClaude,
			Model:      "claude-sonnet-4-20250514",
			Credential: &v1alpha1.ProviderCredential{SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: "absent"}},
		},
	}
}

var _ = Describe("the namespace-scoped install", func() {
	ctx := context.Background()

	It("reconciles Providers in every watched namespace and leaves an unwatched namespace's alone", func() {
		framework.EnsureNamespace(suite.Client, unwatched)
		for _, ns := range []string{watchedA, watchedB, unwatched} {
			Expect(suite.Client.Create(ctx, provider(ns, "claude"))).To(Succeed())
		}
		for _, ns := range []string{watchedA, watchedB} {
			Eventually(func(g Gomega) {
				p := &v1alpha1.Provider{}
				g.Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "claude"}, p)).To(Succeed())
				c := meta.FindStatusCondition(p.Status.Conditions, "SecretFound")
				g.Expect(c).NotTo(BeNil(), "no SecretFound condition in %s", ns)
				g.Expect(c.Reason).To(Equal("SecretNotFound"))
			}).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		}
		// The watched namespaces' Providers are reconciled by now; the
		// unwatched one, created in the same breath, stays untouched.
		Consistently(func(g Gomega) {
			p := &v1alpha1.Provider{}
			g.Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: unwatched, Name: "claude"}, p)).To(Succeed())
			g.Expect(p.Status.Conditions).To(BeEmpty())
			g.Expect(p.Status.ObservedGeneration).To(BeZero())
		}).WithTimeout(3 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
	})

	It("validates in watched namespaces and admits an unwatched namespace's objects unevaluated", func() {
		framework.EnsureNamespace(suite.Client, unwatched)
		bad := func(ns string) *v1alpha1.Provider {
			p := provider(ns, "bad-timeout")
			p.Spec.Defaults = &v1alpha1.ProviderDefaults{RequestTimeout: "30"}
			return p
		}
		err := suite.Client.Create(ctx, bad(watchedA))
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("provider/defaults-timeout-duration"))
		// Outside its watch the operator decides nothing: the object is the
		// business of whatever install watches that namespace.
		Expect(suite.Client.Create(ctx, bad(unwatched))).To(Succeed())
	})

	It("holds no grant on Secrets or workloads outside the watched namespaces", func() {
		cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(suite.LogDir, "operator.kubeconfig"))
		Expect(err).NotTo(HaveOccurred())
		cs, err := kubernetes.NewForConfig(cfg)
		Expect(err).NotTo(HaveOccurred())
		can := func(verb, group, resource, namespace string) bool {
			allowed, err := controlplane.Can(ctx, cs, verb, group, resource, namespace)
			Expect(err).NotTo(HaveOccurred())
			return allowed
		}
		for _, ns := range []string{watchedA, watchedB, controlplane.OperatorNamespace} {
			Expect(can("get", "", "secrets", ns)).To(BeTrue(), "secrets in %s", ns)
			Expect(can("patch", "apps", "deployments", ns)).To(BeTrue(), "deployments in %s", ns)
			Expect(can("patch", "omnia.altairalabs.ai", "providers/status", ns)).To(BeTrue(), "providers/status in %s", ns)
		}
		for _, ns := range []string{unwatched, "default", "kube-system", ""} {
			Expect(can("get", "", "secrets", ns)).To(BeFalse(), "secrets in %q", ns)
			Expect(can("list", "", "secrets", ns)).To(BeFalse(), "secrets in %q", ns)
			Expect(can("patch", "apps", "deployments", ns)).To(BeFalse(), "deployments in %q", ns)
			Expect(can("list", "omnia.altairalabs.ai", "providers", ns)).To(BeFalse(), "providers in %q", ns)
		}
		// Cluster-scoped reads stay: a Workspace names its namespace.
		Expect(can("list", "omnia.altairalabs.ai", "workspaces", "")).To(BeTrue())
		Expect(can("list", "", "namespaces", "")).To(BeTrue())

		forbidden, err := suite.Operator.Forbidden()
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.Join(forbidden, "\n")).To(BeEmpty(), "the operator asked for something outside its grants")
	})
})
