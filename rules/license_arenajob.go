package rules

import (
	"strconv"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Licence gates of ArenaJob (and of an ArenaRun's frozen template): the job
// types, scheduling, distributed workers and the licence's limits. The spec
// makes ArenaJob an enterprise feature (arenajob.md, top note) and checks
// the worker-replica limit against the count a workspace caps
// (arenajob.md#workers). The licence comes from Facts.License: the verified
// licence in the operator, --license in omniactl, open-core otherwise.

// ScenarioCountFacts is what a fact source implements when it knows how
// many scenarios a run resolved from its project (the Arena run controller,
// once it has read the arena file). Other sources do not: the scenario limit
// is then not judged.
type ScenarioCountFacts interface {
	// ArenaRunScenarioCount returns the number of scenarios the run
	// namespace/name executes, and whether it is known.
	ArenaRunScenarioCount(namespace, name string) (int, bool)
}

// ArenaJobCappedWorkers is the worker count a run of spec starts with:
// workers.replicas (default 1) capped by the workspace's
// quotas.arena.maxWorkersPerJob when it sets a positive one
// (arenajob.md#workers). ws may be nil (no workspace known).
func ArenaJobCappedWorkers(spec *v1alpha1.ArenaJobSpec, ws *v1alpha1.Workspace) int32 {
	n := int32(1)
	if spec.Workers != nil && spec.Workers.Replicas != nil {
		n = *spec.Workers.Replicas
	}
	if ws != nil && ws.Spec.Quotas != nil && ws.Spec.Quotas.Arena != nil {
		if c := ws.Spec.Quotas.Arena.MaxWorkersPerJob; c != nil && *c > 0 && *c < n {
			n = *c
		}
	}
	return n
}

func init() {
	// A gate of both kinds names the ArenaRun's constants, a gate of the
	// ArenaJob alone the ArenaJob's: the strings are the same.
	gate := func(id, doc, spec string, kinds []string, check Check) {
		condition, reason := v1alpha1.ArenaRunConditionReady, v1alpha1.ArenaRunReasonLicenseViolation
		if len(kinds) == 1 && kinds[0] == kindArenaJob {
			condition, reason = v1alpha1.ArenaJobConditionReady, v1alpha1.ArenaJobReasonLicenseViolation
		}
		Default.Register(Rule{
			ID:        id,
			Kinds:     kinds,
			Stage:     StageAdmission,
			Severity:  SeverityDeny,
			Condition: condition,
			Reason:    reason,
			Doc:       doc,
			Spec:      spec,
			Check:     check,
		})
	}
	gate("arenajob/license-load-testing",
		"A job of type loadtest needs a licence granting loadTesting (ArenaJob is an enterprise feature); refused at admission, and a run that breaks it fails with reason LicenseViolation.",
		"arenajob.md#type", arenaJobKinds, arenaJobTypeGate(v1alpha1.ArenaJobTypeLoadTest, FeatureLoadTesting))
	gate("arenajob/license-data-generation",
		"A job of type datagen needs a licence granting dataGeneration; refused at admission, and a run that breaks it fails with reason LicenseViolation.",
		"arenajob.md#type", arenaJobKinds, arenaJobTypeGate(v1alpha1.ArenaJobTypeDataGen, FeatureDataGeneration))
	gate("arenajob/license-scheduling",
		"A job with a schedule (a schedule.cron that parses) needs a licence granting scheduling; a job without one runs once. "+
			"A cron that does not parse schedules nothing: arenajob/schedule-cron-invalid reports it.",
		"arenajob.md#schedule", []string{kindArenaJob}, checkArenaJobSchedulingLicense)
	gate("arenajob/license-distributed-workers",
		"More than one worker — workers.replicas after the workspace's maxWorkersPerJob cap, when the facts know the Workspace — needs a licence granting distributedWorkers.",
		"arenajob.md#workers", arenaJobKinds, checkArenaJobDistributedWorkers)
	gate("arenajob/license-max-worker-replicas",
		"The capped worker count (workers.replicas after the workspace's maxWorkersPerJob) is at most the licence's limits.maxWorkerReplicas "+
			"(0: unlimited; 1 on open-core, where arenajob/license-distributed-workers also refuses any count above 1).",
		"arenajob.md#workers", arenaJobKinds, checkArenaJobMaxWorkerReplicas)
	Default.Register(Rule{
		ID:        "arenajob/license-max-scenarios",
		Kinds:     []string{kindArenaRun},
		Stage:     StageReconcile,
		Severity:  SeverityDeny,
		Condition: v1alpha1.ArenaRunConditionReady,
		Reason:    v1alpha1.ArenaRunReasonLicenseViolation,
		Doc: "A run executes at most the licence's limits.maxScenarios scenarios (0: unlimited; 10 on open-core). The count is known once the run's " +
			"controller has read the arena file (ScenarioCountFacts); a run over the limit fails with reason LicenseViolation.",
		Spec:  "arenajob.md#phase",
		Check: checkArenaRunMaxScenarios,
	})
}

func arenaJobTypeGate(typ v1alpha1.ArenaJobType, feature string) Check {
	return func(in Input) field.ErrorList {
		spec, path, _ := arenaJobSpecOf(in)
		if spec == nil || spec.Type != typ || in.Facts.License().Has(feature) {
			return nil
		}
		return field.ErrorList{field.Forbidden(path.Child("type"),
			"a "+string(typ)+" job needs an enterprise licence granting the "+feature+" feature; install such a licence (Secret arena-license) or use type evaluation")}
	}
}

func checkArenaJobSchedulingLicense(in Input) field.ErrorList {
	s, path := arenaJobSchedule(in)
	if s == nil || in.Facts.License().Has(FeatureScheduling) {
		return nil
	}
	// A cron that does not parse schedules nothing (the job starts no runs;
	// arenajob/schedule-cron-invalid reports it): the gate judges the update
	// that makes it parse.
	if _, err := cron.ParseStandard(s.Cron); err != nil {
		return nil
	}
	return field.ErrorList{field.Forbidden(path.Child("cron"),
		"a scheduled job needs an enterprise licence granting the "+FeatureScheduling+" feature; install such a licence or remove spec.schedule.cron to run the job once")}
}

// arenaJobLicensedWorkers returns the capped worker count of the spec under
// evaluation, with its path.
func arenaJobLicensedWorkers(in Input) (int32, *field.Path, bool) {
	spec, path, ns := arenaJobSpecOf(in)
	if spec == nil {
		return 0, nil, false
	}
	var ws *v1alpha1.Workspace
	if ns != "" {
		ws, _ = in.Facts.Workspace(ns)
	}
	return ArenaJobCappedWorkers(spec, ws), path.Child("workers", "replicas"), true
}

func checkArenaJobDistributedWorkers(in Input) field.ErrorList {
	n, path, ok := arenaJobLicensedWorkers(in)
	if !ok || n <= 1 || in.Facts.License().Has(FeatureDistributedWorkers) {
		return nil
	}
	return field.ErrorList{field.Forbidden(path,
		strconv.Itoa(int(n))+" workers need an enterprise licence granting the "+FeatureDistributedWorkers+" feature; install such a licence or set spec.workers.replicas to 1")}
}

func checkArenaJobMaxWorkerReplicas(in Input) field.ErrorList {
	n, path, ok := arenaJobLicensedWorkers(in)
	lic := in.Facts.License()
	if !ok {
		return nil
	}
	if limit := lic.MaxWorkerReplicas(); limit > 0 && int(n) > limit {
		return field.ErrorList{field.Invalid(path, n,
			"the licence allows at most "+strconv.Itoa(limit)+" workers (limits.maxWorkerReplicas) and this run would start "+strconv.Itoa(int(n))+
				"; lower spec.workers.replicas or install a licence with a higher limit")}
	}
	return nil
}

func checkArenaRunMaxScenarios(in Input) field.ErrorList {
	run, ok := in.Object.(*v1alpha1.ArenaRun)
	if !ok || run == nil {
		return nil
	}
	counter, ok := in.Facts.(ScenarioCountFacts)
	if !ok {
		return nil
	}
	n, known := counter.ArenaRunScenarioCount(run.Namespace, run.Name)
	limit := in.Facts.License().MaxScenarios()
	if !known || limit == 0 || n <= limit {
		return nil
	}
	return field.ErrorList{field.Forbidden(field.NewPath("spec", "template", "scenarios"),
		"the run selects "+strconv.Itoa(n)+" scenarios and the licence allows at most "+strconv.Itoa(limit)+
			" (limits.maxScenarios); narrow spec.scenarios.include or install a licence with a higher limit")}
}
