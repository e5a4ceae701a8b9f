package arena

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/arena/queue"
	"github.com/altairalabs/omnia/test/arenaworker"
)

func condition(run *v1alpha1.ArenaRun, t string) *metav1.Condition {
	return meta.FindStatusCondition(run.Status.Conditions, t)
}

var _ = Describe("Arena on the local cluster", Ordered, func() {
	ctx := context.Background()
	// The scheduled job's namespace: the job is created as soon as the
	// licence allows scheduling, and its first tick (the operator's real
	// clock, at most a minute away) is checked by the last spec, so the
	// wait overlaps the other specs.
	var scheduledNS string

	It("refuses an unlicensed load test at admission, and runs it once licensed", func() {
		ns, _ := fx.Namespace(ctx, "arena-lic")
		lt := v1alpha1.ArenaJobSpec{Type: v1alpha1.ArenaJobTypeLoadTest,
			LoadTest: &v1alpha1.ArenaJobLoadTest{Concurrency: ptr.To[int32](1)}}
		err := fx.CreateJob(ctx, ns, "load", lt)
		Expect(err).To(HaveOccurred(), "the open-core licence must refuse a load test")
		Expect(apierrors.IsForbidden(err) || apierrors.IsInvalid(err) || strings.Contains(err.Error(), "denied")).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring("license-load-testing"))

		installLicence(ctx)
		// The licence is reloaded without a restart: the webhook admits it.
		Eventually(func() error { return fx.CreateJob(ctx, ns, "load", lt) }).
			WithTimeout(time.Minute).WithPolling(500 * time.Millisecond).Should(Succeed())
		fx.WaitRun(ctx, ns, "load-manual", v1alpha1.ArenaRunPhaseRunning, time.Minute)
		st, err := arenaworker.Run(ctx, fx.Queue(ns, "load-manual"), 1, arenaworker.Pass)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Executed).To(Equal(2))
		run := fx.WaitRun(ctx, ns, "load-manual", v1alpha1.ArenaRunPhaseSucceeded, time.Minute)
		Expect(run.Status.Result.Summary).To(HaveKeyWithValue("passRate", "100.0"))

		scheduledNS, _ = fx.Namespace(ctx, "arena-cron")
		Expect(fx.CreateJob(ctx, scheduledNS, "nightly", v1alpha1.ArenaJobSpec{
			Schedule: &v1alpha1.ArenaJobSchedule{Cron: "* * * * *"}})).To(Succeed())
	})

	It("runs a manual job to Succeeded with its summary, on the pinned, exported commit", func() {
		ns, commit := fx.Namespace(ctx, "arena-manual")
		Expect(fx.CreateJob(ctx, ns, "eval", v1alpha1.ArenaJobSpec{Trials: ptr.To[int32](2),
			Workers: &v1alpha1.ArenaJobWorkers{Replicas: ptr.To[int32](2)}})).To(Succeed())
		run := fx.WaitRun(ctx, ns, "eval-manual", v1alpha1.ArenaRunPhaseRunning, time.Minute)
		Expect(run.Status.Source).NotTo(BeNil())
		Expect(*run.Status.Source).To(Equal(v1alpha1.ArenaRunSource{Repository: "hosted", Ref: "main", Commit: commit,
			ContentPath: "arena/sources/proj/.arena/versions/" + commit}))
		// The snapshot the workers mount is on the content volume.
		snap := filepath.Join(contentRoot, ns, "arena/sources/proj/.arena/versions", commit)
		Expect(filepath.Join(snap, "scenarios/greet.yaml")).To(BeAnExistingFile())

		st, err := arenaworker.Run(ctx, fx.Queue(ns, "eval-manual"), 2, arenaworker.Pass)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Executed).To(Equal(4), "2 scenarios × 1 provider (mock, from the arena file) × 2 trials")
		run = fx.WaitRun(ctx, ns, "eval-manual", v1alpha1.ArenaRunPhaseSucceeded, time.Minute)
		Expect(run.Status.Result.Summary).To(HaveKeyWithValue("passRate", "100.0"))
		Expect(run.Status.Result.Summary).To(HaveKeyWithValue("totalItems", "4"))
		// The worker Job ran on the cluster: the Job controller made its
		// pods and kwok completed them.
		Eventually(func(g Gomega) {
			job := &batchv1.Job{}
			g.Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "eval-manual"}, job)).To(Succeed())
			g.Expect(job.Status.Succeeded).To(BeNumerically(">=", 2))
		}).WithTimeout(time.Minute).WithPolling(250 * time.Millisecond).Should(Succeed())
	})

	It("fails a run whose ref names nothing with RefNotFound", func() {
		ns, _ := fx.Namespace(ctx, "arena-ref")
		Expect(fx.CreateJob(ctx, ns, "ghost", v1alpha1.ArenaJobSpec{Ref: "no-such-branch"})).To(Succeed())
		run := fx.WaitRun(ctx, ns, "ghost-manual", v1alpha1.ArenaRunPhaseFailed, time.Minute)
		Expect(condition(run, v1alpha1.ArenaRunConditionReady).Reason).To(Equal(v1alpha1.ArenaRunReasonRefNotFound))
	})

	It("cancels a run: its Job is deleted and its queue drained", func() {
		ns, _ := fx.Namespace(ctx, "arena-cancel")
		Expect(fx.CreateJob(ctx, ns, "long", v1alpha1.ArenaJobSpec{Trials: ptr.To[int32](4)})).To(Succeed())
		fx.WaitRun(ctx, ns, "long-manual", v1alpha1.ArenaRunPhaseRunning, time.Minute)
		q := fx.Queue(ns, "long-manual")
		n, err := arenaworker.RunN(ctx, q, 3, arenaworker.Pass)
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(Equal(3))
		run := &v1alpha1.ArenaRun{}
		Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "long-manual"}, run)).To(Succeed())
		patch := client.MergeFrom(run.DeepCopy())
		run.Spec.Cancelled = true
		Expect(suite.Client.Patch(ctx, run, patch)).To(Succeed())
		run = fx.WaitRun(ctx, ns, "long-manual", v1alpha1.ArenaRunPhaseCancelled, time.Minute)
		Expect(run.Status.Progress.Total).To(BeEquivalentTo(8))
		Expect(run.Status.Progress.Completed).To(BeEquivalentTo(3))
		Expect(run.Status.Progress.Pending).To(BeEquivalentTo(0))
		_, ok, err := q.Pop(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeFalse(), "a worker still got an item after the cancel")
		Eventually(func() bool {
			job := &batchv1.Job{}
			err := suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "long-manual"}, job)
			return apierrors.IsNotFound(err) || (err == nil && !job.DeletionTimestamp.IsZero())
		}).WithTimeout(30*time.Second).Should(BeTrue(), "the worker Job was not deleted")
	})

	It("fails a load test whose threshold fails", func() {
		ns, _ := fx.Namespace(ctx, "arena-threshold")
		Expect(fx.CreateJob(ctx, ns, "slow", v1alpha1.ArenaJobSpec{Type: v1alpha1.ArenaJobTypeLoadTest,
			// Concurrency 2: percentiles need a distribution (a sequential
			// load test reports them unavailable, which passes).
			LoadTest: &v1alpha1.ArenaJobLoadTest{Concurrency: ptr.To[int32](2), Thresholds: []v1alpha1.ArenaJobLoadTestThreshold{
				{Metric: v1alpha1.ArenaJobMetricLatencyP95, Operator: "<", Value: "3s"},
			}}})).To(Succeed())
		fx.WaitRun(ctx, ns, "slow-manual", v1alpha1.ArenaRunPhaseRunning, time.Minute)
		_, err := arenaworker.Run(ctx, fx.Queue(ns, "slow-manual"), 1, func(queue.Item) queue.Result {
			return queue.Result{Passed: true, LatencyMs: 3200, DurationMs: 3300}
		})
		Expect(err).NotTo(HaveOccurred())
		run := fx.WaitRun(ctx, ns, "slow-manual", v1alpha1.ArenaRunPhaseFailed, time.Minute)
		Expect(condition(run, v1alpha1.ArenaRunConditionReady).Reason).To(Equal(v1alpha1.ArenaRunReasonTestsFailed))
		Expect(run.Status.Result.Summary).To(HaveKeyWithValue("threshold:latency_p95", "3.20s < 3s FAIL"))
	})

	It("holds a run Pending on the workspace quota, then admits it", func() {
		ns, _ := fx.Namespace(ctx, "arena-quota")
		ws := &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: "ws-" + ns}, Spec: v1alpha1.WorkspaceSpec{
			Namespace: v1alpha1.WorkspaceNamespace{Name: ns},
			Quotas:    &v1alpha1.WorkspaceQuotas{Arena: &v1alpha1.WorkspaceArenaQuota{MaxConcurrentJobs: ptr.To[int32](1)}}}}
		Expect(suite.Client.Create(ctx, ws)).To(Succeed())
		DeferCleanup(func() { _ = suite.Client.Delete(context.Background(), ws) })

		Expect(fx.CreateJob(ctx, ns, "first", v1alpha1.ArenaJobSpec{})).To(Succeed())
		fx.WaitRun(ctx, ns, "first-manual", v1alpha1.ArenaRunPhaseRunning, time.Minute)
		Expect(fx.CreateJob(ctx, ns, "second", v1alpha1.ArenaJobSpec{})).To(Succeed())
		Eventually(func(g Gomega) {
			run := &v1alpha1.ArenaRun{}
			g.Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "second-manual"}, run)).To(Succeed())
			g.Expect(run.Status.Phase).To(Equal(v1alpha1.ArenaRunPhasePending), "conditions %+v", run.Status.Conditions)
			c := condition(run, v1alpha1.ArenaRunConditionWithinWorkspaceQuota)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Reason).To(Equal(v1alpha1.ArenaRunReasonWaitingForConcurrentRunSlot))
			g.Expect(condition(run, v1alpha1.ArenaRunConditionReady).Reason).To(Equal(v1alpha1.ArenaRunReasonWaitingForWorkspaceQuota))
		}).WithTimeout(20 * time.Second).WithPolling(250 * time.Millisecond).Should(Succeed())

		_, err := arenaworker.Run(ctx, fx.Queue(ns, "first-manual"), 1, arenaworker.Pass)
		Expect(err).NotTo(HaveOccurred())
		fx.WaitRun(ctx, ns, "first-manual", v1alpha1.ArenaRunPhaseSucceeded, time.Minute)
		run := fx.WaitRun(ctx, ns, "second-manual", v1alpha1.ArenaRunPhaseRunning, time.Minute)
		Expect(condition(run, v1alpha1.ArenaRunConditionWithinWorkspaceQuota).Reason).To(Equal(v1alpha1.ArenaRunReasonQuotaSatisfied))
		_, err = arenaworker.Run(ctx, fx.Queue(ns, "second-manual"), 1, arenaworker.Pass)
		Expect(err).NotTo(HaveOccurred())
		fx.WaitRun(ctx, ns, "second-manual", v1alpha1.ArenaRunPhaseSucceeded, time.Minute)
	})

	It("gives each namespace's workers a Redis credential that reaches only that namespace's runs", func() {
		// The attack: with the operator-wide queue's URL and password in
		// every namespace's run Secret, one tenant could read, forge or
		// drain another's queue. Each run's Secret holds its
		// namespace's own Redis user (the suite's Redis has a password, as
		// a production one would, so nobody gets in without one).
		nsA, _ := fx.Namespace(ctx, "arena-acl-a")
		nsB, _ := fx.Namespace(ctx, "arena-acl-b")
		Expect(fx.CreateJob(ctx, nsA, "eval", v1alpha1.ArenaJobSpec{})).To(Succeed())
		Expect(fx.CreateJob(ctx, nsB, "eval", v1alpha1.ArenaJobSpec{})).To(Succeed())
		fx.WaitRun(ctx, nsA, "eval-manual", v1alpha1.ArenaRunPhaseRunning, time.Minute)
		fx.WaitRun(ctx, nsB, "eval-manual", v1alpha1.ArenaRunPhaseRunning, time.Minute)
		urlA := fx.WorkerQueueURL(nsA, "eval-manual")
		Expect(urlA).NotTo(ContainSubstring(redisPassword), "the run's Secret carries the operator's password")
		u, err := url.Parse(urlA)
		Expect(err).NotTo(HaveOccurred())
		Expect(u.User.Username()).To(Equal("omnia-ns-" + nsA))

		// Tenant A's worker credential against tenant B's run.
		rdbA, err := queue.Connect(urlA)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(rdbA.Close)
		_, _, err = queue.New(rdbA, nsB, "eval-manual").State(ctx)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("NOPERM"))
		_, _, err = queue.New(rdbA, nsB, "eval-manual").Pop(ctx)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("NOPERM"))

		// Each namespace's own workers run its own run to the end.
		for _, ns := range []string{nsA, nsB} {
			st, err := arenaworker.Run(ctx, fx.Queue(ns, "eval-manual"), 1, arenaworker.Pass)
			Expect(err).NotTo(HaveOccurred())
			Expect(st.Executed).To(BeNumerically(">", 0))
			fx.WaitRun(ctx, ns, "eval-manual", v1alpha1.ArenaRunPhaseSucceeded, time.Minute)
		}
	})

	It("starts a scheduled job's run on its tick, with the operator's real clock", func() {
		Expect(scheduledNS).NotTo(BeEmpty(), "the licence spec creates the scheduled job")
		job := &v1alpha1.ArenaJob{}
		Eventually(func(g Gomega) {
			g.Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: scheduledNS, Name: "nightly"}, job)).To(Succeed())
			g.Expect(job.Status.LastScheduleTime).NotTo(BeNil())
			g.Expect(job.Status.LastRunRef).NotTo(BeNil())
		}).WithTimeout(90 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
		tick := job.Status.LastScheduleTime.Time
		Expect(tick.Second()).To(BeZero(), "a tick of * * * * * is on the minute")
		name := job.Status.LastRunRef.Name
		Expect(name).To(Equal(fmt.Sprintf("nightly-%d", tick.Unix()/60)))
		Expect(job.Status.NextScheduleTime).NotTo(BeNil())
		Expect(job.Status.NextScheduleTime.Time).To(Equal(tick.Add(time.Minute)))
		// A scheduled job starts no manual run.
		runs := &v1alpha1.ArenaRunList{}
		Expect(suite.Client.List(ctx, runs, client.InNamespace(scheduledNS))).To(Succeed())
		Expect(runs.Items).To(HaveLen(1))

		fx.WaitRun(ctx, scheduledNS, name, v1alpha1.ArenaRunPhaseRunning, time.Minute)
		_, err := arenaworker.Run(ctx, fx.Queue(scheduledNS, name), 1, arenaworker.Pass)
		Expect(err).NotTo(HaveOccurred())
		fx.WaitRun(ctx, scheduledNS, name, v1alpha1.ArenaRunPhaseSucceeded, time.Minute)
		// Stop ticking before the suite ends.
		patch := client.MergeFrom(job.DeepCopy())
		job.Spec.Suspend = true
		Expect(suite.Client.Patch(ctx, job, patch)).To(Succeed())
	})
})
