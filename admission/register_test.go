package admission_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/altairalabs/omnia/admission"
)

// TestRegisterServesEveryKindOnItsPath registers the handlers on a webhook
// server's mux, as the operator does, and sends each spec example to its
// kind's path (admitted) and to every other kind's path (a 400 review
// error naming both kinds).
func TestRegisterServesEveryKindOnItsPath(t *testing.T) {
	srv := webhook.NewServer(webhook.Options{})
	admission.Register(srv, testScheme(t), newConfig(prometheus.NewRegistry()))
	mux := srv.WebhookMux()
	post := func(path string, body []byte) *http.Request {
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		return req
	}
	for _, ex := range examples(t) {
		body := reviewBody(t, reviewRequest{kind: ex.kind, namespace: "agents", name: ex.name, object: ex.json})
		for kind, path := range admission.Served {
			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, post(path, body))
			if rec.Code != http.StatusOK {
				t.Fatalf("%s on %s: HTTP %d %s", ex.kind, path, rec.Code, rec.Body)
			}
			resp, err := decodeResponse(rec.Body.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if kind == ex.kind && !resp.Allowed {
				t.Errorf("%s/%s refused on its own path %s: %s", ex.kind, ex.name, path, resp.Result.Message)
			}
			if kind != ex.kind && (resp.Allowed || resp.Result.Code != http.StatusBadRequest) {
				t.Errorf("%s review on the %s path %s: want a 400 error, got %+v", ex.kind, kind, path, resp)
			}
		}
	}
}

// TestServedMatchesWebhookManifest checks the generated
// ValidatingWebhookConfiguration names exactly the served paths, fails
// closed, has no side effects (so dry-run is safe), answers within 10s and
// skips the operator's namespace.
func TestServedMatchesWebhookManifest(t *testing.T) {
	data, err := os.ReadFile("../config/webhook/manifests.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg admissionregistrationv1.ValidatingWebhookConfiguration
	if err := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096).Decode(&cfg); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, w := range cfg.Webhooks {
		if w.ClientConfig.Service == nil || w.ClientConfig.Service.Path == nil {
			t.Fatalf("webhook %s has no service path", w.Name)
		}
		paths = append(paths, *w.ClientConfig.Service.Path)
		if w.FailurePolicy == nil || *w.FailurePolicy != admissionregistrationv1.Fail {
			t.Errorf("%s: failurePolicy is not Fail", w.Name)
		}
		if w.SideEffects == nil || *w.SideEffects != admissionregistrationv1.SideEffectClassNone {
			t.Errorf("%s: sideEffects is not None", w.Name)
		}
		if w.TimeoutSeconds == nil || *w.TimeoutSeconds > 10 {
			t.Errorf("%s: timeoutSeconds unset or over 10", w.Name)
		}
		if !slices.Equal(w.AdmissionReviewVersions, []string{"v1"}) {
			t.Errorf("%s: admissionReviewVersions %v, want [v1]", w.Name, w.AdmissionReviewVersions)
		}
		excludes := false
		if w.NamespaceSelector != nil {
			for _, e := range w.NamespaceSelector.MatchExpressions {
				if e.Key == "kubernetes.io/metadata.name" && e.Operator == "NotIn" && slices.Contains(e.Values, "omnia-system") {
					excludes = true
				}
			}
		}
		if !excludes {
			t.Errorf("%s: the namespaceSelector does not exclude omnia-system", w.Name)
		}
	}
	var served []string
	for _, p := range admission.Served {
		served = append(served, p)
	}
	slices.Sort(paths)
	slices.Sort(served)
	if !slices.Equal(paths, served) {
		t.Errorf("manifest paths %v, served paths %v", paths, served)
	}
}

func TestParseMode(t *testing.T) {
	for _, s := range []string{"enforce", "warn", "audit"} {
		if m, err := admission.ParseMode(s); err != nil || string(m) != s {
			t.Errorf("ParseMode(%q) = %q, %v", s, m, err)
		}
	}
	for _, s := range []string{"", "Enforce", "off", "deny"} {
		if _, err := admission.ParseMode(s); err == nil {
			t.Errorf("ParseMode(%q) accepted", s)
		}
	}
}
