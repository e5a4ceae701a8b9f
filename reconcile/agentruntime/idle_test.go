package agentruntime

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/event"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/rules"
)

// newIdleReconciler is newCountingReconciler with a real events.k8s.io
// recorder and a fake clock set to now.
func newIdleReconciler(t *testing.T, now time.Time) (*Reconciler, *atomic.Int32) {
	t.Helper()
	r, writes := newCountingReconciler(t)
	b := events.NewBroadcaster(&events.EventSinkImpl{Interface: kubernetes.NewForConfigOrDie(testConfig).EventsV1()})
	stop := make(chan struct{})
	b.StartRecordingToSink(stop)
	t.Cleanup(func() { close(stop); b.Shutdown() })
	r.recorder = b.NewRecorder(scheme, ControllerName)
	r.opts.Clock = clocktesting.NewFakeClock(now)
	return r, writes
}

// idleAgent is a minimal agent with the idle-timeout annotation.
func idleAgent(timeout string) *v1alpha1.AgentRuntime {
	return agent(func(a *v1alpha1.AgentRuntime) {
		a.Annotations = map[string]string{rules.AgentRuntimeIdleTimeoutAnnotation: timeout}
	})
}

// setLastUsedAt writes status.lastUsedAt as the facade does, and returns the
// agent as stored.
func setLastUsedAt(t *testing.T, key client.ObjectKey, at time.Time) *v1alpha1.AgentRuntime {
	t.Helper()
	ar := &v1alpha1.AgentRuntime{}
	if err := k8s.Get(context.Background(), key, ar); err != nil {
		t.Fatal(err)
	}
	base := ar.DeepCopy()
	ar.Status.LastUsedAt = ptr.To(metav1.NewTime(at))
	if err := k8s.Status().Patch(context.Background(), ar, client.MergeFrom(base)); err != nil {
		t.Fatalf("writing lastUsedAt: %v", err)
	}
	return ar
}

// agentEvents lists the events.k8s.io Events about the agent as
// "type/reason".
func agentEvents(t *testing.T, key client.ObjectKey) []string {
	t.Helper()
	list := &eventsv1.EventList{}
	if err := k8s.List(context.Background(), list, client.InNamespace(key.Namespace)); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		if e.Regarding.Kind == "AgentRuntime" && e.Regarding.Name == key.Name && e.ReportingController == ControllerName {
			out = append(out, e.Type+"/"+e.Reason)
		}
	}
	return out
}

