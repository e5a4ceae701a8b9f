package agentruntime

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/reconcile/oidcfetch"
)

// testIssuer is a local TLS OIDC issuer whose JWKS and failure mode the
// test switches.
type testIssuer struct {
	srv     *httptest.Server
	mu      sync.Mutex
	jwks    string
	mode    string // "", "fail" (503), "invalid" (not a JWKS)
	fetches atomic.Int32
}

func newTestIssuer(t *testing.T, kid string) *testIssuer {
	t.Helper()
	is := &testIssuer{jwks: jwksWithKid(kid)}
	is.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		is.mu.Lock()
		mode, jwks := is.mode, is.jwks
		is.mu.Unlock()
		switch r.URL.Path {
		case oidcfetch.DiscoveryPath:
			_, _ = w.Write([]byte(`{"issuer":"` + is.srv.URL + `","jwks_uri":"` + is.srv.URL + `/keys"}`))
		case "/keys":
			is.fetches.Add(1)
			switch mode {
			case "fail":
				http.Error(w, "unavailable: do-not-leak-this-body", http.StatusServiceUnavailable)
			case "invalid":
				_, _ = w.Write([]byte(`{"keys":"nope"}`))
			default:
				_, _ = w.Write([]byte(jwks))
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(is.srv.Close)
	return is
}

func (is *testIssuer) set(mode, kid string) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.mode = mode
	if kid != "" {
		is.jwks = jwksWithKid(kid)
	}
}

func (is *testIssuer) roots() *x509.CertPool {
	return is.srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
}

func jwksWithKid(kid string) string {
	return `{"keys":[{"e":"AQAB","kid":"` + kid + `","kty":"RSA","n":"sXchw"}]}`
}

// TestReconcileExternalAuthOIDC runs the controller in a manager on a fake
// clock against a local TLS issuer: the first fetch fails (OIDCJWKSReady
// False JWKSFetchFailed, no Secret, the facade without oidc); once the
// issuer answers the JWKS is mirrored into agent-<agent>-oidc-jwks (owned
// by the agent, operator labels) and the facade gets oidc and the JWKS
// volume; six hours later it is refreshed; a failed refresh keeps the last
// good JWKS (JWKSStale); removing oidc deletes the Secret and the
// condition, and a managementPlane: false facade with no validator left
// sets ExternalAuth False.
func TestReconcileExternalAuthOIDC(t *testing.T) {
	g := gomega.NewWithT(t)
	ctx := context.Background()
	const ns = "ar-extauth-oidc"
	is := newTestIssuer(t, "k1")
	is.set("fail", "")
	start := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakeClock(start)
	startManager(t, Options{Common: ctrlopts.Common{Clock: clk}, ExternalAuth: ExternalAuthOptions{
		Fetcher: oidcfetch.New(oidcfetch.Options{RootCAs: is.roots(), Timeout: 5 * time.Second}),
	}})
	key := runnableAgent(t, ns, func(a *v1alpha1.AgentRuntime) {
		a.Spec.ExternalAuth = &v1alpha1.AgentRuntimeExternalAuth{OIDC: &v1alpha1.AgentRuntimeOIDC{Issuer: is.srv.URL + "//", Audience: "bot"}}
		withA2AManagementPlaneOff(a)
	})
	secretKey := types.NamespacedName{Namespace: ns, Name: "agent-" + key.Name + "-oidc-jwks"}
	get := func() *v1alpha1.AgentRuntime {
		ar := &v1alpha1.AgentRuntime{}
		g.Expect(k8s.Get(ctx, key, ar)).To(gomega.Succeed())
		return ar
	}
	cond := func(typ string) func() string {
		return func() string {
			c := condition(get(), typ)
			if c == nil {
				return "absent"
			}
			return string(c.Status) + "/" + c.Reason
		}
	}
	facadeConfig := func() facadeAuth {
		d := &appsv1.Deployment{}
		if err := k8s.Get(ctx, key, d); err != nil {
			return facadeAuth{}
		}
		var cfg facadeAuth
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Name == workload.ContainerFacade {
				if v, ok := literal(&c, workload.EnvExternalAuth); ok {
					_ = json.Unmarshal([]byte(v), &cfg)
				}
			}
		}
		return cfg
	}
	hasJWKSVolume := func() bool {
		d := &appsv1.Deployment{}
		if err := k8s.Get(ctx, key, d); err != nil {
			return false
		}
		for _, v := range d.Spec.Template.Spec.Volumes {
			if v.Name == workload.VolumeOIDCJWKS && v.Secret != nil && v.Secret.SecretName == secretKey.Name {
				return true
			}
		}
		return false
	}
	// poke re-enqueues the agent through its Secret watch (the fake clock
	// does not fire the real-time RequeueAfter).
	pokes := 0
	poke := func() {
		pokes++
		s := &corev1.Secret{}
		g.Expect(k8s.Get(ctx, secretKey, s)).To(gomega.Succeed())
		base := s.DeepCopy()
		s.Annotations["test/poke"] = strconv.Itoa(pokes)
		g.Expect(k8s.Patch(ctx, s, client.MergeFrom(base))).To(gomega.Succeed())
	}

	// The first fetch fails: no Secret, no oidc in the facade.
	g.Eventually(cond(v1alpha1.AgentRuntimeConditionOIDCJWKSReady), 30*time.Second, 100*time.Millisecond).
		Should(gomega.Equal("False/" + v1alpha1.AgentRuntimeReasonJWKSFetchFailed))
	c := condition(get(), v1alpha1.AgentRuntimeConditionOIDCJWKSReady)
	g.Expect(c.Message).To(gomega.And(gomega.ContainSubstring("HTTPStatus"), gomega.ContainSubstring(is.srv.URL+"/keys"),
		gomega.Not(gomega.ContainSubstring("do-not-leak"))))
	g.Expect(apierrors.IsNotFound(k8s.Get(ctx, secretKey, &corev1.Secret{}))).To(gomega.BeTrue(), "no JWKS Secret before a fetch succeeded")
	g.Eventually(func() []string { return facadeConfig().Validators }, 10*time.Second, 100*time.Millisecond).Should(gomega.BeEmpty())
	g.Expect(hasJWKSVolume()).To(gomega.BeFalse())
	g.Expect(cond(v1alpha1.AgentRuntimeConditionExternalAuth)()).To(gomega.Equal("True/" + v1alpha1.AgentRuntimeReasonExternalAuthConfigured))

	// The issuer answers; past the backoff the JWKS is mirrored.
	is.set("", "")
	clk.Step(10 * time.Second)
	g.Eventually(cond(v1alpha1.AgentRuntimeConditionOIDCJWKSReady), 30*time.Second, 100*time.Millisecond).
		Should(gomega.Equal("True/" + v1alpha1.AgentRuntimeReasonJWKSMirrored))
	s := &corev1.Secret{}
	g.Expect(k8s.Get(ctx, secretKey, s)).To(gomega.Succeed())
	ar := get()
	g.Expect(metav1.IsControlledBy(s, ar)).To(gomega.BeTrue(), "the JWKS Secret is owned by the agent")
	g.Expect(s.Labels).To(gomega.HaveKeyWithValue(workload.LabelManagedBy, workload.ManagedByValue))
	g.Expect(s.Labels).To(gomega.HaveKeyWithValue(workload.LabelAgent, key.Name))
	g.Expect(string(s.Data[workload.OIDCJWKSKey])).To(gomega.Equal(jwksWithKid("k1")))
	g.Expect(s.Annotations).To(gomega.HaveKeyWithValue(OIDCIssuerAnnotation, is.srv.URL))
	firstMirror := s.Annotations[OIDCMirroredAtAnnotation]
	g.Eventually(func() []string { return facadeConfig().Validators }, 10*time.Second, 100*time.Millisecond).Should(gomega.Equal([]string{"oidc"}))
	g.Expect(facadeConfig().OIDC.Issuer).To(gomega.Equal(is.srv.URL + "//"))
	g.Expect(hasJWKSVolume()).To(gomega.BeTrue())

	// Not due before six hours: a reconcile fetches nothing.
	fetches := is.fetches.Load()
	clk.Step(5 * time.Hour)
	poke()
	g.Consistently(is.fetches.Load, 2*time.Second, 100*time.Millisecond).Should(gomega.Equal(fetches))

	// Six hours after the fetch: refreshed with the issuer's new key.
	is.set("", "k2")
	clk.Step(time.Hour)
	poke()
	g.Eventually(func() string {
		s := &corev1.Secret{}
		_ = k8s.Get(ctx, secretKey, s)
		return string(s.Data[workload.OIDCJWKSKey])
	}, 30*time.Second, 100*time.Millisecond).Should(gomega.Equal(jwksWithKid("k2")))
	g.Expect(k8s.Get(ctx, secretKey, s)).To(gomega.Succeed())
	g.Expect(s.Annotations[OIDCMirroredAtAnnotation]).NotTo(gomega.Equal(firstMirror))

	// A failed refresh keeps the last good JWKS and says so.
	is.set("invalid", "")
	clk.Step(6 * time.Hour)
	poke()
	g.Eventually(cond(v1alpha1.AgentRuntimeConditionOIDCJWKSReady), 30*time.Second, 100*time.Millisecond).
		Should(gomega.Equal("True/" + v1alpha1.AgentRuntimeReasonJWKSStale))
	g.Expect(condition(get(), v1alpha1.AgentRuntimeConditionOIDCJWKSReady).Message).To(gomega.ContainSubstring("InvalidJWKS"))
	g.Expect(k8s.Get(ctx, secretKey, s)).To(gomega.Succeed())
	g.Expect(string(s.Data[workload.OIDCJWKSKey])).To(gomega.Equal(jwksWithKid("k2")))
	g.Expect(facadeConfig().Validators).To(gomega.Equal([]string{"oidc"}), "the facade keeps oidc on the last good JWKS")

	// Removing oidc: the Secret and OIDCJWKSReady go, and the
	// managementPlane: false facade can accept no callers.
	ar = get()
	ar.Spec.ExternalAuth = nil
	g.Expect(k8s.Update(ctx, ar)).To(gomega.Succeed())
	g.Eventually(cond(v1alpha1.AgentRuntimeConditionExternalAuth), 30*time.Second, 100*time.Millisecond).
		Should(gomega.Equal("False/" + v1alpha1.AgentRuntimeReasonNoCallersAccepted))
	g.Eventually(cond(v1alpha1.AgentRuntimeConditionOIDCJWKSReady), 30*time.Second, 100*time.Millisecond).Should(gomega.Equal("absent"))
	g.Eventually(func() bool { return apierrors.IsNotFound(k8s.Get(ctx, secretKey, &corev1.Secret{})) }, 30*time.Second, 100*time.Millisecond).
		Should(gomega.BeTrue(), "the JWKS Secret is deleted with oidc")
	g.Eventually(hasJWKSVolume, 10*time.Second, 100*time.Millisecond).Should(gomega.BeFalse())
}

// facadeAuth is the part of the facade's OMNIA_EXTERNAL_AUTH (one JSON
// object, workload.ExternalAuthFacadeConfig) these tests read.
type facadeAuth struct {
	Validators []string `json:"validators"`
	OIDC       *struct {
		Issuer string `json:"issuer"`
	} `json:"oidc,omitempty"`
}
