package arenajob

// Controller tests against a real kube-apiserver and etcd. Each test drives
// reconcilers of its own on a fake clock, so a tick is a clock step, never a
// sleep, and "an operator restart" is a new Reconciler. The ArenaRun
// controller does not run here: the tests set the runs' phases as it would.

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/test/controlplane"
)

var (
	testEnv *envtest.Environment
	testMgr ctrl.Manager // not started: its REST mapper and event recorder
	direct  client.Client
	nsCount atomic.Int32
)

// enterprise grants every feature.
var enterprise = rules.License{Tier: "enterprise", Customer: "test", Features: map[string]bool{
	rules.FeatureScheduling: true, rules.FeatureLoadTesting: true, rules.FeatureDataGeneration: true, rules.FeatureDistributedWorkers: true,
}}

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	var err error
	testEnv, err = controlplane.Start(controlplane.Options{Kinds: []string{"ArenaJob", "ArenaRun", "Workspace"}})
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
	testMgr, err = ctrl.NewManager(testEnv.Config, ctrl.Options{Scheme: scheme,
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	must(err)
	return m.Run()
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func namespace(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("aj-%d-%d", os.Getpid()%10000, nsCount.Add(1))
	if err := direct.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	return name
}

// harness is one job and the clock its reconcilers share.
type harness struct {
	t     *testing.T
	key   client.ObjectKey
	clock *clocktesting.FakeClock
	lic   rules.License
	r     *Reconciler
}

// newJob creates a job (cron "" for a manual one) and a reconciler whose
// clock starts at the job's creation.
func newJob(t *testing.T, cron string, policy v1alpha1.ArenaJobConcurrencyPolicy, mutate ...func(*v1alpha1.ArenaJob)) *harness {
	t.Helper()
	job := &v1alpha1.ArenaJob{ObjectMeta: metav1.ObjectMeta{Namespace: namespace(t), Name: "eval"},
		Spec: v1alpha1.ArenaJobSpec{SourceRef: v1alpha1.LocalObjectReference{Name: "project"}}}
	if cron != "" {
		job.Spec.Schedule = &v1alpha1.ArenaJobSchedule{Cron: cron, ConcurrencyPolicy: policy}
	}
	for _, m := range mutate {
		m(job)
	}
	if err := direct.Create(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, key: client.ObjectKeyFromObject(job), clock: clocktesting.NewFakeClock(job.CreationTimestamp.Time), lic: enterprise}
	h.restart()
	return h
}

// restart replaces the reconciler, as an operator restart does: nothing is
// kept but what is in the API server.
func (h *harness) restart() {
	h.r = NewReconciler(direct, testMgr.GetRESTMapper(), testMgr.GetEventRecorder(ControllerName), Options{Common: ctrlopts.Common{Clock: h.clock, License: h.lic}})
}

func (h *harness) reconcile() ctrl.Result {
	h.t.Helper()
	res, err := h.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: h.key})
	if err != nil {
		h.t.Fatalf("reconcile: %v", err)
	}
	return res
}

func (h *harness) job() *v1alpha1.ArenaJob {
	h.t.Helper()
	j := &v1alpha1.ArenaJob{}
	if err := direct.Get(context.Background(), h.key, j); err != nil {
		h.t.Fatal(err)
	}
	return j
}

// runs lists the job's runs by name.
func (h *harness) runs() map[string]*v1alpha1.ArenaRun {
	h.t.Helper()
	list := &v1alpha1.ArenaRunList{}
	if err := direct.List(context.Background(), list, client.InNamespace(h.key.Namespace)); err != nil {
		h.t.Fatal(err)
	}
	out := map[string]*v1alpha1.ArenaRun{}
	for i := range list.Items {
		out[list.Items[i].Name] = &list.Items[i]
	}
	return out
}

