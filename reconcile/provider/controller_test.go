package provider

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/reconcile/prober"
	"github.com/altairalabs/omnia/test/controlplane"
)

// The controller tests run the reconciler in a manager against a real
// kube-apiserver and etcd. Every probe goes to a local server the test starts.
var (
	testEnv   *envtest.Environment
	testMgr   ctrl.Manager
	direct    client.Client // uncached, for the test's own reads and writes
	fakeClock = clocktesting.NewFakeClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	logs      = &controlplane.LogBuffer{}
	// managerOpts are the options of the controller the manager runs: a
	// health interval long enough that only events (and the test's explicit
	// reconciles) drive it.
	managerOpts = Options{
		Common:              ctrlopts.Common{Clock: fakeClock, SkipNameValidation: true},
		ProbeTimeout:        500 * time.Millisecond,
		HealthCheckInterval: time.Hour,
	}
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

// The vendors of the manager's controller are TLS servers with httptest's
// certificate, which the controller's client trusts (testRoots): vendor
// serves as every type's default endpoint, gateway is the one other host
// --credential-probe-hosts allows. Both count the requests they get.
var (
	vendor, gateway *countingServer
	testRoots       *x509.CertPool
)

func runMain(m *testing.M) int {
	vendor, gateway = startTLS(vendorHandler()), startTLS(gatewayHandler())
	defer vendor.Close()
	defer gateway.Close()
	testRoots = x509.NewCertPool()
	testRoots.AddCert(vendor.Certificate())
	managerOpts.HTTPClient = trustingClient()
	managerOpts.DefaultEndpoints = map[v1alpha1.ProviderType]string{
		v1alpha1.ProviderTypeClaude: vendor.URL,
		v1alpha1.ProviderTypeOpenAI: vendor.URL + "/v1",
		v1alpha1.ProviderTypeGemini: vendor.URL,
	}
	hosts, err := ParseCredentialProbeHosts(strings.TrimPrefix(gateway.URL, "https://"))
	if err != nil {
		panic(err)
	}
	managerOpts.Egress = Egress{CredentialHosts: hosts}

	// Log at every verbosity the controller and controller-runtime use (up to
	// V(5); client-go dumps request and response bodies, Secrets included, from
	// V(8), which no deployment runs at), so the leak test sees it all.
	ctrl.SetLogger(zap.New(zap.WriteTo(logs), zap.UseDevMode(true), zap.Level(zapcore.Level(-5))))

	testEnv, err = controlplane.Start(controlplane.Options{Kinds: []string{"Provider"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = testEnv.Stop() }()

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		panic(err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	direct, err = client.New(testEnv.Config, client.Options{Scheme: scheme})
	if err != nil {
		panic(err)
	}
	testMgr, err = ctrl.NewManager(testEnv.Config, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// Providers labelled isolatedLabel belong to a test's own manager.
		Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{
			&v1alpha1.Provider{}: {Label: mustSelector("!" + isolatedLabel)},
		}},
	})
	if err != nil {
		panic(err)
	}
	if err := SetupWithManager(testMgr, managerOpts); err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := testMgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "manager:", err)
		}
	}()
	if !testMgr.GetCache().WaitForCacheSync(ctx) {
		panic("cache did not sync")
	}
	code := m.Run()
	cancel()
	<-done
	if code != 0 {
		fmt.Fprintln(os.Stderr, "controller log tail:\n"+tail(logs.String(), 4000))
	}
	return code
}

// isolatedLabel marks the Providers a test's own manager reconciles (see
// isolatedManager); the shared manager ignores them.
const isolatedLabel = "omnia-test/isolated"

func mustSelector(s string) labels.Selector {
	sel, err := labels.Parse(s)
	if err != nil {
		panic(err)
	}
	return sel
}

