package rules

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// resolutionFacts are the base facts seen from a cluster (status observed),
// with the PersistentVolumeClaims that exist.
type resolutionFacts struct {
	agentRuntimeTestFacts
	claims map[string]bool
}

func (f resolutionFacts) PersistentVolumeClaimExists(namespace, name string) bool {
	return f.claims[namespace+"/"+name]
}

// resolutionBaseFacts: the base facts, observed, with the base Provider
// Ready, every base pack validated, and the claim "media" existing.
func resolutionBaseFacts(mut ...func(*resolutionFacts)) Facts {
	f := resolutionFacts{agentRuntimeTestFacts: agentRuntimeBaseFacts(), claims: map[string]bool{agentRuntimeTestNamespace + "/media": true}}
	f.observed = true
	for k, p := range f.providers {
		p = p.DeepCopy()
		p.Status.Phase = v1alpha1.ProviderPhaseReady
		f.providers[k] = p
	}
	for k, packs := range f.packs {
		for i := range packs {
			packs[i].Status.Phase = v1alpha1.PromptPackPhaseReady
		}
		f.packs[k] = packs
	}
	for _, m := range mut {
		m(&f)
	}
	return f
}

func withProviderPhase(phase v1alpha1.ProviderPhase) func(*resolutionFacts) {
	return func(f *resolutionFacts) {
		f.providers[agentRuntimeTestNamespace+"/claude"].Status.Phase = phase
	}
}

// withPackPhase sets the phase of the base pack support@version.
func withPackPhase(version string, phase v1alpha1.PromptPackPhase) func(*resolutionFacts) {
	return func(f *resolutionFacts) {
		packs := f.packs[agentRuntimeTestNamespace+"/support"]
		for i := range packs {
			if packs[i].Spec.Version == version {
				packs[i].Status.Phase = phase
			}
		}
	}
}

func a2aClients(cs ...v1alpha1.AgentRuntimeA2AClient) func(*v1alpha1.AgentRuntime) {
	return func(ar *v1alpha1.AgentRuntime) { ar.Spec.A2AClients = cs }
}

func a2aRef(name, target string) v1alpha1.AgentRuntimeA2AClient {
	return v1alpha1.AgentRuntimeA2AClient{Name: name, AgentRuntimeRef: &v1alpha1.NamespacedObjectReference{Name: target}}
}