func (h *harness) runNames() []string {
	var out []string
	for n := range h.runs() {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// setPhase sets a run's phase, as the ArenaRun controller would.
func (h *harness) setPhase(name string, phase v1alpha1.ArenaRunPhase) {
	h.t.Helper()
	run := &v1alpha1.ArenaRun{}
	if err := direct.Get(context.Background(), client.ObjectKey{Namespace: h.key.Namespace, Name: name}, run); err != nil {
		h.t.Fatal(err)
	}
	orig := run.DeepCopy()
	run.Status.Phase = phase
	if err := direct.Status().Patch(context.Background(), run, client.MergeFrom(orig)); err != nil {
		h.t.Fatal(err)
	}
}

// loseStatus clears the job's status, as a crash between a run's create
// and the status write leaves it.
func (h *harness) loseStatus() {
	h.t.Helper()
	j := h.job()
	orig := j.DeepCopy()
	j.Status = v1alpha1.ArenaJobStatus{}
	if err := direct.Status().Patch(context.Background(), j, client.MergeFrom(orig)); err != nil {
		h.t.Fatal(err)
	}
}

// events lists the job's events from this controller as "type/reason".
func (h *harness) events() []string {
	h.t.Helper()
	list := &eventsv1.EventList{}
	if err := direct.List(context.Background(), list, client.InNamespace(h.key.Namespace)); err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		if e.Regarding.Kind == "ArenaJob" && e.Regarding.Name == h.key.Name && e.ReportingController == ControllerName {
			out = append(out, e.Type+"/"+e.Reason)
		}
	}
	return out
}

func (h *harness) eventuallyEvents(want ...string) {
	h.t.Helper()
	gomega.NewWithT(h.t).Eventually(h.events, 20*time.Second, 50*time.Millisecond).Should(gomega.ContainElements(want))
}

// tick is the n-th top of the hour after the job's creation.
func (h *harness) tick(n int) time.Time {
	return h.job().CreationTimestamp.Time.Truncate(time.Hour).Add(time.Duration(n) * time.Hour)
}

func (h *harness) at(t time.Time) { h.clock.SetTime(t) }

func TestManualJobRunsExactlyOnce(t *testing.T) {
	h := newJob(t, "", "")
	h.reconcile()
	want := []string{"eval-manual"}
	if got := h.runNames(); !slices.Equal(got, want) {
		t.Fatalf("runs %v, want %v", got, want)
	}
	run := h.runs()["eval-manual"]
	job := h.job()
	if run.Spec.Trigger != v1alpha1.ArenaRunTriggerManual || run.Spec.JobRef.Name != "eval" ||
		!equality.Semantic.DeepEqual(run.Spec.Template, job.Spec) {
		t.Fatalf("run spec %+v does not freeze the job's spec %+v", run.Spec, job.Spec)
	}
	if ref := metav1.GetControllerOf(run); ref == nil || ref.UID != job.UID || ref.Kind != "ArenaJob" {
		t.Fatalf("owner %+v", run.OwnerReferences)
	}
	if job.Status.LastRunRef == nil || job.Status.LastRunRef.Name != "eval-manual" || len(job.Status.Active) != 1 ||
		job.Status.NextScheduleTime != nil || job.Status.ObservedGeneration != job.Generation {
		t.Fatalf("status %+v", job.Status)
	}
	if c := meta.FindStatusCondition(job.Status.Conditions, v1alpha1.ArenaJobConditionReady); c == nil || c.Reason != v1alpha1.ArenaJobReasonScheduled {
		t.Fatalf("Ready %+v", c)
	}

	// A second reconcile, and one after a restart, start nothing.
	h.reconcile()
	h.restart()
	h.reconcile()
	if got := h.runNames(); !slices.Equal(got, want) {
		t.Fatalf("after a second reconcile and a restart: runs %v, want %v", got, want)
	}

	// The status write was lost (a crash between the create and the
	// write): the deterministic name still makes it one run.
	h.loseStatus()
	h.restart()
	h.reconcile()
	if got := h.runNames(); !slices.Equal(got, want) {
		t.Fatalf("after a lost status: runs %v, want %v", got, want)
	}
	if j := h.job(); j.Status.LastRunRef == nil || j.Status.LastRunRef.Name != "eval-manual" {
		t.Fatalf("lastRunRef not recovered: %+v", j.Status)
	}

	// Finished and pruned (failed limit 0), the manual run is not started again.
	h.setPhase("eval-manual", v1alpha1.ArenaRunPhaseFailed)
	j := h.job()
	orig := j.DeepCopy()
	zero := int32(0)
	j.Spec.FailedRunsHistoryLimit = &zero
	if err := direct.Patch(context.Background(), j, client.MergeFrom(orig)); err != nil {
		t.Fatal(err)
	}
	h.reconcile()
	h.reconcile()
	if got := h.runNames(); len(got) != 0 {
		t.Fatalf("after pruning: runs %v, want none", got)
	}
	h.eventuallyEvents("Normal/"+EventRunCreated, "Normal/"+EventRunsPruned)
}

func TestScheduleConcurrencyPolicies(t *testing.T) {
	cases := []struct {
		policy v1alpha1.ArenaJobConcurrencyPolicy
		// afterSecondTick are the runs once the second tick came while the
		// first run was still running.
		afterSecondTick []string
		firstCancelled  bool
		event           string
	}{
		{v1alpha1.ArenaJobConcurrencyAllow, []string{"t1", "t2"}, false, EventRunCreated},
		{v1alpha1.ArenaJobConcurrencyForbid, []string{"t1"}, false, EventRunSkipped},
		{v1alpha1.ArenaJobConcurrencyReplace, []string{"t1", "t2"}, true, EventRunReplaced},
	}
	for _, c := range cases {
		t.Run(string(c.policy), func(t *testing.T) {
			h := newJob(t, "0 * * * *", c.policy)
			name := func(n int) string { return RunName("eval", h.tick(n)) }
			names := func(ts ...string) []string {
				var out []string
				for _, s := range ts {
					out = append(out, name(int(s[1]-'0')))
				}
				slices.Sort(out)
				return out
			}

			// Before the first tick: nothing, and the next tick is the requeue.
			h.at(h.tick(1).Add(-time.Minute))
			if res := h.reconcile(); res.RequeueAfter != time.Minute {
				t.Fatalf("requeue %v, want 1m (to the first tick)", res.RequeueAfter)
			}
			if got := h.runNames(); len(got) != 0 {
				t.Fatalf("runs before the first tick: %v", got)
			}
			if j := h.job(); j.Status.NextScheduleTime == nil || !j.Status.NextScheduleTime.Time.Equal(h.tick(1)) {
				t.Fatalf("nextScheduleTime %v, want %v", j.Status.NextScheduleTime, h.tick(1))
			}

			// The first tick starts a run.
			h.at(h.tick(1).Add(10 * time.Second))
			if res := h.reconcile(); res.RequeueAfter != time.Hour-10*time.Second {
				t.Fatalf("requeue %v", res.RequeueAfter)
			}
			if got := h.runNames(); !slices.Equal(got, names("t1")) {
				t.Fatalf("runs after tick 1: %v", got)
			}
			if run := h.runs()[name(1)]; run.Spec.Trigger != v1alpha1.ArenaRunTriggerSchedule {
				t.Fatalf("trigger %s", run.Spec.Trigger)
			}
			h.setPhase(name(1), v1alpha1.ArenaRunPhaseRunning)

			// The second tick, the first run still running.
			h.at(h.tick(2).Add(10 * time.Second))
			h.reconcile()
			h.reconcile() // the same tick is never acted on twice
			if got := h.runNames(); !slices.Equal(got, names(c.afterSecondTick...)) {
				t.Fatalf("runs after tick 2: %v, want %v", got, names(c.afterSecondTick...))
			}
			if got := h.runs()[name(1)].Spec.Cancelled; got != c.firstCancelled {
				t.Fatalf("first run cancelled %v, want %v", got, c.firstCancelled)
			}
			j := h.job()
			if !j.Status.LastScheduleTime.Time.Equal(h.tick(2)) || !j.Status.NextScheduleTime.Time.Equal(h.tick(3)) {
				t.Fatalf("lastScheduleTime %v nextScheduleTime %v: the second tick must be recorded as passed", j.Status.LastScheduleTime, j.Status.NextScheduleTime)
			}
			var active []string
			for _, a := range j.Status.Active {
				active = append(active, a.Name)
			}
			slices.Sort(active)
			if !slices.Equal(active, names(c.afterSecondTick...)) {
				t.Fatalf("active %v", active)
			}
			h.eventuallyEvents("Normal/" + c.event)

			// Every run finished: the third tick starts under every policy.
			for n := range h.runs() {
				h.setPhase(n, v1alpha1.ArenaRunPhaseSucceeded)
			}
			h.at(h.tick(3).Add(10 * time.Second))
			h.reconcile()
			if _, ok := h.runs()[name(3)]; !ok {
				t.Fatalf("runs after tick 3: %v", h.runNames())
			}
			if j := h.job(); j.Status.LastRunRef.Name != name(3) || len(j.Status.Active) != 1 {
				t.Fatalf("status after tick 3: %+v", j.Status)
			}
		})
	}
}

func TestSuspend(t *testing.T) {
	h := newJob(t, "0 * * * *", v1alpha1.ArenaJobConcurrencyAllow)
	h.at(h.tick(1).Add(time.Second))
	h.reconcile()
	if j := h.job(); j.Status.NextScheduleTime == nil {
		t.Fatal("nextScheduleTime unset")
	}

	j := h.job()
	orig := j.DeepCopy()
	j.Spec.Suspend = true
	if err := direct.Patch(context.Background(), j, client.MergeFrom(orig)); err != nil {
		t.Fatal(err)
	}
	h.at(h.tick(2).Add(time.Second))
	if res := h.reconcile(); res.RequeueAfter != 0 {
		t.Fatalf("a suspended job requeues after %v", res.RequeueAfter)
	}
	if got := h.runNames(); len(got) != 1 {
		t.Fatalf("a suspended job started runs: %v", got)
	}
	j = h.job()
	if j.Status.NextScheduleTime != nil || !j.Status.LastScheduleTime.Time.Equal(h.tick(1)) {
		t.Fatalf("suspended status %+v", j.Status)
	}
	if c := meta.FindStatusCondition(j.Status.Conditions, v1alpha1.ArenaJobConditionReady); c == nil || c.Message != SuspendedMessage {
		t.Fatalf("Ready %+v", c)
	}
	h.eventuallyEvents("Normal/" + EventSuspended)

	// Resumed after two more ticks: as a CronJob without
	// startingDeadlineSeconds, the most recent missed tick runs.
	orig = j.DeepCopy()
	j.Spec.Suspend = false
	if err := direct.Patch(context.Background(), j, client.MergeFrom(orig)); err != nil {
		t.Fatal(err)
	}
	h.at(h.tick(3).Add(time.Minute))
	h.reconcile()
	want := []string{RunName("eval", h.tick(1)), RunName("eval", h.tick(3))}
	slices.Sort(want)
	if got := h.runNames(); !slices.Equal(got, want) {
		t.Fatalf("after resuming: %v, want %v", got, want)
	}
	if j := h.job(); !j.Status.NextScheduleTime.Time.Equal(h.tick(4)) {
		t.Fatalf("nextScheduleTime %v", j.Status.NextScheduleTime)
	}
}

func TestHistoryPruning(t *testing.T) {
	i32 := func(n int32) *int32 { return &n }
	cases := []struct {
		name       string
		ok, failed *int32
		// keep are the indexes of the four runs (phases Succeeded, Failed,
		// Cancelled, Succeeded) left.
		keep []int
	}{
		// The Cancelled run is the newest failed one: the Failed run goes.
		{"defaults 3 and 1, Cancelled counts as failed", nil, nil, []int{1, 3, 4}},
		{"1 and 1", i32(1), i32(1), []int{3, 4}},
		{"0 and 2", i32(0), i32(2), []int{2, 3}},
	}
	phases := []v1alpha1.ArenaRunPhase{"", v1alpha1.ArenaRunPhaseSucceeded, v1alpha1.ArenaRunPhaseFailed,
		v1alpha1.ArenaRunPhaseCancelled, v1alpha1.ArenaRunPhaseSucceeded}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newJob(t, "0 * * * *", v1alpha1.ArenaJobConcurrencyAllow, func(j *v1alpha1.ArenaJob) {
				j.Spec.SuccessfulRunsHistoryLimit, j.Spec.FailedRunsHistoryLimit = c.ok, c.failed
			})
			for n := 1; n <= 4; n++ {
				h.at(h.tick(n).Add(time.Second))
				h.reconcile()
				// A run is never pruned while it is active.
				if _, ok := h.runs()[RunName("eval", h.tick(n))]; !ok {
					t.Fatalf("run %d missing", n)
				}
				h.setPhase(RunName("eval", h.tick(n)), phases[n])
			}
			h.at(h.tick(4).Add(time.Minute))
			h.reconcile()
			var want []string
			for _, n := range c.keep {
				want = append(want, RunName("eval", h.tick(n)))
			}
			slices.Sort(want)
			if got := h.runNames(); !slices.Equal(got, want) {
				t.Fatalf("runs %v, want %v", got, want)
			}
			if j := h.job(); len(j.Status.Active) != 0 {
				t.Fatalf("active %v", j.Status.Active)
			}
		})
	}
}

