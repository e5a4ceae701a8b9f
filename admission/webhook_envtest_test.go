package admission_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/altairalabs/omnia/admission"
	"github.com/altairalabs/omnia/test/controlplane"
)

// The webhooks registered with the real API server over TLS, served by the
// real operator binary (as `make run` runs it): the API server itself
// refuses, warns and dry-runs exactly as the handler answers.

var agentRuntimes = schema.GroupVersionResource{Group: omniaGroup, Version: "v1alpha1", Resource: "agentruntimes"}

// warningRecorder collects the warnings the API server returns
// (rest.Config.WarningHandler).
type warningRecorder struct {
	mu   sync.Mutex
	list []string
}

func (w *warningRecorder) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

// take returns and clears the recorded warnings.
func (w *warningRecorder) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.list
	w.list = nil
	return out
}

func TestWebhooksWithAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver, etcd and the operator")
	}
	dir := t.TempDir()
	// Every CRD: the operator's controllers watch every kind.
	// Downgrades allowed: the namespaces "lenient" (warn) and "ratchet"
	// (audit) relax the global enforce mode.
	env, op, err := controlplane.WithOperator(controlplane.Options{}, dir, "--allow-namespace-downgrade")
	if err != nil {
		if log, rerr := os.ReadFile(filepath.Join(dir, "operator.log")); rerr == nil {
			t.Logf("operator log:\n%s", log)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		op.Stop()
		if t.Failed() {
			if log, err := os.ReadFile(op.LogPath); err == nil {
				t.Logf("operator log:\n%s", log)
			}
		}
		if err := env.Stop(); err != nil {
			t.Logf("stopping the control plane: %v", err)
		}
	})

	t.Run("the operator runs with the manifest's environment", func(t *testing.T) {
		want, err := controlplane.ManagerEnv()
		if err != nil {
			t.Fatal(err)
		}
		got, err := op.Environ()
		if err != nil {
			t.Fatal(err)
		}
		for _, kv := range want {
			if !slices.Contains(got, kv) {
				t.Errorf("the operator's environment lacks %s (config/manager/manager.yaml)", kv)
			}
		}
	})

	warnings := &warningRecorder{}
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandler = warnings
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	kube, err := client.New(env.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	makeNamespace := func(name string, labels map[string]string) {
		t.Helper()
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
		if err := kube.Create(ctx, ns); err != nil {
			t.Fatalf("creating namespace %s: %v", name, err)
		}
	}
	makeNamespace("agents", nil)
	makeNamespace("lenient", map[string]string{admission.NamespaceModeLabel: "warn"})
	// omnia-system exists: WithOperator installs the operator's
	// ServiceAccount and Lease RBAC there.

	// object returns an AgentRuntime named name in namespace ns.
	object := func(ns, name, facades, extra string) *unstructured.Unstructured {
		t.Helper()
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(agent(t, facades, extra)); err != nil {
			t.Fatal(err)
		}
		u.SetNamespace(ns)
		u.SetName(name)
		return u
	}
	create := func(u *unstructured.Unstructured, dryRun bool) error {
		opts := metav1.CreateOptions{}
		if dryRun {
			opts.DryRun = []string{metav1.DryRunAll}
		}
		_, err := dyn.Resource(agentRuntimes).Namespace(u.GetNamespace()).Create(ctx, u, opts)
		return err
	}

	var refusal *metav1.Status
	t.Run("reserved env key refused by the API server", func(t *testing.T) {
		warnings.take()
		err := create(object("agents", "packmode", "", reservedEnvExtra), false)
		refusal = assertRefused(t, err, ruleReservedEnv, "spec.runtime.extraEnv[0].name")
		if w := warnings.take(); len(w) > 0 {
			t.Errorf("unexpected warnings %q", w)
		}
		if _, err := dyn.Resource(agentRuntimes).Namespace("agents").Get(ctx, "packmode", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("the refused agent was stored (get: %v)", err)
		}
	})

	t.Run("dry-run refused identically", func(t *testing.T) {
		err := create(object("agents", "packmode", "", reservedEnvExtra), true)
		got := assertRefused(t, err, ruleReservedEnv, "spec.runtime.extraEnv[0].name")
		if refusal != nil && got != nil && (got.Message != refusal.Message || !reflect.DeepEqual(got.Details, refusal.Details) || got.Code != refusal.Code) {
			t.Errorf("dry-run answer differs:\n got %+v\nwant %+v", got, refusal)
		}
	})

	t.Run("every field error listed", func(t *testing.T) {
		err := create(object("agents", "three", threeDenialsFacades, threeDenialsExtra), false)
		st := assertRefused(t, err, ruleReservedEnv, "spec.runtime.extraEnv[1].name")
		if st != nil && len(st.Details.Causes) != 3 {
			t.Errorf("want 3 causes, got %+v", st.Details.Causes)
		}
	})

	t.Run("deprecated a2a clients admitted with a warning", func(t *testing.T) {
		for _, dry := range []bool{true, false} {
			warnings.take()
			if err := create(object("agents", "deprecated", deprecatedA2AFacades, ""), dry); err != nil {
				t.Fatalf("dry-run %v: refused: %v", dry, err)
			}
			assertWarned(t, warnings.take(), ruleDeprecatedA2A, "spec.facades[1].a2a.clients")
		}
	})

	t.Run("namespace labelled warn admits the reserved key with a warning", func(t *testing.T) {
		// The operator reads Namespace labels from its cache, which sees the
		// new namespace shortly after it is created.
		eventually(t, 20*time.Second, func() error {
			warnings.take()
			return create(object("lenient", "packmode", "", reservedEnvExtra), true)
		})
		warnings.take()
		if err := create(object("lenient", "packmode", "", reservedEnvExtra), false); err != nil {
			t.Fatalf("refused in a warn namespace: %v", err)
		}
		assertWarned(t, warnings.take(), ruleReservedEnv, "spec.runtime.extraEnv[0].name")
	})

	t.Run("update keeping an existing reserved key admitted, adding one refused", func(t *testing.T) {
		// Back to the global enforce mode for the lenient namespace.
		ns := &corev1.Namespace{}
		if err := kube.Get(ctx, client.ObjectKey{Name: "lenient"}, ns); err != nil {
			t.Fatal(err)
		}
		delete(ns.Labels, admission.NamespaceModeLabel)
		if err := kube.Update(ctx, ns); err != nil {
			t.Fatal(err)
		}
		eventually(t, 20*time.Second, func() error {
			err := create(object("lenient", "probe", "", reservedEnvExtra), true)
			if err == nil {
				return errors.New("still admitted in warn mode")
			}
			return nil
		})
		// The operator's controllers may write the agent too: each update
		// is retried on a conflict, from a fresh read.
		res := dyn.Resource(agentRuntimes).Namespace("lenient")
		update := func(mutate func(*unstructured.Unstructured)) error {
			return retry.RetryOnConflict(retry.DefaultRetry, func() error {
				stored, err := res.Get(ctx, "packmode", metav1.GetOptions{})
				if err != nil {
					return err
				}
				mutate(stored)
				_, err = res.Update(ctx, stored, metav1.UpdateOptions{})
				return err
			})
		}
		warnings.take()
		if err := update(func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"team": "support"}) }); err != nil {
			t.Fatalf("update keeping OMNIA_PACK_MODE refused: %v", err)
		}
		if w := warnings.take(); len(w) > 0 {
			t.Errorf("unexpected warnings %q", w)
		}
		err := update(func(u *unstructured.Unstructured) {
			env, _, _ := unstructured.NestedSlice(u.Object, "spec", "runtime", "extraEnv")
			env = append(env, map[string]any{"name": "OMNIA_IDLE_TIMEOUT", "value": "5m"})
			if err := unstructured.SetNestedSlice(u.Object, env, "spec", "runtime", "extraEnv"); err != nil {
				t.Fatal(err)
			}
		})
		st := assertRefused(t, err, ruleReservedEnv, "spec.runtime.extraEnv[1].name")
		if st != nil && len(st.Details.Causes) != 1 {
			t.Errorf("only the added key is refused; got causes %+v", st.Details.Causes)
		}
	})

	t.Run("a pinned version on a live PromptPack refused by the API server", func(t *testing.T) {
		testLivePackRefusedByOperator(t, dyn)
	})

	t.Run("an ArenaProject with a bad git URL refused by the API server", func(t *testing.T) {
		testArenaProjectGitURL(t, dyn)
	})

	t.Run("a webhook whose cache has not synced refuses, then admits once synced", func(t *testing.T) {
		testFailClosedUntilSynced(t, env, dyn, kube)
	})

	t.Run("the operator's namespace is not validated", func(t *testing.T) {
		if err := create(object("omnia-system", "packmode", "", reservedEnvExtra), true); err != nil {
			t.Errorf("the webhook's namespaceSelector should skip omnia-system: %v", err)
		}
	})

	t.Run("update ratchet", func(t *testing.T) { testRatchetOnAPIServer(t, env.Config) })

	t.Run("metrics on the operator's /metrics", func(t *testing.T) {
		// One decision per request, by kind and outcome.
		decisions := scrapeCounter(t, env, op, "omnia_admission_decisions_total")
		for _, want := range []struct {
			kind, outcome string
			min           float64
		}{
			{"AgentRuntime", admission.OutcomeDenied, 4}, // create, dry-run, three-errors, added key
			{"AgentRuntime", admission.OutcomeWarned, 2}, // deprecated list; lenient create
			{"AgentRuntime", admission.OutcomeAllowed, 1},
			{"Provider", admission.OutcomeAudited, 2}, // the ratchet's creates in audit mode
			{"Provider", admission.OutcomeWarned, 1},  // the label change, its finding ratcheted
			{"Provider", admission.OutcomeDenied, 2},  // enforce-mode probe, the new violation
		} {
			key := fmt.Sprintf(`kind=%q,outcome=%q`, want.kind, want.outcome)
			if got, ok := decisions[key]; !ok || got < want.min {
				t.Errorf("omnia_admission_decisions_total{%s} = %v (present %v), want >= %v", key, got, ok, want.min)
			}
		}
		for key := range decisions {
			if strings.Contains(key, "rule=") {
				t.Errorf("omnia_admission_decisions_total{%s} is labelled by rule: it counts findings, not decisions", key)
			}
		}
		// Findings by kind, rule and outcome.
		findings := scrapeCounter(t, env, op, "omnia_admission_findings_total")
		for _, want := range []struct {
			kind, rule, outcome string
			min                 float64
		}{
			{"AgentRuntime", ruleReservedEnv, admission.OutcomeDenied, 4},
			{"AgentRuntime", ruleReservedEnv, admission.OutcomeWarned, 2}, // lenient dry-run and create
			{"AgentRuntime", ruleDeprecatedA2A, admission.OutcomeWarned, 2},
			{"Provider", ruleProviderTimeout, admission.OutcomeRatcheted, 2}, // label change, new violation
			{"Provider", ruleProviderPricing, admission.OutcomeDenied, 1},
		} {
			key := fmt.Sprintf(`kind=%q,outcome=%q,rule=%q`, want.kind, want.outcome, want.rule)
			if got, ok := findings[key]; !ok || got < want.min {
				t.Errorf("omnia_admission_findings_total{%s} = %v (present %v), want >= %v", key, got, ok, want.min)
			}
		}
		if t.Failed() {
			t.Logf("decisions: %v\nfindings: %v", decisions, findings)
		}
	})

	t.Run("ValidationPolicies", func(t *testing.T) { testPoliciesOnOperator(t, env, op, dyn) })
}

