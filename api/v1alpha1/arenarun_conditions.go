package v1alpha1

// The conditions an ArenaRun's status carries (arenajob.md#conditions, the
// ArenaRun section) and their reasons: one const block per condition type,
// its reasons after it, then the reasons several types carry
// (hack/conditionsdoc generates docs/conditions.md from this file). The
// spec's strings are used exactly; a reason the spec does not name is the
// controller's and its comment says so. The rules that fail a run use these
// constants, so a finding's reason and the one the controller sets are the
// same string.

const (
	// ArenaRunConditionReady is the run's phase as a condition: True while
	// Running or once Succeeded, False while Pending (with the wait's
	// reason) and once Failed (with the failure's) or Cancelled.
	ArenaRunConditionReady = "Ready"
	// ArenaRunReasonRunning (Ready=True, not named by the spec): the worker
	// Job exists and the workers execute.
	ArenaRunReasonRunning = "Running"
	// ArenaRunReasonSucceeded (Ready=True, not named by the spec): the
	// queue is done and the run passed; the message gives the item count
	// and pass rate.
	ArenaRunReasonSucceeded = "Succeeded"
	// ArenaRunReasonWaitingForSource (Ready=False, not named by the spec):
	// a Pending run whose source is not pinned yet; SourceValid says why.
	ArenaRunReasonWaitingForSource = "WaitingForSource"
	// ArenaRunReasonWaitingForWorkspaceQuota (Ready=False, spec): a Pending
	// run the workspace's quotas.arena has not admitted;
	// WithinWorkspaceQuota says why. Replaced once the run is admitted.
	ArenaRunReasonWaitingForWorkspaceQuota = "WaitingForWorkspaceQuota"
	// ArenaRunReasonRefNotFound (Ready=False, spec): the run fails because
	// its ref names nothing in the ArenaProject's repository.
	ArenaRunReasonRefNotFound = "RefNotFound"
	// ArenaRunReasonSnapshotUnexportable (Ready=False, spec): the run fails
	// because the commit its ref resolved to cannot be exported (see
	// docs/arena.md#snapshots), or its arena file cannot be read there.
	ArenaRunReasonSnapshotUnexportable = "SnapshotUnexportable"
	// ArenaRunReasonInvalidProviderEntry (Ready=False, spec, rule
	// arenajob/provider-entry-exactly-one): a spec.providers entry sets
	// both or neither of providerRef and agentRef; the run fails.
	ArenaRunReasonInvalidProviderEntry = "InvalidProviderEntry"
	// ArenaRunReasonServiceGroupAmbiguous (Ready=False, spec): the template
	// names no service group and the workspace has several; the run fails.
	ArenaRunReasonServiceGroupAmbiguous = "ServiceGroupAmbiguous"
	// ArenaRunReasonServiceGroupNotFound (Ready=False, spec): the named
	// service group is not declared by a workspace whose groups set their
	// own redis; the run fails.
	ArenaRunReasonServiceGroupNotFound = "ServiceGroupNotFound"
	// ArenaRunReasonLicenseViolation (Ready=False, not named by the spec):
	// the run breaks its licence (arenajob.md#phase: "Failed … a licence
	// violation"; the spec names the failure but no reason string) and
	// fails before its workers start.
	ArenaRunReasonLicenseViolation = "LicenseViolation"
	// ArenaRunReasonOutputNotSupported (Ready=False, not named by the spec,
	// rule arenarun/output-s3-unsupported): S3 output is not written by
	// this operator yet; the run fails before its workers start.
	ArenaRunReasonOutputNotSupported = "OutputNotSupported"
	// ArenaRunReasonWorkMatrixTooLarge (Ready=False, not named by the
	// spec): the work matrix (scenarios × providers × trials) is over the
	// operator's item cap; the run fails and nothing is enqueued.
	ArenaRunReasonWorkMatrixTooLarge = "WorkMatrixTooLarge"
	// ArenaRunReasonBudgetExceeded (Ready=False, spec): the run's spend
	// crossed spec.template.budgetLimit; the queued items no worker started
	// were discarded and the run fails.
	ArenaRunReasonBudgetExceeded = "BudgetExceeded"
	// ArenaRunReasonTestsFailed (Ready=False, spec): a load test whose
	// thresholds failed, or an enumerated load test with a failed item.
	ArenaRunReasonTestsFailed = "TestsFailed"
	// ArenaRunReasonWorkersFailed (Ready=False, not named by the spec): the
	// worker Job failed, or completed with work left and nothing in flight,
	// before the queue was done.
	ArenaRunReasonWorkersFailed = "WorkersFailed"
)