// isolatedManager runs a manager of the test's own, with opts, reconciling
// only the Providers labelled isolatedLabel, until the test ends.
func isolatedManager(t *testing.T, opts Options) {
	t.Helper()
	mgr, err := ctrl.NewManager(testEnv.Config, ctrl.Options{
		Scheme:                 testMgr.GetScheme(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{
			&v1alpha1.Provider{}: {Label: mustSelector(isolatedLabel)},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	opts.SkipNameValidation = true
	if err := SetupWithManager(mgr, opts); err != nil {
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
}

// startProber runs a prober until the test ends.
func startProber(t *testing.T, opts prober.Options) *prober.Prober {
	t.Helper()
	p := prober.New(opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = p.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return p
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// countingClient counts status writes.
type countingClient struct {
	client.Client
	mu     sync.Mutex
	writes int
}

func (c *countingClient) Status() client.SubResourceWriter {
	return &countingStatus{SubResourceWriter: c.Client.Status(), c: c}
}

func (c *countingClient) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes
}

type countingStatus struct {
	client.SubResourceWriter
	c *countingClient
}

func (s *countingStatus) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	s.c.mu.Lock()
	s.c.writes++
	s.c.mu.Unlock()
	return s.SubResourceWriter.Update(ctx, obj, opts...)
}

func (s *countingStatus) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	s.c.mu.Lock()
	s.c.writes++
	s.c.mu.Unlock()
	return s.SubResourceWriter.Patch(ctx, obj, patch, opts...)
}

// directReconciler is a second reconciler on the manager's cache, driven by
// the test (for the clock-driven steps), counting its status writes. It runs
// with the production health interval.
func directReconciler(t *testing.T) (*Reconciler, *countingClient) {
	t.Helper()
	cc := &countingClient{Client: testMgr.GetClient()}
	opts := managerOpts
	opts.HealthCheckInterval = 30 * time.Second
	opts.Prober = startProber(t, prober.Options{Clock: fakeClock})
	r, err := NewReconciler(cc, testMgr.GetRESTMapper(), testMgr.GetEventRecorder(ControllerName), opts)
	if err != nil {
		t.Fatal(err)
	}
	return r, cc
}

var nsSeq int

func namespace(t *testing.T) string {
	t.Helper()
	nsSeq++
	name := fmt.Sprintf("prov-%d-%d", os.Getpid()%1000, nsSeq)
	if err := direct.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	return name
}

func eventually(t *testing.T, what string, f func() error) {
	t.Helper()
	var err error
	if wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 15*time.Second, true, func(context.Context) (bool, error) {
		err = f()
		return err == nil, nil
	}) != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// want describes a Provider's expected status: conditions by type
// ("Status/Reason", or "" for absent) and the phase.
type want struct {
	phase v1alpha1.ProviderPhase
	conds map[string]string
	msg   map[string]string // substrings of messages
}

func (w want) check(p *v1alpha1.Provider) error {
	if p.Status.Phase != w.phase {
		return fmt.Errorf("phase %q, want %q; conditions %s", p.Status.Phase, w.phase, condSummary(p))
	}
	for typ, sr := range w.conds {
		c := meta.FindStatusCondition(p.Status.Conditions, typ)
		if sr == "" {
			if c != nil {
				return fmt.Errorf("%s should be absent: %s", typ, condSummary(p))
			}
			continue
		}
		if c == nil || string(c.Status)+"/"+c.Reason != sr {
			return fmt.Errorf("%s want %s: %s", typ, sr, condSummary(p))
		}
	}
	for typ, m := range w.msg {
		c := meta.FindStatusCondition(p.Status.Conditions, typ)
		if c == nil || !strings.Contains(c.Message, m) {
			return fmt.Errorf("%s message lacks %q: %s", typ, m, condSummary(p))
		}
	}
	return nil
}

func condSummary(p *v1alpha1.Provider) string {
	var parts []string
	for _, c := range p.Status.Conditions {
		parts = append(parts, fmt.Sprintf("%s=%s/%s(%s)", c.Type, c.Status, c.Reason, c.Message))
	}
	return strings.Join(parts, "; ")
}

// waitFor waits until the Provider, as the manager's cache sees it, matches w.
func waitFor(t *testing.T, key types.NamespacedName, w want) *v1alpha1.Provider {
	t.Helper()
	p := &v1alpha1.Provider{}
	eventually(t, "provider "+key.String(), func() error {
		if err := testMgr.GetClient().Get(context.Background(), key, p); err != nil {
			return err
		}
		return w.check(p)
	})
	return p
}

func createProvider(t *testing.T, ns, name string, spec v1alpha1.ProviderSpec) types.NamespacedName {
	t.Helper()
	p := &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: spec}
	if err := direct.Create(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return types.NamespacedName{Namespace: ns, Name: name}
}

func putSecret(t *testing.T, ns, name string, data map[string]string) {
	t.Helper()
	ctx := context.Background()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	err := direct.Get(ctx, client.ObjectKeyFromObject(s), s)
	s.Data = map[string][]byte{}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	switch {
	case apierrors.IsNotFound(err):
		err = direct.Create(ctx, s)
	case err == nil:
		err = direct.Update(ctx, s)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func providerEvents(t *testing.T, ns, name string) []eventsv1.Event {
	t.Helper()
	list := &eventsv1.EventList{}
	if err := direct.List(context.Background(), list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var out []eventsv1.Event
	for _, e := range list.Items {
		if e.Regarding.Name == name && e.Regarding.Kind == "Provider" {
			out = append(out, e)
		}
	}
	return out
}

// waitEvent waits for an event of type typ and reason whose note starts with
// prefix (the condition type).
func waitEvent(t *testing.T, ns, name, typ, reason, prefix string) {
	t.Helper()
	eventually(t, fmt.Sprintf("%s event %s (%s)", typ, reason, prefix), func() error {
		for _, e := range providerEvents(t, ns, name) {
			if e.Type == typ && e.Reason == reason && strings.HasPrefix(e.Note, prefix) {
				if e.ReportingController != ControllerName || e.Action != prefix {
					return fmt.Errorf("event %+v has the wrong controller or action", e)
				}
				return nil
			}
		}
		return fmt.Errorf("not among %d events", len(providerEvents(t, ns, name)))
	})
}

// assertNoLeak searches every Provider status, every event and the logs of
// the namespace for the credential values.
func assertNoLeak(t *testing.T, ns string, values ...string) {
	t.Helper()
	var haystacks []string
	provs := &v1alpha1.ProviderList{}
	if err := direct.List(context.Background(), provs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, p := range provs.Items {
		b, _ := json.Marshal(p.Status)
		haystacks = append(haystacks, "status of "+p.Name+": "+string(b))
	}
	evs := &eventsv1.EventList{}
	if err := direct.List(context.Background(), evs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if len(evs.Items) == 0 {
		t.Fatal("no events to search: the search would prove nothing")
	}
	b, _ := json.Marshal(evs.Items)
	log := logs.String()
	if !strings.Contains(log, "status updated") || !strings.Contains(log, " is False: ") {
		t.Fatal("the log holds neither the controller's lines nor the events it logs: the search would prove nothing")
	}
	haystacks = append(haystacks, "events: "+string(b), "logs: "+log)
	for _, v := range values {
		for _, h := range haystacks {
			if strings.Contains(h, v) {
				t.Errorf("credential value found in %s", h[:min(len(h), 60)])
			}
		}
	}
}

func TestSecretLifecycle(t *testing.T) {
	ns := namespace(t)
	key := createProvider(t, ns, "claude", v1alpha1.ProviderSpec{
		Type: v1alpha1.ProviderTypeClaude, Model: "claude-sonnet-4-20250514", // the vendor's default endpoint
		Credential: &v1alpha1.ProviderCredential{SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: "anthropic"}},
	})

	// The Secret does not exist yet.
	waitFor(t, key, want{phase: v1alpha1.ProviderPhaseError, conds: map[string]string{
		v1alpha1.ProviderConditionSecretFound:          "False/SecretNotFound",
		v1alpha1.ProviderConditionCredentialConfigured: "False/SecretNotFound",
		v1alpha1.ProviderConditionCredentialValid:      "",
		v1alpha1.ProviderConditionEndpointReachable:    "True/EndpointResponded",
		v1alpha1.ProviderConditionModelValid:           "True/ModelSet",
		v1alpha1.ProviderConditionReady:                "False/SecretNotFound",
	}})
	waitEvent(t, ns, "claude", corev1.EventTypeWarning, v1alpha1.ProviderReasonSecretNotFound, v1alpha1.ProviderConditionSecretFound)

	// Creating it re-reconciles promptly: the vendor accepts the key.
	putSecret(t, ns, "anthropic", map[string]string{"ANTHROPIC_API_KEY": goodKey})
	waitFor(t, key, want{phase: v1alpha1.ProviderPhaseReady,
		conds: map[string]string{
			v1alpha1.ProviderConditionSecretFound:          "True/SecretKeyFound",
			v1alpha1.ProviderConditionCredentialConfigured: "True/SecretRefConfigured",
			v1alpha1.ProviderConditionCredentialValid:      "True/CredentialAccepted",
			v1alpha1.ProviderConditionReady:                "True/ProviderReady",
		},
		msg: map[string]string{v1alpha1.ProviderConditionCredentialConfigured: `"ANTHROPIC_API_KEY"`},
	})
	waitEvent(t, ns, "claude", corev1.EventTypeNormal, v1alpha1.ProviderReasonSecretKeyFound, v1alpha1.ProviderConditionSecretFound)
	waitEvent(t, ns, "claude", corev1.EventTypeNormal, v1alpha1.ProviderReasonProviderReady, v1alpha1.ProviderConditionReady)

	// Nothing changed: a second reconcile writes nothing.
	r, cc := directReconciler(t)
	res, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key})
	if err != nil {
		t.Fatal(err)
	}
	if cc.count() != 0 {
		t.Fatalf("%d status writes reconciling an unchanged Provider", cc.count())
	}
	if res.RequeueAfter != 30*time.Second {
		t.Fatalf("RequeueAfter %s, want the 30s health interval", res.RequeueAfter)
	}

	// Editing the Secret to a key the vendor refuses.
	putSecret(t, ns, "anthropic", map[string]string{"ANTHROPIC_API_KEY": badKey})
	waitFor(t, key, want{phase: v1alpha1.ProviderPhaseError, conds: map[string]string{
		v1alpha1.ProviderConditionCredentialValid: "False/CredentialRejected",
		v1alpha1.ProviderConditionReady:           "False/CredentialRejected",
	}})
	waitEvent(t, ns, "claude", corev1.EventTypeWarning, v1alpha1.ProviderReasonCredentialRejected, v1alpha1.ProviderConditionCredentialValid)

	// 403 is a rejection too.
	putSecret(t, ns, "anthropic", map[string]string{"ANTHROPIC_API_KEY": denyKey})
	waitFor(t, key, want{phase: v1alpha1.ProviderPhaseError, conds: map[string]string{v1alpha1.ProviderConditionCredentialValid: "False/CredentialRejected"},
		msg: map[string]string{v1alpha1.ProviderConditionCredentialValid: "HTTP 403"}})

	// A dev-sample placeholder is not sent to the vendor.
	putSecret(t, ns, "anthropic", map[string]string{"ANTHROPIC_API_KEY": "sk-ant-api03-..."})
	waitFor(t, key, want{phase: v1alpha1.ProviderPhaseError, conds: map[string]string{
		v1alpha1.ProviderConditionSecretFound:          "True/SecretKeyFound",
		v1alpha1.ProviderConditionCredentialConfigured: "False/PlaceholderCredential",
		v1alpha1.ProviderConditionCredentialValid:      "",
		v1alpha1.ProviderConditionReady:                "False/PlaceholderCredential",
	}})
	waitEvent(t, ns, "claude", corev1.EventTypeWarning, v1alpha1.ProviderReasonPlaceholderCredential, v1alpha1.ProviderConditionCredentialConfigured)

	// Back to the good key, then delete the Secret.
	putSecret(t, ns, "anthropic", map[string]string{"ANTHROPIC_API_KEY": goodKey})
	waitFor(t, key, want{phase: v1alpha1.ProviderPhaseReady, conds: map[string]string{v1alpha1.ProviderConditionCredentialValid: "True/CredentialAccepted"}})
	if err := direct.Delete(context.Background(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "anthropic"}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, key, want{phase: v1alpha1.ProviderPhaseError, conds: map[string]string{
		v1alpha1.ProviderConditionSecretFound: "False/SecretNotFound", v1alpha1.ProviderConditionCredentialValid: "",
	}})

	assertNoLeak(t, ns, goodKey, badKey, denyKey)
}

func TestSecretKeyChoice(t *testing.T) {
	ns := namespace(t)
	putSecret(t, ns, "multi", map[string]string{"CLAUDE_API_KEY": goodKey, "api-key": badKey, "OPENAI_API_KEY": badKey})
	spec := func(key string) v1alpha1.ProviderSpec {
		return v1alpha1.ProviderSpec{
			Type: v1alpha1.ProviderTypeClaude, Model: "claude-sonnet-4-20250514",
			Credential: &v1alpha1.ProviderCredential{SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: "multi", Key: key}},
		}
	}
	// Auto-detected: CLAUDE_API_KEY comes before api-key for claude.
	waitFor(t, createProvider(t, ns, "auto", spec("")), want{phase: v1alpha1.ProviderPhaseReady,
		conds: map[string]string{v1alpha1.ProviderConditionCredentialValid: "True/CredentialAccepted"},
		msg:   map[string]string{v1alpha1.ProviderConditionCredentialConfigured: `key "CLAUDE_API_KEY"`, v1alpha1.ProviderConditionSecretFound: `"CLAUDE_API_KEY"`}})
	// An explicit key is used exactly.
	waitFor(t, createProvider(t, ns, "explicit", spec("api-key")), want{phase: v1alpha1.ProviderPhaseError,
		conds: map[string]string{v1alpha1.ProviderConditionCredentialValid: "False/CredentialRejected"},
		msg:   map[string]string{v1alpha1.ProviderConditionCredentialConfigured: `key "api-key"`}})
	// An explicit key the Secret lacks: no other key is tried.
	waitFor(t, createProvider(t, ns, "missing", spec("ANTHROPIC_API_KEY")), want{phase: v1alpha1.ProviderPhaseError,
		conds: map[string]string{v1alpha1.ProviderConditionSecretFound: "False/SecretKeyMissing", v1alpha1.ProviderConditionCredentialConfigured: "False/SecretKeyMissing", v1alpha1.ProviderConditionReady: "False/SecretKeyMissing"}})
	assertNoLeak(t, ns, goodKey, badKey)
}

// switchable serves HTTP on a fixed address that the test brings up and down.
type switchable struct {
	addr string
	srv  *http.Server
}

func newSwitchable(t *testing.T) *switchable {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &switchable{addr: l.Addr().String()}
	s.serve(l)
	t.Cleanup(s.down)
	return s
}

func (s *switchable) serve(l net.Listener) {
	s.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })}
	go func() { _ = s.srv.Serve(l) }()
}

func (s *switchable) up(t *testing.T) {
	t.Helper()
	l, err := net.Listen("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	s.serve(l)
}

func (s *switchable) down() {
	if s.srv != nil {
		_ = s.srv.Close()
		s.srv = nil
	}
}

// reconcileNow runs the direct reconciler once and waits until the manager's
// cache shows what it wrote, so the next step reads it.
func reconcileNow(t *testing.T, r *Reconciler, cc *countingClient, key types.NamespacedName) (writes int, res ctrl.Result) {
	t.Helper()
	before := cc.count()
	res, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key})
	if err != nil {
		t.Fatal(err)
	}
	writes = cc.count() - before
	if writes > 0 {
		stored := &v1alpha1.Provider{}
		if err := direct.Get(context.Background(), key, stored); err != nil {
			t.Fatal(err)
		}
		eventually(t, "cache catches up", func() error {
			cached := &v1alpha1.Provider{}
			if err := testMgr.GetClient().Get(context.Background(), key, cached); err != nil {
				return err
			}
			if cached.ResourceVersion != stored.ResourceVersion {
				return fmt.Errorf("cache at %s, stored %s", cached.ResourceVersion, stored.ResourceVersion)
			}
			return nil
		})
	}
	return writes, res
}

// waitIdle waits until the reconciler's prober has run every probe
// submitted to it.
func waitIdle(t *testing.T, r *Reconciler) {
	t.Helper()
	eventually(t, "probes finish", func() error {
		if n := r.probes.Busy(); n > 0 {
			return fmt.Errorf("%d probes queued or in flight", n)
		}
		return nil
	})
}

// reconcileProbed reconciles (submitting the due probes), waits for the
// prober to run them, and reconciles again to read their results, as the
// prober's event makes the manager do. It returns the writes of both and the
// second's result.
func reconcileProbed(t *testing.T, r *Reconciler, cc *countingClient, key types.NamespacedName) (writes int, res ctrl.Result) {
	t.Helper()
	n, _ := reconcileNow(t, r, cc, key)
	waitIdle(t, r)
	m, res := reconcileNow(t, r, cc, key)
	return n + m, res
}

func TestEndpointGrace(t *testing.T) {
	ns := namespace(t)
	endpoint := newSwitchable(t)
	key := createProvider(t, ns, "vllm", v1alpha1.ProviderSpec{
		Type: v1alpha1.ProviderTypeVLLM, Model: "llama3:8b", BaseURL: "http://" + endpoint.addr,
	})
	waitFor(t, key, want{phase: v1alpha1.ProviderPhaseReady, conds: map[string]string{
		v1alpha1.ProviderConditionEndpointReachable: "True/EndpointResponded", v1alpha1.ProviderConditionReady: "True/ProviderReady",
		v1alpha1.ProviderConditionSecretFound: "", v1alpha1.ProviderConditionCredentialConfigured: "", v1alpha1.ProviderConditionCredentialValid: "", v1alpha1.ProviderConditionAuthConfigured: "",
	}})
	// A reconciler whose prober has no result yet keeps the stored
	// condition: nothing to write.
	r, cc := directReconciler(t)
	if n, _ := reconcileProbed(t, r, cc, key); n != 0 {
		t.Fatalf("%d writes for an unchanged Provider", n)
	}

	// The endpoint goes down: at the next health check, Ready stays True
	// for the grace.
	endpoint.down()
	fakeClock.Step(30 * time.Second)
	began := fakeClock.Now()
	n, res := reconcileProbed(t, r, cc, key)
	if n != 1 {
		t.Fatalf("%d writes, want 1", n)
	}
	if res.RequeueAfter != 30*time.Second {
		t.Fatalf("RequeueAfter %s, want 30s", res.RequeueAfter)
	}
	p := waitFor(t, key, want{phase: v1alpha1.ProviderPhaseReady, conds: map[string]string{
		v1alpha1.ProviderConditionEndpointReachable: "False/ConnectionFailed", v1alpha1.ProviderConditionReady: "True/EndpointProbeFailing",
	}, msg: map[string]string{v1alpha1.ProviderConditionReady: "connection refused"}})
	if lt := meta.FindStatusCondition(p.Status.Conditions, v1alpha1.ProviderConditionEndpointReachable).LastTransitionTime; !lt.Time.Equal(began.Truncate(time.Second)) {
		t.Fatalf("failures began at %s, recorded %s", began, lt)
	}
	waitEvent(t, ns, "vllm", corev1.EventTypeWarning, v1alpha1.ProviderReasonConnectionFailed, v1alpha1.ProviderConditionEndpointReachable)

	// Four minutes on, still failing: nothing to write.
	fakeClock.Step(4 * time.Minute)
	if n, _ := reconcileProbed(t, r, cc, key); n != 0 {
		t.Fatalf("%d writes inside the grace", n)
	}
	// Exactly five minutes: still Ready.
	fakeClock.Step(time.Minute)
	if n, _ := reconcileProbed(t, r, cc, key); n != 0 {
		t.Fatalf("%d writes at the end of the grace", n)
	}
	// More than five minutes: Unavailable.
	fakeClock.Step(time.Second)
	if n, _ := reconcileProbed(t, r, cc, key); n != 1 {
		t.Fatalf("%d writes, want 1", n)
	}
	waitFor(t, key, want{phase: v1alpha1.ProviderPhaseUnavailable, conds: map[string]string{
		v1alpha1.ProviderConditionEndpointReachable: "False/ConnectionFailed", v1alpha1.ProviderConditionReady: "False/ConnectionFailed",
	}})
	waitEvent(t, ns, "vllm", corev1.EventTypeWarning, v1alpha1.ProviderReasonConnectionFailed, v1alpha1.ProviderConditionReady)

	// It comes back.
	endpoint.up(t)
	fakeClock.Step(30 * time.Second)
	if n, _ := reconcileProbed(t, r, cc, key); n != 1 {
		t.Fatalf("%d writes, want 1", n)
	}
	waitFor(t, key, want{phase: v1alpha1.ProviderPhaseReady, conds: map[string]string{
		v1alpha1.ProviderConditionEndpointReachable: "True/EndpointResponded", v1alpha1.ProviderConditionReady: "True/ProviderReady",
	}})
	waitEvent(t, ns, "vllm", corev1.EventTypeNormal, v1alpha1.ProviderReasonEndpointResponded, v1alpha1.ProviderConditionEndpointReachable)
	waitEvent(t, ns, "vllm", corev1.EventTypeNormal, v1alpha1.ProviderReasonProviderReady, v1alpha1.ProviderConditionReady)
}

func TestEndpointFailures(t *testing.T) {
	ns := namespace(t)
	for name, tt := range map[string]struct {
		url    string
		reason string
	}{
		"closes": {closingServer(t), v1alpha1.ProviderReasonConnectionFailed},
		"hangs":  {hangingServer(t), v1alpha1.ProviderReasonProbeTimeout},
		"nobody": {refusedURL(t), v1alpha1.ProviderReasonConnectionFailed},
	} {
		key := createProvider(t, ns, name, v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeVLLM, Model: "m", BaseURL: tt.url})
		waitFor(t, key, want{phase: v1alpha1.ProviderPhaseReady, conds: map[string]string{
			v1alpha1.ProviderConditionEndpointReachable: "False/" + tt.reason, v1alpha1.ProviderConditionReady: "True/EndpointProbeFailing",
		}})
	}
}

