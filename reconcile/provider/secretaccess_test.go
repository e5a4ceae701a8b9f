package provider

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// secretRequest is one request the controller's manager sent about Secrets.
type secretRequest struct {
	method, path, query, accept string
}

// secretRecorder records every request under /secrets that passes through
// the manager's rest.Config.
type secretRecorder struct {
	mu   sync.Mutex
	reqs []secretRequest
}

func (r *secretRecorder) RoundTrip(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if strings.Contains(req.URL.Path, "/secrets") {
			r.mu.Lock()
			r.reqs = append(r.reqs, secretRequest{req.Method, req.URL.Path, req.URL.RawQuery, req.Header.Get("Accept")})
			r.mu.Unlock()
		}
		return next.RoundTrip(req)
	})
}

func (r *secretRecorder) all() []secretRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]secretRequest(nil), r.reqs...)
}

var errNotYet = errors.New("not yet")

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// TestSecretsCachedAsMetadataOnly runs the controller in a manager whose
// every API request is recorded, and checks its Secret traffic: the
// informer lists and watches Secrets as PartialObjectMetadata only (the
// operator never holds Secret data cluster-wide), and Secret data is read
// only by a direct GET of the one Secret a Provider names.
func TestSecretsCachedAsMetadataOnly(t *testing.T) {
	ns := namespace(t)
	rec := &secretRecorder{}
	cfg := rest.CopyConfig(testEnv.Config)
	cfg.Wrap(rec.RoundTrip)
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 testMgr.GetScheme(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// Only this test's namespace, so this second controller leaves the
		// other tests' Providers alone.
		Cache: cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := SetupWithManager(mgr, managerOpts); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })

	vendor := vendorServer(t)
	putSecret(t, ns, "named", map[string]string{"ANTHROPIC_API_KEY": goodKey})
	putSecret(t, ns, "unrelated", map[string]string{"token": "not-for-the-operator"})
	createProvider(t, ns, "claude", v1alpha1.ProviderSpec{
		Type: v1alpha1.ProviderTypeClaude, Model: "claude-sonnet-4-20250514", BaseURL: vendor.URL,
		Credential: &v1alpha1.ProviderCredential{SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: "named"}},
	})

	named := "/api/v1/namespaces/" + ns + "/secrets/named"
	eventually(t, "the controller reads the named Secret", func() error {
		for _, r := range rec.all() {
			if r.method == http.MethodGet && r.path == named {
				return nil
			}
		}
		return errNotYet
	})
	// A change to the Secret reaches the controller through the metadata
	// watch, which re-reads it.
	before := len(rec.all())
	putSecret(t, ns, "named", map[string]string{"ANTHROPIC_API_KEY": badKey})
	eventually(t, "the controller re-reads the named Secret after it changed", func() error {
		for _, r := range rec.all()[before:] {
			if r.method == http.MethodGet && r.path == named {
				return nil
			}
		}
		return errNotYet
	})

	var watched bool
	for _, r := range rec.all() {
		switch {
		case strings.HasSuffix(r.path, "/secrets"): // list or watch
			watched = true
			if !strings.Contains(r.accept, "as=PartialObjectMetadata") {
				t.Errorf("%s %s?%s asks for whole Secrets (Accept %q): Secrets must be listed and watched as metadata only", r.method, r.path, r.query, r.accept)
			}
		case r.method == http.MethodGet && r.path == named:
		default:
			t.Errorf("%s %s: the controller reads only the Secret a Provider names", r.method, r.path)
		}
	}
	if !watched {
		t.Error("no list or watch of Secrets recorded: the test would prove nothing")
	}
}
