package toolregistry

// Controller tests against a real kube-apiserver and etcd (no webhooks, so an
// object the webhook would refuse still gets in, as with the webhook off).
// Probes dial local TCP listeners the tests open and close; time comes from a
// FakeClock wherever a test reconciles directly.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/onsi/gomega"
	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/reconcile/prober"
	"github.com/altairalabs/omnia/test/controlplane"
)

var (
	cfg     *rest.Config
	scheme  = runtime.NewScheme()
	k8s     client.Client
	kube    *kubernetes.Clientset
	logs    = &controlplane.LogBuffer{}
	nsCount atomic.Int32
)

func TestMain(m *testing.M) {
	// Every level up to V(5). client-go dumps whole HTTP bodies (the
	// object's spec as its author wrote it) from V(8); an operator never runs
	// there.
	logf.SetLogger(zap.New(zap.WriteTo(logs), zap.UseDevMode(true), zap.Level(zapcore.Level(-5))))
	// Only the ToolRegistry CRD: TestPolicyCRDAppears installs ToolPolicy's
	// while the controller runs.
	env, err := controlplane.Start(controlplane.Options{Kinds: []string{"ToolRegistry"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer func() { _ = env.Stop() }()
		cfg = env.Config
		must(clientgoscheme.AddToScheme(scheme))
		must(v1alpha1.AddToScheme(scheme))
		must(apiextensionsv1.AddToScheme(scheme)) // to delete the ToolPolicy CRD
		if k8s, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		kube = kubernetes.NewForConfigOrDie(cfg)
		return m.Run()
	}()
	os.Exit(code)
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func namespace(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("tr-%d-%d", os.Getpid()%10000, nsCount.Add(1))
	if err := k8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	return name
}

// listener is a local TCP server a probe can reach; close and reopen it on
// the same port to flip reachability.
type listener struct {
	t    *testing.T
	addr string
	l    net.Listener
}

func listen(t *testing.T) *listener {
	t.Helper()
	l := &listener{t: t}
	l.open("127.0.0.1:0")
	t.Cleanup(l.close)
	return l
}

func (l *listener) open(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		l.t.Fatal(err)
	}
	l.l, l.addr = ln, ln.Addr().String()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
}

func (l *listener) close() {
	if l.l != nil {
		_ = l.l.Close()
		l.l = nil
	}
}

func (l *listener) reopen() { l.open(l.addr) }

// writeCounter counts every write the reconciler makes.
type writeCounter struct{ n atomic.Int32 }

func (w *writeCounter) client(t *testing.T) client.Client {
	t.Helper()
	base, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	count := func() { w.n.Add(1) }
	return interceptor.NewClient(base, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			count()
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			count()
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			count()
			return c.Patch(ctx, obj, p, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			count()
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			count()
			return c.SubResource(sub).Patch(ctx, obj, p, opts...)
		},
	})
}

func (w *writeCounter) take() int { return int(w.n.Swap(0)) }

// newDirectReconciler builds a reconciler that a test drives by calling
// Reconcile, with a FakeClock, a write-counting client and a real
// events.k8s.io recorder.
func newDirectReconciler(t *testing.T, clk *clocktesting.FakeClock, d Dialer) (*Reconciler, *writeCounter) {
	t.Helper()
	w := &writeCounter{}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mapper, err := apiutil.NewDynamicRESTMapper(cfg, hc)
	if err != nil {
		t.Fatal(err)
	}
	b := events.NewBroadcaster(&events.EventSinkImpl{Interface: kube.EventsV1()})
	stop := make(chan struct{})
	b.StartRecordingToSink(stop)
	t.Cleanup(func() { close(stop); b.Shutdown() })
	opts := Options{Common: ctrlopts.Common{Clock: clk}, Dialer: d}.withDefaults()
	return &Reconciler{
		client:   w.client(t),
		mapper:   mapper,
		recorder: b.NewRecorder(scheme, ControllerName),
		policies: newPolicyCRD(discovery.NewDiscoveryClientForConfigOrDie(cfg), nil),
		prober:   startProber(t, prober.Options{Clock: clk}),
		opts:     opts,
	}, w
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

// reconcileProbed reconciles (submitting the probes that are due), waits
// until the prober has stored a result for every submitted probe, and
// reconciles again to read them, as the prober's event would make the
// manager do. It returns the second reconcile's result.
func reconcileProbed(t *testing.T, r *Reconciler, key client.ObjectKey) ctrl.Result {
	t.Helper()
	reconcileOnce(t, r, key)
	gomega.NewWithT(t).Eventually(r.prober.Busy, 20*time.Second, 10*time.Millisecond).Should(gomega.BeZero(), "probes still queued or in flight")
	return reconcileOnce(t, r, key)
}

func reconcileOnce(t *testing.T, r *Reconciler, key client.ObjectKey) ctrl.Result {
	t.Helper()
	res, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key})
	if err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	return res
}

