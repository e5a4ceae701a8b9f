package rules

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func manifestMeta(ns, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name}
}

// manifestPack is a PromptPack labelled with its pack name, as the spec
// says a pack is found.
func manifestPack(name, packName, version string) *v1alpha1.PromptPack {
	return manifestLabelledPack(name, packName, packName, version)
}

// manifestLabelledPack is a PromptPack whose PromptPackLabel is label ("" for
// none) and whose spec.packName is packName.
func manifestLabelledPack(name, label, packName, version string) *v1alpha1.PromptPack {
	meta := manifestMeta("agents", name)
	if label != "" {
		meta.Labels = map[string]string{PromptPackLabel: label}
	}
	return &v1alpha1.PromptPack{ObjectMeta: meta, Spec: v1alpha1.PromptPackSpec{PackName: packName, Version: version}}
}

func packNames(ps []v1alpha1.PromptPack) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

func TestManifestFactsLookups(t *testing.T) {
	f := NewManifestFacts()
	for _, obj := range []runtime.Object{
		&v1alpha1.Provider{ObjectMeta: manifestMeta("agents", "claude"), Spec: v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeClaude}},
		manifestPack("support-1", "support", "1.0.0"),
		manifestPack("support-2", "support", "2.0.0"),
		manifestPack("other-1", "other", "1.0.0"),
		// A later document with the same name replaces the earlier one,
		// here moving it to another pack name.
		manifestPack("support-2", "other", "2.0.0"),
		// Found by the label when it has one (relabelled), by
		// spec.packName when it has none (unlabelled: the PromptPack
		// controller adds the label).
		manifestLabelledPack("unlabelled", "", "support", "3.0.0"),
		manifestLabelledPack("relabelled", "legacy", "support", "4.0.0"),
		&v1alpha1.Workspace{ObjectMeta: manifestMeta("", "team-a"), Spec: v1alpha1.WorkspaceSpec{Namespace: v1alpha1.WorkspaceNamespace{Name: "agents"}}},
		&v1alpha1.ToolPolicy{ObjectMeta: manifestMeta("agents", "p"), Spec: v1alpha1.ToolPolicySpec{Selector: v1alpha1.ToolPolicySelector{Registry: "tools"}}},
	} {
		if err := f.Add(obj); err != nil {
			t.Fatal(err)
		}
	}
	f.AddSecret("agents", "creds", []string{"ANTHROPIC_API_KEY", "api-key"})
	f.AddCRD("example.com/Widget")

	if p, ok := f.Provider("agents", "claude"); !ok || p.Spec.Type != v1alpha1.ProviderTypeClaude {
		t.Errorf("Provider agents/claude: %v %v", p, ok)
	}
	if _, ok := f.Provider("default", "claude"); ok {
		t.Error("Provider found in another namespace")
	}
	// An unlabelled pack is found under its spec.packName, as the cluster
	// finds it once the PromptPack controller has added the label.
	if got := packNames(f.PromptPacks("agents", "support")); !slices.Equal(got, []string{"support-1", "unlabelled"}) {
		t.Errorf("packs of support: %v", got)
	}
	if got := packNames(f.PromptPacks("agents", "other")); !slices.Equal(got, []string{"other-1", "support-2"}) {
		t.Errorf("packs of other: %v", got)
	}
	if got := packNames(f.PromptPacks("agents", "legacy")); !slices.Equal(got, []string{"relabelled"}) {
		t.Errorf("packs labelled legacy: %v", got)
	}
	if got := f.PromptPacks("default", "support"); got != nil {
		t.Errorf("packs in another namespace: %v", got)
	}
	if keys, ok := f.SecretKeys("agents", "creds"); !ok || !slices.Equal(keys, []string{"ANTHROPIC_API_KEY", "api-key"}) {
		t.Errorf("secret keys: %v %v", keys, ok)
	}
	if _, ok := f.SecretKeys("agents", "missing"); ok {
		t.Error("missing Secret found")
	}
	if w, ok := f.Workspace("agents"); !ok || w.Name != "team-a" {
		t.Errorf("Workspace of agents: %v %v", w, ok)
	}
	if !f.CRDInstalled("omnia.altairalabs.ai/ToolPolicy") || !f.CRDInstalled("example.com/Widget") || f.CRDInstalled("example.com/Gadget") {
		t.Error("CRDInstalled")
	}
	if got := f.ToolPolicies("agents"); len(got) != 1 || got[0].Name != "p" {
		t.Errorf("ToolPolicies: %v", got)
	}
	if f.License().Has(FeatureCustomFacade) {
		t.Error("manifest facts grant no licence")
	}
	if err := f.Add(&v1alpha1.ArenaJob{}); err == nil {
		t.Error("an ArenaJob is no fact")
	}
	if err := f.Add(&corev1.Secret{}); err == nil {
		t.Error("a Secret is added by AddSecret, keys only")
	}
}

