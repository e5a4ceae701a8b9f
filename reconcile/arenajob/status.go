package arenajob

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/reconcile/policycheck"
	"github.com/altairalabs/omnia/rules"
)

// Event reasons of the ArenaJob controller (its condition reasons are
// api/v1alpha1's ArenaJobReason*).
const (
	// EventRunSkipped: a tick was skipped (Forbid while a run is active)
	// and recorded as passed.
	EventRunSkipped = "RunSkipped"
	// EventSuspended: the job was suspended (spec.suspend true).
	EventSuspended = "Suspended"
	// EventRunCreated: the job started a run.
	EventRunCreated = "RunCreated"
	// EventRunReplaced: Replace cancelled an active run for a new tick.
	EventRunReplaced = "RunReplaced"
	// EventRunsPruned: finished runs beyond the history limits were deleted.
	EventRunsPruned = "RunsPruned"
	// EventMissedTicks: older due ticks were dropped (only the most recent
	// runs, as a CronJob without startingDeadlineSeconds).
	EventMissedTicks = "MissedSchedule"
)

// SuspendedMessage is the Ready message of a suspended job.
const SuspendedMessage = "the job is suspended (spec.suspend): it starts no runs; runs already going are left alone"

// findingGroups are the findings the job controller acts on, sorted by what
// they set. Every other finding of an ArenaJob (arena file, providers, load
// test settings) is about what a run executes: the webhook reports it, and
// the ArenaRun controller fails the run with it.
type findingGroups struct {
	// schedule set Ready=False InvalidSchedule (arenajob/schedule-*).
	schedule []rules.Finding
	// license are the licence gates refusing the job (reason
	// LicenseViolation, severity deny): the job starts nothing.
	license []rules.Finding
	// policy is the verdict of the ValidationPolicy rules in force
	// (policycheck): it sets policy conditions only, never Ready or
	// Stalled, and never keeps a run from starting.
	policy policycheck.Verdict
}

func groupFindings(findings []rules.Finding) findingGroups {
	var g findingGroups
	for _, f := range findings {
		switch {
		case f.Reason == v1alpha1.ArenaJobReasonInvalidSchedule:
			g.schedule = append(g.schedule, f)
		case f.Reason == v1alpha1.ArenaJobReasonLicenseViolation && f.Severity == rules.SeverityDeny:
			g.license = append(g.license, f)
		}
	}
	return g
}

// blocking are the findings that keep the job from starting any run, the
// invalid schedule first.
func (g findingGroups) blocking() []rules.Finding {
	return append(append([]rules.Finding{}, g.schedule...), g.license...)
}

// outcome is what the reconcile did, which the status records.
type outcome struct {
	// runs are the job's runs after this reconcile's creations and
	// deletions (the started run included, the pruned ones left out).
	runs []*v1alpha1.ArenaRun
	// started is the run started this reconcile, if any.
	started string
	// tick is the tick acted on (started or skipped), if any.
	tick time.Time
	// next is the next tick; zero clears nextScheduleTime.
	next time.Time
}

// computeStatus is the job's status after a reconcile with findings g and
// outcome o, at now. It starts from the stored status so conditions keep
// their lastTransitionTime. Pure.
func computeStatus(job *v1alpha1.ArenaJob, g findingGroups, o outcome, now metav1.Time) v1alpha1.ArenaJobStatus {
	st := *job.Status.DeepCopy()
	st.Active = nil
	for _, r := range Active(o.runs) {
		st.Active = append(st.Active, v1alpha1.LocalObjectReference{Name: r.Name})
	}
	if o.started != "" {
		st.LastRunRef = &v1alpha1.LocalObjectReference{Name: o.started}
	}
	if !o.tick.IsZero() {
		t := metav1.NewTime(o.tick).Rfc3339Copy()
		st.LastScheduleTime = &t
	}
	st.NextScheduleTime = nil
	if !o.next.IsZero() {
		t := metav1.NewTime(o.next).Rfc3339Copy()
		st.NextScheduleTime = &t
	}
	st.ObservedGeneration = job.Generation
	setReadyCondition(&st, job, g, now)
	setStalledCondition(&st, job.Generation, g, now)
	// Policy conditions last: they never feed Ready or Stalled.
	g.policy.Set(&st.Conditions, conditionTypes, job.Generation, now)
	return st
}

// conditionTypes are every condition type the controller sets: a policy
// rule naming one reports to PolicyCompliant instead (policycheck).
var conditionTypes = []string{v1alpha1.ArenaJobConditionReady, v1alpha1.ArenaJobConditionStalled}

// setReadyCondition: False with the first blocking finding's reason
// (InvalidSchedule, or LicenseViolation from a licence gate), True with
// reason Scheduled otherwise; a suspended job is Ready (its schedule is
// fine) with SuspendedMessage.
func setReadyCondition(st *v1alpha1.ArenaJobStatus, job *v1alpha1.ArenaJob, g findingGroups, now metav1.Time) {
	msg := "the job runs once (no schedule)"
	if s := job.Spec.Schedule; s != nil && s.Cron != "" {
		tz := s.Timezone
		if tz == "" {
			tz = "UTC"
		}
		msg = "runs on the schedule " + s.Cron + " (" + tz + ")"
	}
	if job.Spec.Suspend {
		msg = SuspendedMessage
	}
	conditions.Set(&st.Conditions, conditions.FromFindings(v1alpha1.ArenaJobConditionReady, g.blocking(),
		v1alpha1.ArenaJobReasonScheduled, msg, v1alpha1.ArenaJobReasonInvalidSchedule, job.Generation), now)
}

// setStalledCondition: True when the job cannot start runs until its spec
// (or, for a licence gate, its licence) changes — an invalid schedule or a
// licence refusal — with that finding's reason; False (reason Scheduled)
// otherwise. A missing or unready ArenaProject does not stall the job: its
// runs wait Pending (the ArenaRun controller's SourceValid).
func setStalledCondition(st *v1alpha1.ArenaJobStatus, gen int64, g findingGroups, now metav1.Time) {
	c := conditions.FromFindings(v1alpha1.ArenaJobConditionStalled, g.blocking(),
		v1alpha1.ArenaJobReasonScheduled, "the job is not stalled", v1alpha1.ArenaJobReasonInvalidSchedule, gen)
	// FromFindings reads "no finding" as True: Stalled is the opposite.
	if c.Status == metav1.ConditionTrue {
		c.Status = metav1.ConditionFalse
	} else {
		c.Status = metav1.ConditionTrue
	}
	conditions.Set(&st.Conditions, c, now)
}

// suspendedNow reports whether the job became suspended between old and cur
// (the Ready message turned into SuspendedMessage): the Suspended event.
func suspendedNow(old, cur []metav1.Condition) bool {
	c := meta.FindStatusCondition(cur, v1alpha1.ArenaJobConditionReady)
	if c == nil || c.Message != SuspendedMessage {
		return false
	}
	p := meta.FindStatusCondition(old, v1alpha1.ArenaJobConditionReady)
	return p == nil || p.Message != SuspendedMessage
}
