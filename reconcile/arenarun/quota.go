package arenarun

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// AdmissionTimeout is how long an admitted run may go without starting its
// workers before it gives its slot back (reason AdmissionReleased).
const AdmissionTimeout = 15 * time.Minute

// quotaVerdict is the workspace quota's answer for one run
// (arenajob.md § conditions, WithinWorkspaceQuota).
type quotaVerdict struct {
	// present: the workspace sets quotas.arena (the condition is written).
	present bool
	// admitted: the run may start its workers.
	admitted bool
	reason   string
	message  string
	// retry is when to look again while waiting (0: on an event).
	retry time.Duration
}

// admission reports whether run holds an admission (condition
// WithinWorkspaceQuota with QuotaSatisfied or WorkersClamped), and since when.
func admission(run *v1alpha1.ArenaRun) (bool, time.Time) {
	c := meta.FindStatusCondition(run.Status.Conditions, v1alpha1.ArenaRunConditionWithinWorkspaceQuota)
	if c == nil {
		return false, time.Time{}
	}
	if admittedReason(c.Reason) {
		return true, c.LastTransitionTime.Time
	}
	return false, time.Time{}
}

// admittedReason: a WithinWorkspaceQuota reason that admits the run.
func admittedReason(reason string) bool {
	return reason == v1alpha1.ArenaRunReasonQuotaSatisfied || reason == v1alpha1.ArenaRunReasonWorkersClamped
}

// older orders runs oldest first: creation time, then name.
func older(a, b *v1alpha1.ArenaRun) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.Name < b.Name
}

// holdsSlot: a run counted against maxConcurrentJobs — running, or
// admitted and still within AdmissionTimeout of starting.
func holdsSlot(r *v1alpha1.ArenaRun, now time.Time) bool {
	if rules.ArenaRunPhaseFinal(r.Status.Phase) {
		return false
	}
	if r.Status.Phase == v1alpha1.ArenaRunPhaseRunning || r.Status.StartTime != nil {
		return true
	}
	ok, since := admission(r)
	return ok && now.Sub(since) < AdmissionTimeout
}

// admittedAt is when a run used its daily allowance: its start, or its
// admission while it has not started; zero when it has neither.
func admittedAt(r *v1alpha1.ArenaRun) time.Time {
	if r.Status.StartTime != nil {
		return r.Status.StartTime.Time
	}
	if ok, since := admission(r); ok {
		return since
	}
	return time.Time{}
}

// waiting: a run not yet admitted that is still to start.
func waiting(r *v1alpha1.ArenaRun) bool {
	if rules.ArenaRunPhaseFinal(r.Status.Phase) || r.Status.StartTime != nil || r.Spec.Cancelled {
		return false
	}
	ok, _ := admission(r)
	return !ok
}

// decideQuota admits run or says why it waits. others are the other runs
// of the namespace. Waiting runs are admitted oldest first and never failed.
func decideQuota(run *v1alpha1.ArenaRun, others []v1alpha1.ArenaRun, ws *v1alpha1.Workspace, requested, workers int32, now time.Time) quotaVerdict {
	if ws == nil || ws.Spec.Quotas == nil || ws.Spec.Quotas.Arena == nil {
		return quotaVerdict{admitted: true}
	}
	q := ws.Spec.Quotas.Arena
	v := quotaVerdict{present: true}
	already, since := admission(run)
	if already && run.Status.StartTime == nil && now.Sub(since) >= AdmissionTimeout {
		v.reason = v1alpha1.ArenaRunReasonAdmissionReleased
		v.message = fmt.Sprintf("the run was admitted at %s but did not start its workers within %s: it gave its slot back and waits again",
			since.UTC().Format(time.RFC3339), AdmissionTimeout)
		v.retry = time.Second
		return v
	}
	if !already && run.Status.StartTime == nil &&
		meta.FindStatusCondition(run.Status.Conditions, v1alpha1.ArenaRunConditionWithinWorkspaceQuota) == nil {
		// First sight: the run is counted as waiting before any decision,
		// so runs created together are admitted oldest first.
		v.reason = v1alpha1.ArenaRunReasonWaitingForQuotaAdmission
		v.message = "the workspace's arena quota has not counted the run yet"
		v.retry = time.Second
		return v
	}
	if !already && run.Status.StartTime == nil {
		var olderWaiting, held int
		var used []time.Time
		for i := range others {
			o := &others[i]
			if o.Name == run.Name {
				continue
			}
			if holdsSlot(o, now) {
				held++
			} else if waiting(o) && older(o, run) {
				olderWaiting++
			}
			if at := admittedAt(o); !at.IsZero() {
				used = append(used, at)
			}
		}
		if m := q.MaxConcurrentJobs; m != nil && *m > 0 && held+olderWaiting >= int(*m) {
			v.reason = v1alpha1.ArenaRunReasonWaitingForConcurrentRunSlot
			v.message = fmt.Sprintf("%d of the workspace's maxConcurrentJobs %d runs are running or admitted, and %d older runs wait first", held, *m, olderWaiting)
			return v
		}
		if day := rules.ArenaDailyQuota(ws, used, olderWaiting, now); day.Exhausted() {
			v.reason = v1alpha1.ArenaRunReasonWaitingForDailyRunQuota
			v.message = fmt.Sprintf("%d runs were admitted in the last 24 hours (maxJobsPerDay %d); the next slot opens at %s",
				day.Used, day.Limit, day.NextSlot.UTC().Format(time.RFC3339))
			v.retry = day.NextSlot.Sub(now) + time.Second
			return v
		}
	}
	v.admitted = true
	if workers < requested {
		v.reason = v1alpha1.ArenaRunReasonWorkersClamped
		v.message = fmt.Sprintf("the run asks for %d workers and the workspace's maxWorkersPerJob is %d: it runs with %d", requested, workers, workers)
	} else {
		v.reason = v1alpha1.ArenaRunReasonQuotaSatisfied
		v.message = "the workspace's arena quota admits the run"
	}
	return v
}
