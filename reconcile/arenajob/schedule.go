package arenajob

import (
	"fmt"
	"time"

	// The IANA time zone database, embedded as in rules/: a timezone is read
	// the same way in every binary.
	_ "time/tzdata"

	"github.com/robfig/cron/v3"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Schedule is a job's spec.schedule, parsed: its cron expression read in its
// time zone.
type Schedule struct {
	cron cron.Schedule
	loc  *time.Location
}

// ParseSchedule parses s (cron with robfig/cron's standard parser, the one
// the rule arenajob/schedule-cron-invalid judges with; timezone with
// time.LoadLocation, default UTC). Whether the schedule is valid is the
// catalog's decision: the controller calls this only when no
// InvalidSchedule finding was reported, and treats an error as one.
func ParseSchedule(s *v1alpha1.ArenaJobSchedule) (*Schedule, error) {
	if s == nil || s.Cron == "" {
		return nil, fmt.Errorf("no cron expression")
	}
	c, err := cron.ParseStandard(s.Cron)
	if err != nil {
		return nil, err
	}
	tz := s.Timezone
	if tz == "" {
		tz = "UTC"
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, err
	}
	return &Schedule{cron: c, loc: loc}, nil
}

// Next is the first tick strictly after t, read in the schedule's time zone.
func (s *Schedule) Next(t time.Time) time.Time { return s.cron.Next(t.In(s.loc)) }

// TickAction is what a reconcile does about the due tick.
type TickAction string

const (
	// TickNone: no tick is due.
	TickNone TickAction = ""
	// TickStart: start a run for the tick (after cancelling the active runs
	// when Replace is set).
	TickStart TickAction = "Start"
	// TickSkip: the tick is skipped (Forbid while a run is active) and
	// recorded as passed, with a RunSkipped event.
	TickSkip TickAction = "Skip"
)

// TickInput is what the scheduling decision reads.
type TickInput struct {
	Schedule *Schedule
	// Policy is spec.schedule.concurrencyPolicy ("" reads as Forbid).
	Policy v1alpha1.ArenaJobConcurrencyPolicy
	// Active is how many of the job's runs have not finished.
	Active int
	// Since is the last tick acted on (status.lastScheduleTime), or the
	// job's creation when none was: only ticks after it are due.
	Since time.Time
	// Now is the controller clock's time.
	Now time.Time
}

// TickDecision is the scheduling decision.
type TickDecision struct {
	Action TickAction
	// Tick is the due tick acted on (zero for TickNone): the most recent tick
	// in (Since, Now].
	Tick time.Time
	// Missed is how many older due ticks were passed over without a run (a
	// lower bound when the controller was down very long; see maxScan).
	Missed int
	// Replace: cancel the active runs before starting (policy Replace).
	Replace bool
	// Next is the first tick after Now: status.nextScheduleTime and when to
	// reconcile again. Zero when the schedule has no tick in the next five
	// years (e.g. 30 February).
	Next time.Time
}

// maxScan bounds how many ticks one decision walks from Since; past it the
// decision looks for the latest tick in the last scanWindow only.
const (
	maxScan    = 100000
	scanWindow = 8 * 24 * time.Hour
)

// Decide is the scheduling decision of one reconcile. As a CronJob without
// startingDeadlineSeconds: of the ticks due since the last one acted on, only
// the most recent is acted on (the older ones were missed, e.g. while the
// operator was down, and are dropped); Forbid skips it while a run is
// active, Replace cancels the active runs and starts it, Allow starts it.
// Pure: no client, no clock.
func Decide(in TickInput) TickDecision {
	d := TickDecision{Next: in.Schedule.Next(in.Now)}
	tick, missed := latestTick(in.Schedule, in.Since, in.Now)
	if tick.IsZero() {
		return d
	}
	d.Tick, d.Missed = tick, missed
	policy := in.Policy
	if policy == "" {
		policy = v1alpha1.ArenaJobConcurrencyForbid
	}
	switch {
	case in.Active > 0 && policy == v1alpha1.ArenaJobConcurrencyForbid:
		d.Action = TickSkip
	case in.Active > 0 && policy == v1alpha1.ArenaJobConcurrencyReplace:
		d.Action, d.Replace = TickStart, true
	default:
		d.Action = TickStart
	}
	return d
}

// latestTick returns the most recent tick in (since, now] (zero when none)
// and how many earlier ticks of that interval it passes over.
func latestTick(s *Schedule, since, now time.Time) (time.Time, int) {
	var latest time.Time
	n := 0
	// robfig/cron returns the zero time when no tick exists within five years.
	for t := s.Next(since); !t.IsZero() && !t.After(now); t = s.Next(t) {
		latest = t
		n++
		if n > maxScan {
			// Down for very long on a frequent schedule: the latest tick
			// lies in the last window (every standard cron ticks at least
			// yearly, and this one ticked over maxScan times).
			w, _ := latestTick(s, now.Add(-scanWindow), now)
			if !w.IsZero() {
				return w, maxScan
			}
			return latest, maxScan
		}
	}
	if n == 0 {
		return time.Time{}, 0
	}
	return latest, n - 1
}