// assertRefused checks err is the AgentRuntime webhook's refusal, through
// the API server, carrying the rule ID in its message and a status cause at
// field naming the rule.
func assertRefused(t *testing.T, err error, rule, field string) *metav1.Status {
	t.Helper()
	return assertRefusedBy(t, err, "vagentruntime.omnia.altairalabs.ai", rule, field)
}

// assertRefusedBy is assertRefused for the named webhook.
func assertRefusedBy(t *testing.T, err error, webhook, rule, field string) *metav1.Status {
	t.Helper()
	if err == nil {
		t.Fatalf("admitted; want a refusal by %s at %s", rule, field)
	}
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("not a status error: %v", err)
	}
	st := se.ErrStatus
	if st.Code != http.StatusUnprocessableEntity || st.Reason != metav1.StatusReasonInvalid {
		t.Errorf("code %d reason %q, want 422 Invalid", st.Code, st.Reason)
	}
	if !strings.Contains(st.Message, `admission webhook "`+webhook+`" denied the request`) ||
		!strings.Contains(st.Message, "["+rule+"] "+field+": ") {
		t.Errorf("message %q does not name the webhook, [%s] and %s", st.Message, rule, field)
	}
	if st.Details == nil {
		t.Fatalf("no details in %+v", st)
	}
	for _, c := range st.Details.Causes {
		if c.Field == field && strings.HasPrefix(c.Message, "["+rule+"] ") {
			return &st
		}
	}
	t.Errorf("no cause at %s with [%s]: %+v", field, rule, st.Details.Causes)
	return &st
}