func TestRefusedJobsStartNothing(t *testing.T) {
	cases := []struct {
		name           string
		cron           string
		lic            rules.License
		reason, ruleID string
		requeue        time.Duration
	}{
		{"cron that does not parse", "every night at two", enterprise, v1alpha1.ArenaJobReasonInvalidSchedule, "arenajob/schedule-cron-invalid", 0},
		{"scheduled job without the scheduling licence", "0 * * * *", rules.License{}, v1alpha1.ArenaJobReasonLicenseViolation, "arenajob/license-scheduling", licenseRecheck},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newJob(t, c.cron, "")
			h.lic = c.lic
			h.restart()
			h.at(h.tick(3))
			if res := h.reconcile(); res.RequeueAfter != c.requeue {
				t.Fatalf("requeue %v, want %v", res.RequeueAfter, c.requeue)
			}
			if got := h.runNames(); len(got) != 0 {
				t.Fatalf("a refused job started %v", got)
			}
			j := h.job()
			ready := meta.FindStatusCondition(j.Status.Conditions, v1alpha1.ArenaJobConditionReady)
			stalled := meta.FindStatusCondition(j.Status.Conditions, v1alpha1.ArenaJobConditionStalled)
			if ready == nil || ready.Status != metav1.ConditionFalse || ready.Reason != c.reason || !contains(ready.Message, "["+c.ruleID+"]") {
				t.Fatalf("Ready %+v", ready)
			}
			if stalled == nil || stalled.Status != metav1.ConditionTrue || stalled.Reason != c.reason {
				t.Fatalf("Stalled %+v", stalled)
			}
			if j.Status.NextScheduleTime != nil {
				t.Fatalf("nextScheduleTime %v", j.Status.NextScheduleTime)
			}
			h.eventuallyEvents("Warning/" + c.reason)

			// The licence arrives: the job schedules (the invalid cron stays refused).
			h.lic = enterprise
			h.restart()
			h.reconcile()
			ready = meta.FindStatusCondition(h.job().Status.Conditions, v1alpha1.ArenaJobConditionReady)
			if (ready.Status == metav1.ConditionTrue) != (c.reason == v1alpha1.ArenaJobReasonLicenseViolation) {
				t.Fatalf("with the licence: Ready %+v", ready)
			}
		})
	}
}

