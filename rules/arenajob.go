package rules

import (
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// ArenaJob rules: the CEL rules of the ArenaJob CRD (documented here,
// enforced by the API server) and the Go checks the schema cannot make. An
// ArenaRun's spec.template is an ArenaJobSpec, so the same rules apply to a
// run with their paths under spec.template (the schedule rules excepted: a
// run does not schedule). The load-test checks are in arenajob_loadtest.go,
// the provider-entry checks in arenajob_providers.go and the schedule checks
// in arenajob_schedule.go.
//
// Enforced by the schema alone (derived IDs, no catalog entry needed):
// spec.budgetLimit's pattern, the threshold metric and operator enums,
// dataGen.format's enum (so csv is refused), schedule.concurrencyPolicy's
// enum.

const (
	kindArenaJob = "ArenaJob"
	kindArenaRun = "ArenaRun"
)

// arenaJobKinds are the kinds whose spec (or spec.template) is an ArenaJobSpec.
var arenaJobKinds = []string{kindArenaJob, kindArenaRun}

// Condition types and reasons are the API package's constants
// (v1alpha1.ArenaJobConditionReady, v1alpha1.ArenaRunReasonInvalidProviderEntry, ...).

// ArenaJobPrunedBudgetLimitRuleID is the rule reporting the removed
// spec.loadTest.budgetLimit (spec.template.loadTest.budgetLimit on a run),
// an unknown field to the schema; Full reports it from the pruned-field list
// in place of the generic <kind>/schema:unknown-field finding.
const ArenaJobPrunedBudgetLimitRuleID = "arenajob/loadtest-budgetlimit-removed"

// ArenaJobPrunedBudgetLimitMessage is the message of
// ArenaJobPrunedBudgetLimitRuleID.
const ArenaJobPrunedBudgetLimitMessage = "spec.loadTest.budgetLimit has been removed: kubectl apply refuses it as an unknown field, and a client that does not ask for strict field validation has it pruned, so the job runs with no budget cap at all; move the value to spec.budgetLimit"

// arenaJobSchemaRules are the CEL rules of the ArenaJob CRD (also in the
// ArenaRun CRD under spec.template). The API server enforces them.
var arenaJobSchemaRules = []Rule{
	{
		ID:   "arenajob/arena-file-no-glob",
		Doc:  "spec.arenaFile names exactly one file: a value containing a glob character (*, ? or [) is rejected on apply.",
		Spec: "arenajob.md#arenafile",
	},
}

func init() {
	for _, r := range arenaJobSchemaRules {
		r.Kinds = arenaJobKinds
		r.Stage = StageAdmission
		r.Severity = SeverityDeny
		r.Source = SourceSchema
		Default.Register(r)
	}

	Default.Register(Rule{
		ID:       ArenaJobPrunedBudgetLimitRuleID,
		Kinds:    arenaJobKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc: "spec.loadTest.budgetLimit was removed. The API server refuses it as an unknown field under strict field validation " +
			"(kubectl apply's default) and silently prunes it otherwise, so a job applied that way runs uncapped. omniactl and the deploy API " +
			"refuse it with this rule (not the generic <kind>/schema:unknown-field), saying to move the value to spec.budgetLimit.",
		Spec:          "arenajob.md#budgetlimit",
		PrunedFields:  []string{"spec.loadTest.budgetLimit", "spec.template.loadTest.budgetLimit"},
		PrunedMessage: ArenaJobPrunedBudgetLimitMessage,
	})
}

// arenaJobSpecOf returns the ArenaJobSpec under evaluation, the path it sits
// at (spec, or spec.template on a run) and the object's namespace. It returns
// a nil spec for an object of another kind, and for an update of an ArenaRun
// that leaves spec.template as it was: the template is a frozen copy judged
// when the run was created, and an update such as setting spec.cancelled
// must not be refused for what it did not change. The reconcilers evaluate
// with Old nil, so a run's template is still reported there.
func arenaJobSpecOf(in Input) (*v1alpha1.ArenaJobSpec, *field.Path, string) {
	switch o := in.Object.(type) {
	case *v1alpha1.ArenaJob:
		if o == nil {
			return nil, nil, ""
		}
		return &o.Spec, field.NewPath("spec"), o.Namespace
	case *v1alpha1.ArenaRun:
		if o == nil {
			return nil, nil, ""
		}
		if old, ok := in.Old.(*v1alpha1.ArenaRun); ok && old != nil &&
			equality.Semantic.DeepEqual(old.Spec.Template, o.Spec.Template) {
			return nil, nil, ""
		}
		return &o.Spec.Template, field.NewPath("spec", "template"), o.Namespace
	}
	return nil, nil, ""
}