// assertWarned checks exactly one warning came back, carrying rule and field.
func assertWarned(t *testing.T, warnings []string, rule, field string) {
	t.Helper()
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "["+rule+"] "+field+": ") {
		t.Errorf("warnings %q, want one starting [%s] %s", warnings, rule, field)
	}
}

// eventually retries f until it succeeds or the timeout passes.
func eventually(t *testing.T, timeout time.Duration, f func() error) {
	t.Helper()
	var err error
	if wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		err = f()
		return err == nil, nil
	}) != nil {
		t.Fatalf("not within %v: %v", timeout, err)
	}
}

// scrapeCounter reads the series of the counter name from the operator's
// /metrics endpoint, keyed by their label sets as exposed (sorted by label
// name).
func scrapeCounter(t *testing.T, env *envtest.Environment, op *controlplane.Operator, name string) map[string]float64 {
	t.Helper()
	// /metrics is HTTPS and admits only a caller the API server authorizes:
	// a scraper's ServiceAccount token bound to omnia-metrics-reader.
	token, err := controlplane.ServiceAccountToken(env.Config, controlplane.OperatorNamespace, controlplane.MetricsScraper)
	if err != nil {
		t.Fatal(err)
	}
	code, body, err := op.Metrics(token)
	if err != nil {
		t.Fatal(err)
	}
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", op.MetricsURL, code, body)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	prefix := name + "{"
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		labels, value, ok := strings.Cut(strings.TrimPrefix(line, prefix), "} ")
		if !ok {
			t.Fatalf("unparsable series %q", line)
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			t.Fatalf("series %q: %v", line, err)
		}
		out[labels] = v
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s serves no %s series", op.MetricsURL, name)
	}
	return out
}