func get(t *testing.T, key client.ObjectKey) *v1alpha1.ToolRegistry {
	t.Helper()
	tr := &v1alpha1.ToolRegistry{}
	if err := k8s.Get(context.Background(), key, tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

func create(t *testing.T, tr *v1alpha1.ToolRegistry) client.ObjectKey {
	t.Helper()
	if err := k8s.Create(context.Background(), tr); err != nil {
		t.Fatal(err)
	}
	return client.ObjectKeyFromObject(tr)
}

func newRegistry(ns, name string, handlers ...v1alpha1.ToolRegistryHandler) *v1alpha1.ToolRegistry {
	return &v1alpha1.ToolRegistry{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.ToolRegistrySpec{Handlers: handlers}}
}

// registryEvents lists the events.k8s.io/v1 Events about a registry.
func registryEvents(t *testing.T, key client.ObjectKey) []eventsv1.Event {
	t.Helper()
	list := &eventsv1.EventList{}
	if err := k8s.List(context.Background(), list, client.InNamespace(key.Namespace)); err != nil {
		t.Fatal(err)
	}
	var out []eventsv1.Event
	for _, e := range list.Items {
		if e.Regarding.Kind == "ToolRegistry" && e.Regarding.Name == key.Name {
			out = append(out, e)
		}
	}
	return out
}

func hasEvent(evs []eventsv1.Event, typ, reason string) bool {
	for _, e := range evs {
		if e.Type == typ && e.Reason == reason && e.ReportingController == ControllerName {
			return true
		}
	}
	return false
}

func condOf(tr *v1alpha1.ToolRegistry, typ string) *metav1.Condition {
	return meta.FindStatusCondition(tr.Status.Conditions, typ)
}

func TestReconcileConfigLevelWritesOnce(t *testing.T) {
	ns := namespace(t)
	clk := clocktesting.NewFakeClock(t0)
	r, writes := newDirectReconciler(t, clk, &net.Dialer{})
	key := create(t, newRegistry(ns, "agent-tools",
		httpHandler("calculator", "https://api.example.com/calculate"),
		v1alpha1.ToolRegistryHandler{Name: "user-service", Type: "grpc", GRPCConfig: &v1alpha1.ToolRegistryGRPCConfig{Endpoint: "user-grpc.internal.svc.cluster.local:50051"}, Tool: toolDef("get_user")},
		mcpHandler("code-tools", "http://mcp-code.tools.svc.cluster.local:8080/sse"),
		v1alpha1.ToolRegistryHandler{Name: "external-api", Type: "openapi", OpenAPIConfig: &v1alpha1.ToolRegistryOpenAPIConfig{SpecURL: "https://api.example.com/openapi.json"}},
		v1alpha1.ToolRegistryHandler{Name: "geolocation", Type: "client", Tool: toolDef("get_location")},
	))

	if res := reconcileOnce(t, r, key); res.RequeueAfter != 0 {
		t.Errorf("RequeueAfter = %v without probing, want 0", res.RequeueAfter)
	}
	if n := writes.take(); n != 1 {
		t.Fatalf("first reconcile wrote %d times, want 1", n)
	}
	tr := get(t, key)
	st := tr.Status
	if st.Phase != v1alpha1.ToolRegistryPhaseReady || st.DiscoveredToolsCount != 5 || len(st.DiscoveredTools) != 5 ||
		st.ObservedGeneration != tr.Generation || st.PolicyCount != nil || !strings.HasPrefix(st.ContentDigest, "sha256:") ||
		st.LastDiscoveryTime == nil || !st.LastDiscoveryTime.Time.Equal(t0) {
		t.Fatalf("status = %+v", st)
	}
	for _, tool := range st.DiscoveredTools {
		if tool.Status != avail || tool.LastChecked != nil {
			t.Errorf("tool %s = %s (lastChecked %v): without probing every tool is Available, unchecked", tool.Name, tool.Status, tool.LastChecked)
		}
	}
	if ep := st.DiscoveredTools[4].Endpoint; ep != ClientEndpoint {
		t.Errorf("client tool endpoint = %q", ep)
	}
	if c := condOf(tr, v1alpha1.ToolRegistryConditionPolicyBound); c != nil {
		t.Errorf("PolicyBound = %+v without the ToolPolicy CRD, want absent", c)
	}
	for typ, want := range map[string]string{
		v1alpha1.ToolRegistryConditionReady:           v1alpha1.ToolRegistryReasonToolsDiscovered,
		v1alpha1.ToolRegistryConditionHandlersValid:   v1alpha1.ToolRegistryReasonHandlersValid,
		v1alpha1.ToolRegistryConditionToolsDiscovered: v1alpha1.ToolRegistryReasonToolsDiscovered,
		v1alpha1.ToolRegistryConditionDegraded:        v1alpha1.ToolRegistryReasonAllToolsAvailable,
	} {
		if c := condOf(tr, typ); c == nil || c.Reason != want {
			t.Errorf("%s = %+v, want reason %s", typ, c, want)
		}
	}

	// An unchanged object, reconciled an hour later: no write at all, and
	// lastDiscoveryTime stays.
	clk.Step(time.Hour)
	reconcileOnce(t, r, key)
	if n := writes.take(); n != 0 {
		t.Fatalf("second reconcile of an unchanged object wrote %d times, want 0", n)
	}
	again := get(t, key)
	if again.ResourceVersion != tr.ResourceVersion {
		t.Errorf("resourceVersion moved %s → %s", tr.ResourceVersion, again.ResourceVersion)
	}

	// A spec change: one write, lastDiscoveryTime and the digest move.
	again.Spec.Handlers[0].Tool.Description = "Perform mathematical calculations"
	if err := k8s.Update(context.Background(), again); err != nil {
		t.Fatal(err)
	}
	reconcileOnce(t, r, key)
	if n := writes.take(); n != 1 {
		t.Fatalf("reconcile after a spec change wrote %d times, want 1", n)
	}
	changed := get(t, key)
	if changed.Status.ContentDigest == st.ContentDigest || !changed.Status.LastDiscoveryTime.Time.Equal(t0.Add(time.Hour)) ||
		changed.Status.ObservedGeneration != changed.Generation {
		t.Errorf("after a spec change: digest %s (was %s), lastDiscoveryTime %v, observedGeneration %d/%d",
			changed.Status.ContentDigest, st.ContentDigest, changed.Status.LastDiscoveryTime, changed.Status.ObservedGeneration, changed.Generation)
	}

	// A deleted registry is not an error.
	if err := k8s.Delete(context.Background(), changed); err != nil {
		t.Fatal(err)
	}
	reconcileOnce(t, r, key)
}

func TestReconcileValidationFailed(t *testing.T) {
	ns := namespace(t)
	clk := clocktesting.NewFakeClock(t0)
	// A dialer that fails the test if anything is dialled: a handler that
	// failed validation is never probed.
	r, writes := newDirectReconciler(t, clk, dialerFunc(func(_ context.Context, _, addr string) (net.Conn, error) {
		t.Errorf("dialled %s", addr)
		return nil, fmt.Errorf("no")
	}))
	on := true
	meta := mcpHandler("meta", "http://169.254.169.254/latest/meta-data")
	backoff := httpHandler("calc", "http://127.0.0.1:1/calc")
	backoff.HTTPConfig.RetryPolicy = &v1alpha1.ToolRegistryHTTPRetryPolicy{MaxAttempts: 3, InitialBackoff: "10s", MaxBackoff: "1s"}
	tr := newRegistry(ns, "bad", meta, backoff)
	tr.Spec.Probe = &v1alpha1.ToolRegistryProbe{Enabled: &on}
	key := create(t, tr)

	reconcileOnce(t, r, key)
	if n := writes.take(); n != 1 {
		t.Fatalf("wrote %d times, want 1", n)
	}
	got := get(t, key)
	if got.Status.Phase != v1alpha1.ToolRegistryPhaseFailed {
		t.Fatalf("phase = %s, want Failed", got.Status.Phase)
	}
	hv := condOf(got, v1alpha1.ToolRegistryConditionHandlersValid)
	if hv == nil || hv.Status != metav1.ConditionFalse || hv.Reason != v1alpha1.ToolRegistryReasonValidationFailed ||
		!strings.Contains(hv.Message, "[toolregistry/mcp-endpoint-metadata-address] spec.handlers[0].mcpConfig.endpoint") ||
		!strings.Contains(hv.Message, "[toolregistry/retry-backoff-order] spec.handlers[1].httpConfig.retryPolicy.maxBackoff") {
		t.Errorf("HandlersValid = %+v", hv)
	}
	if c := condOf(got, v1alpha1.ToolRegistryConditionReady); c == nil || c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.ToolRegistryReasonValidationFailed {
		t.Errorf("Ready = %+v", c)
	}
	for _, tool := range got.Status.DiscoveredTools {
		if tool.Status != unknown || tool.LastChecked != nil {
			t.Errorf("tool %s = %s, want Unknown and unprobed", tool.Name, tool.Status)
		}
	}
	g := gomega.NewWithT(t)
	g.Eventually(func() bool {
		return hasEvent(registryEvents(t, key), corev1.EventTypeWarning, v1alpha1.ToolRegistryReasonValidationFailed)
	}, 10*time.Second, 100*time.Millisecond).
		Should(gomega.BeTrue(), "a Warning event when HandlersValid turns False")

	reconcileOnce(t, r, key)
	if n := writes.take(); n != 0 {
		t.Fatalf("second reconcile wrote %d times, want 0", n)
	}
}

type dialerFunc func(ctx context.Context, network, addr string) (net.Conn, error)

func (f dialerFunc) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return f(ctx, network, addr)
}

func TestReconcileProbing(t *testing.T) {
	ns := namespace(t)
	clk := clocktesting.NewFakeClock(t0)
	a, b := listen(t), listen(t)
	// hang is an address whose dial never completes: only the timeout ends it.
	hang := "127.0.0.1:9"
	var hung atomic.Int32
	d := dialerFunc(func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr == hang {
			hung.Add(1)
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	})
	r, writes := newDirectReconciler(t, clk, d)
	on := true
	tr := newRegistry(ns, "probed",
		httpHandler("svc-a", "http://"+a.addr+"/call"),
		mcpHandler("svc-b", "http://"+b.addr+"/sse"),
		v1alpha1.ToolRegistryHandler{Name: "geo", Type: "client", Tool: toolDef("get_location")},
	)
	tr.Spec.Probe = &v1alpha1.ToolRegistryProbe{Enabled: &on, Interval: "30s", Timeout: "300ms"}
	key := create(t, tr)
	g := gomega.NewWithT(t)

	expect := func(phase v1alpha1.ToolRegistryPhase, statuses ...v1alpha1.ToolRegistryToolStatus) *v1alpha1.ToolRegistry {
		t.Helper()
		got := get(t, key)
		if got.Status.Phase != phase {
			t.Fatalf("phase = %s, want %s (conditions %+v)", got.Status.Phase, phase, got.Status.Conditions)
		}
		for i, s := range statuses {
			if got.Status.DiscoveredTools[i].Status != s {
				t.Errorf("tool %s = %s, want %s", got.Status.DiscoveredTools[i].Name, got.Status.DiscoveredTools[i].Status, s)
			}
		}
		if len(got.Status.DiscoveredTools) > 2 && got.Status.DiscoveredTools[2].LastChecked != nil {
			t.Errorf("client tool was probed (lastChecked %v)", got.Status.DiscoveredTools[2].LastChecked)
		}
		return got
	}

	// The first reconcile only submits the probes: the tools are not probed
	// yet and the registry is Pending. The results reconcile it Ready.
	if res := reconcileOnce(t, r, key); res.RequeueAfter != 30*time.Second {
		t.Errorf("RequeueAfter = %v, want the probe interval", res.RequeueAfter)
	}
	pending := expect(v1alpha1.ToolRegistryPhasePending, unknown, unknown, avail)
	if c := condOf(pending, v1alpha1.ToolRegistryConditionReady); c == nil || c.Status != metav1.ConditionUnknown || c.Reason != v1alpha1.ToolRegistryReasonProbesPending {
		t.Errorf("Ready before the first results = %+v, want Unknown/%s", c, v1alpha1.ToolRegistryReasonProbesPending)
	}
	if res := reconcileProbed(t, r, key); res.RequeueAfter != 30*time.Second {
		t.Errorf("RequeueAfter = %v, want the probe interval", res.RequeueAfter)
	}
	ready := expect(v1alpha1.ToolRegistryPhaseReady, avail, avail, avail)
	digest := ready.Status.ContentDigest
	if n := writes.take(); n != 2 {
		t.Fatalf("%d writes, want 2 (pending, then the results)", n)
	}
	// Unchanged, same time: no write, no probe due.
	if res := reconcileOnce(t, r, key); res.RequeueAfter != 30*time.Second || writes.take() != 0 || r.prober.Busy() != 0 {
		t.Fatalf("second reconcile: RequeueAfter %v, writes > 0 or a probe submitted", res.RequeueAfter)
	}

	// b closes; before the interval passes nothing is re-probed.
	b.close()
	clk.Step(10 * time.Second)
	if res := reconcileOnce(t, r, key); res.RequeueAfter != 20*time.Second || writes.take() != 0 || r.prober.Busy() != 0 {
		t.Fatalf("mid-interval reconcile: RequeueAfter %v (want 20s), or it wrote, or it submitted a probe", res.RequeueAfter)
	}
	// The interval passes: Degraded.
	clk.Step(20 * time.Second)
	reconcileProbed(t, r, key)
	degraded := expect(v1alpha1.ToolRegistryPhaseDegraded, avail, unavail, avail)
	if c := condOf(degraded, v1alpha1.ToolRegistryConditionDegraded); c == nil || c.Status != metav1.ConditionTrue || c.Reason != v1alpha1.ToolRegistryReasonSomeToolsUnavailable ||
		!strings.Contains(c.Message, "svc-b/svc-b (TCP connect failed:") {
		t.Errorf("Degraded = %+v", c)
	}
	if c := condOf(degraded, v1alpha1.ToolRegistryConditionReady); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("Ready = %+v: a Degraded registry is still Ready", c)
	}
	if degraded.Status.ContentDigest != digest || !degraded.Status.LastDiscoveryTime.Equal(ready.Status.LastDiscoveryTime) {
		t.Errorf("a probe flip moved the digest or lastDiscoveryTime")
	}
	if lc := degraded.Status.DiscoveredTools[1].LastChecked; lc == nil || !lc.Time.Equal(t0.Add(30*time.Second)) {
		t.Errorf("lastChecked = %v, want the probe time", lc)
	}
	g.Eventually(func() bool {
		return hasEvent(registryEvents(t, key), corev1.EventTypeWarning, v1alpha1.ToolRegistryReasonSomeToolsUnavailable)
	}, 10*time.Second, 100*time.Millisecond).Should(gomega.BeTrue(), "a Warning event when Degraded turns True")

	// b reopens: Ready again, with a Normal event.
	b.reopen()
	clk.Step(30 * time.Second)
	reconcileProbed(t, r, key)
	expect(v1alpha1.ToolRegistryPhaseReady, avail, avail, avail)
	g.Eventually(func() bool {
		return hasEvent(registryEvents(t, key), corev1.EventTypeNormal, v1alpha1.ToolRegistryReasonAllToolsAvailable)
	}, 10*time.Second, 100*time.Millisecond).Should(gomega.BeTrue(), "a Normal event when Degraded clears")

	// Both close and the client tool goes: nothing reachable, Failed.
	a.close()
	b.close()
	cur := get(t, key)
	cur.Spec.Handlers = cur.Spec.Handlers[:2]
	if err := k8s.Update(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
	clk.Step(time.Second) // a spec change that keeps the endpoints does not force a round
	reconcileOnce(t, r, key)
	if r.prober.Busy() != 0 {
		t.Error("a spec change that keeps the endpoints submitted a probe")
	}
	expect(v1alpha1.ToolRegistryPhaseReady, avail, avail)
	clk.Step(30 * time.Second)
	reconcileProbed(t, r, key)
	failed := expect(v1alpha1.ToolRegistryPhaseFailed, unavail, unavail)
	if c := condOf(failed, v1alpha1.ToolRegistryConditionReady); c == nil || c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.ToolRegistryReasonNoToolsAvailable {
		t.Errorf("Ready = %+v, want False/NoToolsAvailable", c)
	}

	// An endpoint that hangs is Unavailable once the timeout ends; a new
	// endpoint is probed at once, without waiting for the interval, and the
	// reconcile that submits it does not wait for it.
	cur = get(t, key)
	cur.Spec.Handlers[0].HTTPConfig.Endpoint = "http://" + hang + "/x"
	if err := k8s.Update(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
	reconcileOnce(t, r, key)
	if tool := get(t, key).Status.DiscoveredTools[0]; tool.Status != unknown || tool.Error != NotProbedYet {
		t.Errorf("new endpoint before its probe = %+v, want Unknown/not probed yet", tool)
	}
	reconcileProbed(t, r, key)
	if hung.Load() != 1 {
		t.Errorf("the new endpoint was dialled %d times, want 1", hung.Load())
	}
	got := get(t, key)
	if tool := got.Status.DiscoveredTools[0]; tool.Status != unavail || !strings.Contains(tool.Error, "TCP connect failed") {
		t.Errorf("hanging endpoint = %+v", tool)
	}
}

// startManager runs the controller in an in-process manager until the test
// ends.
func startManager(t *testing.T, opts Options) {
	t.Helper()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
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

// TestPolicyCRDAppears: without the ToolPolicy CRD, policyCount and
// PolicyBound are absent; once the CRD is installed (while the controller
// runs) they appear, and ToolPolicies are watched: creating, re-pointing and
// deleting one re-counts promptly. Removing the CRD makes them absent again.
func TestPolicyCRDAppears(t *testing.T) {
	ns := namespace(t)
	startManager(t, Options{CRDCheckInterval: 200 * time.Millisecond})
	g := gomega.NewWithT(t)
	ctx := context.Background()
	key := create(t, newRegistry(ns, "tools", httpHandler("calc", "https://api.example.com/calc")))
	other := create(t, newRegistry(ns, "other", httpHandler("calc", "https://api.example.com/calc")))

	g.Eventually(func() v1alpha1.ToolRegistryPhase { return get(t, key).Status.Phase }, 20*time.Second, 100*time.Millisecond).
		Should(gomega.Equal(v1alpha1.ToolRegistryPhaseReady))
	tr := get(t, key)
	if tr.Status.PolicyCount != nil || condOf(tr, v1alpha1.ToolRegistryConditionPolicyBound) != nil {
		t.Fatalf("without the ToolPolicy CRD: policyCount %v, PolicyBound %+v; want both absent", tr.Status.PolicyCount, condOf(tr, v1alpha1.ToolRegistryConditionPolicyBound))
	}

	crds, err := controlplane.LoadCRDs([]string{"ToolPolicy"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{CRDs: crds}); err != nil {
		t.Fatal(err)
	}
	policyBound := func(key client.ObjectKey) func() string {
		return func() string {
			tr := get(t, key)
			c := condOf(tr, v1alpha1.ToolRegistryConditionPolicyBound)
			if tr.Status.PolicyCount == nil || c == nil {
				return "absent"
			}
			return fmt.Sprintf("%d %s %s %s", *tr.Status.PolicyCount, c.Status, c.Reason, c.Message)
		}
	}
	g.Eventually(policyBound(key), 20*time.Second, 100*time.Millisecond).Should(gomega.HavePrefix("0 False " + v1alpha1.ToolRegistryReasonNoPolicySelectsRegistry))
	g.Eventually(policyBound(other), 20*time.Second, 100*time.Millisecond).Should(gomega.HavePrefix("0 False " + v1alpha1.ToolRegistryReasonNoPolicySelectsRegistry))
	g.Eventually(func() bool {
		return hasEvent(registryEvents(t, key), corev1.EventTypeWarning, v1alpha1.ToolRegistryReasonNoPolicySelectsRegistry)
	}, 10*time.Second, 100*time.Millisecond).
		Should(gomega.BeTrue())

	policy := func(name, registry string) *v1alpha1.ToolPolicy {
		return &v1alpha1.ToolPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.ToolPolicySpec{Selector: v1alpha1.ToolPolicySelector{Registry: registry}}}
	}
	p1, p2 := policy("calculator-policy", "tools"), policy("audit-policy", "tools")
	must(k8s.Create(ctx, p1))
	g.Eventually(policyBound(key), 10*time.Second, 100*time.Millisecond).
		Should(gomega.Equal("1 True " + v1alpha1.ToolRegistryReasonPolicySelectsRegistry + " selected by 1 ToolPolicy(s): [calculator-policy]"))
	g.Eventually(func() bool {
		return hasEvent(registryEvents(t, key), corev1.EventTypeNormal, v1alpha1.ToolRegistryReasonPolicySelectsRegistry)
	}, 10*time.Second, 100*time.Millisecond).
		Should(gomega.BeTrue(), "a Normal event when PolicyBound recovers")
	must(k8s.Create(ctx, p2))
	must(k8s.Create(ctx, policy("elsewhere", "not-this-one")))
	g.Eventually(policyBound(key), 10*time.Second, 100*time.Millisecond).
		Should(gomega.Equal("2 True " + v1alpha1.ToolRegistryReasonPolicySelectsRegistry + " selected by 2 ToolPolicy(s): [audit-policy calculator-policy]"))

	// Re-pointing a policy re-counts both registries.
	must(k8s.Get(ctx, client.ObjectKeyFromObject(p2), p2))
	p2.Spec.Selector.Registry = "other"
	must(k8s.Update(ctx, p2))
	g.Eventually(policyBound(key), 10*time.Second, 100*time.Millisecond).Should(gomega.HavePrefix("1 True"))
	g.Eventually(policyBound(other), 10*time.Second, 100*time.Millisecond).Should(gomega.Equal("1 True " + v1alpha1.ToolRegistryReasonPolicySelectsRegistry + " selected by 1 ToolPolicy(s): [audit-policy]"))

	must(k8s.Delete(ctx, p1))
	g.Eventually(policyBound(key), 10*time.Second, 100*time.Millisecond).Should(gomega.HavePrefix("0 False " + v1alpha1.ToolRegistryReasonNoPolicySelectsRegistry))

	// The CRD goes away: absent again.
	for _, crd := range crds {
		must(k8s.Delete(ctx, crd))
	}
	g.Eventually(policyBound(key), 60*time.Second, 200*time.Millisecond).Should(gomega.Equal("absent"))
	g.Eventually(policyBound(other), 20*time.Second, 200*time.Millisecond).Should(gomega.Equal("absent"))
}

// TestNoSecretLeaks: a registry referencing a Secret, and an endpoint URL
// carrying a password: neither value appears in status, events or logs.
func TestNoSecretLeaks(t *testing.T) {
	ns := namespace(t)
	const secretValue = "tok-9f8e7d6c5b4a-SECRET"
	const urlPassword = "pw-0a1b2c3d-URLPASS"
	ctx := context.Background()
	must(k8s.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tool-creds"}, StringData: map[string]string{"token": secretValue}}))
	up := listen(t)
	startManager(t, Options{CRDCheckInterval: time.Second})

	h := httpHandler("private", "http://admin:"+urlPassword+"@"+up.addr+"/call")
	h.Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: "bearer", SecretRef: &v1alpha1.ToolRegistrySecretKeyRef{Name: "tool-creds", Key: "token"}}
	// A second handler that fails validation, so a Warning event is recorded.
	bad := mcpHandler("meta", "http://admin:"+urlPassword+"@169.254.169.254/sse")
	on := true
	tr := newRegistry(ns, "secretive", h, bad)
	tr.Spec.Probe = &v1alpha1.ToolRegistryProbe{Enabled: &on, Interval: "5s", Timeout: "1s"} // the CRD minimum interval
	key := create(t, tr)

	g := gomega.NewWithT(t)
	g.Eventually(func() v1alpha1.ToolRegistryPhase { return get(t, key).Status.Phase }, 20*time.Second, 100*time.Millisecond).
		Should(gomega.Equal(v1alpha1.ToolRegistryPhaseFailed))
	g.Eventually(func() bool {
		return hasEvent(registryEvents(t, key), corev1.EventTypeWarning, v1alpha1.ToolRegistryReasonValidationFailed)
	}, 10*time.Second, 100*time.Millisecond).
		Should(gomega.BeTrue())
	// Wait until the valid handler's endpoint has been probed (and logged).
	g.Eventually(func() bool {
		tools := get(t, key).Status.DiscoveredTools
		return len(tools) > 0 && tools[0].LastChecked != nil
	}, 20*time.Second, 100*time.Millisecond).Should(gomega.BeTrue(), "the endpoint probed")

	got := get(t, key)
	if ep := got.Status.DiscoveredTools[0].Endpoint; ep != "http://"+up.addr+"/call" {
		t.Errorf("endpoint = %q, want the URL without its userinfo", ep)
	}
	status, _ := json.Marshal(got.Status)
	evs, _ := json.Marshal(registryEvents(t, key))
	for what, text := range map[string]string{"status": string(status), "events": string(evs), "logs": logs.String()} {
		for _, secret := range []string{secretValue, urlPassword} {
			if strings.Contains(text, secret) {
				t.Errorf("%s contain %q", what, secret)
			}
		}
	}
	if !strings.Contains(logs.String(), ControllerName) {
		t.Errorf("no controller logs captured: the search above proved nothing")
	}
}

// TestReconcileAdvisoryAndValidConditions: through the real API server (its
// defaults applied), a client handler with auth is only an admission
// warning — the registry is Ready — and a connectionRef handler on https:443
// gets HandlerConnectionsValid True with the spec's reason.
func TestReconcileAdvisoryAndValidConditions(t *testing.T) {
	ns := namespace(t)
	r, _ := newDirectReconciler(t, clocktesting.NewFakeClock(t0), nil)
	geo := v1alpha1.ToolRegistryHandler{Name: "geo", Type: "client", Tool: toolDef("get_location"),
		Auth: &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeBearer,
			SecretRef: &v1alpha1.ToolRegistrySecretKeyRef{Name: "creds", Key: "token"}}}
	empty := v1alpha1.ToolRegistryHandler{Name: "geo2", Type: "client", Tool: toolDef("get_place"), Auth: &v1alpha1.ToolRegistryHandlerAuth{}}
	crm := httpHandler("crm", "https://crm.example.com/v1/lookup")
	crm.Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeBearer,
		ConnectionRef: &v1alpha1.ToolRegistryConnectionKeyRef{Name: "crm-shared", Key: "token"}}
	key := create(t, newRegistry(ns, "advisory", geo, empty, crm))

	reconcileOnce(t, r, key)
	got := get(t, key)
	if got.Status.Phase != v1alpha1.ToolRegistryPhaseReady {
		t.Fatalf("phase = %s, want Ready; conditions %+v", got.Status.Phase, got.Status.Conditions)
	}
	for typ, reason := range map[string]string{
		v1alpha1.ToolRegistryConditionHandlersValid:           v1alpha1.ToolRegistryReasonHandlersValid,
		v1alpha1.ToolRegistryConditionHandlerConnectionsValid: v1alpha1.ToolRegistryReasonHandlerConnectionsValid,
		v1alpha1.ToolRegistryConditionReady:                   v1alpha1.ToolRegistryReasonToolsDiscovered,
	} {
		if c := condOf(got, typ); c == nil || c.Status != metav1.ConditionTrue || c.Reason != reason {
			t.Errorf("%s = %+v, want True/%s", typ, c, reason)
		}
	}
	if c := condOf(got, v1alpha1.ToolRegistryConditionSandboxesValid); c != nil {
		t.Errorf("SandboxesValid = %+v on a registry with no sandbox, want absent", c)
	}
}

// TestDeadEndpointsDoNotDelayOtherTenants:
// three tenants each have many probed registries whose endpoints hang for
// the whole probe timeout (60s), on many hosts; tenant B's registry, created
// while their dials hang, is probed and Ready well within that time.
// Dialling inside Reconcile (the code before the prober) holds both
// reconcile workers for 60s per dead registry and B waits behind them; with
// the prober each dead tenant holds at most its per-namespace share of the
// pool, and B's reconcile never waits on a dial. Three dead tenants, not
// one: a pool split only in halves would be full with two.
func TestDeadEndpointsDoNotDelayOtherTenants(t *testing.T) {
	const deadTenants, registriesEach = 3, 6
	var hanging atomic.Int32
	var dialled [deadTenants]atomic.Int32
	d := dialerFunc(func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, _ := net.SplitHostPort(addr)
		var tenant int
		if _, err := fmt.Sscanf(host[strings.IndexByte(host, '.')+1:], "tenant-%d.example", &tenant); err == nil {
			dialled[tenant].Add(1)
			hanging.Add(1)
			defer hanging.Add(-1)
			<-ctx.Done() // a blackhole: only the probe's timeout (or shutdown) ends it
			return nil, ctx.Err()
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	})
	startManager(t, Options{Dialer: d, CRDCheckInterval: time.Hour})
	on := true
	var deadKeys []client.ObjectKey
	for tenant := range deadTenants {
		ns := namespace(t)
		for i := range registriesEach {
			tr := newRegistry(ns, fmt.Sprintf("dead-%d", i),
				httpHandler("a", fmt.Sprintf("http://dead-%d.tenant-%d.example:8080/call", i, tenant)),
				mcpHandler("b", fmt.Sprintf("http://dead-%d-mcp.tenant-%d.example:8080/sse", i, tenant)))
			tr.Spec.Probe = &v1alpha1.ToolRegistryProbe{Enabled: &on, Interval: "120s", Timeout: "60s"}
			deadKeys = append(deadKeys, create(t, tr))
		}
	}
	// Other tests (and -count) share the API server: leave no dead
	// registries for their managers to probe.
	t.Cleanup(func() {
		for _, k := range deadKeys {
			_ = k8s.Delete(context.Background(), &v1alpha1.ToolRegistry{ObjectMeta: metav1.ObjectMeta{Namespace: k.Namespace, Name: k.Name}})
		}
	})
	g := gomega.NewWithT(t)
	g.Eventually(hanging.Load, 20*time.Second, 20*time.Millisecond).Should(gomega.BeNumerically(">=", 2*deadTenants), "the dead tenants' dials hang")

	up := listen(t)
	live := newRegistry(namespace(t), "live", httpHandler("svc", "http://"+up.addr+"/call"))
	live.Spec.Probe = &v1alpha1.ToolRegistryProbe{Enabled: &on, Interval: "60s", Timeout: "5s"}
	keyB := create(t, live)
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), live) })
	// Well under the dead dials' 60s timeout (with room for a loaded CI
	// machine): B must not wait for them.
	g.Eventually(func() string {
		tr := get(t, keyB)
		if len(tr.Status.DiscoveredTools) != 1 {
			return string(tr.Status.Phase)
		}
		return string(tr.Status.Phase) + " " + string(tr.Status.DiscoveredTools[0].Status)
	}, 25*time.Second, 50*time.Millisecond).Should(gomega.Equal("Ready Available"))

	if hanging.Load() == 0 {
		t.Fatal("the dead tenants' dials ended before B was Ready: the test proved nothing")
	}
	// The dead registries were reconciled too (without waiting on their
	// dials): Pending, their tools not probed yet.
	for _, k := range deadKeys {
		g.Eventually(func() v1alpha1.ToolRegistryPhase { return get(t, k).Status.Phase }, 10*time.Second, 50*time.Millisecond).
			Should(gomega.Equal(v1alpha1.ToolRegistryPhasePending), "registry %s", k)
	}
	for tenant := range deadTenants {
		if n := dialled[tenant].Load(); n > prober.DefaultPerNamespace {
			t.Errorf("%d of dead tenant %d's dials started while they all hang; the per-namespace cap is %d", n, tenant, prober.DefaultPerNamespace)
		}
	}
}
