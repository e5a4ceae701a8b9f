package rules

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// ArenaRunOutputS3RuleID refuses S3 output until it is built. It is a rule,
// not a controller check, so omniactl check reports it too; the ArenaRun
// controller fails the run with the rule's reason before anything starts.
const ArenaRunOutputS3RuleID = "arenarun/output-s3-unsupported"

func init() {
	Default.Register(Rule{
		ID:        ArenaRunOutputS3RuleID,
		Kinds:     []string{kindArenaRun},
		Stage:     StageReconcile,
		Severity:  SeverityDeny,
		Condition: v1alpha1.ArenaRunConditionReady,
		Reason:    v1alpha1.ArenaRunReasonOutputNotSupported,
		Doc: "output.type s3 is not written by this operator yet: the run fails with OutputNotSupported before its workers start. " +
			"Use output type pvc, or no output (the default output).",
		Spec:  "arenajob.md#s3-output",
		Check: checkArenaRunOutputS3,
	})
}

func checkArenaRunOutputS3(in Input) field.ErrorList {
	run, ok := in.Object.(*v1alpha1.ArenaRun)
	if !ok || run == nil || run.Spec.Template.Output == nil || run.Spec.Template.Output.Type != v1alpha1.ArenaJobOutputTypeS3 {
		return nil
	}
	return field.ErrorList{field.NotSupported(field.NewPath("spec", "template", "output", "type"), "s3",
		[]string{string(v1alpha1.ArenaJobOutputTypePVC)})}
}