const (
	// ArenaRunConditionSourceValid is True once the run's ArenaProject is
	// Ready and the commit its ref resolved to is pinned in status.source;
	// False, the run Pending, while it waits for that.
	//
	// SourceValid is also False with ArenaRunReasonRefNotFound or
	// ArenaRunReasonSnapshotUnexportable, the reasons the run then fails
	// with.
	ArenaRunConditionSourceValid = "SourceValid"
	// ArenaRunReasonSourcePinned (SourceValid=True, not named by the spec):
	// status.source is pinned; the message names the commit and ref.
	ArenaRunReasonSourcePinned = "SourcePinned"
	// ArenaRunReasonProjectNotFound (SourceValid=False, not named by the
	// spec): the run's ArenaProject does not exist; retried every 30
	// seconds.
	ArenaRunReasonProjectNotFound = "ArenaProjectNotFound"
	// ArenaRunReasonProjectNotReady (SourceValid=False, not named by the
	// spec): the run's ArenaProject is not Ready; retried every 30 seconds.
	ArenaRunReasonProjectNotReady = "ArenaProjectNotReady"
	// ArenaRunReasonSourceResolverUnavailable (SourceValid=False, not named
	// by the spec): the operator has no resolver for ArenaProject refs yet.
	ArenaRunReasonSourceResolverUnavailable = "SourceResolverUnavailable"
	// ArenaRunReasonSourceFetching (SourceValid=False, not named by the
	// spec): the run's ref is being resolved by the operator's fetcher,
	// outside the reconcile; the run is looked at again when that ends.
	ArenaRunReasonSourceFetching = "SourceFetching"
)

const (
	// ArenaRunConditionJobCreated is True once the worker Job exists; False
	// while it is held back. Ready, while the run is Pending, carries the
	// same False reason.
	ArenaRunConditionJobCreated = "JobCreated"
	// ArenaRunReasonJobCreated (JobCreated=True, not named by the spec):
	// the worker Job exists; the message names it and its worker count.
	ArenaRunReasonJobCreated = "JobCreated"
	// ArenaRunReasonJobCreationFailed (JobCreated=False, spec, rules
	// arenajob/provider-ref-namespace and arenarun/queue-redis-secret-found):
	// the worker Job cannot be created yet (a provider in another
	// namespace, a service group without a session-api, a queue Redis that
	// cannot be had or reached, a failed Workspace read); retried with a
	// backoff from 5 seconds to 5 minutes.
	ArenaRunReasonJobCreationFailed = "JobCreationFailed"
	// ArenaRunReasonQueueSecretConflict (JobCreated=False, not named by the
	// spec): the Secret the run's workers read the queue URL from is not
	// what the operator pinned (written by someone else, changed since, or
	// gone when it cannot be written again). The run does not use it:
	// JobCreated=False before the worker Job exists, the run Failed
	// (Ready=False) after.
	ArenaRunReasonQueueSecretConflict = "QueueSecretConflict"
)

const (
	// ArenaRunConditionProgressing is True while the workers execute and
	// False once they stopped. A run that fails before its workers start
	// has Progressing=False with the failure's reason (Ready's).
	ArenaRunConditionProgressing = "Progressing"
	// ArenaRunReasonWorkersRunning (Progressing=True, not named by the
	// spec): the worker Job runs; the message counts the items done.
	ArenaRunReasonWorkersRunning = "WorkersRunning"
	// ArenaRunReasonCompleted (Progressing=False, not named by the spec):
	// the workers finished (the run Succeeded, or Failed after it started).
	ArenaRunReasonCompleted = "Completed"
)