// TestCredentialTransientError: a vendor that cannot answer leaves
// CredentialValid Unknown without blocking Ready.
func TestCredentialTransientError(t *testing.T) {
	ns := namespace(t)
	putSecret(t, ns, "openai", map[string]string{"OPENAI_API_KEY": goodKey})
	key := createProvider(t, ns, "hangs", v1alpha1.ProviderSpec{
		Type: v1alpha1.ProviderTypeOpenAI, Model: "gpt-4o", BaseURL: gateway.URL + "/hang/v1", // an allowed host that never answers
		Credential: &v1alpha1.ProviderCredential{SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: "openai"}},
	})
	waitFor(t, key, want{phase: v1alpha1.ProviderPhaseReady, conds: map[string]string{
		v1alpha1.ProviderConditionCredentialValid:   "Unknown/CredentialValidationError",
		v1alpha1.ProviderConditionEndpointReachable: "False/ProbeTimeout",
		v1alpha1.ProviderConditionReady:             "True/EndpointProbeFailing",
	}})
	assertNoLeak(t, ns, goodKey)
}

// TestProviderKinds: the conditions each kind of Provider gets, on objects the
// API server stored without the webhook (so Go admission rules still report).
func TestProviderKinds(t *testing.T) {
	ns := namespace(t)
	tests := []struct {
		name string
		spec v1alpha1.ProviderSpec
		want want
	}{
		{"mock", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeMock}, want{phase: v1alpha1.ProviderPhaseReady, conds: map[string]string{
			v1alpha1.ProviderConditionReady: "True/ProviderReady", v1alpha1.ProviderConditionModelValid: "True/ModelNotRequired",
			v1alpha1.ProviderConditionEndpointReachable: "", v1alpha1.ProviderConditionCredentialConfigured: "", v1alpha1.ProviderConditionCredentialValid: "", v1alpha1.ProviderConditionSecretFound: "", v1alpha1.ProviderConditionAuthConfigured: "",
		}}},
		{"envvar", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeVLLM, Model: "m", Credential: &v1alpha1.ProviderCredential{EnvVar: "VLLM_KEY"}},
			want{phase: v1alpha1.ProviderPhaseReady, conds: map[string]string{
				v1alpha1.ProviderConditionCredentialConfigured: "True/EnvVarConfigured", v1alpha1.ProviderConditionCredentialValid: "Unknown/ValidationNotSupported",
				v1alpha1.ProviderConditionEndpointReachable: "", v1alpha1.ProviderConditionReady: "True/ProviderReady",
			}}},
		{"bad-envvar", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeVLLM, Model: "m", Credential: &v1alpha1.ProviderCredential{EnvVar: "MY-KEY"}},
			want{phase: v1alpha1.ProviderPhaseError, conds: map[string]string{
				v1alpha1.ProviderConditionCredentialConfigured: "False/InvalidEnvVar", v1alpha1.ProviderConditionReady: "False/InvalidEnvVar",
			}}},
		{"filepath", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeVLLM, Model: "m", Credential: &v1alpha1.ProviderCredential{FilePath: "/var/secrets/key"}},
			want{phase: v1alpha1.ProviderPhaseReady, conds: map[string]string{
				v1alpha1.ProviderConditionCredentialConfigured: "True/FilePathConfigured", v1alpha1.ProviderConditionCredentialValid: "Unknown/ValidationNotSupported",
			}}},
		{"bedrock", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeClaude, Model: "claude-sonnet-4-20250514",
			Platform: &v1alpha1.ProviderPlatform{Type: v1alpha1.ProviderPlatformTypeBedrock, Region: "us-east-1"},
			Auth:     &v1alpha1.ProviderAuth{Type: v1alpha1.ProviderAuthTypeWorkloadIdentity}},
			want{phase: v1alpha1.ProviderPhaseReady, conds: map[string]string{
				v1alpha1.ProviderConditionAuthConfigured: "True/PlatformAuthConfigured", v1alpha1.ProviderConditionEndpointReachable: "", v1alpha1.ProviderConditionCredentialValid: "", v1alpha1.ProviderConditionReady: "True/ProviderReady",
			}}},
		{"bad-timeout", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeMock, Defaults: &v1alpha1.ProviderDefaults{RequestTimeout: "soon"}},
			want{phase: v1alpha1.ProviderPhaseError, conds: map[string]string{v1alpha1.ProviderConditionReady: "False/InvalidSpec"},
				msg: map[string]string{v1alpha1.ProviderConditionReady: "[provider/defaults-timeout-duration]"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			waitFor(t, createProvider(t, ns, tt.name, tt.spec), tt.want)
		})
	}
}

