package admission_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/altairalabs/omnia/admission"
	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/policies"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/test/controlplane"
)

var validationPolicies = schema.GroupVersionResource{Group: omniaGroup, Version: "v1alpha1", Resource: "validationpolicies"}

// TestPoliciesWithAPIServer registers the generated webhook configuration
// (every kind's webhook and the ValidationPolicy one, the excluded
// namespace's selector set as the operator's registration sets it) with the
// real API server over TLS, served in this process by admission.Register on
// a Config whose catalog is a policies.Store the test changes: the API
// server itself refuses, warns and admits by the policy rules in force at
// each request.
func TestPoliciesWithAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver and etcd")
	}
	env, err := controlplane.Start(controlplane.Options{Webhooks: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)

	scheme := testScheme(t)
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	kube, err := client.New(env.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	store := policies.NewStore(rules.Default)
	cfg := newConfig(prometheus.NewRegistry())
	cfg.Policies = store
	cfg.PolicyCompiler = fakeCompiler{}
	cfg.ExcludedNamespace = admission.DefaultExcludedNamespace
	cfg.Namespace = func(ctx context.Context, name string) (*corev1.Namespace, error) {
		ns := &corev1.Namespace{}
		return ns, kube.Get(ctx, client.ObjectKey{Name: name}, ns)
	}
	opts := env.WebhookInstallOptions
	server := webhook.NewServer(webhook.Options{Host: opts.LocalServingHost, Port: opts.LocalServingPort, CertDir: opts.LocalServingCertDir})
	admission.Register(server, testScheme(t), cfg)
	go func() { _ = server.Start(ctx) }()
	eventually(t, 20*time.Second, func() error { return server.StartedChecker()(&http.Request{}) })

	for _, ns := range []string{"agents", "prod"} {
		labels := map[string]string{"env": ns}
		if err := kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: labels}}); err != nil {
			t.Fatal(err)
		}
	}
	warnings := &warningRecorder{}
	rc := rest.CopyConfig(env.Config)
	rc.WarningHandler = warnings
	dyn, err := dynamic.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	agentNamed := func(ns, name, pack string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(agent(t, "", "")); err != nil {
			t.Fatal(err)
		}
		u.SetNamespace(ns)
		u.SetName(name)
		if err := unstructured.SetNestedField(u.Object, pack, "spec", "promptPackRef", "name"); err != nil {
			t.Fatal(err)
		}
		return u
	}
	create := func(u *unstructured.Unstructured) error {
		_, err := dyn.Resource(agentRuntimes).Namespace(u.GetNamespace()).Create(ctx, u, metav1.CreateOptions{})
		return err
	}
	update := func(ns, name string, mutate func(*unstructured.Unstructured)) error {
		res := dyn.Resource(agentRuntimes).Namespace(ns)
		return retry.RetryOnConflict(retry.DefaultRetry, func() error {
			u, err := res.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			mutate(u)
			_, err = res.Update(ctx, u, metav1.UpdateOptions{})
			return err
		})
	}
	setPolicy := func(generation int64, actions rules.AdmissionActions, match func(rules.Input) bool) {
		t.Helper()
		if err := store.Set(&policies.Compiled{Name: testPolicy, Generation: generation, Rules: []rules.Rule{packNameRule(actions, match)}}); err != nil {
			t.Fatal(err)
		}
	}
	// The API server may call the webhook before its server answers; the
	// first admission is retried until the webhook answers at all.
	eventually(t, 20*time.Second, func() error {
		_, err := dyn.Resource(agentRuntimes).Namespace("agents").Create(ctx, agentNamed("agents", "probe", "billing"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err
	})

	t.Run("Deny: the API server refuses with the policy rule's ID and field", func(t *testing.T) {
		setPolicy(1, rules.AdmissionActions{Deny: true}, nil)
		assertRefusedBy(t, create(agentNamed("agents", "a1", "support")), "vagentruntime.omnia.altairalabs.ai", rulePackName, packNameField)
		if err := create(agentNamed("agents", "a1", "billing")); err != nil {
			t.Errorf("an agent the policy does not find was refused: %v", err)
		}
	})

	t.Run("a policy change is seen by the next admission: Warn", func(t *testing.T) {
		setPolicy(2, rules.AdmissionActions{Warn: true}, nil)
		warnings.take()
		if err := create(agentNamed("agents", "a2", "support")); err != nil {
			t.Fatalf("refused under a Warn policy: %v", err)
		}
		assertWarned(t, warnings.take(), rulePackName, packNameField)
	})

	t.Run("Audit alone: admitted, no warning", func(t *testing.T) {
		setPolicy(3, rules.AdmissionActions{Audit: true}, nil)
		warnings.take()
		if err := create(agentNamed("agents", "a3", "support")); err != nil {
			t.Fatalf("refused under an Audit policy: %v", err)
		}
		if w := warnings.take(); len(w) > 0 {
			t.Errorf("warnings %q under an Audit-only policy", w)
		}
	})

	t.Run("namespaceSelector: judged only in the selected Namespace, read from the cluster", func(t *testing.T) {
		setPolicy(4, rules.AdmissionActions{Deny: true}, inProd)
		assertRefusedBy(t, create(agentNamed("prod", "a4", "support")), "vagentruntime.omnia.altairalabs.ai", rulePackName, packNameField)
		if err := create(agentNamed("agents", "a4", "support")); err != nil {
			t.Errorf("refused outside the selected Namespace: %v", err)
		}
	})

	t.Run("update ratchet of a policy rule", func(t *testing.T) {
		// a3 was admitted with the finding (Audit); the policy now denies.
		setPolicy(5, rules.AdmissionActions{Deny: true}, nil)
		warnings.take()
		if err := update("agents", "a3", func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"team": "support"}) }); err != nil {
			t.Fatalf("a label change of an agent that already had the finding was refused: %v", err)
		}
		if w := warnings.take(); len(w) != 1 || !strings.HasPrefix(w[0], "["+rulePackName+"] "+packNameField+": ") || !strings.HasSuffix(w[0], admission.RatchetedSuffix) {
			t.Errorf("warnings %q, want the ratcheted policy finding", w)
		}
		// a1 (billing) gains the finding on this update: refused.
		err := update("agents", "a1", func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, "support", "spec", "promptPackRef", "name")
		})
		assertRefusedBy(t, err, "vagentruntime.omnia.altairalabs.ai", rulePackName, packNameField)
	})

	t.Run("policy deleted from the Store: admitted at once", func(t *testing.T) {
		store.Delete(testPolicy)
		if err := create(agentNamed("agents", "a5", "support")); err != nil {
			t.Errorf("refused after the policy was deleted: %v", err)
		}
	})

	t.Run("the ValidationPolicy webhook refuses a policy that does not compile, though the kind is cluster-scoped", func(t *testing.T) {
		bad := &unstructured.Unstructured{}
		if err := bad.UnmarshalJSON(policyJSON(t, "bad-policy", 1, nil, false, "true", "bad")); err != nil {
			t.Fatal(err)
		}
		unstructured.RemoveNestedField(bad.Object, "metadata", "generation")
		_, err := dyn.Resource(validationPolicies).Create(ctx, bad, metav1.CreateOptions{})
		st := assertRefusedBy(t, err, "vvalidationpolicy.omnia.altairalabs.ai", "policy/bad-policy/rb", "spec.rules[1].cel")
		if st != nil && (st.Details.Kind != admission.PolicyKind || st.Details.Name != "bad-policy") {
			t.Errorf("details %+v do not name the ValidationPolicy bad-policy", st.Details)
		}
		if _, err := dyn.Resource(validationPolicies).Get(ctx, "bad-policy", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("the refused policy was stored (get: %v)", err)
		}
		good := &unstructured.Unstructured{}
		if err := good.UnmarshalJSON(policyJSON(t, "good-policy", 1, nil, false, "true")); err != nil {
			t.Fatal(err)
		}
		unstructured.RemoveNestedField(good.Object, "metadata", "generation")
		if _, err := dyn.Resource(validationPolicies).Create(ctx, good, metav1.CreateOptions{}); err != nil {
			t.Errorf("a policy that compiles was refused: %v", err)
		}
		p := &v1alpha1.ValidationPolicy{}
		if err := kube.Get(ctx, client.ObjectKey{Name: "good-policy"}, p); err != nil {
			t.Fatal(err)
		}
	})
}
