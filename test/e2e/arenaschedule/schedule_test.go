package arenaschedule

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/arena/queue"
	"github.com/altairalabs/omnia/reconcile/arenajob"
	"github.com/altairalabs/omnia/reconcile/arenarun"
	"github.com/altairalabs/omnia/test/arenaworker"
)

// nudgeAnnotation is what nudge writes on a run.
const nudgeAnnotation = "e2e.omnia.altairalabs.ai/nudge"

// scheduled is a scheduled job of a spec: hourly at one minute, its first
// tick about half an hour after it was created.
type scheduled struct {
	ns, name string
	first    time.Time
}

// tick is the job's n-th tick (1: the first after its creation).
func (s scheduled) tick(n int) time.Time { return s.first.Add(time.Duration(n-1) * time.Hour) }

// run is the name of the run of the n-th tick.
func (s scheduled) run(n int) string { return arenajob.RunName(s.name, s.tick(n)) }

// newScheduled creates, in a fresh namespace with a Ready project, a job
// ticking hourly at a minute about half an hour from now, with the fake
// clock set just past that first tick: the job's first reconcile (its
// creation) starts the first tick's run. The job is deleted when the spec
// ends, so the next spec's clock cannot make it tick.
func newScheduled(ctx context.Context, prefix string, policy v1alpha1.ArenaJobConcurrencyPolicy, spec v1alpha1.ArenaJobSpec) scheduled {
	GinkgoHelper()
	ns, _ := fx.Namespace(ctx, prefix)
	now := time.Now().UTC()
	minute := (now.Minute() + 30) % 60
	first := now.Truncate(time.Hour).Add(time.Duration(minute) * time.Minute)
	if !first.After(now) {
		first = first.Add(time.Hour)
	}
	s := scheduled{ns: ns, name: prefix, first: first}
	jobClock.SetTime(s.tick(1).Add(10 * time.Second))
	spec.Schedule = &v1alpha1.ArenaJobSchedule{Cron: fmt.Sprintf("%d * * * *", minute), ConcurrencyPolicy: policy}
	Expect(fx.CreateJob(ctx, ns, s.name, spec)).To(Succeed())
	DeferCleanup(func(ctx context.Context) {
		job := &v1alpha1.ArenaJob{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: s.name}}
		Expect(client.IgnoreNotFound(suite.Client.Delete(ctx, job))).To(Succeed())
	})
	job := s.job(ctx)
	Expect(job.CreationTimestamp.Time.Before(s.tick(1))).To(BeTrue(), "the job was created after its first tick")
	s.waitTick(ctx, 1)
	return s
}

func (s scheduled) job(ctx context.Context) *v1alpha1.ArenaJob {
	GinkgoHelper()
	job := &v1alpha1.ArenaJob{}
	Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: s.ns, Name: s.name}, job)).To(Succeed())
	return job
}

// waitTick waits for the job's status to record tick n as its last one,
// with tick n+1 next.
func (s scheduled) waitTick(ctx context.Context, n int) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		job := &v1alpha1.ArenaJob{}
		g.Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: s.ns, Name: s.name}, job)).To(Succeed())
		g.Expect(job.Status.LastScheduleTime).NotTo(BeNil(), "status %+v", job.Status)
		g.Expect(job.Status.LastScheduleTime.Time).To(BeTemporally("==", s.tick(n)))
		g.Expect(job.Status.NextScheduleTime).NotTo(BeNil())
		g.Expect(job.Status.NextScheduleTime.Time).To(BeTemporally("==", s.tick(n+1)))
	}).WithTimeout(30 * time.Second).WithPolling(100 * time.Millisecond).Should(Succeed())
}

// toTick steps the fake clock just past tick n, makes the controller look
// at the job (nudge) and waits for the tick to be recorded.
func (s scheduled) toTick(ctx context.Context, n int) {
	GinkgoHelper()
	jobClock.SetTime(s.tick(n).Add(10 * time.Second))
	s.nudge(ctx, n)
	s.waitTick(ctx, n)
}