func agentExists(t *testing.T, key client.ObjectKey) bool {
	t.Helper()
	err := k8s.Get(context.Background(), key, &v1alpha1.AgentRuntime{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

func reconcileResult(t *testing.T, r *Reconciler, key client.ObjectKey) ctrl.Result {
	t.Helper()
	res, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key})
	if err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	return res
}

// TestIdleReaping drives the controller on a fake clock against the suite's
// API server: an agent past its idle deadline is deleted with an IdleReaped
// event; before it, it is kept and requeued at the deadline; a lastUsedAt in
// the future counts as now; an invalid value is reported and never reaped.
func TestIdleReaping(t *testing.T) {
	for i, tc := range []struct {
		name       string
		timeout    string
		clock      time.Duration  // the fake clock, after the agent's creation
		lastUsedAt *time.Duration // relative to the fake clock; nil: never used
		// wantReaped, else the requeue expected (zero for none).
		wantReaped  bool
		wantRequeue time.Duration
		wantCond    string // "Status Reason" of IdleTimeoutValid
	}{
		{name: "never used, deadline passed since creation", timeout: "2h", clock: 3 * time.Hour, wantReaped: true},
		{name: "used, deadline passed", timeout: "30m", clock: time.Hour, lastUsedAt: ptr.To(-31 * time.Minute), wantReaped: true},
		{name: "used, exactly at the deadline", timeout: "30m", clock: time.Hour, lastUsedAt: ptr.To(-30 * time.Minute), wantReaped: true},
		{name: "used, before the deadline: requeued for the time left", timeout: "1h", clock: 2 * time.Hour, lastUsedAt: ptr.To(-20 * time.Minute),
			wantRequeue: 40 * time.Minute, wantCond: "True " + v1alpha1.AgentRuntimeReasonIdleTimeoutValid},
		{name: "never used, before the deadline", timeout: "2h", clock: 0, wantRequeue: 2 * time.Hour, wantCond: "True " + v1alpha1.AgentRuntimeReasonIdleTimeoutValid},
		{name: "lastUsedAt in the future counts as now", timeout: "1h", clock: 5 * time.Hour, lastUsedAt: ptr.To(10 * time.Hour),
			wantRequeue: time.Hour, wantCond: "True " + v1alpha1.AgentRuntimeReasonIdleTimeoutValid},
		{name: "invalid value: reported, never reaped", timeout: "two hours", clock: 1000 * time.Hour,
			wantCond: "False " + v1alpha1.AgentRuntimeReasonInvalidIdleTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := createAgent(t, idleAgent(tc.timeout), fmt.Sprintf("ar-idle-%d", i))
			key := client.ObjectKeyFromObject(ar)
			// metav1.Time keeps whole seconds: a second-aligned clock makes
			// the remaining time exact.
			now := ar.CreationTimestamp.Add(tc.clock)
			if tc.lastUsedAt != nil {
				setLastUsedAt(t, key, now.Add(*tc.lastUsedAt))
			}
			r, writes := newIdleReconciler(t, now)

			res := reconcileResult(t, r, key)
			g := gomega.NewWithT(t)
			if tc.wantReaped {
				if agentExists(t, key) {
					t.Fatalf("the agent past its idle deadline was not deleted")
				}
				if res.RequeueAfter != 0 {
					t.Errorf("RequeueAfter %s after reaping, want none", res.RequeueAfter)
				}
				g.Eventually(func() []string { return agentEvents(t, key) }, 20*time.Second, 100*time.Millisecond).
					Should(gomega.ContainElement(corev1.EventTypeNormal + "/" + ReasonIdleReaped))
				return
			}
			if !agentExists(t, key) {
				t.Fatalf("the agent was deleted")
			}
			if res.RequeueAfter != tc.wantRequeue {
				t.Errorf("RequeueAfter %s, want %s", res.RequeueAfter, tc.wantRequeue)
			}
			got := &v1alpha1.AgentRuntime{}
			if err := k8s.Get(context.Background(), key, got); err != nil {
				t.Fatal(err)
			}
			c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.AgentRuntimeConditionIdleTimeoutValid)
			if c == nil {
				t.Fatalf("no IdleTimeoutValid condition on an annotated agent")
			}
			if s := string(c.Status) + " " + c.Reason; s != tc.wantCond {
				t.Errorf("IdleTimeoutValid %q (%s), want %q", s, c.Message, tc.wantCond)
			}
			if c.Status == metav1.ConditionFalse {
				g.Eventually(func() []string { return agentEvents(t, key) }, 20*time.Second, 100*time.Millisecond).
					Should(gomega.ContainElement(corev1.EventTypeWarning + "/" + v1alpha1.AgentRuntimeReasonInvalidIdleTimeout))
			}
			// A kept agent is a steady state: reconciling it again on the
			// same clock writes nothing.
			writes.Store(0)
			if res := reconcileResult(t, r, key); res.RequeueAfter != tc.wantRequeue {
				t.Errorf("second reconcile: RequeueAfter %s, want %s", res.RequeueAfter, tc.wantRequeue)
			}
			if n := writes.Load(); n != 0 {
				t.Errorf("a second reconcile of a kept annotated agent made %d writes, want 0", n)
			}
			// Later on the same clock, nothing is reaped before the
			// deadline, and a future lastUsedAt still counts as now.
			if tc.lastUsedAt != nil && *tc.lastUsedAt > 0 {
				r.opts.Clock.(*clocktesting.FakeClock).Step(time.Hour)
				if res := reconcileResult(t, r, key); res.RequeueAfter != tc.wantRequeue || !agentExists(t, key) {
					t.Errorf("an hour later: RequeueAfter %s, exists %v; want %s and kept", res.RequeueAfter, agentExists(t, key), tc.wantRequeue)
				}
			}
			if tc.wantRequeue == 0 {
				g.Consistently(func() []string { return agentEvents(t, key) }, time.Second, 100*time.Millisecond).
					ShouldNot(gomega.ContainElement(corev1.EventTypeNormal + "/" + ReasonIdleReaped))
			}
		})
	}
}

