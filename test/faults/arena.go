package faults

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/hack/perf/clusterbench"
	"github.com/altairalabs/omnia/reconcile/arenajob"
)

// The scheduled ArenaJobs of a fault run: created before the first fault,
// every minute a tick, through every fault. The harness plays their
// worker pods (clusterbench.ArenaWorkers, in-process against the runs' real
// Redis queues) and counts every work item each run executes, so an item
// handed out twice (a queue enqueued again after a leader change, say) is
// seen.

// ArenaNamespace holds the scheduled ArenaJobs.
const ArenaNamespace = "faults-arena"

// everyMinute is the jobs' schedule: the most frequent cron allows.
const everyMinute = "* * * * *"

// scheduledJobs are the jobs: two that run alongside their earlier runs,
// one that skips a tick while a run is going.
var scheduledJobs = []struct {
	Name   string
	Policy v1alpha1.ArenaJobConcurrencyPolicy
}{
	{"every-minute-a", v1alpha1.ArenaJobConcurrencyAllow},
	{"every-minute-b", v1alpha1.ArenaJobConcurrencyAllow},
	{"every-minute-forbid", v1alpha1.ArenaJobConcurrencyForbid},
}

// keepRuns is the jobs' history limits: high enough that no run of the
// observation is pruned before it is counted.
const keepRuns = 1000

// arenaDispatchEvery is how often Running runs are handed to the workers
// (again: a run still Running after its worker finished is worked again,
// which is harmless unless its queue hands an item out twice: the check).
const arenaDispatchEvery = 2 * time.Second

// arenaLoad is the jobs' side of a run.
type arenaLoad struct {
	admin   client.Client
	workers *clusterbench.ArenaWorkers

	mu         sync.Mutex
	executions map[string]map[string]int
	dispatched map[string]time.Time
	done       chan struct{}
	stopped    chan struct{}
}

// startArena sets up the namespace and its project, waits for it, creates
// the jobs and starts the workers and their dispatcher.
func startArena(ctx context.Context, admin client.Client, backend *clusterbench.ArenaBackend) (*arenaLoad, error) {
	if err := clusterbench.SetUpArenaNamespace(ctx, admin, ArenaNamespace, backend.ContentRoot); err != nil {
		return nil, err
	}
	if err := clusterbench.WaitArenaProjectsReady(ctx, admin, 1); err != nil {
		return nil, err
	}
	if err := backend.InstallLicence(ctx, admin); err != nil {
		return nil, err
	}
	a := &arenaLoad{admin: admin, executions: map[string]map[string]int{}, dispatched: map[string]time.Time{},
		done: make(chan struct{}), stopped: make(chan struct{})}
	workers, err := clusterbench.StartArenaWorkers(ctx, backend.RedisURL, 4, 64, a.executed)
	if err != nil {
		return nil, err
	}
	a.workers = workers
	for _, j := range scheduledJobs {
		job := &v1alpha1.ArenaJob{
			ObjectMeta: metav1.ObjectMeta{Namespace: ArenaNamespace, Name: j.Name},
			Spec: v1alpha1.ArenaJobSpec{
				SourceRef:                  v1alpha1.LocalObjectReference{Name: clusterbench.ArenaProjectName},
				Schedule:                   &v1alpha1.ArenaJobSchedule{Cron: everyMinute, ConcurrencyPolicy: j.Policy},
				SuccessfulRunsHistoryLimit: ptr.To[int32](keepRuns),
				FailedRunsHistoryLimit:     ptr.To[int32](keepRuns),
			},
		}
		// Both replicas' webhooks refuse a scheduled job until they have
		// reloaded the licence: retried, bounded.
		var last error
		err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			last = admin.Create(ctx, job.DeepCopy())
			return last == nil, nil
		})
		if err != nil {
			workers.Stop()
			return nil, fmt.Errorf("ArenaJob %s: %w (last error: %v)", j.Name, err, last)
		}
	}
	go a.dispatch(ctx)
	return a, nil
}

// executed counts one execution of item id of run namespace/name.
func (a *arenaLoad) executed(namespace, name, id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	key := namespace + "/" + name
	if a.executions[key] == nil {
		a.executions[key] = map[string]int{}
	}
	a.executions[key][id]++
}

// dispatch hands every Running run to the workers, again at most every
// few seconds while it stays Running, until stop. A list that fails (the
// API server is down) is tried again at the next round.
func (a *arenaLoad) dispatch(ctx context.Context) {
	defer close(a.stopped)
	t := time.NewTicker(arenaDispatchEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.done:
			return
		case <-t.C:
		}
		list := &v1alpha1.ArenaRunList{}
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := a.admin.List(lctx, list, client.InNamespace(ArenaNamespace))
		cancel()
		if err != nil {
			continue
		}
		for _, r := range list.Items {
			if r.Status.Phase != v1alpha1.ArenaRunPhaseRunning {
				continue
			}
			a.mu.Lock()
			last, seen := a.dispatched[r.Name]
			again := !seen || time.Since(last) > 15*time.Second
			if again {
				a.dispatched[r.Name] = time.Now()
			}
			a.mu.Unlock()
			if again {
				a.workers.Enqueue(r.Namespace, r.Name)
			}
		}
	}
}

