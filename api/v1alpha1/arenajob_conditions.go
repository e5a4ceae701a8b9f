package v1alpha1

// The conditions an ArenaJob's status carries (arenajob.md#conditions,
// docs/arena.md#status-and-conditions) and their reasons (hack/conditionsdoc
// generates docs/conditions.md from this file). Stalled carries Ready's
// reason. Findings of the other ArenaJob rules (the arena file, provider
// entries, load-test settings) are about what a run executes: the webhook
// reports them and the ArenaRun controller sets the run's conditions from
// them; the ArenaJob controller sets none.

const (
	// ArenaJobConditionReady is True while the job can start runs (or is
	// merely suspended, the message then says so); False when a blocking
	// finding refuses it, with the first finding's reason, the message
	// naming each rule as [rule-id] field: message.
	ArenaJobConditionReady = "Ready"
	// ArenaJobReasonScheduled (Ready=True and Stalled=False, spec): the job
	// can schedule runs; the message names its schedule, or says it runs
	// once.
	ArenaJobReasonScheduled = "Scheduled"
	// ArenaJobReasonInvalidSchedule (Ready=False and Stalled=True, spec,
	// rules arenajob/schedule-cron-invalid and
	// arenajob/schedule-timezone-invalid): spec.schedule.cron does not parse
	// or spec.schedule.timezone is not a known zone. Also the fallback of a
	// blocking finding with no reason.
	ArenaJobReasonInvalidSchedule = "InvalidSchedule"
	// ArenaJobReasonLicenseViolation (Ready=False and Stalled=True, not named
	// by the spec): a licence gate (arenajob/license-*) refuses the job; it
	// starts nothing and is looked at again every minute, so a licence that
	// grants the feature later lets it start.
	ArenaJobReasonLicenseViolation = "LicenseViolation"
)

const (
	// ArenaJobConditionStalled is True, with Ready's reason, when the job
	// cannot start any run until something outside the controller changes:
	// an invalid schedule (a spec change) or a licence refusal (a spec
	// change or a new licence); False, reason Scheduled, otherwise. A
	// missing or unready ArenaProject does not stall the job.
	ArenaJobConditionStalled = "Stalled"
)