// TestIdleTimeoutConditionFollowsAnnotation: IdleTimeoutValid is present
// only while the annotation is; fixing the value turns it True.
func TestIdleTimeoutConditionFollowsAnnotation(t *testing.T) {
	ctx := context.Background()
	ar := createAgent(t, agent(), "ar-idle-annotation")
	key := client.ObjectKeyFromObject(ar)
	r, _ := newIdleReconciler(t, ar.CreationTimestamp.Time)
	cond := func() string {
		got := reconcileAgent(t, r, key)
		c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.AgentRuntimeConditionIdleTimeoutValid)
		if c == nil {
			return "absent"
		}
		return string(c.Status) + " " + c.Reason
	}
	annotate := func(v *string) {
		got := &v1alpha1.AgentRuntime{}
		if err := k8s.Get(ctx, key, got); err != nil {
			t.Fatal(err)
		}
		base := got.DeepCopy()
		if v == nil {
			delete(got.Annotations, rules.AgentRuntimeIdleTimeoutAnnotation)
		} else {
			if got.Annotations == nil {
				got.Annotations = map[string]string{}
			}
			got.Annotations[rules.AgentRuntimeIdleTimeoutAnnotation] = *v
		}
		if err := k8s.Patch(ctx, got, client.MergeFrom(base)); err != nil {
			t.Fatal(err)
		}
	}
	for _, step := range []struct {
		annotation *string
		want       string
	}{
		{nil, "absent"},
		{ptr.To("-5m"), "False " + v1alpha1.AgentRuntimeReasonInvalidIdleTimeout},
		{ptr.To("5m"), "True " + v1alpha1.AgentRuntimeReasonIdleTimeoutValid},
		{nil, "absent"},
	} {
		annotate(step.annotation)
		if got := cond(); got != step.want {
			t.Errorf("annotation %v: IdleTimeoutValid %s, want %s", ptr.Deref(step.annotation, "<none>"), got, step.want)
		}
	}
}

// TestIdleReapDeletesOnlyTheJudgedAgent: the delete carries the judged
// agent's UID, so an agent re-created under the same name after the read is
// not deleted.
func TestIdleReapDeletesOnlyTheJudgedAgent(t *testing.T) {
	ctx := context.Background()
	stale := createAgent(t, idleAgent("1m"), "ar-idle-recreated")
	key := client.ObjectKeyFromObject(stale)
	if err := k8s.Delete(ctx, stale.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	fresh := idleAgent("1m")
	fresh.Namespace, fresh.UID = key.Namespace, ""
	if err := k8s.Create(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	r, _ := newIdleReconciler(t, fresh.CreationTimestamp.Add(time.Hour))
	v, err := r.reapIfIdle(ctx, stale)
	if !v.stop || !apierrors.IsConflict(err) {
		t.Errorf("verdict %+v, error %v on a stale agent, want stop and a Conflict (reconciled again)", v, err)
	}
	got := &v1alpha1.AgentRuntime{}
	if err := k8s.Get(ctx, key, got); err != nil || got.UID != fresh.UID {
		t.Fatalf("the re-created agent is gone (%v) or replaced", err)
	}
	// The same object, read fresh, is reaped: the precondition is what
	// kept it above.
	if v, err := r.reapIfIdle(ctx, got); err != nil || !v.stop || agentExists(t, key) {
		t.Errorf("reaping the current agent: verdict %+v, err %v, exists %v", v, err, agentExists(t, key))
	}
	gomega.NewWithT(t).Eventually(func() []string { return agentEvents(t, key) }, 20*time.Second, 100*time.Millisecond).
		Should(gomega.Equal([]string{corev1.EventTypeNormal + "/" + ReasonIdleReaped}), "one IdleReaped event, for the reaped agent only")
}

// TestIdleInputsChangedPredicate: the For predicate passes the updates that
// move the deadline without a generation bump, and not the controller's own
// status writes.
func TestIdleInputsChangedPredicate(t *testing.T) {
	base := idleAgent("1h")
	base.Status.LastUsedAt = ptr.To(metav1.NewTime(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)))
	p := idleInputsChanged()
	for _, tc := range []struct {
		name   string
		mutate func(*v1alpha1.AgentRuntime)
		want   bool
	}{
		{"lastUsedAt moved", func(a *v1alpha1.AgentRuntime) {
			a.Status.LastUsedAt = ptr.To(metav1.NewTime(a.Status.LastUsedAt.Add(time.Minute)))
		}, true},
		{"lastUsedAt cleared", func(a *v1alpha1.AgentRuntime) { a.Status.LastUsedAt = nil }, true},
		{"annotation changed", func(a *v1alpha1.AgentRuntime) { a.Annotations[rules.AgentRuntimeIdleTimeoutAnnotation] = "2h" }, true},
		{"annotation removed", func(a *v1alpha1.AgentRuntime) { a.Annotations = nil }, true},
		{"conditions and phase (the controller's own status write)", func(a *v1alpha1.AgentRuntime) {
			a.Status.Phase = v1alpha1.AgentRuntimePhaseRunning
			a.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue}}
		}, false},
		{"another annotation", func(a *v1alpha1.AgentRuntime) { a.Annotations["other"] = "x" }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur := base.DeepCopy()
			tc.mutate(cur)
			if got := p.Update(event.UpdateEvent{ObjectOld: base, ObjectNew: cur}); got != tc.want {
				t.Errorf("Update = %v, want %v", got, tc.want)
			}
		})
	}
	if p.Create(event.CreateEvent{Object: base}) || p.Delete(event.DeleteEvent{Object: base}) {
		t.Errorf("the idle predicate passes create or delete; GenerationChanged already does")
	}
}

