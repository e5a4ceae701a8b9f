package provider

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/netguard"
	"github.com/altairalabs/omnia/reconcile/prober"
)

// countingServer is a local vendor that counts every request it gets, and
// those carrying one of the test keys in any header.
type countingServer struct {
	*httptest.Server
	requests, keyed atomic.Int64
}

func counting(h http.Handler) *countingServer {
	c := &countingServer{}
	c.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.requests.Add(1)
		for _, vs := range r.Header {
			for _, v := range vs {
				if strings.Contains(v, goodKey) || strings.Contains(v, badKey) || strings.Contains(v, denyKey) {
					c.keyed.Add(1)
				}
			}
		}
		h.ServeHTTP(w, r)
	}))
	return c
}

// startTLS starts a counting server over TLS with httptest's certificate
// (valid for 127.0.0.1), which testRoots trusts.
func startTLS(h http.Handler) *countingServer {
	c := counting(h)
	c.EnableHTTP2 = true
	c.StartTLS()
	return c
}

// startPlain starts a counting server over plain http.
func startPlain(t *testing.T, h http.Handler) *countingServer {
	t.Helper()
	c := counting(h)
	c.Start()
	t.Cleanup(c.Close)
	return c
}

// gatewayHandler is vendorHandler, except that paths under /hang/ never
// answer (until the client gives up).
func gatewayHandler() http.Handler {
	v := vendorHandler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/hang/") {
			<-r.Context().Done()
			return
		}
		v.ServeHTTP(w, r)
	})
}

// trustingClient is the production client (netguard's transport) with the
// test CA as its only root.
func trustingClient() *http.Client {
	return &http.Client{Transport: netguard.NewTransport(&tls.Config{RootCAs: testRoots, MinVersion: tls.VersionTLS12})}
}

// TestCredentialEgressPolicy runs the manager's controller (policy: vendor
// defaults plus the gateway) against Providers aimed at a plain-http server
// and at a TLS server the operator does not allow. Neither server gets a
// single request — not the credential probe, not the health check — and
// CredentialValid says why; the vendor default and the allowed gateway get
// the key over TLS.
func TestCredentialEgressPolicy(t *testing.T) {
	ns := namespace(t)
	putSecret(t, ns, "creds", map[string]string{"ANTHROPIC_API_KEY": goodKey, "OPENAI_API_KEY": goodKey})
	plain := startPlain(t, vendorHandler())
	stranger := startTLS(vendorHandler()) // trusted certificate, host not allowed
	t.Cleanup(stranger.Close)
	cred := &v1alpha1.ProviderCredential{SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: "creds"}}
	gatewayKeyed := gateway.keyed.Load()

	tests := []struct {
		name string
		spec v1alpha1.ProviderSpec
		want want
	}{
		{"plain-http", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeClaude, Model: "claude-sonnet-4-20250514", BaseURL: plain.URL, Credential: cred},
			want{phase: v1alpha1.ProviderPhaseReady, conds: map[string]string{
				v1alpha1.ProviderConditionCredentialValid:   "Unknown/" + v1alpha1.ProviderReasonCredentialProbeInsecure,
				v1alpha1.ProviderConditionEndpointReachable: "Unknown/" + v1alpha1.ProviderReasonCredentialProbeInsecure,
				v1alpha1.ProviderConditionReady:             "True/" + v1alpha1.ProviderReasonProviderReady,
			}, msg: map[string]string{v1alpha1.ProviderConditionCredentialValid: "only over https"}}},
		{"plain-http-openai", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeOpenAI, Model: "gpt-4o", BaseURL: plain.URL + "/v1", Credential: cred},
			want{phase: v1alpha1.ProviderPhaseReady, conds: map[string]string{
				v1alpha1.ProviderConditionCredentialValid: "Unknown/" + v1alpha1.ProviderReasonCredentialProbeInsecure,
			}}},
		{"not-allowed", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeOpenAI, Model: "gpt-4o", BaseURL: stranger.URL + "/v1", Credential: cred},
			want{phase: v1alpha1.ProviderPhaseReady, conds: map[string]string{
				v1alpha1.ProviderConditionCredentialValid:   "Unknown/" + v1alpha1.ProviderReasonCredentialProbeHostNotAllowed,
				v1alpha1.ProviderConditionEndpointReachable: "Unknown/" + v1alpha1.ProviderReasonCredentialProbeHostNotAllowed,
				v1alpha1.ProviderConditionReady:             "True/" + v1alpha1.ProviderReasonProviderReady,
			}, msg: map[string]string{v1alpha1.ProviderConditionCredentialValid: "--credential-probe-hosts"}}},
		{"allowed-gateway", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeOpenAI, Model: "gpt-4o", BaseURL: gateway.URL + "/v1", Credential: cred},
			want{phase: v1alpha1.ProviderPhaseReady, conds: map[string]string{
				v1alpha1.ProviderConditionCredentialValid:   "True/" + v1alpha1.ProviderReasonCredentialAccepted,
				v1alpha1.ProviderConditionEndpointReachable: "True/" + v1alpha1.ProviderReasonEndpointResponded,
			}}},
		{"vendor-default", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeClaude, Model: "claude-sonnet-4-20250514", Credential: cred},
			want{phase: v1alpha1.ProviderPhaseReady, conds: map[string]string{
				v1alpha1.ProviderConditionCredentialValid:   "True/" + v1alpha1.ProviderReasonCredentialAccepted,
				v1alpha1.ProviderConditionEndpointReachable: "True/" + v1alpha1.ProviderReasonEndpointResponded,
			}}},
	}
	keys := map[string]types.NamespacedName{}
	for _, tt := range tests {
		keys[tt.name] = createProvider(t, ns, tt.name, tt.spec)
	}
	for _, tt := range tests {
		waitFor(t, keys[tt.name], tt.want)
	}

	// Each Provider was reconciled (its status is written after its probes);
	// reconcile the refused ones once more, then count.
	r, cc := directReconciler(t)
	for _, name := range []string{"plain-http", "plain-http-openai", "not-allowed"} {
		if _, res := reconcileNow(t, r, cc, keys[name]); res.RequeueAfter != 0 {
			t.Errorf("%s: RequeueAfter %s; a withheld probe has nothing to retry", name, res.RequeueAfter)
		}
	}
	if n := plain.requests.Load(); n != 0 {
		t.Errorf("the plain-http server got %d requests (%d with a key), want none", n, plain.keyed.Load())
	}
	if n := stranger.requests.Load(); n != 0 {
		t.Errorf("the TLS server the operator does not allow got %d requests (%d with a key), want none", n, stranger.keyed.Load())
	}
	if gateway.keyed.Load() == gatewayKeyed {
		t.Error("the allowed gateway got no credential probe: the zero counts above would prove nothing")
	}
}