// TestDeadEndpointsDoNotDelayOtherTenants:
// tenant A has many Providers whose endpoint accepts connections and never
// answers, with a 60s probe timeout; tenant B's Provider, created while A's
// probes hang, is probed and reported well within that time. Probing inside
// Reconcile (today's main) holds every reconcile worker for 60s per A
// Provider and B waits behind them; with the prober, A's probes hold at most
// the per-host share of the pool and B's reconcile never waits on a probe.
func TestDeadEndpointsDoNotDelayOtherTenants(t *testing.T) {
	nsA, nsB := namespace(t), namespace(t)
	// A's endpoint is on another loopback address: another host for the
	// per-host limit than B's 127.0.0.1.
	var hanging atomic.Int32
	release := make(chan struct{})
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hanging.Add(1)
		defer hanging.Add(-1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})}
	go func() { _ = dead.Serve(l) }()
	t.Cleanup(func() { close(release); _ = dead.Close() })

	isolatedManager(t, Options{ProbeTimeout: 60 * time.Second, HealthCheckInterval: time.Hour})
	create := func(ns, name, baseURL string) types.NamespacedName {
		p := &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{isolatedLabel: "true"}},
			Spec: v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeVLLM, Model: "m", BaseURL: baseURL}}
		if err := direct.Create(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		return types.NamespacedName{Namespace: ns, Name: name}
	}
	condition := func(key types.NamespacedName) func() error {
		return func() error {
			p := &v1alpha1.Provider{}
			if err := direct.Get(context.Background(), key, p); err != nil {
				return err
			}
			if c := meta.FindStatusCondition(p.Status.Conditions, v1alpha1.ProviderConditionEndpointReachable); c == nil || c.Reason != v1alpha1.ProviderReasonEndpointResponded {
				return fmt.Errorf("not reported yet: %s", condSummary(p))
			}
			return nil
		}
	}

	var deadKeys []types.NamespacedName
	for i := range 8 {
		deadKeys = append(deadKeys, create(nsA, fmt.Sprintf("dead-%d", i), "http://"+l.Addr().String()))
	}
	// Later runs (-count) share the API server: leave no dead Providers.
	t.Cleanup(func() {
		for _, k := range deadKeys {
			_ = direct.Delete(context.Background(), &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: k.Namespace, Name: k.Name}})
		}
	})
	eventually(t, "tenant A's probes hang", func() error {
		if n := hanging.Load(); n < 2 {
			return fmt.Errorf("%d hanging", n)
		}
		return nil
	})

	live := newSwitchable(t)
	keyB := create(nsB, "live", "http://"+live.addr)
	// Well under A's 60s probe timeout (with room for a loaded CI machine):
	// B must not wait for A's probes.
	var errB error
	if wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 25*time.Second, true, func(context.Context) (bool, error) {
		errB = condition(keyB)()
		return errB == nil, nil
	}) != nil {
		t.Fatalf("tenant B's Provider: %v", errB)
	}
	if hanging.Load() == 0 {
		t.Fatal("tenant A's probes ended before B was reported: the test proved nothing")
	}
	if n := hanging.Load(); n > prober.DefaultPerHost {
		t.Errorf("%d probes in flight to one host, want at most %d", n, prober.DefaultPerHost)
	}
	// A's Providers were reconciled too, without waiting on their probes.
	for _, k := range deadKeys {
		eventually(t, "tenant A's Provider "+k.String()+" reconciled", func() error {
			p := &v1alpha1.Provider{}
			if err := direct.Get(context.Background(), k, p); err != nil {
				return err
			}
			if c := meta.FindStatusCondition(p.Status.Conditions, v1alpha1.ProviderConditionEndpointReachable); c == nil || c.Reason != v1alpha1.ProviderReasonProbePending {
				return fmt.Errorf("want EndpointReachable Unknown/%s: %s", v1alpha1.ProviderReasonProbePending, condSummary(p))
			}
			return nil
		})
	}
}

