package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

// provGoodKey is the only key the local vendor accepts.
const provGoodKey = "sk-e2e-accepted-2c81f0d4"

// provVendorRequests counts the requests provVendor gets.
var provVendorRequests atomic.Int64

// provVendor is a local stand-in for the Anthropic API over plain http: GET
// /v1/models answers 200 to provGoodKey (with an anthropic-version header)
// and 401 otherwise; every other path 404, which still counts as reachable.
// The operator's egress policy sends a credential only over https to an
// allowed host, so it must get no request at all.
func provVendor() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		provVendorRequests.Add(1)
		switch {
		case r.URL.Path != "/v1/models":
			w.WriteHeader(http.StatusNotFound)
		case r.Header.Get("x-api-key") == provGoodKey && r.Header.Get("anthropic-version") != "":
			_, _ = w.Write([]byte(`{"data":[]}`))
		default:
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
}

func provCondition(p *v1alpha1.Provider, t string) string {
	return framework.Condition(p.Status.Conditions, t)
}

// provColumns maps a Table row to its column names.
func provColumns(t *metav1.Table, row int) map[string]string {
	out := map[string]string{}
	for i, col := range t.ColumnDefinitions {
		out[col.Name] = fmt.Sprint(t.Rows[row].Cells[i])
	}
	return out
}

var _ = Describe("Provider", func() {
	var (
		ctx    = context.Background()
		ns     string
		vendor *httptest.Server
	)

	BeforeEach(func() {
		ns = framework.CreateNamespace(suite.Client, "e2e-prov")
		provVendorRequests.Store(0)
		vendor = provVendor()
		DeferCleanup(vendor.Close)
	})

	It("reports a missing Secret as SecretFound=False and phase Error, then goes Ready when the Secret is created", func() {
		key := client.ObjectKey{Namespace: ns, Name: "claude"}
		Expect(suite.Client.Create(ctx, &v1alpha1.Provider{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: key.Name},
			Spec: v1alpha1.ProviderSpec{
				Type:       v1alpha1.ProviderTypeClaude,
				Model:      "claude-sonnet-4-20250514",
				BaseURL:    vendor.URL,
				Credential: &v1alpha1.ProviderCredential{SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: "anthropic-credentials"}},
			},
		})).To(Succeed())

		p := &v1alpha1.Provider{}
		Eventually(func(g Gomega) {
			g.Expect(suite.Client.Get(ctx, key, p)).To(Succeed())
			g.Expect(provCondition(p, "SecretFound")).To(Equal("False/SecretNotFound"))
			g.Expect(provCondition(p, "Ready")).To(Equal("False/SecretNotFound"))
			g.Expect(p.Status.Phase).To(Equal(v1alpha1.ProviderPhaseError))
		}).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())

		By("giving the same rule ID and field as omniactl's path (rules.Full with manifest facts)")
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(p)
		Expect(err).NotTo(HaveOccurred())
		u["apiVersion"], u["kind"] = v1alpha1.GroupVersion.String(), "Provider"
		delete(u, "status")
		sv, err := schema.Default()
		Expect(err).NotTo(HaveOccurred())
		offline, err := rules.Full(ctx, sv, rules.Default, u, nil, rules.NewManifestFacts(), rules.Options{})
		Expect(err).NotTo(HaveOccurred())
		var ids []string
		for _, f := range offline {
			ids = append(ids, "["+f.RuleID+"] "+f.Field+":")
		}
		Expect(ids).To(ContainElement("[provider/secret-found] spec.credential.secretRef.name:"))
		Expect(meta.FindStatusCondition(p.Status.Conditions, "SecretFound").Message).To(
			HavePrefix("[provider/secret-found] spec.credential.secretRef.name:"))

		By("creating the Secret")
		Expect(suite.Client.Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "anthropic-credentials"},
			StringData: map[string]string{"ANTHROPIC_API_KEY": provGoodKey},
		})).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(suite.Client.Get(ctx, key, p)).To(Succeed())
			g.Expect(provCondition(p, "SecretFound")).To(Equal("True/SecretKeyFound"))
			g.Expect(provCondition(p, "CredentialConfigured")).To(Equal("True/SecretRefConfigured"))
			// Plain http: the credential is not sent, and the host gets no
			// request at all.
			g.Expect(provCondition(p, "CredentialValid")).To(Equal("Unknown/CredentialProbeInsecure"))
			g.Expect(provCondition(p, "EndpointReachable")).To(Equal("Unknown/CredentialProbeInsecure"))
			g.Expect(provCondition(p, "ModelValid")).To(Equal("True/ModelSet"))
			g.Expect(provCondition(p, "Ready")).To(Equal("True/ProviderReady"))
			g.Expect(p.Status.Phase).To(Equal(v1alpha1.ProviderPhaseReady))
		}).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		Expect(meta.FindStatusCondition(p.Status.Conditions, "CredentialConfigured").Message).To(ContainSubstring(`"ANTHROPIC_API_KEY"`))
		Expect(provVendorRequests.Load()).To(BeZero(), "a plain-http baseURL got a request from the operator")

		By("showing the phase and the documented columns in `kubectl get prov`")
		table, err := serverTable(v1alpha1.GroupVersion.String(), "providers", ns)
		Expect(err).NotTo(HaveOccurred())
		Expect(table.Rows).To(HaveLen(1))
		Expect(provColumns(table, 0)).To(And(
			HaveKeyWithValue("Name", "claude"),
			HaveKeyWithValue("TYPE", "claude"),
			HaveKeyWithValue("ROLE", "llm"),
			HaveKeyWithValue("MODEL", "claude-sonnet-4-20250514"),
			HaveKeyWithValue("PHASE", "Ready"),
			HaveKey("AGE"),
		))

		By("emitting a Warning while the Secret was missing and a Normal event on recovery")
		Eventually(func(g Gomega) {
			evs := &eventsv1.EventList{}
			g.Expect(suite.Client.List(ctx, evs, client.InNamespace(ns))).To(Succeed())
			var seen []string
			for _, e := range evs.Items {
				if e.Regarding.Kind == "Provider" && e.Regarding.Name == key.Name {
					seen = append(seen, e.Type+"/"+e.Action+"/"+e.Reason)
				}
			}
			g.Expect(seen).To(ContainElements("Warning/SecretFound/SecretNotFound", "Normal/SecretFound/SecretKeyFound", "Normal/Ready/ProviderReady"))
		}).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())

		By("never putting the credential in status, events or the operator's log")
		status, err := json.Marshal(p.Status)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(status)).NotTo(ContainSubstring(provGoodKey))
		evs := &eventsv1.EventList{}
		Expect(suite.Client.List(ctx, evs, client.InNamespace(ns))).To(Succeed())
		Expect(evs.Items).NotTo(BeEmpty())
		evJSON, err := json.Marshal(evs.Items)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(evJSON)).NotTo(ContainSubstring(provGoodKey))
		log, err := os.ReadFile(suite.Operator.LogPath)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(log)).To(ContainSubstring("provider"), "the operator log should show the Provider controller")
		Expect(string(log)).NotTo(ContainSubstring(provGoodKey))
	})
})
