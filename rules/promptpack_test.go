package rules

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// promptPackBase is a published PromptPack labelled with its pack name.
func promptPackBase() *v1alpha1.PromptPack {
	return &v1alpha1.PromptPack{
		TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: kindPromptPack},
		ObjectMeta: metav1.ObjectMeta{Name: "support-1", Namespace: "agents",
			Labels: map[string]string{PromptPackLabel: "support"}},
		Spec: v1alpha1.PromptPackSpec{PackName: "support", Version: "1.0.0",
			Source: v1alpha1.PromptPackSource{ConfigMapRef: &v1alpha1.LocalObjectReference{Name: "support-1"}}},
	}
}

func TestPromptPackRules(t *testing.T) {
	const labelField = "metadata.labels[" + PromptPackLabel + "]"
	ruleTable[*v1alpha1.PromptPack]{kind: kindPromptPack, prefix: "promptpack/", base: promptPackBase}.run(t, []ruleCase[*v1alpha1.PromptPack]{
		// promptpack/label-matches
		{name: "label equals spec.packName"},
		{name: "label missing", mutate: func(p *v1alpha1.PromptPack) { p.Labels = nil },
			want: []ruleWant{{"promptpack/label-matches", labelField}}},
		{name: "the retired pack-name key only", mutate: func(p *v1alpha1.PromptPack) {
			p.Labels = map[string]string{"omnia.altairalabs.ai/pack-name": "support"}
		}, want: []ruleWant{{"promptpack/label-matches", labelField}}},
		{name: "label names another pack", mutate: func(p *v1alpha1.PromptPack) { p.Labels[PromptPackLabel] = "billing" },
			want: []ruleWant{{"promptpack/label-matches", labelField}}},
	})
}

func TestPromptPackLabelRuleWarns(t *testing.T) {
	r, ok := Default.Lookup("promptpack/label-matches")
	if !ok {
		t.Fatal("promptpack/label-matches is not in the catalog")
	}
	// The spec says how packs are found, not that an unlabelled one is refused.
	if r.Severity != SeverityWarn || r.Stage != StageAdmission || r.Source != SourceGo {
		t.Errorf("promptpack/label-matches: %s %s %s, want warn admission go", r.Severity, r.Stage, r.Source)
	}
}
