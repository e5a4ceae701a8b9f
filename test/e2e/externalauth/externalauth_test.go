package externalauth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

const (
	eventually = 60 * time.Second
	poll       = 200 * time.Millisecond
)

// freshNamespace creates a namespace <prefix>-<random> holding a Ready
// PromptPack "prompts", and returns its name.
func freshNamespace(prefix string) string {
	GinkgoHelper()
	ns := framework.CreateNamespace(suite.Client, prefix)
	framework.CreateReadyPromptPack(suite.Client, ns, "prompts", "1.0.0")
	return ns
}

// newAgent is an agent with a websocket facade and an external-only a2a
// facade (managementPlane: false), with externalAuth ea.
func newAgent(ns string, ea *v1alpha1.AgentRuntimeExternalAuth) *v1alpha1.AgentRuntime {
	return &v1alpha1.AgentRuntime{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "support"},
		Spec: v1alpha1.AgentRuntimeSpec{
			PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts"},
			Facades: []v1alpha1.AgentRuntimeFacade{
				{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket},
				{Type: v1alpha1.AgentRuntimeFacadeTypeA2A, ManagementPlane: ptr.To(false), A2A: &v1alpha1.AgentRuntimeFacadeA2A{}},
			},
			ExternalAuth: ea,
		},
	}
}

func oidcAuth(issuerURL string) *v1alpha1.AgentRuntimeExternalAuth {
	return &v1alpha1.AgentRuntimeExternalAuth{OIDC: &v1alpha1.AgentRuntimeOIDC{Issuer: issuerURL, Audience: "omnia-e2e"}}
}

// waitCondition waits until the agent's condition typ has status and
// reason, and returns it.
func waitCondition(ns, typ string, status metav1.ConditionStatus, reason string) *metav1.Condition {
	var c *metav1.Condition
	Eventually(func(g Gomega) {
		ar := &v1alpha1.AgentRuntime{}
		g.Expect(suite.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "support"}, ar)).To(Succeed())
		c = meta.FindStatusCondition(ar.Status.Conditions, typ)
		g.Expect(c).NotTo(BeNil(), "%s not set", typ)
		g.Expect(string(c.Status) + "/" + c.Reason).To(Equal(string(status) + "/" + reason))
	}).WithTimeout(eventually).WithPolling(poll).Should(Succeed(), "%s %s/%s", typ, status, reason)
	return c
}

// facadeAuth is the facade's OMNIA_EXTERNAL_AUTH and whether the pod
// mounts the JWKS Secret.
func facadeAuth(g Gomega, ns string) (map[string]any, bool) {
	d := &appsv1.Deployment{}
	g.Expect(suite.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "support"}, d)).To(Succeed())
	cfg := map[string]any{}
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name != "facade" {
			continue
		}
		for _, e := range c.Env {
			if e.Name == "OMNIA_EXTERNAL_AUTH" {
				g.Expect(json.Unmarshal([]byte(e.Value), &cfg)).To(Succeed())
			}
		}
	}
	mounted := false
	for _, v := range d.Spec.Template.Spec.Volumes {
		mounted = mounted || v.Secret != nil && v.Secret.SecretName == "agent-support-oidc-jwks"
	}
	return cfg, mounted
}

var _ = Describe("externalAuth.oidc", func() {
	It("mirrors the issuer's JWKS into agent-<agent>-oidc-jwks and then enables oidc in the facade", func() {
		ctx := context.Background()
		ns := freshNamespace("extauth-oidc")
		Expect(suite.Client.Create(ctx, newAgent(ns, oidcAuth(issuer.URL+"/")))).To(Succeed())

		c := waitCondition(ns, v1alpha1.AgentRuntimeConditionOIDCJWKSReady, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonJWKSMirrored)
		Expect(c.Message).To(ContainSubstring(issuer.URL + "/keys"))
		s := &corev1.Secret{}
		Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "agent-support-oidc-jwks"}, s)).To(Succeed())
		ar := &v1alpha1.AgentRuntime{}
		Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "support"}, ar)).To(Succeed())
		Expect(metav1.IsControlledBy(s, ar)).To(BeTrue(), "the JWKS Secret is owned by the agent")
		Expect(s.Labels).To(HaveKeyWithValue("app.kubernetes.io/managed-by", "omnia-operator"))
		Expect(string(s.Data["jwks.json"])).To(Equal(issuerJWKS))
		Expect(issuerFetches.Load()).To(BeNumerically(">=", 1))

		Eventually(func(g Gomega) {
			cfg, mounted := facadeAuth(g, ns)
			g.Expect(cfg["validators"]).To(Equal([]any{"oidc"}))
			g.Expect(mounted).To(BeTrue(), "the facade mounts the JWKS Secret")
		}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())
		waitCondition(ns, v1alpha1.AgentRuntimeConditionExternalAuth, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonExternalAuthConfigured)
	})

	It("never dials an http:// issuer", func() {
		ctx := context.Background()
		var hits atomic.Int32
		plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			hits.Add(1)
			w.WriteHeader(http.StatusNotFound)
		}))
		DeferCleanup(plain.Close)
		ns := freshNamespace("extauth-http")
		Expect(suite.Client.Create(ctx, newAgent(ns, oidcAuth(plain.URL)))).To(Succeed())
		waitCondition(ns, v1alpha1.AgentRuntimeConditionOIDCJWKSReady, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonIssuerNotHTTPS)
		Expect(hits.Load()).To(BeZero())
		Expect(apierrors.IsNotFound(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "agent-support-oidc-jwks"}, &corev1.Secret{}))).To(BeTrue())
		Eventually(func(g Gomega) {
			cfg, mounted := facadeAuth(g, ns)
			g.Expect(cfg["validators"]).To(BeEmpty())
			g.Expect(mounted).To(BeFalse())
		}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())
	})

	It("refuses a link-local issuer", func() {
		ns := freshNamespace("extauth-metadata")
		Expect(suite.Client.Create(context.Background(), newAgent(ns, oidcAuth("https://169.254.169.254")))).To(Succeed())
		c := waitCondition(ns, v1alpha1.AgentRuntimeConditionOIDCJWKSReady, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonJWKSFetchFailed)
		Expect(c.Message).To(ContainSubstring("BlockedAddress"))
	})
})

var _ = Describe("ExternalAuth", func() {
	It("warns at admission and reports False for a managementPlane: false facade without a validator", func() {
		ns := freshNamespace("extauth-nocallers")
		suite.Warnings.Take()
		Expect(suite.Client.Create(context.Background(), newAgent(ns, nil))).To(Succeed())
		Expect(suite.Warnings.Take()).To(ContainElement(ContainSubstring("[agentruntime/facade-accepts-callers]")))
		c := waitCondition(ns, v1alpha1.AgentRuntimeConditionExternalAuth, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonNoCallersAccepted)
		Expect(c.Message).To(ContainSubstring("spec.facades[1].managementPlane"))
		ar := &v1alpha1.AgentRuntime{}
		Expect(suite.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "support"}, ar)).To(Succeed())
		Expect(meta.FindStatusCondition(ar.Status.Conditions, v1alpha1.AgentRuntimeConditionOIDCJWKSReady)).To(BeNil(), "no OIDCJWKSReady without oidc")
	})
})
