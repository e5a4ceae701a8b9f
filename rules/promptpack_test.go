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
			Source: v1alpha1.PromptPackContentSource{ConfigMapRef: &v1alpha1.LocalObjectReference{Name: "support-1"}}},
	}
}

func TestPromptPackRules(t *testing.T) {
	const labelField = "metadata.labels[" + PromptPackLabel + "]"
	// The source ConfigMap exists and matches: only the label is at stake.
	facts := func() Facts { return packFacts([]byte(`{"id": "support", "version": "1.0.0"}`)) }
	ruleTable[*v1alpha1.PromptPack]{kind: kindPromptPack, prefix: "promptpack/", base: promptPackBase, facts: facts}.run(t, []ruleCase[*v1alpha1.PromptPack]{
		// promptpack/label-matches
		{name: "label equals spec.packName"},
		// The PromptPack controller adds a missing label from spec.packName.
		{name: "label missing", mutate: func(p *v1alpha1.PromptPack) { p.Labels = nil }},
		{name: "the retired pack-name key only", mutate: func(p *v1alpha1.PromptPack) {
			p.Labels = map[string]string{"omnia.altairalabs.ai/pack-name": "support"}
		}},
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

// packFacts holds the ConfigMap support-1 of promptPackBase with packJSON
// under pack.json (no ConfigMap when packJSON is nil).
func packFacts(packJSON []byte) Facts {
	f := NewManifestFacts()
	if packJSON != nil {
		f.AddConfigMap("agents", "support-1", map[string][]byte{PromptPackPackJSONKey: packJSON})
	}
	return f
}

func TestPromptPackSourceRules(t *testing.T) {
	const (
		cmName  = "spec.source.configMapRef.name"
		packFld = "spec.packName"
		verFld  = "spec.version"
	)
	valid := func() Facts { return packFacts([]byte(`{"id": "support", "version": "1.0.0", "prompts": {}}`)) }
	with := func(s string) Facts { return packFacts([]byte(s)) }
	emptyCM := NewManifestFacts()
	emptyCM.AddConfigMap("agents", "support-1", map[string][]byte{"other.json": []byte(`{}`)})
	otherNS := NewManifestFacts()
	otherNS.AddConfigMap("default", "support-1", map[string][]byte{PromptPackPackJSONKey: []byte(`{"id": "support", "version": "1.0.0"}`)})
	live := func(p *v1alpha1.PromptPack) {
		p.Spec.Version = ""
		p.Spec.Source = v1alpha1.PromptPackContentSource{Live: &v1alpha1.PromptPackLiveSource{ProjectRef: v1alpha1.LocalObjectReference{Name: "proj"}}}
	}
	ruleTable[*v1alpha1.PromptPack]{kind: kindPromptPack, prefix: "promptpack/", base: promptPackBase, facts: valid}.run(t, []ruleCase[*v1alpha1.PromptPack]{
		{name: "ConfigMap with a matching pack.json"},
		// promptpack/configmap-found
		{name: "ConfigMap missing", facts: packFacts(nil),
			want: []ruleWant{{"promptpack/configmap-found", cmName}}},
		{name: "ConfigMap only in another namespace", facts: otherNS,
			want: []ruleWant{{"promptpack/configmap-found", cmName}}},
		{name: "a live pack has no ConfigMap to find", mutate: live, facts: packFacts(nil)},
		// promptpack/pack-json-valid
		{name: "no pack.json key", facts: emptyCM,
			want: []ruleWant{{"promptpack/pack-json-valid", cmName}}},
		{name: "pack.json is not JSON", facts: with(`{"id": "support",`),
			want: []ruleWant{{"promptpack/pack-json-valid", cmName}}},
		{name: "pack.json is a JSON array", facts: with(`["support"]`),
			want: []ruleWant{{"promptpack/pack-json-valid", cmName}}},
		{name: "pack.json is null", facts: with(`null`),
			want: []ruleWant{{"promptpack/pack-json-valid", cmName}}},
		// promptpack/pack-identity-matches
		{name: "id names another pack", facts: with(`{"id": "billing", "version": "1.0.0"}`),
			want: []ruleWant{{"promptpack/pack-identity-matches", packFld}}},
		{name: "no id", facts: with(`{"version": "1.0.0"}`),
			want: []ruleWant{{"promptpack/pack-identity-matches", packFld}}},
		{name: "id is a number", facts: with(`{"id": 7, "version": "1.0.0"}`),
			want: []ruleWant{{"promptpack/pack-identity-matches", packFld}}},
		{name: "version differs", facts: with(`{"id": "support", "version": "1.0.1"}`),
			want: []ruleWant{{"promptpack/pack-identity-matches", verFld}}},
		{name: "build metadata counts", facts: with(`{"id": "support", "version": "1.0.0+gAAAA"}`),
			want: []ruleWant{{"promptpack/pack-identity-matches", verFld}}},
		{name: "no version in pack.json", facts: with(`{"id": "support"}`),
			want: []ruleWant{{"promptpack/pack-identity-matches", verFld}}},
		{name: "both differ", facts: with(`{"id": "billing", "version": "2.0.0"}`),
			want: []ruleWant{{"promptpack/pack-identity-matches", packFld}, {"promptpack/pack-identity-matches", verFld}}},
		{name: "no spec.version: the version is not compared", mutate: func(p *v1alpha1.PromptPack) { p.Spec.Version = "" },
			facts: with(`{"id": "support", "version": "9.9.9"}`)},
	})
}

func TestPromptPackSourceRulesAreReconcileStage(t *testing.T) {
	for _, id := range []string{"promptpack/configmap-found", "promptpack/pack-json-valid", "promptpack/pack-identity-matches"} {
		r, ok := Default.Lookup(id)
		if !ok {
			t.Fatalf("%s is not in the catalog", id)
		}
		// The ConfigMap may be applied after the pack: never refused at admission.
		if r.Stage != StageReconcile || r.Severity != SeverityWarn || r.Condition != v1alpha1.PromptPackConditionSourceValid || r.Reason == "" {
			t.Errorf("%s: %s %s %q %q, want reconcile warn SourceValid with a reason", id, r.Stage, r.Severity, r.Condition, r.Reason)
		}
	}
}