// TestVendorEgressOff: with --credential-probe=off a reconciler makes no
// request at all, for the vendor default included, and reports both probes
// Unknown; with it on, the same server is probed.
func TestVendorEgressOff(t *testing.T) {
	ns := namespace(t)
	putSecret(t, ns, "creds", map[string]string{"ANTHROPIC_API_KEY": goodKey})
	eventually(t, "the cache sees the Secret", func() error {
		return testMgr.GetClient().Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "creds"}, &corev1.Secret{})
	})
	srv := startTLS(vendorHandler())
	t.Cleanup(srv.Close)
	p := &v1alpha1.Provider{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "claude", UID: "u1", Generation: 1},
		Spec: v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeClaude, Model: "claude-sonnet-4-20250514",
			Credential: &v1alpha1.ProviderCredential{SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: "creds"}}},
	}
	hosts, err := ParseCredentialProbeHosts(strings.TrimPrefix(srv.URL, "https://"))
	if err != nil {
		t.Fatal(err)
	}
	status := func(off bool) v1alpha1.ProviderStatus {
		opts := managerOpts
		opts.DefaultEndpoints = map[v1alpha1.ProviderType]string{v1alpha1.ProviderTypeClaude: srv.URL}
		opts.Egress = Egress{Off: off, CredentialHosts: hosts}
		opts.Prober = startProber(t, prober.Options{Clock: fakeClock})
		r, err := NewReconciler(testMgr.GetClient(), testMgr.GetRESTMapper(), nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		// Probes run on the prober: observe until neither is pending (a
		// withheld probe is never pending).
		var obs observation
		eventually(t, "the probes' results", func() error {
			if obs, err = r.observe(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			if obs.credentialPending || obs.endpointPending {
				return fmt.Errorf("pending: credential %v, endpoint %v", obs.credentialPending, obs.endpointPending)
			}
			return nil
		})
		return computeStatus(p, obs, metav1.NewTime(fakeClock.Now()), time.Minute)
	}

	off := &v1alpha1.Provider{Status: status(true)}
	if err := (want{phase: v1alpha1.ProviderPhaseReady, conds: map[string]string{
		v1alpha1.ProviderConditionCredentialValid:   "Unknown/" + v1alpha1.ProviderReasonCredentialProbeDisabled,
		v1alpha1.ProviderConditionEndpointReachable: "Unknown/" + v1alpha1.ProviderReasonEndpointProbeDisabled,
		v1alpha1.ProviderConditionReady:             "True/" + v1alpha1.ProviderReasonProviderReady,
	}, msg: map[string]string{v1alpha1.ProviderConditionCredentialValid: "--credential-probe=off"}}).check(off); err != nil {
		t.Fatal(err)
	}
	if n := srv.requests.Load(); n != 0 {
		t.Fatalf("with vendor egress off the vendor got %d requests", n)
	}

	on := &v1alpha1.Provider{Status: status(false)}
	if err := (want{phase: v1alpha1.ProviderPhaseReady, conds: map[string]string{
		v1alpha1.ProviderConditionCredentialValid: "True/" + v1alpha1.ProviderReasonCredentialAccepted, v1alpha1.ProviderConditionEndpointReachable: "True/" + v1alpha1.ProviderReasonEndpointResponded,
	}}).check(on); err != nil {
		t.Fatal(err)
	}
	if srv.keyed.Load() == 0 {
		t.Fatal("with egress on the vendor got no credential probe")
	}
}

// TestMetadataBaseURL: a Provider stored with a metadata baseURL (webhook
// off) is refused by the catalog rule on reconcile, and the health check's
// dialer never connects to the address.
func TestMetadataBaseURL(t *testing.T) {
	ns := namespace(t)
	key := createProvider(t, ns, "imds", v1alpha1.ProviderSpec{
		Type: v1alpha1.ProviderTypeVLLM, Model: "m", BaseURL: "http://169.254.169.254/latest/meta-data/",
	})
	waitFor(t, key, want{phase: v1alpha1.ProviderPhaseError, conds: map[string]string{
		v1alpha1.ProviderConditionEndpointReachable: "False/" + v1alpha1.ProviderReasonAddressNotAllowed,
		v1alpha1.ProviderConditionReady:             "False/" + v1alpha1.ProviderReasonInvalidSpec,
	}, msg: map[string]string{v1alpha1.ProviderConditionReady: "[provider/base-url]", v1alpha1.ProviderConditionEndpointReachable: "egress guard"}})
}