func TestAgentRuntimeResolutionRules(t *testing.T) {
	withWebsocketAgent := func(f *resolutionFacts) {
		f.agents[agentRuntimeTestNamespace+"/ws-agent"] = &v1alpha1.AgentRuntime{
			ObjectMeta: metav1.ObjectMeta{Name: "ws-agent", Namespace: agentRuntimeTestNamespace},
			Spec:       v1alpha1.AgentRuntimeSpec{Facades: []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}}},
		}
	}
	pvcVolume := func(name, claim string) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}
	}
	cases := []ruleCase[*v1alpha1.AgentRuntime]{
		// agentruntime/provider-ready
		{name: "provider Ready"},
		{name: "provider in phase Error", facts: resolutionBaseFacts(withProviderPhase(v1alpha1.ProviderPhaseError)),
			want: []ruleWant{{"agentruntime/provider-ready", "spec.providers[0].providerRef.name"}}},
		{name: "provider not reconciled yet", facts: resolutionBaseFacts(withProviderPhase("")),
			want: []ruleWant{{"agentruntime/provider-ready", "spec.providers[0].providerRef.name"}}},
		{name: "provider without status offline is not judged", facts: agentRuntimeBaseFacts()},

		// agentruntime/promptpack-valid (the agent follows stable: support 1.0.0)
		{name: "resolved pack Invalid", facts: resolutionBaseFacts(withPackPhase("1.0.0", v1alpha1.PromptPackPhaseInvalid)),
			want: []ruleWant{{"agentruntime/promptpack-valid", "spec.promptPackRef.name"}}},
		{name: "a pack the ref does not select is Invalid", facts: resolutionBaseFacts(withPackPhase("1.1.0-rc.1", v1alpha1.PromptPackPhaseInvalid))},
		{name: "prerelease track selects the Invalid prerelease", facts: resolutionBaseFacts(withPackPhase("1.1.0-rc.1", v1alpha1.PromptPackPhaseInvalid)),
			mutate: agentRuntimePackRef(v1alpha1.AgentRuntimePromptPackRef{Name: "support", Track: "prerelease"}),
			want:   []ruleWant{{"agentruntime/promptpack-valid", "spec.promptPackRef.name"}}},

		// agentruntime/promptpack-validated
		{name: "resolved pack not validated yet", facts: resolutionBaseFacts(withPackPhase("1.0.0", "")),
			want: []ruleWant{{"agentruntime/promptpack-validated", "spec.promptPackRef.name"}}},
		{name: "pack without status offline is not judged", facts: agentRuntimeBaseFacts()},

		// agentruntime/tool-registry-exists
		{name: "tool registry exists", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.ToolRegistryRef = &v1alpha1.NamespacedObjectReference{Name: "tools"}
		}},
		{name: "tool registry missing", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.ToolRegistryRef = &v1alpha1.NamespacedObjectReference{Name: "gone"}
		}, want: []ruleWant{{"agentruntime/tool-registry-exists", "spec.toolRegistryRef.name"}}},

		// agentruntime/a2a-client-resolves
		{name: "a2a clients resolve", mutate: a2aClients(a2aRef("billing", "billing-agent"),
			v1alpha1.AgentRuntimeA2AClient{Name: "ext", URL: "https://agents.example.com"})},
		{name: "a2a target missing", mutate: a2aClients(a2aRef("billing", "nobody")),
			want: []ruleWant{{"agentruntime/a2a-client-resolves", "spec.a2aClients[0].agentRuntimeRef.name"}}},
		{name: "a2a target without an a2a facade", facts: resolutionBaseFacts(withWebsocketAgent), mutate: a2aClients(a2aRef("ws", "ws-agent")),
			want: []ruleWant{{"agentruntime/a2a-client-resolves", "spec.a2aClients[0].agentRuntimeRef.name"}}},
		{name: "two clients on one endpoint", mutate: a2aClients(a2aRef("billing", "billing-agent"), a2aRef("billing-again", "billing-agent")),
			want: []ruleWant{{"agentruntime/a2a-client-resolves", "spec.a2aClients[1].agentRuntimeRef.name"}}},

		// agentruntime/volume-claims-exist
		{name: "mounted claim exists", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Volumes: []corev1.Volume{pvcVolume("m", "media")}}
		}},
		{name: "mounted claims missing", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Volumes: []corev1.Volume{pvcVolume("m", "media"), pvcVolume("d", "data")}}
			ar.Spec.PodOverrides = &v1alpha1.PodOverrides{ExtraVolumes: []runtime.RawExtension{
				{Raw: []byte(`{"name":"x","persistentVolumeClaim":{"claimName":"extra"}}`)}}}
		}, want: []ruleWant{
			{"agentruntime/volume-claims-exist", "spec.runtime.volumes[1].persistentVolumeClaim.claimName"},
			{"agentruntime/volume-claims-exist", "spec.podOverrides.extraVolumes[0].persistentVolumeClaim.claimName"},
		}},
	}
	ruleTable[*v1alpha1.AgentRuntime]{kind: kindAgentRuntime, prefix: "agentruntime/", base: agentRuntimeBase,
		facts: func() Facts { return resolutionBaseFacts() }}.run(t, cases)
}

