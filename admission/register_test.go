package admission_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/admission"
	"github.com/altairalabs/omnia/test/controlplane"
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
		// The excluded namespace is deployment configuration: it is set
		// where the webhooks are registered, from the operator's
		// --excluded-namespace (TestWebhookRegistrationExcludesNamespace),
		// never generated from a literal.
		if w.NamespaceSelector != nil {
			t.Errorf("%s: the generated configuration carries a namespaceSelector %+v", w.Name, w.NamespaceSelector)
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

// TestWebhookRegistrationExcludesNamespace checks both registrations set
// every webhook's namespaceSelector to skip the excluded namespace: the one
// Go registers (make run, test/controlplane), from the value the operator is
// given as --excluded-namespace, and the kustomization deployed to a cluster,
// from the namespace it deploys to.
func TestWebhookRegistrationExcludesNamespace(t *testing.T) {
	excludes := func(w admissionregistrationv1.ValidatingWebhook, ns string) bool {
		if w.NamespaceSelector == nil || len(w.NamespaceSelector.MatchLabels) > 0 || len(w.NamespaceSelector.MatchExpressions) != 1 {
			return false
		}
		e := w.NamespaceSelector.MatchExpressions[0]
		return e.Key == "kubernetes.io/metadata.name" && e.Operator == metav1.LabelSelectorOpNotIn && slices.Equal(e.Values, []string{ns})
	}
	t.Run("Go registration", func(t *testing.T) {
		for _, ns := range []string{"omnia-system", "platform-ops"} {
			configs, err := controlplane.ValidatingWebhooks(ns)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, c := range configs {
				for _, w := range c.Webhooks {
					n++
					if !excludes(w, ns) {
						t.Errorf("%s: namespaceSelector %+v does not exclude exactly %s", w.Name, w.NamespaceSelector, ns)
					}
				}
			}
			if n != len(admission.Served) {
				t.Errorf("%d webhooks registered, want %d", n, len(admission.Served))
			}
		}
	})
	t.Run("kustomization", func(t *testing.T) {
		data, err := os.ReadFile("../config/webhook/kustomization.yaml")
		if err != nil {
			t.Fatal(err)
		}
		var k struct {
			Namespace string `json:"namespace"`
			Patches   []struct {
				Target struct{ Kind string } `json:"target"`
				Patch  string                `json:"patch"`
			} `json:"patches"`
		}
		if err := sigsyaml.Unmarshal(data, &k); err != nil {
			t.Fatal(err)
		}
		selectors := map[string]*metav1.LabelSelector{}
		for _, p := range k.Patches {
			if p.Target.Kind != "ValidatingWebhookConfiguration" {
				continue
			}
			var ops []struct {
				Op    string          `json:"op"`
				Path  string          `json:"path"`
				Value json.RawMessage `json:"value"`
			}
			if err := sigsyaml.Unmarshal([]byte(p.Patch), &ops); err != nil {
				t.Fatalf("kustomization patch: %v", err)
			}
			for _, op := range ops {
				if op.Op != "add" || !strings.HasSuffix(op.Path, "/namespaceSelector") {
					continue
				}
				sel := &metav1.LabelSelector{}
				if err := json.Unmarshal(op.Value, sel); err != nil {
					t.Fatalf("kustomization %s: %v", op.Path, err)
				}
				selectors[op.Path] = sel
			}
		}
		for i := 0; i < len(admission.Served); i++ {
			path := fmt.Sprintf("/webhooks/%d/namespaceSelector", i)
			w := admissionregistrationv1.ValidatingWebhook{NamespaceSelector: selectors[path]}
			if !excludes(w, k.Namespace) {
				t.Errorf("kustomization: %s is %+v, want NotIn [%s] (the namespace it deploys to)", path, selectors[path], k.Namespace)
			}
		}
	})
}