// TestPlatformAuthSecretKeys: a static platform auth's Secret
// is checked for the keys its type needs (rules provider/auth-secret-found
// and provider/auth-secret-keys-found). A missing Secret, then a missing key,
// set AuthConfigured False naming the key and never a value; adding the key
// re-reconciles the Provider through the Secret watch.
func TestPlatformAuthSecretKeys(t *testing.T) {
	ns := namespace(t)
	const accessKeyID, secretAccessKey = "AKIAEXAMPLEVALUE0001", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	key := createProvider(t, ns, "bedrock-keys", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeClaude, Model: "claude-sonnet-4-20250514",
		Platform: &v1alpha1.ProviderPlatform{Type: v1alpha1.ProviderPlatformTypeBedrock, Region: "us-east-1"},
		Auth: &v1alpha1.ProviderAuth{Type: v1alpha1.ProviderAuthTypeAccessKey,
			CredentialsSecretRef: &v1alpha1.ProviderSecretKeyRef{Name: "aws-credentials"}}})
	waitFor(t, key, want{phase: v1alpha1.ProviderPhaseError,
		conds: map[string]string{v1alpha1.ProviderConditionAuthConfigured: "False/SecretNotFound", v1alpha1.ProviderConditionReady: "False/SecretNotFound"},
		msg:   map[string]string{v1alpha1.ProviderConditionAuthConfigured: "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY"}})

	putSecret(t, ns, "aws-credentials", map[string]string{"AWS_ACCESS_KEY_ID": accessKeyID})
	waitFor(t, key, want{phase: v1alpha1.ProviderPhaseError,
		conds: map[string]string{v1alpha1.ProviderConditionAuthConfigured: "False/SecretKeyMissing"},
		msg:   map[string]string{v1alpha1.ProviderConditionAuthConfigured: "AWS_SECRET_ACCESS_KEY"}})

	putSecret(t, ns, "aws-credentials", map[string]string{"AWS_ACCESS_KEY_ID": accessKeyID, "AWS_SECRET_ACCESS_KEY": secretAccessKey})
	waitFor(t, key, want{phase: v1alpha1.ProviderPhaseReady,
		conds: map[string]string{v1alpha1.ProviderConditionAuthConfigured: "True/PlatformAuthConfigured", v1alpha1.ProviderConditionReady: "True/ProviderReady"}})
	assertNoLeak(t, ns, accessKeyID, secretAccessKey)
}