// nudge annotates one of the job's runs. The ArenaJob controller's
// RequeueAfter to the next tick runs on the real clock, so stepping the
// fake clock alone would leave the job unlooked-at until one of its runs
// changes; an annotation is such a change (the ArenaRun controller, which
// watches generation changes, ignores it).
func (s scheduled) nudge(ctx context.Context, n int) {
	GinkgoHelper()
	runs := s.runs(ctx)
	Expect(runs).NotTo(BeEmpty(), "no run to nudge the job with")
	run := &v1alpha1.ArenaRun{}
	Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: s.ns, Name: runs[len(runs)-1]}, run)).To(Succeed())
	patch := client.MergeFrom(run.DeepCopy())
	metav1.SetMetaDataAnnotation(&run.ObjectMeta, nudgeAnnotation, strconv.Itoa(n))
	Expect(suite.Client.Patch(ctx, run, patch)).To(Succeed())
}

// runs lists the names of the runs in the job's namespace, sorted.
func (s scheduled) runs(ctx context.Context) []string {
	GinkgoHelper()
	list := &v1alpha1.ArenaRunList{}
	Expect(suite.Client.List(ctx, list, client.InNamespace(s.ns))).To(Succeed())
	var out []string
	for _, r := range list.Items {
		out = append(out, r.Name)
	}
	slices.Sort(out)
	return out
}

// runNames are the names of the runs of ticks ns, sorted.
func (s scheduled) runNames(ticks ...int) []string {
	var out []string
	for _, n := range ticks {
		out = append(out, s.run(n))
	}
	slices.Sort(out)
	return out
}

// events lists the notes of the job's events of reason from the ArenaJob
// controller (events.k8s.io).
func (s scheduled) events(ctx context.Context, reason string) []string {
	GinkgoHelper()
	list := &eventsv1.EventList{}
	Expect(suite.Client.List(ctx, list, client.InNamespace(s.ns))).To(Succeed())
	var out []string
	for _, e := range list.Items {
		if e.Regarding.Kind == "ArenaJob" && e.Regarding.Name == s.name && e.ReportingController == arenajob.ControllerName && e.Reason == reason {
			out = append(out, e.Note)
		}
	}
	return out
}

// eventually waits for an event of reason whose note holds every one of
// parts (across the events of that reason).
func (s scheduled) eventually(ctx context.Context, reason string, parts ...string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		notes := strings.Join(s.events(ctx, reason), "\n")
		g.Expect(notes).NotTo(BeEmpty(), "no %s event", reason)
		for _, p := range parts {
			g.Expect(notes).To(ContainSubstring(p))
		}
	}).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
}

// workerJob reads the run's worker Job (nil when there is none, or it is
// being deleted).
func workerJob(ctx context.Context, ns, run string) *batchv1.Job {
	GinkgoHelper()
	job := &batchv1.Job{}
	err := suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: run}, job)
	if apierrors.IsNotFound(err) {
		return nil
	}
	Expect(err).NotTo(HaveOccurred())
	if !job.DeletionTimestamp.IsZero() {
		return nil
	}
	return job
}

// running waits for the runs to be Running at once, each with its worker
// Job on the cluster, and returns the Jobs' UIDs by run.
func (s scheduled) running(ctx context.Context, runs ...string) map[string]types.UID {
	GinkgoHelper()
	uids := map[string]types.UID{}
	Eventually(func(g Gomega) {
		for _, name := range runs {
			run := &v1alpha1.ArenaRun{}
			g.Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: s.ns, Name: name}, run)).To(Succeed())
			g.Expect(run.Status.Phase).To(Equal(v1alpha1.ArenaRunPhaseRunning), "run %s: conditions %+v", name, run.Status.Conditions)
			job := &batchv1.Job{}
			g.Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: s.ns, Name: arenarun.JobName(run)}, job)).To(Succeed())
			g.Expect(metav1.IsControlledBy(job, run)).To(BeTrue(), "Job %s owners %+v", job.Name, job.OwnerReferences)
			uids[name] = job.UID
		}
	}).WithTimeout(time.Minute).WithPolling(200 * time.Millisecond).Should(Succeed())
	return uids
}

// drain plays the run's worker with exec until its queue is empty.
func (s scheduled) drain(ctx context.Context, run string, exec arenaworker.Execute) {
	GinkgoHelper()
	st, err := arenaworker.Run(ctx, fx.Queue(s.ns, run), 1, exec)
	Expect(err).NotTo(HaveOccurred())
	Expect(st.Executed).To(Equal(2), "run %s: 2 scenarios × 1 provider", run)
}

// fail is a worker result that fails its item.
func fail(queue.Item) queue.Result {
	return queue.Result{Passed: false, DurationMs: 12, LatencyMs: 10, Error: "e2e: failed on purpose"}
}