func TestAgentRuntimeSelectPromptPack(t *testing.T) {
	pack := func(v string) v1alpha1.PromptPack { return agentRuntimeTestPack("p", v, false) }
	published := []v1alpha1.PromptPack{pack("1.9.0"), pack("1.10.0"), pack("2.0.0-rc.1"), pack("1.0.0+gAAAA")}
	for _, tc := range []struct {
		name  string
		packs []v1alpha1.PromptPack
		ref   v1alpha1.AgentRuntimePromptPackRef
		want  string // version picked; "-" for none
	}{
		{"stable by default: highest release by semver", published, v1alpha1.AgentRuntimePromptPackRef{Name: "p"}, "1.10.0"},
		{"stable track", published, v1alpha1.AgentRuntimePromptPackRef{Name: "p", Track: "stable"}, "1.10.0"},
		{"prerelease track: highest overall", published, v1alpha1.AgentRuntimePromptPackRef{Name: "p", Track: "prerelease"}, "2.0.0-rc.1"},
		{"exact version with build metadata", published, v1alpha1.AgentRuntimePromptPackRef{Name: "p", Version: "1.0.0+gAAAA"}, "1.0.0+gAAAA"},
		{"version without the build metadata", published, v1alpha1.AgentRuntimePromptPackRef{Name: "p", Version: "1.0.0"}, "-"},
		{"only prereleases on stable", []v1alpha1.PromptPack{pack("1.0.0-a")}, v1alpha1.AgentRuntimePromptPackRef{Name: "p"}, "-"},
		{"live pack, bare ref", []v1alpha1.PromptPack{agentRuntimeTestPack("p", "", true)}, v1alpha1.AgentRuntimePromptPackRef{Name: "p"}, ""},
		{"live pack with a version", []v1alpha1.PromptPack{agentRuntimeTestPack("p", "", true)}, v1alpha1.AgentRuntimePromptPackRef{Name: "p", Version: "1"}, "-"},
		{"live and published", []v1alpha1.PromptPack{agentRuntimeTestPack("p", "", true), pack("1.0.0")}, v1alpha1.AgentRuntimePromptPackRef{Name: "p"}, "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := "-"
			if p := AgentRuntimeSelectPromptPack(tc.packs, &tc.ref); p != nil {
				got = p.Spec.Version
			}
			if got != tc.want {
				t.Errorf("picked %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAgentRuntimeA2AClientResolutions(t *testing.T) {
	port := int32(7000)
	facts := resolutionBaseFacts(func(f *resolutionFacts) {
		f.agents[agentRuntimeTestNamespace+"/two"] = &v1alpha1.AgentRuntime{
			ObjectMeta: metav1.ObjectMeta{Name: "two", Namespace: agentRuntimeTestNamespace},
			Spec: v1alpha1.AgentRuntimeSpec{Facades: []v1alpha1.AgentRuntimeFacade{
				{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket},
				{Type: v1alpha1.AgentRuntimeFacadeTypeA2A, A2A: &v1alpha1.AgentRuntimeFacadeA2A{Port: &port}},
			}},
		}
	})
	ar := agentRuntimeBase()
	ar.Spec.A2AClients = []v1alpha1.AgentRuntimeA2AClient{
		a2aRef("billing", "billing-agent"), a2aRef("two", "two"),
		{Name: "ext", URL: "https://agents.example.com"},
		{Name: "far", AgentRuntimeRef: &v1alpha1.NamespacedObjectReference{Name: "x", Namespace: "other"}},
	}
	got := AgentRuntimeA2AClientResolutions(ar, facts)
	want := []AgentRuntimeA2AClientResolution{
		{Name: "billing", URL: "http://billing-agent.agents.svc.cluster.local:8080"},
		{Name: "two", URL: "http://two.agents.svc.cluster.local:7000"},
		{Name: "ext", URL: "https://agents.example.com"},
		{Name: "far", CrossNamespace: true},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d resolutions, want %d", len(got), len(want))
	}
	for i := range want {
		g := got[i]
		if g.Name != want[i].Name || g.URL != want[i].URL || g.CrossNamespace != want[i].CrossNamespace || g.Resolved() != (want[i].URL != "") {
			t.Errorf("client %d: %+v, want %+v", i, g, want[i])
		}
	}
}

func TestAgentRuntimeProviderUsable(t *testing.T) {
	for _, tc := range []struct {
		name     string
		phase    v1alpha1.ProviderPhase
		observed bool
		want     bool
	}{
		{"Ready is usable", v1alpha1.ProviderPhaseReady, true, true},
		{"Error is not", v1alpha1.ProviderPhaseError, true, false},
		{"Error is not, offline either", v1alpha1.ProviderPhaseError, false, false},
		{"no phase offline (or for the plan) is usable", "", false, true},
		{"no phase with statuses observed is not", "", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &v1alpha1.Provider{}
			p.Status.Phase = tc.phase
			if got := AgentRuntimeProviderUsable(p, tc.observed); got != tc.want {
				t.Fatalf("AgentRuntimeProviderUsable(phase %q, observed %v) = %v, want %v", tc.phase, tc.observed, got, tc.want)
			}
		})
	}
}
