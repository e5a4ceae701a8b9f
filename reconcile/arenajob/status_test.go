package arenajob

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

var now0 = metav1.NewTime(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))

// findingsFor evaluates the catalog on job with licence lic, as the
// reconciler does.
func findingsFor(job *v1alpha1.ArenaJob, lic rules.License) findingGroups {
	return groupFindings(rules.Default.Evaluate("ArenaJob", rules.Input{Object: job, Facts: rules.LicenseFacts{Source: lic}}, rules.Options{}))
}

func jobWith(cron, tz string, suspend bool) *v1alpha1.ArenaJob {
	j := &v1alpha1.ArenaJob{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", Generation: 2},
		Spec: v1alpha1.ArenaJobSpec{SourceRef: v1alpha1.LocalObjectReference{Name: "p"}, Suspend: suspend}}
	if cron != "" {
		j.Spec.Schedule = &v1alpha1.ArenaJobSchedule{Cron: cron, Timezone: tz}
	}
	return j
}

var scheduling = rules.License{Tier: "enterprise", Features: map[string]bool{rules.FeatureScheduling: true}}

func cond(conds []metav1.Condition, typ string) string {
	c := meta.FindStatusCondition(conds, typ)
	if c == nil {
		return ""
	}
	return string(c.Status) + "/" + c.Reason
}

func TestConditions(t *testing.T) {
	cases := []struct {
		name           string
		job            *v1alpha1.ArenaJob
		lic            rules.License
		ready, stalled string
		ruleInMessage  string
	}{
		{"manual job", jobWith("", "", false), rules.License{}, "True/Scheduled", "False/Scheduled", ""},
		{"scheduled and licensed", jobWith("0 2 * * *", "UTC", false), scheduling, "True/Scheduled", "False/Scheduled", ""},
		{"cron does not parse", jobWith("every night", "UTC", false), scheduling, "False/InvalidSchedule", "True/InvalidSchedule", "arenajob/schedule-cron-invalid"},
		{"unknown timezone", jobWith("0 2 * * *", "Mars/Olympus", false), scheduling, "False/InvalidSchedule", "True/InvalidSchedule", "arenajob/schedule-timezone-invalid"},
		{"scheduled without the licence", jobWith("0 2 * * *", "UTC", false), rules.License{}, "False/LicenseViolation", "True/LicenseViolation", "arenajob/license-scheduling"},
		{"suspended stays Ready", jobWith("0 2 * * *", "UTC", true), scheduling, "True/Scheduled", "False/Scheduled", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := v1alpha1.ArenaJobStatus{}
			g := findingsFor(c.job, c.lic)
			setReadyCondition(&st, c.job, g, now0)
			setStalledCondition(&st, c.job.Generation, g, now0)
			if got := cond(st.Conditions, v1alpha1.ArenaJobConditionReady); got != c.ready {
				t.Errorf("Ready %s, want %s", got, c.ready)
			}
			if got := cond(st.Conditions, v1alpha1.ArenaJobConditionStalled); got != c.stalled {
				t.Errorf("Stalled %s, want %s", got, c.stalled)
			}
			msg := meta.FindStatusCondition(st.Conditions, v1alpha1.ArenaJobConditionReady).Message
			if c.ruleInMessage != "" && !contains(msg, "["+c.ruleInMessage+"]") {
				t.Errorf("Ready message %q names no %s", msg, c.ruleInMessage)
			}
			if c.job.Spec.Suspend != (msg == SuspendedMessage) {
				t.Errorf("Ready message %q (suspend %v)", msg, c.job.Spec.Suspend)
			}
		})
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestComputeStatus(t *testing.T) {
	job := jobWith("0 * * * *", "UTC", false)
	tick, next := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), time.Date(2026, 3, 1, 13, 0, 0, 0, time.UTC)
	runs := []*v1alpha1.ArenaRun{
		run("j-1", v1alpha1.ArenaRunPhaseSucceeded, "2026-03-01T10:00:00Z"),
		run("j-2", v1alpha1.ArenaRunPhaseRunning, "2026-03-01T11:00:00Z"),
		run("j-3", "", "2026-03-01T12:00:00Z"),
	}
	st := computeStatus(job, findingGroups{}, outcome{runs: runs, started: "j-3", tick: tick, next: next}, now0)
	if got := st.Active; len(got) != 2 || got[0].Name != "j-2" || got[1].Name != "j-3" {
		t.Errorf("active %v", got)
	}
	if st.LastRunRef == nil || st.LastRunRef.Name != "j-3" || !st.LastScheduleTime.Time.Equal(tick) ||
		!st.NextScheduleTime.Time.Equal(next) || st.ObservedGeneration != 2 {
		t.Errorf("status %+v", st)
	}

	// Nothing started, suspended: lastRunRef and lastScheduleTime kept,
	// nextScheduleTime cleared.
	job.Spec.Suspend = true
	job.Status = st
	st2 := computeStatus(job, findingGroups{}, outcome{runs: runs}, now0)
	if st2.NextScheduleTime != nil || st2.LastRunRef.Name != "j-3" || !st2.LastScheduleTime.Time.Equal(tick) {
		t.Errorf("suspended status %+v", st2)
	}
	if !suspendedNow(st.Conditions, st2.Conditions) || suspendedNow(st2.Conditions, st2.Conditions) {
		t.Error("suspendedNow must be true once, on the transition")
	}
}