var _ = Describe("Scheduled ArenaJobs on the local cluster", Ordered, func() {
	ctx := context.Background()

	It("Allow: a second tick starts a run beside the active one; both run and succeed", func() {
		s := newScheduled(ctx, "allow", v1alpha1.ArenaJobConcurrencyAllow, v1alpha1.ArenaJobSpec{})
		Expect(s.runs(ctx)).To(Equal(s.runNames(1)))
		run := &v1alpha1.ArenaRun{}
		Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: s.ns, Name: s.run(1)}, run)).To(Succeed())
		Expect(run.Spec.Trigger).To(Equal(v1alpha1.ArenaRunTriggerSchedule))
		Expect(run.Annotations).To(HaveKeyWithValue(arenajob.ScheduledAtAnnotation, s.tick(1).Format(time.RFC3339)))
		s.running(ctx, s.run(1))

		s.toTick(ctx, 2)
		Expect(s.runs(ctx)).To(Equal(s.runNames(1, 2)))
		s.running(ctx, s.run(1), s.run(2))
		job := s.job(ctx)
		var active []string
		for _, a := range job.Status.Active {
			active = append(active, a.Name)
		}
		slices.Sort(active)
		Expect(active).To(Equal(s.runNames(1, 2)))
		Expect(job.Status.LastRunRef).NotTo(BeNil())
		Expect(job.Status.LastRunRef.Name).To(Equal(s.run(2)))

		s.drain(ctx, s.run(1), arenaworker.Pass)
		s.drain(ctx, s.run(2), arenaworker.Pass)
		for _, name := range s.runNames(1, 2) {
			r := fx.WaitRun(ctx, s.ns, name, v1alpha1.ArenaRunPhaseSucceeded, time.Minute)
			Expect(r.Status.Result.Summary).To(HaveKeyWithValue("passRate", "100.0"))
		}
		Eventually(func(g Gomega) {
			g.Expect(s.job(ctx).Status.Active).To(BeEmpty())
		}).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		s.eventually(ctx, arenajob.EventRunCreated, s.run(1), s.run(2))
	})

	It("Forbid: a tick while a run is active starts nothing, is recorded as passed, with a RunSkipped event", func() {
		s := newScheduled(ctx, "forbid", v1alpha1.ArenaJobConcurrencyForbid, v1alpha1.ArenaJobSpec{})
		s.running(ctx, s.run(1))

		s.toTick(ctx, 2)
		Expect(s.runs(ctx)).To(Equal(s.runNames(1)), "Forbid started the second tick's run")
		s.eventually(ctx, arenajob.EventRunSkipped, s.tick(2).Format(time.RFC3339), "concurrencyPolicy Forbid")
		Expect(s.job(ctx).Status.LastRunRef.Name).To(Equal(s.run(1)))

		// The active run ends; the skipped tick stays skipped.
		s.drain(ctx, s.run(1), arenaworker.Pass)
		fx.WaitRun(ctx, s.ns, s.run(1), v1alpha1.ArenaRunPhaseSucceeded, time.Minute)
		Eventually(func(g Gomega) {
			job := s.job(ctx)
			g.Expect(job.Status.Active).To(BeEmpty())
			g.Expect(job.Status.LastScheduleTime.Time).To(BeTemporally("==", s.tick(2)))
		}).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		Expect(s.runs(ctx)).To(Equal(s.runNames(1)))
	})

	It("Replace: a tick cancels the active run (Cancelled, its Job deleted) and starts the new one", func() {
		s := newScheduled(ctx, "replace", v1alpha1.ArenaJobConcurrencyReplace, v1alpha1.ArenaJobSpec{})
		uids := s.running(ctx, s.run(1))

		s.toTick(ctx, 2)
		Expect(s.runs(ctx)).To(Equal(s.runNames(1, 2)))
		old := fx.WaitRun(ctx, s.ns, s.run(1), v1alpha1.ArenaRunPhaseCancelled, time.Minute)
		Expect(old.Spec.Cancelled).To(BeTrue())
		Expect(meta.FindStatusCondition(old.Status.Conditions, v1alpha1.ArenaRunConditionReady).Reason).To(Equal(v1alpha1.ArenaRunReasonCancelled))
		Expect(old.Status.Progress.Pending).To(BeEquivalentTo(0), "the cancelled run's queue was not drained")
		Eventually(func() *batchv1.Job { return workerJob(ctx, s.ns, s.run(1)) }).
			WithTimeout(30*time.Second).WithPolling(200*time.Millisecond).Should(BeNil(), "the cancelled run's Job %s was not deleted", uids[s.run(1)])
		s.eventually(ctx, arenajob.EventRunReplaced, s.run(1))

		s.running(ctx, s.run(2))
		s.drain(ctx, s.run(2), arenaworker.Pass)
		fx.WaitRun(ctx, s.ns, s.run(2), v1alpha1.ArenaRunPhaseSucceeded, time.Minute)
		Expect(s.job(ctx).Status.LastRunRef.Name).To(Equal(s.run(2)))
	})

	It("prunes the history beyond the limits (Cancelled counts as failed); the pruned runs' Jobs are garbage-collected", func() {
		// A load test: a run whose items fail ends Failed (an evaluation's
		// failed items only lower its pass rate).
		s := newScheduled(ctx, "history", v1alpha1.ArenaJobConcurrencyAllow, v1alpha1.ArenaJobSpec{
			Type:                       v1alpha1.ArenaJobTypeLoadTest,
			LoadTest:                   &v1alpha1.ArenaJobLoadTest{Concurrency: ptr.To[int32](1)},
			SuccessfulRunsHistoryLimit: ptr.To[int32](1),
			FailedRunsHistoryLimit:     ptr.To[int32](1),
		})
		for n := 2; n <= 4; n++ {
			s.toTick(ctx, n)
		}
		Expect(s.runs(ctx)).To(Equal(s.runNames(1, 2, 3, 4)))
		uids := s.running(ctx, s.runNames(1, 2, 3, 4)...)

		// Oldest first: tick 1 Cancelled, tick 2 Failed, ticks 3 and 4
		// Succeeded. Failed and Cancelled share the failed limit (1), so
		// the Cancelled run goes; of the Succeeded (limit 1), tick 3's.
		r1 := &v1alpha1.ArenaRun{}
		Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: s.ns, Name: s.run(1)}, r1)).To(Succeed())
		patch := client.MergeFrom(r1.DeepCopy())
		r1.Spec.Cancelled = true
		Expect(suite.Client.Patch(ctx, r1, patch)).To(Succeed())
		s.drain(ctx, s.run(2), fail)
		s.drain(ctx, s.run(3), arenaworker.Pass)
		s.drain(ctx, s.run(4), arenaworker.Pass)

		Eventually(func(g Gomega) {
			g.Expect(s.runs(ctx)).To(Equal(s.runNames(2, 4)))
		}).WithTimeout(time.Minute).WithPolling(200*time.Millisecond).Should(Succeed(), "runs left")
		r2 := fx.WaitRun(ctx, s.ns, s.run(2), v1alpha1.ArenaRunPhaseFailed, 10*time.Second)
		Expect(meta.FindStatusCondition(r2.Status.Conditions, v1alpha1.ArenaRunConditionReady).Reason).To(Equal(v1alpha1.ArenaRunReasonTestsFailed))
		fx.WaitRun(ctx, s.ns, s.run(4), v1alpha1.ArenaRunPhaseSucceeded, 10*time.Second)
		s.eventually(ctx, arenajob.EventRunsPruned, s.run(1), s.run(3))

		// The pruned runs' worker Jobs and queue Secrets go with them: the
		// controller-manager's garbage collector follows their owner
		// references (tick 1's Job was already deleted by its cancel).
		Eventually(func(g Gomega) {
			for _, n := range []int{1, 3} {
				g.Expect(workerJob(ctx, s.ns, s.run(n))).To(BeNil(), "tick %d's Job", n)
				err := suite.Client.Get(ctx, client.ObjectKey{Namespace: s.ns, Name: arenarun.QueueSecretName(s.run(n))}, &corev1.Secret{})
				g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "tick %d's queue Secret: %v", n, err)
			}
		}).WithTimeout(time.Minute).WithPolling(200 * time.Millisecond).Should(Succeed())
		// The kept runs keep theirs.
		for _, n := range []int{2, 4} {
			job := workerJob(ctx, s.ns, s.run(n))
			Expect(job).NotTo(BeNil(), "tick %d's Job", n)
			Expect(job.UID).To(Equal(uids[s.run(n)]))
		}
		job := s.job(ctx)
		Expect(job.Status.Active).To(BeEmpty())
		Expect(job.Status.LastRunRef.Name).To(Equal(s.run(4)))
	})
})