const (
	// ArenaRunConditionQueueRedisDrifted: whether the run's service group
	// redis changed since the run's queue was pinned (status.queue.configHash).
	// Set only for a ServiceGroup queue; the run keeps its queue either way.
	ArenaRunConditionQueueRedisDrifted = "QueueRedisDrifted"
	// ArenaRunReasonServiceGroupRedisChanged (QueueRedisDrifted=True, spec):
	// the group's redis no longer matches the pinned configHash.
	ArenaRunReasonServiceGroupRedisChanged = "ServiceGroupRedisChanged"
	// ArenaRunReasonPinned (QueueRedisDrifted=False, spec): the group's
	// redis is the one the run was pinned to.
	ArenaRunReasonPinned = "Pinned"
)

const (
	// ArenaRunConditionWithinWorkspaceQuota is the workspace quota's
	// decision on the run, present while the workspace sets
	// spec.quotas.arena and written before the run starts. True when the
	// run is admitted; False while it waits (never failed, admitted oldest
	// first) or when admitted with fewer workers than asked.
	ArenaRunConditionWithinWorkspaceQuota = "WithinWorkspaceQuota"
	// ArenaRunReasonQuotaSatisfied (WithinWorkspaceQuota=True, spec): the
	// quota admits the run.
	ArenaRunReasonQuotaSatisfied = "QuotaSatisfied"
	// ArenaRunReasonWaitingForConcurrentRunSlot (WithinWorkspaceQuota=False,
	// spec): maxConcurrentJobs runs are running or admitted, or older runs
	// wait first.
	ArenaRunReasonWaitingForConcurrentRunSlot = "WaitingForConcurrentRunSlot"
	// ArenaRunReasonWaitingForDailyRunQuota (WithinWorkspaceQuota=False,
	// spec): maxJobsPerDay runs were admitted in the last 24 hours; the
	// message gives when the next slot opens.
	ArenaRunReasonWaitingForDailyRunQuota = "WaitingForDailyRunQuota"
	// ArenaRunReasonWaitingForQuotaAdmission (WithinWorkspaceQuota=False,
	// spec): the quota has not counted the run yet (first sight), so runs
	// created together are admitted oldest first.
	ArenaRunReasonWaitingForQuotaAdmission = "WaitingForQuotaAdmission"
	// ArenaRunReasonAdmissionReleased (WithinWorkspaceQuota=False, spec):
	// the run was admitted but did not start its workers within 15 minutes
	// and gave its slot back; it waits again.
	ArenaRunReasonAdmissionReleased = "AdmissionReleased"
	// ArenaRunReasonWorkersClamped (WithinWorkspaceQuota=False, spec): the
	// run is admitted but asks for more workers than maxWorkersPerJob; it
	// runs at the cap.
	ArenaRunReasonWorkersClamped = "WorkersClamped"
)

const (
	// ArenaRunConditionOutputPersisted: whether the workers uploaded the
	// run's S3 output, set once the run finishes and only for S3 output.
	// It does not change the run's phase. This operator does not write S3
	// output yet (ArenaRunReasonOutputNotSupported), so it never sets it.
	ArenaRunConditionOutputPersisted = "OutputPersisted"
	// ArenaRunReasonOutputUploaded (OutputPersisted=True, spec): every
	// worker uploaded its output.
	ArenaRunReasonOutputUploaded = "OutputUploaded"
	// ArenaRunReasonOutputUploadFailed (OutputPersisted=False, spec): a
	// worker's upload failed, with a matching Warning event.
	ArenaRunReasonOutputUploadFailed = "OutputUploadFailed"
)

const (
	// ArenaRunReasonCancelled (Ready=False and Progressing=False, not named
	// by the spec): the run was stopped by spec.cancelled (phase
	// Cancelled); also the reason of the Normal event that says so.
	ArenaRunReasonCancelled = "Cancelled"
)
