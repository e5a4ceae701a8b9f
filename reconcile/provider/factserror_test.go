package provider

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/prober"
)

// forbiddenSecrets is the manager's client with one failure injected: every
// Secret read is Forbidden, as for an operator whose RBAC lost Secrets.
// Everything else reads the real API server through the cache.
type forbiddenSecrets struct {
	client.Client
}

func (c forbiddenSecrets) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*corev1.Secret); ok {
		return apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, key.Name, errors.New("injected: RBAC denies get"))
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

// TestSecretLookupFailureRetries: a Secret that cannot be read (Forbidden)
// is not a missing Secret. The reconcile returns the error (so it is
// retried with backoff), writes no status and emits no event: the Provider
// keeps its SecretFound=True and gets no SecretNotFound.
func TestSecretLookupFailureRetries(t *testing.T) {
	ns := namespace(t)
	vendor := vendorServer(t)
	putSecret(t, ns, "anthropic", map[string]string{"ANTHROPIC_API_KEY": goodKey})
	key := createProvider(t, ns, "claude", v1alpha1.ProviderSpec{
		Type: v1alpha1.ProviderTypeClaude, Model: "claude-sonnet-4-20250514", BaseURL: vendor.URL,
		Credential: &v1alpha1.ProviderCredential{SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: "anthropic"}},
	})
	waitFor(t, key, want{phase: v1alpha1.ProviderPhaseReady, conds: map[string]string{v1alpha1.ProviderConditionSecretFound: "True/SecretKeyFound"}})
	// Events already there are the manager's own controller's, not the
	// failed reconcile's.
	seen := map[string]bool{}
	for _, e := range providerEvents(t, ns, "claude") {
		seen[e.Name] = true
	}

	cc := &countingClient{Client: forbiddenSecrets{Client: testMgr.GetClient()}}
	opts := managerOpts
	opts.Prober = startProber(t, prober.Options{Clock: fakeClock})
	r, err := NewReconciler(cc, testMgr.GetRESTMapper(), testMgr.GetEventRecorder(ControllerName), opts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key})
	if err == nil {
		t.Fatal("reconcile returned no error although the Secret could not be read")
	}
	if !apierrors.IsForbidden(err) {
		t.Errorf("reconcile error %v does not carry the Forbidden", err)
	}
	if cc.count() != 0 {
		t.Errorf("%d status writes from an evaluation whose facts failed", cc.count())
	}

	p := &v1alpha1.Provider{}
	if err := direct.Get(context.Background(), key, p); err != nil {
		t.Fatal(err)
	}
	if err := (want{phase: v1alpha1.ProviderPhaseReady, conds: map[string]string{v1alpha1.ProviderConditionSecretFound: "True/SecretKeyFound"}}).check(p); err != nil {
		t.Errorf("stored status changed: %v", err)
	}
	for _, e := range providerEvents(t, ns, "claude") {
		if !seen[e.Name] {
			t.Errorf("the failed reconcile emitted an event: %s %s: %s", e.Type, e.Reason, e.Note)
		}
	}
}