func TestRestartAfterMissedTicksRunsOnlyTheLatest(t *testing.T) {
	h := newJob(t, "0 * * * *", v1alpha1.ArenaJobConcurrencyForbid)
	h.at(h.tick(1).Add(time.Second))
	h.reconcile()
	h.setPhase(RunName("eval", h.tick(1)), v1alpha1.ArenaRunPhaseSucceeded)

	// The operator is down from tick 2 to tick 6 and comes back at 6:20.
	h.at(h.tick(6).Add(20 * time.Minute))
	h.restart()
	h.reconcile()
	h.restart()
	h.reconcile()
	want := []string{RunName("eval", h.tick(1)), RunName("eval", h.tick(6))}
	slices.Sort(want)
	if got := h.runNames(); !slices.Equal(got, want) {
		t.Fatalf("runs %v, want %v (only the latest missed tick)", got, want)
	}
	if j := h.job(); !j.Status.LastScheduleTime.Time.Equal(h.tick(6)) || !j.Status.NextScheduleTime.Time.Equal(h.tick(7)) {
		t.Fatalf("status %+v", j.Status)
	}
	h.eventuallyEvents("Normal/" + EventMissedTicks)
}

func TestMaxJobsPerDaySkipsTheTick(t *testing.T) {
	h := newJob(t, "0 * * * *", v1alpha1.ArenaJobConcurrencyAllow)
	two := int32(2)
	ws := &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: h.key.Namespace},
		Spec: v1alpha1.WorkspaceSpec{Namespace: v1alpha1.WorkspaceNamespace{Name: h.key.Namespace},
			Quotas: &v1alpha1.WorkspaceQuotas{Arena: &v1alpha1.WorkspaceArenaQuota{MaxJobsPerDay: &two}}}}
	if err := direct.Create(context.Background(), ws); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = direct.Delete(context.Background(), ws) })
	// The workspace's other job already started a run today.
	other := &v1alpha1.ArenaRun{ObjectMeta: metav1.ObjectMeta{Namespace: h.key.Namespace, Name: "other-manual"},
		Spec: v1alpha1.ArenaRunSpec{JobRef: v1alpha1.LocalObjectReference{Name: "other"},
			Template: v1alpha1.ArenaJobSpec{SourceRef: v1alpha1.LocalObjectReference{Name: "project"}}}}
	if err := direct.Create(context.Background(), other); err != nil {
		t.Fatal(err)
	}

	h.at(h.tick(1).Add(time.Second))
	h.reconcile()
	h.at(h.tick(2).Add(time.Second))
	h.reconcile() // the allowance (2) is used up: other-manual and tick 1's run
	want := []string{RunName("eval", h.tick(1)), "other-manual"}
	slices.Sort(want)
	if got := h.runNames(); !slices.Equal(got, want) {
		t.Fatalf("runs %v, want %v", got, want)
	}
	if j := h.job(); !j.Status.LastScheduleTime.Time.Equal(h.tick(2)) || !j.Status.NextScheduleTime.Time.Equal(h.tick(3)) {
		t.Fatalf("the skipped tick must be recorded as passed: %+v", j.Status)
	}
	h.eventuallyEvents("Warning/" + EventRunSkipped)

	// A day after the first runs, the allowance is back.
	h.at(h.job().CreationTimestamp.Add(25 * time.Hour).Truncate(time.Hour).Add(time.Second))
	h.reconcile()
	if got := h.runNames(); len(got) != 3 {
		t.Fatalf("runs a day later: %v", got)
	}
}