// TestManifestFactsDriveReconcileRules: the reconcile-stage rules answer
// from documents held in memory as they do from the cluster.
func TestManifestFactsDriveReconcileRules(t *testing.T) {
	f := NewManifestFacts()
	agent := agentRuntimeBase() // namespace agents, provider claude, pack support
	evaluate := func() []string {
		var out []string
		for _, fd := range Default.Evaluate(kindAgentRuntime, Input{Object: agent, Facts: f}, Options{Stages: []Stage{StageReconcile}}) {
			out = append(out, fd.RuleID+" "+fd.Field)
		}
		slices.Sort(out)
		return out
	}
	if got := evaluate(); !slices.Equal(got, []string{
		"agentruntime/promptpack-resolves spec.promptPackRef.name",
		"agentruntime/provider-exists spec.providers[0].providerRef.name",
	}) {
		t.Fatalf("with no facts: %v", got)
	}
	p := agentRuntimeTestProvider("claude", "")
	if err := f.Add(p); err != nil {
		t.Fatal(err)
	}
	live := agentRuntimeTestPack("support", "", true)
	if err := f.Add(&live); err != nil {
		t.Fatal(err)
	}
	agent.Spec.PromptPackRef.Version = "1.0.0"
	if got := evaluate(); !slices.Equal(got, []string{"agentruntime/promptpack-live-ref spec.promptPackRef.version"}) {
		t.Fatalf("with the Provider and a live pack: %v", got)
	}
}

func TestManifestFactsSecretKeysAreCopies(t *testing.T) {
	f := NewManifestFacts()
	keys := []string{"a"}
	f.AddSecret("ns", "s", keys)
	keys[0] = "changed"
	got, _ := f.SecretKeys("ns", "s")
	got[0] = "also changed"
	if again, _ := f.SecretKeys("ns", "s"); again[0] != "a" {
		t.Fatalf("keys aliased: %v", again)
	}
}

func TestManifestFactsNamespaces(t *testing.T) {
	f := NewManifestFacts()
	f.AddNamespace(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "prod-a", Labels: map[string]string{"env": "prod"}}})
	f.AddNamespace(&corev1.Namespace{}) // no name: ignored
	ns, ok := f.Namespace("prod-a")
	if !ok || ns.Labels["env"] != "prod" || ns.Labels[corev1.LabelMetadataName] != "prod-a" {
		t.Fatalf("Namespace(prod-a) = %v, %v; want its labels and the metadata.name label", ns, ok)
	}
	// A copy: a caller cannot change the facts.
	ns.Labels["env"] = "dev"
	if again, _ := f.Namespace("prod-a"); again.Labels["env"] != "prod" {
		t.Fatal("Namespace returned the stored object, not a copy")
	}
	// A later Namespace of the same name replaces the earlier one.
	f.AddNamespace(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "prod-a", Labels: map[string]string{"env": "staging"}}})
	if got := NamespaceOf(f, "prod-a"); got.Labels["env"] != "staging" {
		t.Fatalf("NamespaceOf(prod-a) labels %v, want env=staging", got.Labels)
	}
	if _, ok := f.Namespace("other"); ok {
		t.Fatal("Namespace(other) found a Namespace never added")
	}
	if got := NamespaceOf(f, "other"); got.Labels[corev1.LabelMetadataName] != "other" || len(got.Labels) != 1 {
		t.Fatalf("NamespaceOf(other) = %v, want the bare Namespace", got.Labels)
	}
}
