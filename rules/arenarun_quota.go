package rules

import (
	"time"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// ArenaQuotaDay is the window of a workspace's
// spec.quotas.arena.maxJobsPerDay: 24 hours before now.
const ArenaQuotaDay = 24 * time.Hour

// ArenaDailyRunQuota is a workspace's spec.quotas.arena.maxJobsPerDay as one
// run-starting decision sees it.
type ArenaDailyRunQuota struct {
	// Applies: the workspace sets maxJobsPerDay.
	Applies bool
	// Limit is maxJobsPerDay. 0 admits none (as maxAgentRuntimes 0 does).
	Limit int
	// Used counts the uses dated in (now-24h, now].
	Used int
	// Ahead counts the runs that take a slot before the one being decided
	// (older waiting runs; the scheduler has none).
	Ahead int
	// NextSlot is when the oldest counted use leaves the window: now+24h
	// when none is counted. Set only when Applies.
	NextSlot time.Time
}

// Exhausted reports whether the allowance is used up: the ArenaJob
// scheduler then skips a due tick (RunSkipped, arenajob.md#schedule) and
// the ArenaRun controller holds the run Pending (WaitingForDailyRunQuota,
// arenajob.md#conditions).
func (q ArenaDailyRunQuota) Exhausted() bool { return q.Applies && q.Used+q.Ahead >= q.Limit }

// ArenaDailyQuota decides the workspace's daily run quota (ws nil: none)
// at now. used are the dates of the namespace's runs that count against
// it, each controller dating them its way: the scheduler by tick (or
// creation) of every run, the run controller by start (or admission) of
// the other runs. ahead is the number of runs that go first. Pure.
//
// It is a decision function rather than a catalog rule: its input is the
// namespace's other runs, not the object alone or a fact about what it
// references.
func ArenaDailyQuota(ws *v1alpha1.Workspace, used []time.Time, ahead int, now time.Time) ArenaDailyRunQuota {
	if ws == nil || ws.Spec.Quotas == nil || ws.Spec.Quotas.Arena == nil || ws.Spec.Quotas.Arena.MaxJobsPerDay == nil {
		return ArenaDailyRunQuota{}
	}
	q := ArenaDailyRunQuota{Applies: true, Limit: int(*ws.Spec.Quotas.Arena.MaxJobsPerDay), Ahead: ahead, NextSlot: now.Add(ArenaQuotaDay)}
	from := now.Add(-ArenaQuotaDay)
	for _, t := range used {
		if !t.After(from) || t.After(now) {
			continue
		}
		q.Used++
		if next := t.Add(ArenaQuotaDay); next.Before(q.NextSlot) {
			q.NextSlot = next
		}
	}
	return q
}
