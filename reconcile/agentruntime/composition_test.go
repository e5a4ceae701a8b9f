package agentruntime

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// compositionAgent references a pack, a registry and two providers.
func compositionAgent() *v1alpha1.AgentRuntime {
	return agent(func(a *v1alpha1.AgentRuntime) {
		a.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "support"}
		a.Spec.ToolRegistryRef = &v1alpha1.NamespacedObjectReference{Name: "tools"}
		a.Spec.Providers = []v1alpha1.AgentRuntimeProvider{
			{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "claude"}},
			{Name: "judge", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "haiku"}},
		}
	})
}

func publishedPack(digest string) *v1alpha1.PromptPack {
	p := &v1alpha1.PromptPack{ObjectMeta: metav1.ObjectMeta{Name: "support-1", Generation: 2}}
	p.Spec.PackName, p.Spec.Version = "support", "1.0.0"
	p.Status = v1alpha1.PromptPackStatus{Phase: v1alpha1.PromptPackPhaseReady, ObservedGeneration: 2, ContentDigest: digest}
	return p
}

func publishedRegistry(digest string) *v1alpha1.ToolRegistry {
	return &v1alpha1.ToolRegistry{ObjectMeta: metav1.ObjectMeta{Name: "tools", Generation: 1},
		Status: v1alpha1.ToolRegistryStatus{ObservedGeneration: 1, ContentDigest: digest}}
}

func publishedProvider(name string, uid types.UID, gen int64) *v1alpha1.Provider {
	return &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Name: name, UID: uid, Generation: gen},
		Status: v1alpha1.ProviderStatus{ObservedGeneration: gen}}
}

func allPublished() compositionInputs {
	return compositionInputs{
		PromptPack:   publishedPack("sha256:aa"),
		ToolRegistry: publishedRegistry("sha256:bb"),
		Providers: map[string]*v1alpha1.Provider{
			"default": publishedProvider("claude", "uid-claude", 1),
			"judge":   publishedProvider("haiku", "uid-haiku", 1),
		},
	}
}

// TestCompositionDigest: empty until every input has published its
// identity; deterministic; moved by every input's identity and by nothing
// else (the order of spec.providers).
func TestCompositionDigest(t *testing.T) {
	base := digestComposition(compositionAgent(), allPublished())
	if !strings.HasPrefix(base, "sha256:") || len(base) != len("sha256:")+64 {
		t.Fatalf("digest %q, want sha256:<64 hex>", base)
	}
	if again := digestComposition(compositionAgent(), allPublished()); again != base {
		t.Fatalf("same inputs gave %s then %s", base, again)
	}

	type want int
	const (
		empty want = iota
		same
		changed
	)
	for _, tc := range []struct {
		name  string
		agent func(*v1alpha1.AgentRuntime)
		in    func(*compositionInputs)
		want  want
	}{
		// Not yet published: empty.
		{"pack not resolved", nil, func(in *compositionInputs) { in.PromptPack = nil }, empty},
		{"pack without a content digest (not Ready, or live)", nil, func(in *compositionInputs) { in.PromptPack.Status.ContentDigest = "" }, empty},
		{"pack digest of an older generation", nil, func(in *compositionInputs) { in.PromptPack.Generation = 3 }, empty},
		{"registry without a content digest", nil, func(in *compositionInputs) { in.ToolRegistry.Status.ContentDigest = "" }, empty},
		{"registry digest of an older generation", nil, func(in *compositionInputs) { in.ToolRegistry.Status.ObservedGeneration = 0 }, empty},
		{"a Provider missing", nil, func(in *compositionInputs) { delete(in.Providers, "judge") }, empty},
		{"a Provider's generation not yet observed", nil, func(in *compositionInputs) { in.Providers["judge"].Generation = 2 }, empty},

		// Published: the digest follows each identity.
		{"pack content", nil, func(in *compositionInputs) { in.PromptPack.Status.ContentDigest = "sha256:a2" }, changed},
		{"pack version", nil, func(in *compositionInputs) { in.PromptPack.Spec.Version = "1.0.1" }, changed},
		{"registry content", nil, func(in *compositionInputs) { in.ToolRegistry.Status.ContentDigest = "sha256:b2" }, changed},
		{"no registry: the agent runs without tools", nil, func(in *compositionInputs) { in.ToolRegistry = nil }, changed},
		{"a Provider edited", nil, func(in *compositionInputs) { in.Providers["judge"] = publishedProvider("haiku", "uid-haiku", 2) }, changed},
		{"a Provider re-created", nil, func(in *compositionInputs) { in.Providers["judge"] = publishedProvider("haiku", "uid-haiku-2", 1) }, changed},
		{"entries swap Providers", nil, func(in *compositionInputs) {
			in.Providers["default"], in.Providers["judge"] = publishedProvider("haiku", "uid-haiku", 1), publishedProvider("claude", "uid-claude", 1)
		}, changed},
		{"spec.providers reordered", func(a *v1alpha1.AgentRuntime) {
			a.Spec.Providers[0], a.Spec.Providers[1] = a.Spec.Providers[1], a.Spec.Providers[0]
		}, nil, same},
		{"status-only noise (pack conditions, registry tools' health)", nil, func(in *compositionInputs) {
			in.PromptPack.Status.Conditions = []metav1.Condition{{Type: "Ready"}}
			in.ToolRegistry.Status.DiscoveredToolsCount = 7
			in.Providers["default"].Status.Phase = v1alpha1.ProviderPhase("Unavailable")
		}, same},
		{"agent without pack, registry or providers", func(a *v1alpha1.AgentRuntime) {
			a.Spec.PromptPackRef, a.Spec.ToolRegistryRef, a.Spec.Providers = nil, nil, nil
		}, func(in *compositionInputs) { *in = compositionInputs{} }, changed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := compositionAgent()
			if tc.agent != nil {
				tc.agent(ar)
			}
			in := allPublished()
			if tc.in != nil {
				tc.in(&in)
			}
			got := digestComposition(ar, in)
			switch {
			case tc.want == empty && got != "":
				t.Errorf("digest %q, want empty until every input published", got)
			case tc.want == same && got != base:
				t.Errorf("digest %q, want unchanged %q", got, base)
			case tc.want == changed && (got == base || !strings.HasPrefix(got, "sha256:")):
				t.Errorf("digest %q, want a new sha256 digest (base %q)", got, base)
			}
		})
	}
}