// TestIdleReapingThroughWatch: with the controller in a manager on a fake
// clock, changes that bump no generation re-reconcile the agent and reap
// it: adding the annotation to an old agent, and a facade writing a
// lastUsedAt that puts the deadline in the past.
func TestIdleReapingThroughWatch(t *testing.T) {
	mgr, err := ctrl.NewManager(testConfig, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(time.Now().Add(3 * time.Hour))
	if err := SetupWithManager(mgr, Options{BuiltinRuntimeImage: "r:1", FacadeImage: "f:1", PolicyBrokerImage: "b:1", Common: ctrlopts.Common{Clock: clk}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = mgr.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	plain := createAgent(t, agent(), "ar-idle-watch-annotation")
	used := createAgent(t, idleAgent("4h"), "ar-idle-watch-lastused")
	g := gomega.NewWithT(t)
	reconciled := func(key client.ObjectKey) func() int64 {
		return func() int64 {
			got := &v1alpha1.AgentRuntime{}
			if err := k8s.Get(ctx, key, got); err != nil {
				return -1
			}
			return got.Status.ObservedGeneration
		}
	}
	for _, ar := range []*v1alpha1.AgentRuntime{plain, used} {
		g.Eventually(reconciled(client.ObjectKeyFromObject(ar)), 30*time.Second, 100*time.Millisecond).Should(gomega.Equal(ar.Generation))
	}
	if !agentExists(t, client.ObjectKeyFromObject(used)) {
		t.Fatalf("an agent 3h old with a 4h idle timeout was reaped")
	}

	// An annotation bumps no generation: the idle predicate lets it through.
	key := client.ObjectKeyFromObject(plain)
	got := &v1alpha1.AgentRuntime{}
	if err := k8s.Get(ctx, key, got); err != nil {
		t.Fatal(err)
	}
	patched := got.DeepCopy()
	patched.Annotations = map[string]string{rules.AgentRuntimeIdleTimeoutAnnotation: "1h"}
	if err := k8s.Patch(ctx, patched, client.MergeFrom(got)); err != nil {
		t.Fatal(err)
	}
	g.Eventually(func() bool { return agentExists(t, key) }, 30*time.Second, 100*time.Millisecond).Should(gomega.BeFalse(),
		"adding a passed idle timeout did not reap the agent")

	// A lastUsedAt 5h before the clock: the deadline passed an hour ago.
	key = client.ObjectKeyFromObject(used)
	setLastUsedAt(t, key, clk.Now().Add(-5*time.Hour))
	g.Eventually(func() bool { return agentExists(t, key) }, 30*time.Second, 100*time.Millisecond).Should(gomega.BeFalse(),
		"a lastUsedAt past the deadline did not reap the agent")
	g.Eventually(func() []string { return agentEvents(t, key) }, 20*time.Second, 100*time.Millisecond).
		Should(gomega.ContainElement(corev1.EventTypeNormal + "/" + ReasonIdleReaped))
}
