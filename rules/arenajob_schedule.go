package rules

import (
	"fmt"
	"time"

	// The IANA time zone database, embedded so that a timezone is judged the
	// same way in every binary (distroless images carry no /usr/share/zoneinfo).
	_ "time/tzdata"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// ArenaJob schedule rules (arenajob.md#schedule): the job's Ready condition
// goes False with reason InvalidSchedule when the schedule cannot be parsed,
// and the reconciler also sets Stalled=True (no progress without a spec
// change). The page names no admission refusal, so they warn. They apply to
// ArenaJob only: a run's spec.template.schedule is never read.

func init() {
	Default.Register(Rule{
		ID:        "arenajob/schedule-cron-invalid",
		Kinds:     []string{kindArenaJob},
		Stage:     StageAdmission,
		Severity:  SeverityWarn,
		Condition: v1alpha1.ArenaJobConditionReady,
		Reason:    v1alpha1.ArenaJobReasonInvalidSchedule,
		Doc: "spec.schedule.cron, when set, must parse as a standard five-field cron expression (or a descriptor such as @daily); " +
			"otherwise Ready=False (reason InvalidSchedule) and the reconciler also sets Stalled=True.",
		Spec:  "arenajob.md#schedule",
		Check: checkArenaJobScheduleCron,
	})
	Default.Register(Rule{
		ID:        "arenajob/schedule-timezone-invalid",
		Kinds:     []string{kindArenaJob},
		Stage:     StageAdmission,
		Severity:  SeverityWarn,
		Condition: v1alpha1.ArenaJobConditionReady,
		Reason:    v1alpha1.ArenaJobReasonInvalidSchedule,
		Doc: "spec.schedule.timezone, read when spec.schedule.cron is set, must be an IANA time zone name such as UTC or America/New_York; " +
			"otherwise Ready=False (reason InvalidSchedule) and the reconciler also sets Stalled=True.",
		Spec:  "arenajob.md#schedule",
		Check: checkArenaJobScheduleTimezone,
	})
}

// arenaJobSchedule returns the job's schedule and its path when the job is
// scheduled (a non-empty cron); an empty cron means one Manual run.
func arenaJobSchedule(in Input) (*v1alpha1.ArenaJobSchedule, *field.Path) {
	job, ok := in.Object.(*v1alpha1.ArenaJob)
	if !ok || job == nil || job.Spec.Schedule == nil || job.Spec.Schedule.Cron == "" {
		return nil, nil
	}
	return job.Spec.Schedule, field.NewPath("spec", "schedule")
}

func checkArenaJobScheduleCron(in Input) field.ErrorList {
	s, base := arenaJobSchedule(in)
	if s == nil {
		return nil
	}
	if _, err := cron.ParseStandard(s.Cron); err != nil {
		p := base.Child("cron")
		return field.ErrorList{field.Invalid(p, s.Cron, fmt.Sprintf(
			"%s cannot be parsed (%v): use five fields, minute hour day-of-month month day-of-week (e.g. \"0 2 * * *\" for 2am daily), or a descriptor such as @daily; until it parses the job starts no runs (Ready=False, reason InvalidSchedule)",
			p, err))}
	}
	return nil
}

func checkArenaJobScheduleTimezone(in Input) field.ErrorList {
	s, base := arenaJobSchedule(in)
	if s == nil || s.Timezone == "" || s.Timezone == "UTC" {
		return nil
	}
	if !arenaJobKnownZone(s.Timezone) {
		p := base.Child("timezone")
		return field.ErrorList{field.Invalid(p, s.Timezone, fmt.Sprintf(
			"%s is not a known time zone: use an IANA time zone name such as \"UTC\" or \"America/New_York\"; until it is one the job starts no runs (Ready=False, reason InvalidSchedule)",
			p))}
	}
	return nil
}

// arenaJobZones remembers which names time.LoadLocation accepts: it reads and
// parses the zone file on every call.
var arenaJobZones = newMemo[string, bool](1024)

func arenaJobKnownZone(name string) bool {
	return arenaJobZones.get(name, func() bool {
		_, err := time.LoadLocation(name)
		return err == nil
	})
}