// TestTickWithItsRunAlreadyThere: the job's status is older than the run of
// its tick (a crash between creating the run and writing the status, or a
// cache behind the API server). The tick's own run is then active: it must
// not make Forbid skip the tick nor Replace cancel it.
func TestTickWithItsRunAlreadyThere(t *testing.T) {
	for _, policy := range []v1alpha1.ArenaJobConcurrencyPolicy{v1alpha1.ArenaJobConcurrencyForbid, v1alpha1.ArenaJobConcurrencyReplace} {
		t.Run(string(policy), func(t *testing.T) {
			h := newJob(t, "0 * * * *", policy)
			h.at(h.tick(1).Add(time.Second))
			h.reconcile()
			name := RunName("eval", h.tick(1))
			h.setPhase(name, v1alpha1.ArenaRunPhaseRunning)

			h.loseStatus()
			h.restart()
			h.reconcile()
			if got := h.runNames(); !slices.Equal(got, []string{name}) {
				t.Fatalf("runs %v", got)
			}
			if h.runs()[name].Spec.Cancelled {
				t.Fatal("the tick's own run was cancelled")
			}
			j := h.job()
			if j.Status.LastRunRef == nil || j.Status.LastRunRef.Name != name || !j.Status.LastScheduleTime.Time.Equal(h.tick(1)) {
				t.Fatalf("status %+v: the tick must be recorded as started by %s", j.Status, name)
			}
		})
	}
}