// stop ends the dispatcher and the workers.
func (a *arenaLoad) stop() {
	select {
	case <-a.done:
		return
	default:
	}
	close(a.done)
	<-a.stopped
	a.workers.Stop()
}

// waitFirstRuns waits (bounded) until every job has started a run, so the
// faults that follow strike with the schedule going and runs in flight,
// not before the first tick.
func (a *arenaLoad) waitFirstRuns(ctx context.Context, timeout time.Duration) error {
	return wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		runs := &v1alpha1.ArenaRunList{}
		if err := a.admin.List(ctx, runs, client.InNamespace(ArenaNamespace)); err != nil {
			return false, nil
		}
		started := map[string]bool{}
		for _, r := range runs.Items {
			started[r.Spec.JobRef.Name] = true
		}
		return len(started) == len(scheduledJobs), nil
	})
}

// waitFinished waits (bounded) until every run of a tick up to end has
// finished and every job has acted on its last tick up to end.
func (a *arenaLoad) waitFinished(ctx context.Context, end time.Time, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if a.settled(ctx, end) {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func (a *arenaLoad) settled(ctx context.Context, end time.Time) bool {
	jobs := &v1alpha1.ArenaJobList{}
	runs := &v1alpha1.ArenaRunList{}
	if a.admin.List(ctx, jobs, client.InNamespace(ArenaNamespace)) != nil || a.admin.List(ctx, runs, client.InNamespace(ArenaNamespace)) != nil {
		return false
	}
	lastDue := end.Truncate(time.Minute)
	for _, j := range jobs.Items {
		if j.Status.LastScheduleTime == nil || j.Status.LastScheduleTime.Time.Before(lastDue) {
			return false
		}
	}
	for _, r := range runs.Items {
		if !arenajob.Finished(&r) {
			return false
		}
	}
	return true
}

// observe gathers what JudgeTicks reads, for every job.
func (a *arenaLoad) observe(ctx context.Context) ([]JobSeen, error) {
	jobs := &v1alpha1.ArenaJobList{}
	if err := a.admin.List(ctx, jobs, client.InNamespace(ArenaNamespace)); err != nil {
		return nil, err
	}
	runs := &v1alpha1.ArenaRunList{}
	if err := a.admin.List(ctx, runs, client.InNamespace(ArenaNamespace)); err != nil {
		return nil, err
	}
	events := &corev1.EventList{}
	if err := a.admin.List(ctx, events, client.InNamespace(ArenaNamespace)); err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []JobSeen
	for _, j := range jobs.Items {
		seen := JobSeen{Name: j.Name, Cron: j.Spec.Schedule.Cron, Policy: j.Spec.Schedule.ConcurrencyPolicy, Created: j.CreationTimestamp.Time}
		for _, r := range runs.Items {
			if r.Spec.JobRef.Name != j.Name {
				continue
			}
			rs := RunSeen{Name: r.Name, Trigger: r.Spec.Trigger, ScheduledAt: r.Annotations[arenajob.ScheduledAtAnnotation],
				Phase: r.Status.Phase, Executions: map[string]int{}, Enqueued: -1}
			for id, n := range a.executions[r.Namespace+"/"+r.Name] {
				rs.Executions[id] = n
			}
			if meta, _, err := a.workers.Queue(r.Namespace, r.Name).State(ctx); err == nil && meta.Enqueued {
				rs.Enqueued = meta.Total
			}
			seen.Runs = append(seen.Runs, rs)
		}
		for _, e := range events.Items {
			if e.InvolvedObject.Name != j.Name || e.InvolvedObject.Kind != "ArenaJob" {
				continue
			}
			switch e.Reason {
			case arenajob.EventRunSkipped:
				if t, ok := SkippedTick(e.Message); ok {
					seen.SkippedTicks = append(seen.SkippedTicks, t)
				}
			case arenajob.EventMissedTicks:
				seen.MissedEvents += MissedCount(e.Message) * occurrences(e)
			}
		}
		out = append(out, seen)
	}
	return out, nil
}

// occurrences is how many times an event happened: an events.k8s.io event
// repeated is one object with a series.
func occurrences(e corev1.Event) int {
	n := max(1, int(e.Count))
	if e.Series != nil {
		n = max(n, int(e.Series.Count))
	}
	return n
}
