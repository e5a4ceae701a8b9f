package plan

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// benchKit is a typical kit: three providers, a tool registry, two skills.
const benchKit = `{"arenaConfig": "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Arena\nmetadata:\n  name: support\nspec:\n  deploy:\n    provider: omnia\n    config:\n      providers:\n        - {name: default, ref: claude-prod}\n        - {name: judge, ref: claude-judge, role: llm}\n        - {name: embed, ref: voyage, role: embedding}\n      tool_registry_ref: support-tools\n      skills:\n        - {source: policies}\n        - {source: faq}\n"}`

// benchReader is an in-memory reader holding the kit's objects (a pure
// benchmark of the function; the tests use the real API server).
func benchReader(b *testing.B) client.Reader {
	s := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(s); err != nil {
		b.Fatal(err)
	}
	const ns = "ws"
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: ns, Name: name} }
	ready := v1alpha1.ProviderStatus{Phase: v1alpha1.ProviderPhaseReady}
	return fake.NewClientBuilder().WithScheme(s).WithObjects(
		&v1alpha1.Provider{ObjectMeta: meta("claude-prod"), Spec: v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeClaude, Model: "m"}, Status: ready},
		&v1alpha1.Provider{ObjectMeta: meta("claude-judge"), Spec: v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeClaude, Model: "m"}, Status: ready},
		&v1alpha1.Provider{ObjectMeta: meta("voyage"), Spec: v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeVoyageAI, Role: v1alpha1.ProviderRoleEmbedding, Model: "m"}, Status: ready},
		&v1alpha1.ToolRegistry{ObjectMeta: meta("support-tools")},
		&v1alpha1.SkillSource{ObjectMeta: meta("policies"), Spec: v1alpha1.SkillSourceSpec{Type: v1alpha1.SkillSourceTypeGit}},
		&v1alpha1.SkillSource{ObjectMeta: meta("faq"), Spec: v1alpha1.SkillSourceSpec{Type: v1alpha1.SkillSourceTypeGit}},
	).Build()
}

// BenchmarkPlan plans a typical kit: Plan alone on a decoded request, and
// Decode plus Plan from the request body (what one request costs the
// handler, without HTTP and auth).
func BenchmarkPlan(b *testing.B) {
	reader := benchReader(b)
	ctx := context.Background()
	req, err := Decode([]byte(benchKit))
	if err != nil {
		b.Fatal(err)
	}
	if resp := Plan(ctx, reader, "ws", req); len(resp.Diagnostics) != 0 || len(resp.Providers) != 3 || len(resp.Skills) != 2 {
		b.Fatalf("the kit does not resolve: %+v", resp)
	}
	b.Run("plan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Plan(ctx, reader, "ws", req)
		}
	})
	b.Run("decode+plan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r, err := Decode([]byte(benchKit))
			if err != nil {
				b.Fatal(err)
			}
			Plan(ctx, reader, "ws", r)
		}
	})
}
