package promptpack

// Controller tests against a real kube-apiserver and etcd: the manager runs
// the controller with its ConfigMap watch, and the write-count tests drive a
// reconciler of their own with a write-counting client.

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/onsi/gomega"
	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/test/controlplane"
)

var (
	testEnv *envtest.Environment
	testMgr ctrl.Manager
	direct  client.Client // uncached, for the tests' own reads and writes
	logs    = &controlplane.LogBuffer{}
	nsCount atomic.Int32
	t0      = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
)

// isolatedLabel marks the packs a test reconciles itself; the manager's
// controller ignores them.
const isolatedLabel = "omnia-test/isolated"

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	ctrl.SetLogger(zap.New(zap.WriteTo(logs), zap.UseDevMode(true), zap.Level(zapcore.Level(-5))))
	var err error
	testEnv, err = controlplane.Start(controlplane.Options{Kinds: []string{"PromptPack"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = testEnv.Stop() }()

	scheme := runtime.NewScheme()
	must(clientgoscheme.AddToScheme(scheme))
	must(v1alpha1.AddToScheme(scheme))
	direct, err = client.New(testEnv.Config, client.Options{Scheme: scheme})
	must(err)
	notIsolated, err := labels.Parse("!" + isolatedLabel)
	must(err)
	testMgr, err = ctrl.NewManager(testEnv.Config, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{
			&v1alpha1.PromptPack{}: {Label: notIsolated},
		}},
		// As the operator: ConfigMaps are never cached with their data.
		Client: client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.ConfigMap{}}}},
	})
	must(err)
	must(SetupWithManager(testMgr, Options{Common: ctrlopts.Common{Clock: clocktesting.NewFakeClock(t0)}}))
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
		l := logs.String()
		if len(l) > 4000 {
			l = l[len(l)-4000:]
		}
		fmt.Fprintln(os.Stderr, "controller log tail:\n"+l)
	}
	return code
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func namespace(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("pp-%d-%d", os.Getpid()%10000, nsCount.Add(1))
	if err := direct.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	return name
}

// newPack is a published pack support at 1.0.0 reading ConfigMap cm.
func newPack(ns, name, cm string) *v1alpha1.PromptPack {
	return &v1alpha1.PromptPack{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{rules.PromptPackLabel: "support"}},
		Spec: v1alpha1.PromptPackSpec{PackName: "support", Version: "1.0.0",
			Source: v1alpha1.PromptPackContentSource{ConfigMapRef: &v1alpha1.LocalObjectReference{Name: cm}}},
	}
}

func newConfigMap(ns, name, packJSON string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Data: map[string]string{rules.PromptPackPackJSONKey: packJSON}}
}

const validJSON = `{"id": "support", "version": "1.0.0", "prompts": {"default": {"system_template": "You help."}}}`

func create(t *testing.T, obj client.Object) {
	t.Helper()
	if err := direct.Create(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
}

func getPack(g gomega.Gomega, key client.ObjectKey) *v1alpha1.PromptPack {
	p := &v1alpha1.PromptPack{}
	g.Expect(direct.Get(context.Background(), key, p)).To(gomega.Succeed())
	return p
}

// verdict is what a test asserts on: the phase and the reasons of Ready and
// SourceValid.
type verdict struct {
	phase                v1alpha1.PromptPackPhase
	ready, sourceValid   string
	observedAtGeneration bool
}

func verdictOf(p *v1alpha1.PromptPack) verdict {
	v := verdict{phase: p.Status.Phase, observedAtGeneration: p.Status.ObservedGeneration == p.Generation}
	if c := meta.FindStatusCondition(p.Status.Conditions, v1alpha1.PromptPackConditionReady); c != nil {
		v.ready = string(c.Status) + "/" + c.Reason
	}
	if c := meta.FindStatusCondition(p.Status.Conditions, v1alpha1.PromptPackConditionSourceValid); c != nil {
		v.sourceValid = string(c.Status) + "/" + c.Reason
	}
	return v
}

func invalid(reason string) verdict {
	return verdict{phase: v1alpha1.PromptPackPhaseInvalid, ready: "False/" + reason, sourceValid: "False/" + reason, observedAtGeneration: true}
}

var ready = verdict{phase: v1alpha1.PromptPackPhaseReady, ready: "True/" + v1alpha1.PromptPackReasonPackValid, sourceValid: "True/" + v1alpha1.PromptPackReasonSourceValid, observedAtGeneration: true}

// eventuallyVerdict waits (generously) for the controller to write want.
func eventuallyVerdict(t *testing.T, key client.ObjectKey, want verdict) *v1alpha1.PromptPack {
	t.Helper()
	var p *v1alpha1.PromptPack
	gomega.NewWithT(t).Eventually(func(g gomega.Gomega) verdict {
		p = getPack(g, key)
		return verdictOf(p)
	}, 30*time.Second, 50*time.Millisecond).Should(gomega.Equal(want))
	return p
}

func TestPhaseFromTheConfigMap(t *testing.T) {
	ns := namespace(t)
	cases := []struct {
		name     string
		packJSON *string // nil: no ConfigMap
		want     verdict
	}{
		{"valid ConfigMap", ptr(validJSON), ready},
		{"missing ConfigMap", nil, invalid(v1alpha1.PromptPackReasonConfigMapNotFound)},
		{"bad JSON", ptr(`{"id": "support", "version": `), invalid(v1alpha1.PromptPackReasonInvalidPackJSON)},
		{"id mismatch", ptr(`{"id": "billing", "version": "1.0.0"}`), invalid(v1alpha1.PromptPackReasonPackIdentityMismatch)},
		{"version mismatch", ptr(`{"id": "support", "version": "1.0.0+gAAAA"}`), invalid(v1alpha1.PromptPackReasonPackIdentityMismatch)},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := fmt.Sprintf("pack-%d", i)
			if c.packJSON != nil {
				create(t, newConfigMap(ns, name, *c.packJSON))
			}
			pack := newPack(ns, name, name)
			create(t, pack)
			p := eventuallyVerdict(t, client.ObjectKeyFromObject(pack), c.want)
			if c.want.phase == v1alpha1.PromptPackPhaseInvalid {
				// The message names the rule, so a user can look it up.
				msg := meta.FindStatusCondition(p.Status.Conditions, v1alpha1.PromptPackConditionSourceValid).Message
				if !containsRuleID(msg) {
					t.Errorf("SourceValid message %q names no promptpack/ rule", msg)
				}
			}
		})
	}
}

