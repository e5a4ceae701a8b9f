package admission_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/altairalabs/omnia/admission"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
	"github.com/altairalabs/omnia/rules"
)

var promptPacks = schema.GroupVersionResource{Group: omniaGroup, Version: "v1alpha1", Resource: "promptpacks"}

const rulePromptPackLiveRef = "agentruntime/promptpack-live-ref"

// livePromptPack is a live PromptPack labelled with its pack name, as the
// spec says packs are found.
func livePromptPack(ns, packName string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": omniaGroup + "/v1alpha1",
		"kind":       "PromptPack",
		"metadata": map[string]any{
			"name": packName + "-live", "namespace": ns,
			"labels": map[string]any{rules.PromptPackLabel: packName},
		},
		"spec": map[string]any{"packName": packName, "source": map[string]any{"live": map[string]any{"projectRef": map[string]any{"name": "proj"}}}},
	}}
	return u
}

// agentOnPack is the clean agent on pack support, with version pinned when
// not empty.
func agentOnPack(t *testing.T, ns, name, version string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(agent(t, "", "")); err != nil {
		t.Fatal(err)
	}
	u.SetNamespace(ns)
	u.SetName(name)
	if version != "" {
		if err := unstructured.SetNestedField(u.Object, version, "spec", "promptPackRef", "version"); err != nil {
			t.Fatal(err)
		}
	}
	return u
}

func dryRunCreateAgent(ctx context.Context, dyn dynamic.Interface, u *unstructured.Unstructured) error {
	_, err := dyn.Resource(agentRuntimes).Namespace(u.GetNamespace()).Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	return err
}

// testLivePackRefusedByOperator: the operator's webhook looks PromptPacks up
// in its cache, so the API server refuses a pinned version on a live pack
// (agentruntime.md, promptPackRef) and admits a bare ref to it.
func testLivePackRefusedByOperator(t *testing.T, dyn dynamic.Interface) {
	ctx := context.Background()
	if _, err := dyn.Resource(promptPacks).Namespace("agents").Create(ctx, livePromptPack("agents", "support"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The operator's cache sees the new pack shortly after it is created.
	eventually(t, 20*time.Second, func() error {
		if err := dryRunCreateAgent(ctx, dyn, agentOnPack(t, "agents", "pinned", "1.0.0")); err == nil {
			return errors.New("a pinned version on a live pack was admitted")
		}
		return nil
	})
	assertRefused(t, dryRunCreateAgent(ctx, dyn, agentOnPack(t, "agents", "pinned", "1.0.0")), rulePromptPackLiveRef, "spec.promptPackRef.version")
	if err := dryRunCreateAgent(ctx, dyn, agentOnPack(t, "agents", "bare", "")); err != nil {
		t.Errorf("a bare ref to a live pack refused: %v", err)
	}
}

// testFailClosedUntilSynced registers a second AgentRuntime webhook, served
// in this process over TLS with the control plane's test CA, for one
// namespace. Its facts read through a cache that has not started: the API
// server refuses every AgentRuntime there with the webhook's "retry" error.
// Once the cache starts and syncs, the same request is admitted and a pinned
// version on a live pack is refused by the rule.
func testFailClosedUntilSynced(t *testing.T, env *envtest.Environment, dyn dynamic.Interface, kube client.Client) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	const ns = "unsynced"
	if err := kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{"omnia-test": ns}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(promptPacks).Namespace(ns).Create(ctx, livePromptPack(ns, "support"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	scheme := testScheme(t)
	facts, err := cache.New(env.Config, cache.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	cfg := newConfig(prometheus.NewRegistry())
	cfg.ClusterFacts = func(ctx context.Context) admission.CheckedFacts {
		return clusterfacts.New(ctx, facts, nil, nil, rules.License{})
	}

	port := freeLocalPort(t)
	server := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: port, CertDir: env.WebhookInstallOptions.LocalServingCertDir})
	path := admission.Served["AgentRuntime"]
	server.Register(path, admission.HTTPHandler(admission.Handlers(scheme, cfg)["AgentRuntime"]))
	go func() { _ = server.Start(ctx) }()
	eventually(t, 20*time.Second, func() error { return server.StartedChecker()(&http.Request{}) })

	url := "https://127.0.0.1:" + strconv.Itoa(port) + path
	fail, none := admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone
	timeout := int32(10)
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "omnia-test-unsynced"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "vagentruntime-unsynced.omnia.altairalabs.ai",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: env.WebhookInstallOptions.LocalServingCAData},
			Rules:                   []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}, Rule: admissionregistrationv1.Rule{APIGroups: []string{omniaGroup}, APIVersions: []string{"v1alpha1"}, Resources: []string{"agentruntimes"}}}},
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"omnia-test": ns}},
			FailurePolicy:           &fail,
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          &timeout,
		}},
	}
	if err := kube.Create(ctx, vwc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kube.Delete(context.Background(), vwc) })

	// The API server picks the new configuration up shortly; until the
	// cache has synced every AgentRuntime in the namespace is refused.
	var refusal *apierrors.StatusError
	eventually(t, 20*time.Second, func() error {
		err := dryRunCreateAgent(ctx, dyn, agentOnPack(t, ns, "bare", ""))
		if !errors.As(err, &refusal) {
			return errors.New("not refused yet by the unsynced webhook")
		}
		return nil
	})
	st := refusal.ErrStatus
	if st.Code != http.StatusServiceUnavailable || !strings.Contains(st.Message, `admission webhook "vagentruntime-unsynced.omnia.altairalabs.ai" denied the request`) ||
		!strings.Contains(st.Message, "retry shortly") || !strings.Contains(st.Message, rulePromptPackLiveRef) {
		t.Errorf("refusal %d %q, want 503 naming the webhook, the rule and to retry", st.Code, st.Message)
	}

	go func() { _ = facts.Start(ctx) }()
	if !facts.WaitForCacheSync(ctx) {
		t.Fatal("the webhook's cache did not sync")
	}
	eventually(t, 20*time.Second, func() error { return dryRunCreateAgent(ctx, dyn, agentOnPack(t, ns, "bare", "")) })
	assertWebhookRefused(t, dryRunCreateAgent(ctx, dyn, agentOnPack(t, ns, "pinned", "2.0.0")), rulePromptPackLiveRef, "spec.promptPackRef.version")
}

// assertWebhookRefused checks err is a 422 refusal carrying [rule] field
// from any webhook.
func assertWebhookRefused(t *testing.T, err error, rule, field string) {
	t.Helper()
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("want a refusal by %s at %s, got %v", rule, field, err)
	}
	if se.ErrStatus.Code != http.StatusUnprocessableEntity || !strings.Contains(se.ErrStatus.Message, "["+rule+"] "+field+": ") {
		t.Errorf("refusal %d %q, want 422 with [%s] %s", se.ErrStatus.Code, se.ErrStatus.Message, rule, field)
	}
}

func freeLocalPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
