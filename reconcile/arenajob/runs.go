package arenajob

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

const (
	// JobLabel is set on every run to its job's name (when the name fits a
	// label value), so `kubectl get arun -l` finds a job's runs.
	JobLabel = "arena.omnia.altairalabs.ai/job"
	// ScheduledAtAnnotation holds a scheduled run's tick (RFC 3339, UTC), as
	// a CronJob's batch.kubernetes.io/cronjob-scheduled-timestamp.
	ScheduledAtAnnotation = "arena.omnia.altairalabs.ai/scheduled-at"
	// ManualSuffix names a job's one Manual run: <job>-manual.
	ManualSuffix = "manual"
)

// maxNameLength is the longest object name (a DNS subdomain).
const maxNameLength = 253

// RunName is the deterministic name of a job's run: <job>-manual for the
// Manual run, <job>-<unix minute of the tick> for a scheduled one. Creating
// by this name, and treating AlreadyExists as done, is what keeps a tick
// from running twice across retries and operator restarts. A job name too
// long for the suffix is cut and given a hash of the full name, so two jobs
// never share run names.
func RunName(job string, tick time.Time) string {
	suffix := ManualSuffix
	if !tick.IsZero() {
		suffix = strconv.FormatInt(tick.Unix()/60, 10)
	}
	name := job + "-" + suffix
	if len(name) <= maxNameLength {
		return name
	}
	sum := sha256.Sum256([]byte(job))
	h := hex.EncodeToString(sum[:4])
	return job[:maxNameLength-len(suffix)-len(h)-2] + "-" + h + "-" + suffix
}

// NewRun is the run a job starts for tick (zero: its Manual run): the job's
// spec frozen as the template, owned (controller reference) by the job.
func NewRun(job *v1alpha1.ArenaJob, tick time.Time) *v1alpha1.ArenaRun {
	run := &v1alpha1.ArenaRun{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: job.Namespace,
			Name:      RunName(job.Name, tick),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job,
				v1alpha1.GroupVersion.WithKind("ArenaJob"))},
		},
		Spec: v1alpha1.ArenaRunSpec{
			JobRef:   v1alpha1.LocalObjectReference{Name: job.Name},
			Trigger:  v1alpha1.ArenaRunTriggerManual,
			Template: *job.Spec.DeepCopy(),
		},
	}
	if len(job.Name) <= 63 {
		run.Labels = map[string]string{JobLabel: job.Name}
	}
	if !tick.IsZero() {
		run.Spec.Trigger = v1alpha1.ArenaRunTriggerSchedule
		run.Annotations = map[string]string{ScheduledAtAnnotation: tick.UTC().Format(time.RFC3339)}
	}
	return run
}

// Finished reports whether a run has ended: Succeeded, Failed or Cancelled
// (rules.ArenaRunPhaseFinal).
func Finished(r *v1alpha1.ArenaRun) bool { return rules.ArenaRunPhaseFinal(r.Status.Phase) }

// startedAt orders runs: a scheduled run's tick, else its creation.
func startedAt(r *v1alpha1.ArenaRun) time.Time {
	if s, ok := r.Annotations[ScheduledAtAnnotation]; ok {
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			return t
		}
	}
	return r.CreationTimestamp.Time
}

// SortRuns orders runs oldest first (tick or creation, then name).
func SortRuns(runs []*v1alpha1.ArenaRun) {
	sort.SliceStable(runs, func(i, j int) bool {
		ti, tj := startedAt(runs[i]), startedAt(runs[j])
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		return runs[i].Name < runs[j].Name
	})
}

// Active returns the runs that have not finished, oldest first. A run set
// cancelled that has not reached Cancelled is still active: it may still be
// draining.
func Active(runs []*v1alpha1.ArenaRun) []*v1alpha1.ArenaRun {
	var out []*v1alpha1.ArenaRun
	for _, r := range runs {
		if !Finished(r) {
			out = append(out, r)
		}
	}
	SortRuns(out)
	return out
}

// HistoryLimits are spec.successfulRunsHistoryLimit and
// spec.failedRunsHistoryLimit with their defaults (3 and 1).
func HistoryLimits(spec *v1alpha1.ArenaJobSpec) (succeeded, failed int) {
	succeeded, failed = 3, 1
	if spec.SuccessfulRunsHistoryLimit != nil && *spec.SuccessfulRunsHistoryLimit >= 0 {
		succeeded = int(*spec.SuccessfulRunsHistoryLimit)
	}
	if spec.FailedRunsHistoryLimit != nil && *spec.FailedRunsHistoryLimit >= 0 {
		failed = int(*spec.FailedRunsHistoryLimit)
	}
	return succeeded, failed
}

// ToPrune returns the finished runs beyond the job's history limits, oldest
// first: the Succeeded ones beyond successfulRunsHistoryLimit, and the
// Failed and Cancelled ones (a Cancelled run counts as failed) beyond
// failedRunsHistoryLimit. The newest are kept.
func ToPrune(spec *v1alpha1.ArenaJobSpec, runs []*v1alpha1.ArenaRun) []*v1alpha1.ArenaRun {
	keepOK, keepFailed := HistoryLimits(spec)
	var ok, failed []*v1alpha1.ArenaRun
	for _, r := range runs {
		// A run already being deleted (its output finalizer still held)
		// is on its way out: it neither counts towards a limit nor is
		// deleted, and named in a RunsPruned event, again.
		if r.DeletionTimestamp != nil {
			continue
		}
		switch r.Status.Phase {
		case v1alpha1.ArenaRunPhaseSucceeded:
			ok = append(ok, r)
		case v1alpha1.ArenaRunPhaseFailed, v1alpha1.ArenaRunPhaseCancelled:
			failed = append(failed, r)
		}
	}
	SortRuns(ok)
	SortRuns(failed)
	var out []*v1alpha1.ArenaRun
	if n := len(ok) - keepOK; n > 0 {
		out = append(out, ok[:n]...)
	}
	if n := len(failed) - keepFailed; n > 0 {
		out = append(out, failed[:n]...)
	}
	SortRuns(out)
	return out
}

// dailyRunQuota is the workspace's daily run quota (ws nil: none) as the
// scheduler sees it at now: every ArenaRun of the namespace, of any job and
// in any phase, dated by its tick or creation (rules.ArenaDailyQuota
// decides). A due tick is skipped, recorded as passed, with a Warning
// RunSkipped event when it is exhausted (arenajob.md#schedule). Pure.
func dailyRunQuota(ws *v1alpha1.Workspace, runs []*v1alpha1.ArenaRun, now time.Time) rules.ArenaDailyRunQuota {
	dates := make([]time.Time, 0, len(runs))
	for _, r := range runs {
		dates = append(dates, startedAt(r))
	}
	return rules.ArenaDailyQuota(ws, dates, 0, now)
}