func containsRuleID(msg string) bool {
	for _, id := range []string{"[promptpack/configmap-found]", "[promptpack/pack-json-valid]", "[promptpack/pack-identity-matches]"} {
		if strings.Contains(msg, id) {
			return true
		}
	}
	return false
}

func ptr(s string) *string { return &s }

// The ConfigMap watch: creating, fixing and deleting the ConfigMap moves the
// pack's phase with no edit to the pack, with an event on each transition.
func TestConfigMapChangesRevalidate(t *testing.T) {
	ns := namespace(t)
	pack := newPack(ns, "support-1", "support-1")
	create(t, pack)
	key := client.ObjectKeyFromObject(pack)
	eventuallyVerdict(t, key, invalid(v1alpha1.PromptPackReasonConfigMapNotFound))

	cm := newConfigMap(ns, "support-1", `{"id": "support", "version": "0.9.0"}`)
	create(t, cm)
	eventuallyVerdict(t, key, invalid(v1alpha1.PromptPackReasonPackIdentityMismatch))

	cm.Data[rules.PromptPackPackJSONKey] = validJSON
	if err := direct.Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	eventuallyVerdict(t, key, ready)

	gomega.NewWithT(t).Eventually(func() []string { return packEvents(t, key) }, 30*time.Second, 100*time.Millisecond).Should(gomega.ContainElements(
		"Warning/"+v1alpha1.PromptPackReasonConfigMapNotFound, "Normal/"+v1alpha1.PromptPackReasonPackValid))

	if err := direct.Delete(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	eventuallyVerdict(t, key, invalid(v1alpha1.PromptPackReasonConfigMapNotFound))
}

// packEvents lists the events.k8s.io events about a pack as "type/reason".
func packEvents(t *testing.T, key client.ObjectKey) []string {
	t.Helper()
	list := &eventsv1.EventList{}
	if err := direct.List(context.Background(), list, client.InNamespace(key.Namespace)); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		if e.Regarding.Kind == "PromptPack" && e.Regarding.Name == key.Name && e.ReportingController == ControllerName {
			out = append(out, e.Type+"/"+e.Reason)
		}
	}
	return out
}

// writeCounter counts the writes a reconciler makes.
type writeCounter struct{ n atomic.Int32 }

func (w *writeCounter) take() int { return int(w.n.Swap(0)) }

// newCountingReconciler is a reconciler a test drives itself, writing
// through a counting client, with no events.
func newCountingReconciler(t *testing.T) (*Reconciler, *writeCounter) {
	t.Helper()
	w := &writeCounter{}
	base, err := client.NewWithWatch(testEnv.Config, client.Options{Scheme: testMgr.GetScheme()})
	if err != nil {
		t.Fatal(err)
	}
	count := func() { w.n.Add(1) }
	c := interceptor.NewClient(base, interceptor.Funcs{
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
	return NewReconciler(c, nil, testMgr.GetRESTMapper(), nil, Options{Common: ctrlopts.Common{Clock: clocktesting.NewFakeClock(t0)}}), w
}

func reconcileOnce(t *testing.T, r *Reconciler, key client.ObjectKey) {
	t.Helper()
	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key}); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
}

