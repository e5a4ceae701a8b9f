package rules

import (
	"testing"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func TestArenaRunOutputS3Unsupported(t *testing.T) {
	cases := []struct {
		name   string
		output *v1alpha1.ArenaJobOutput
		want   bool
	}{
		{"no output", nil, false},
		{"pvc output", &v1alpha1.ArenaJobOutput{Type: v1alpha1.ArenaJobOutputTypePVC}, false},
		{"s3 output", &v1alpha1.ArenaJobOutput{Type: v1alpha1.ArenaJobOutputTypeS3, S3: &v1alpha1.ArenaJobOutputS3{Bucket: "b"}}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run := &v1alpha1.ArenaRun{Spec: v1alpha1.ArenaRunSpec{Template: v1alpha1.ArenaJobSpec{Output: c.output}}}
			got := false
			for _, f := range Default.Evaluate(kindArenaRun, Input{Object: run, Facts: NoFacts{}}, Options{}) {
				if f.RuleID == ArenaRunOutputS3RuleID {
					got = true
					if f.Reason != v1alpha1.ArenaRunReasonOutputNotSupported || f.Condition != v1alpha1.ArenaRunConditionReady || f.Field != "spec.template.output.type" {
						t.Errorf("finding %+v", f)
					}
				}
			}
			if got != c.want {
				t.Errorf("%s reported = %v, want %v", ArenaRunOutputS3RuleID, got, c.want)
			}
		})
	}
}
