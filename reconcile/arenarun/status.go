package arenarun

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/rules"
)

// statusOf is True for ok, False otherwise.
func statusOf(ok bool) metav1.ConditionStatus {
	if ok {
		return metav1.ConditionTrue
	}
	return metav1.ConditionFalse
}

func cond(t string, s metav1.ConditionStatus, reason, msg string, gen int64) metav1.Condition {
	return metav1.Condition{Type: t, Status: s, Reason: reason, Message: conditions.Truncate(msg, 4096), ObservedGeneration: gen}
}

// setReady derives Ready from the phase: True while Running or once
// Succeeded, False otherwise with reason (the failure's, the wait's, or
// Cancelled).
func setReady(st *v1alpha1.ArenaRunStatus, reason, msg string, gen int64, now metav1.Time) {
	s := statusOf(st.Phase == v1alpha1.ArenaRunPhaseRunning || st.Phase == v1alpha1.ArenaRunPhaseSucceeded)
	conditions.Set(&st.Conditions, cond(v1alpha1.ArenaRunConditionReady, s, reason, msg, gen), now)
}

// setSourceValid: True once the commit is pinned, False with why not.
func setSourceValid(st *v1alpha1.ArenaRunStatus, ok bool, reason, msg string, gen int64, now metav1.Time) {
	conditions.Set(&st.Conditions, cond(v1alpha1.ArenaRunConditionSourceValid, statusOf(ok), reason, msg, gen), now)
}

// setJobCreated: True once the worker Job exists; False (JobCreationFailed)
// while it cannot be created.
func setJobCreated(st *v1alpha1.ArenaRunStatus, ok bool, reason, msg string, gen int64, now metav1.Time) {
	conditions.Set(&st.Conditions, cond(v1alpha1.ArenaRunConditionJobCreated, statusOf(ok), reason, msg, gen), now)
}

// setProgressing: True while the workers execute, False once they stopped.
func setProgressing(st *v1alpha1.ArenaRunStatus, running bool, reason, msg string, gen int64, now metav1.Time) {
	conditions.Set(&st.Conditions, cond(v1alpha1.ArenaRunConditionProgressing, statusOf(running), reason, msg, gen), now)
}

// setQueueRedisDrifted compares the group's current redis with the pinned
// configHash; only a ServiceGroup queue can drift.
func setQueueRedisDrifted(st *v1alpha1.ArenaRunStatus, currentHash string, gen int64, now metav1.Time) {
	q := st.Queue
	if q == nil || q.Source != v1alpha1.ArenaRunQueueServiceGroup {
		conditions.Remove(&st.Conditions, v1alpha1.ArenaRunConditionQueueRedisDrifted)
		return
	}
	if currentHash != q.ConfigHash {
		conditions.Set(&st.Conditions, cond(v1alpha1.ArenaRunConditionQueueRedisDrifted, metav1.ConditionTrue,
			v1alpha1.ArenaRunReasonServiceGroupRedisChanged,
			"service group "+q.ServiceGroup+"'s redis changed since the run was pinned; the run keeps its queue", gen), now)
		return
	}
	conditions.Set(&st.Conditions, cond(v1alpha1.ArenaRunConditionQueueRedisDrifted, metav1.ConditionFalse,
		v1alpha1.ArenaRunReasonPinned, "the run's queue is service group "+q.ServiceGroup+"'s redis", gen), now)
}

// setWithinWorkspaceQuota writes the quota condition while the workspace
// sets quotas.arena, and removes it otherwise.
func setWithinWorkspaceQuota(st *v1alpha1.ArenaRunStatus, present bool, admitted bool, reason, msg string, gen int64, now metav1.Time) {
	if !present {
		conditions.Remove(&st.Conditions, v1alpha1.ArenaRunConditionWithinWorkspaceQuota)
		return
	}
	s := statusOf(admitted && reason == v1alpha1.ArenaRunReasonQuotaSatisfied)
	prev := meta.FindStatusCondition(st.Conditions, v1alpha1.ArenaRunConditionWithinWorkspaceQuota)
	wasAdmitted := prev != nil && rules.ArenaRunAdmittedReason(prev.Reason)
	conditions.Set(&st.Conditions, cond(v1alpha1.ArenaRunConditionWithinWorkspaceQuota, s, reason, msg, gen), now)
	if admitted && !wasAdmitted {
		// The admission time (AdmissionTimeout, maxJobsPerDay) is the
		// condition's lastTransitionTime, even from False to False
		// (waiting → WorkersClamped).
		meta.FindStatusCondition(st.Conditions, v1alpha1.ArenaRunConditionWithinWorkspaceQuota).LastTransitionTime = now
	}
}

// finish moves st to a final phase at now.
func finish(st *v1alpha1.ArenaRunStatus, phase v1alpha1.ArenaRunPhase, reason, msg string, gen int64, now metav1.Time) {
	st.Phase = phase
	if st.CompletionTime == nil {
		st.CompletionTime = &now
	}
	st.ActiveWorkers = 0
	progReason := v1alpha1.ArenaRunReasonCompleted
	if phase == v1alpha1.ArenaRunPhaseCancelled {
		progReason = v1alpha1.ArenaRunReasonCancelled
	}
	if phase == v1alpha1.ArenaRunPhaseFailed && st.StartTime == nil {
		progReason = reason
	}
	setProgressing(st, false, progReason, msg, gen, now)
	setReady(st, reason, msg, gen, now)
}
