package rules

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// ArenaRunAdmissionTimeout is how long an admitted run may go without starting its
// workers before it gives its slot back (reason AdmissionReleased).
const ArenaRunAdmissionTimeout = 15 * time.Minute

// ArenaRunQuotaVerdict is the workspace quota's answer for one run
// (arenajob.md § conditions, WithinWorkspaceQuota).
type ArenaRunQuotaVerdict struct {
	// Present: the workspace sets quotas.arena (the condition is written).
	Present bool
	// Admitted: the run may start its workers.
	Admitted bool
	// Reason and Message are the WithinWorkspaceQuota condition's.
	Reason  string
	Message string
	// Retry is when to look again while waiting (0: on an event).
	Retry time.Duration
}

// arenaRunAdmission reports whether run holds an admission (condition
// WithinWorkspaceQuota with QuotaSatisfied or WorkersClamped), and since when.
func arenaRunAdmission(run *v1alpha1.ArenaRun) (bool, time.Time) {
	c := meta.FindStatusCondition(run.Status.Conditions, v1alpha1.ArenaRunConditionWithinWorkspaceQuota)
	if c == nil {
		return false, time.Time{}
	}
	if ArenaRunAdmittedReason(c.Reason) {
		return true, c.LastTransitionTime.Time
	}
	return false, time.Time{}
}

// ArenaRunAdmittedReason: a WithinWorkspaceQuota reason that admits the run.
func ArenaRunAdmittedReason(reason string) bool {
	return reason == v1alpha1.ArenaRunReasonQuotaSatisfied || reason == v1alpha1.ArenaRunReasonWorkersClamped
}

// arenaRunOlder orders runs oldest first: creation time, then name.
func arenaRunOlder(a, b *v1alpha1.ArenaRun) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.Name < b.Name
}

// arenaRunHoldsSlot: a run counted against maxConcurrentJobs — running, or
// admitted and still within ArenaRunAdmissionTimeout of starting.
func arenaRunHoldsSlot(r *v1alpha1.ArenaRun, now time.Time) bool {
	if ArenaRunPhaseFinal(r.Status.Phase) {
		return false
	}
	if r.Status.Phase == v1alpha1.ArenaRunPhaseRunning || r.Status.StartTime != nil {
		return true
	}
	ok, since := arenaRunAdmission(r)
	return ok && now.Sub(since) < ArenaRunAdmissionTimeout
}

// arenaRunAdmittedAt is when a run used its daily allowance: its start, or its
// admission while it has not started; zero when it has neither.
func arenaRunAdmittedAt(r *v1alpha1.ArenaRun) time.Time {
	if r.Status.StartTime != nil {
		return r.Status.StartTime.Time
	}
	if ok, since := arenaRunAdmission(r); ok {
		return since
	}
	return time.Time{}
}

// arenaRunWaiting: a run not yet admitted that is still to start.
func arenaRunWaiting(r *v1alpha1.ArenaRun) bool {
	if ArenaRunPhaseFinal(r.Status.Phase) || r.Status.StartTime != nil || r.Spec.Cancelled {
		return false
	}
	ok, _ := arenaRunAdmission(r)
	return !ok
}

// ArenaRunQuota is the workspace quota's decision on one run
// (arenajob.md § conditions, WithinWorkspaceQuota), as AgentRuntimeQuota is
// an agent's: it admits run or says why it waits. others are the other runs
// of the namespace. Waiting runs are admitted oldest first and never failed.
func ArenaRunQuota(run *v1alpha1.ArenaRun, others []v1alpha1.ArenaRun, ws *v1alpha1.Workspace, requested, workers int32, now time.Time) ArenaRunQuotaVerdict {
	if ws == nil || ws.Spec.Quotas == nil || ws.Spec.Quotas.Arena == nil {
		return ArenaRunQuotaVerdict{Admitted: true}
	}
	q := ws.Spec.Quotas.Arena
	v := ArenaRunQuotaVerdict{Present: true}
	already, since := arenaRunAdmission(run)
	if already && run.Status.StartTime == nil && now.Sub(since) >= ArenaRunAdmissionTimeout {
		v.Reason = v1alpha1.ArenaRunReasonAdmissionReleased
		v.Message = fmt.Sprintf("the run was admitted at %s but did not start its workers within %s: it gave its slot back and waits again",
			since.UTC().Format(time.RFC3339), ArenaRunAdmissionTimeout)
		v.Retry = time.Second
		return v
	}
	if !already && run.Status.StartTime == nil &&
		meta.FindStatusCondition(run.Status.Conditions, v1alpha1.ArenaRunConditionWithinWorkspaceQuota) == nil {
		// First sight: the run is counted as waiting before any decision,
		// so runs created together are admitted oldest first.
		v.Reason = v1alpha1.ArenaRunReasonWaitingForQuotaAdmission
		v.Message = "the workspace's arena quota has not counted the run yet"
		v.Retry = time.Second
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
			if arenaRunHoldsSlot(o, now) {
				held++
			} else if arenaRunWaiting(o) && arenaRunOlder(o, run) {
				olderWaiting++
			}
			if at := arenaRunAdmittedAt(o); !at.IsZero() {
				used = append(used, at)
			}
		}
		if m := q.MaxConcurrentJobs; m != nil && *m > 0 && held+olderWaiting >= int(*m) {
			v.Reason = v1alpha1.ArenaRunReasonWaitingForConcurrentRunSlot
			v.Message = fmt.Sprintf("%d of the workspace's maxConcurrentJobs %d runs are running or admitted, and %d older runs wait first", held, *m, olderWaiting)
			return v
		}
		if day := ArenaDailyQuota(ws, used, olderWaiting, now); day.Exhausted() {
			v.Reason = v1alpha1.ArenaRunReasonWaitingForDailyRunQuota
			v.Message = fmt.Sprintf("%d runs were admitted in the last 24 hours (maxJobsPerDay %d); the next slot opens at %s",
				day.Used, day.Limit, day.NextSlot.UTC().Format(time.RFC3339))
			v.Retry = day.NextSlot.Sub(now) + time.Second
			return v
		}
	}
	v.Admitted = true
	if workers < requested {
		v.Reason = v1alpha1.ArenaRunReasonWorkersClamped
		v.Message = fmt.Sprintf("the run asks for %d workers and the workspace's maxWorkersPerJob is %d: it runs with %d", requested, workers, workers)
	} else {
		v.Reason = v1alpha1.ArenaRunReasonQuotaSatisfied
		v.Message = "the workspace's arena quota admits the run"
	}
	return v
}