func TestNoStatusWriteWhenNothingChanged(t *testing.T) {
	ns := namespace(t)
	r, writes := newCountingReconciler(t)
	g := gomega.NewWithT(t)

	cm := newConfigMap(ns, "support-1", validJSON)
	create(t, cm)
	pack := newPack(ns, "support-1", "support-1")
	pack.Labels[isolatedLabel] = "true"
	create(t, pack)
	key := client.ObjectKeyFromObject(pack)

	steps := []struct {
		name   string
		change func()
		writes int
		want   verdict
	}{
		{"first reconcile writes the status", nil, 1, ready},
		{"unchanged: no write", nil, 0, ready},
		{"an unrelated ConfigMap edit: no write", func() {
			cm.Annotations = map[string]string{"touched": "yes"}
			must(direct.Update(context.Background(), cm))
		}, 0, ready},
		{"the pack.json breaks: one write", func() {
			cm.Data[rules.PromptPackPackJSONKey] = `{"id": "other", "version": "1.0.0"}`
			must(direct.Update(context.Background(), cm))
		}, 1, invalid(v1alpha1.PromptPackReasonPackIdentityMismatch)},
		{"still broken: no write", nil, 0, invalid(v1alpha1.PromptPackReasonPackIdentityMismatch)},
	}
	for _, s := range steps {
		if s.change != nil {
			s.change()
		}
		reconcileOnce(t, r, key)
		if n := writes.take(); n != s.writes {
			t.Fatalf("%s: %d writes, want %d", s.name, n, s.writes)
		}
		g.Expect(verdictOf(getPack(g, key))).To(gomega.Equal(s.want), s.name)
	}
}

// A live pack is its PromptPackSource's: the controller writes nothing.
func TestLivePackIsLeftAlone(t *testing.T) {
	ns := namespace(t)
	r, writes := newCountingReconciler(t)
	pack := &v1alpha1.PromptPack{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "dev-pack", Labels: map[string]string{rules.PromptPackLabel: "dev-pack", isolatedLabel: "true"}},
		Spec: v1alpha1.PromptPackSpec{PackName: "dev-pack",
			Source: v1alpha1.PromptPackContentSource{Live: &v1alpha1.PromptPackLiveSource{ProjectRef: v1alpha1.LocalObjectReference{Name: "proj"}}}},
	}
	create(t, pack)
	reconcileOnce(t, r, client.ObjectKeyFromObject(pack))
	if n := writes.take(); n != 0 {
		t.Fatalf("%d writes on a live pack, want 0", n)
	}
	if p := getPack(gomega.NewWithT(t), client.ObjectKeyFromObject(pack)); p.Status.Phase != "" || len(p.Status.Conditions) != 0 {
		t.Fatalf("a live pack got a status: %+v", p.Status)
	}
}

// TestPackLabel: a pack written with spec.packName alone gets the label
// agents find it by, in one write; a label a user set to another pack's
// name is kept and reported (LabelMatches False), never rewritten, and the
// pack is still Ready: it validated, it is only found under another name.
func TestPackLabel(t *testing.T) {
	ns := namespace(t)
	r, writes := newCountingReconciler(t)
	g := gomega.NewWithT(t)
	cases := []struct {
		name       string
		label      *string // nil: none
		wantLabel  string
		wantWrites int // on the first reconcile: the label patch and the status
		wantCond   string
	}{
		{name: "accepted: no label is added from spec.packName", label: nil, wantLabel: "support", wantWrites: 2,
			wantCond: "True/" + v1alpha1.PromptPackReasonLabelMatches},
		{name: "rejected: another pack's label is kept and reported", label: ptr("billing"), wantLabel: "billing", wantWrites: 1,
			wantCond: "False/" + v1alpha1.PromptPackReasonLabelMismatch},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := fmt.Sprintf("labelled-%d", i)
			create(t, newConfigMap(ns, name, validJSON))
			pack := newPack(ns, name, name)
			pack.Labels = map[string]string{isolatedLabel: "true"}
			if c.label != nil {
				pack.Labels[rules.PromptPackLabel] = *c.label
			}
			create(t, pack)
			key := client.ObjectKeyFromObject(pack)

			reconcileOnce(t, r, key)
			if n := writes.take(); n != c.wantWrites {
				t.Errorf("first reconcile: %d writes, want %d", n, c.wantWrites)
			}
			reconcileOnce(t, r, key)
			if n := writes.take(); n != 0 {
				t.Errorf("second reconcile: %d writes, want none", n)
			}
			p := getPack(g, key)
			if got := p.Labels[rules.PromptPackLabel]; got != c.wantLabel {
				t.Errorf("label = %q, want %q", got, c.wantLabel)
			}
			lm := meta.FindStatusCondition(p.Status.Conditions, v1alpha1.PromptPackConditionLabelMatches)
			if lm == nil || string(lm.Status)+"/"+lm.Reason != c.wantCond {
				t.Errorf("LabelMatches = %+v, want %s", lm, c.wantCond)
			}
			if lm != nil && lm.Status == metav1.ConditionFalse && !strings.Contains(lm.Message, "[promptpack/label-matches]") {
				t.Errorf("LabelMatches message %q names no rule", lm.Message)
			}
			if got := verdictOf(p); got != ready {
				t.Errorf("verdict = %+v, want Ready: the label does not feed Ready", got)
			}
		})
	}
}
