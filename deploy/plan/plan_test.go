package plan

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/test/controlplane"
)

// The real API server, started once by the first test that needs it (the
// Decode tests and the benchmark do not).
var (
	envOnce sync.Once
	env     *envtest.Environment
	envErr  error
	cfg     *rest.Config
	k8s     client.Client
	scheme  = runtime.NewScheme()
)

func TestMain(m *testing.M) {
	code := m.Run()
	if env != nil {
		_ = env.Stop()
	}
	os.Exit(code)
}

// apiServer starts kube-apiserver and etcd with the three CRDs the plan
// reads, once.
func apiServer(t *testing.T) client.Client {
	t.Helper()
	envOnce.Do(func() {
		if envErr = clientgoscheme.AddToScheme(scheme); envErr != nil {
			return
		}
		if envErr = v1alpha1.AddToScheme(scheme); envErr != nil {
			return
		}
		env, envErr = controlplane.Start(controlplane.Options{Kinds: []string{"Provider", "ToolRegistry", "SkillSource"}})
		if envErr != nil {
			return
		}
		cfg = env.Config
		k8s, envErr = client.New(cfg, client.Options{Scheme: scheme})
	})
	if envErr != nil {
		t.Fatal(envErr)
	}
	return k8s
}

var nsCount int

// workspace creates a namespace holding the kit's objects:
//
//	Providers: claude-prod (llm, Ready), claude-new (llm, no phase yet),
//	claude-broken (llm, Error), voyage (embedding, Ready);
//	ToolRegistry support-tools; SkillSource policies.
func workspace(t *testing.T) string {
	t.Helper()
	cl := apiServer(t)
	ctx := context.Background()
	nsCount++
	ns := fmt.Sprintf("plan-%d-%d", os.Getpid()%10000, nsCount)
	must(t, cl.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	provider := func(name string, typ v1alpha1.ProviderType, role v1alpha1.ProviderRole, phase v1alpha1.ProviderPhase) {
		p := &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: v1alpha1.ProviderSpec{Type: typ, Role: role, Model: "m"}}
		must(t, cl.Create(ctx, p))
		if phase != "" {
			p.Status.Phase = phase
			must(t, cl.Status().Update(ctx, p))
		}
	}
	provider("claude-prod", v1alpha1.ProviderTypeMock, "", v1alpha1.ProviderPhaseReady)
	provider("claude-new", v1alpha1.ProviderTypeMock, v1alpha1.ProviderRoleLLM, "")
	provider("claude-broken", v1alpha1.ProviderTypeMock, "", v1alpha1.ProviderPhaseError)
	provider("voyage", v1alpha1.ProviderTypeOllama, v1alpha1.ProviderRoleEmbedding, v1alpha1.ProviderPhaseReady)
	must(t, cl.Create(ctx, &v1alpha1.ToolRegistry{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "support-tools"},
		Spec: v1alpha1.ToolRegistrySpec{Handlers: []v1alpha1.ToolRegistryHandler{{Name: "code", Type: "mcp",
			MCPConfig: &v1alpha1.ToolRegistryMCPConfig{Transport: "sse", Endpoint: "http://mcp.tools:8080/sse"}}}}}))
	must(t, cl.Create(ctx, &v1alpha1.SkillSource{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "policies"},
		Spec: v1alpha1.SkillSourceSpec{Type: v1alpha1.SkillSourceTypeGit}}))
	return ns
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// diag is a diagnostic's code and path, what the table asserts on.
type diag struct{ code, path string }

func diags(r intent.PlanResponse) []diag {
	out := []diag{}
	for _, d := range r.Diagnostics {
		out = append(out, diag{d.Code, d.Path})
	}
	return out
}

func TestPlan(t *testing.T) {
	ns := workspace(t)
	type want struct {
		providers []intent.PlanProvider
		tools     intent.PlanToolRegistry
		skills    []intent.PlanSkill
		diags     []diag
	}
	none := intent.PlanToolRegistry{Mode: ModeNone, Resolved: true}
	pp := func(name, ref, role string, resolved bool) intent.PlanProvider {
		return intent.PlanProvider{Name: name, Ref: ref, Role: role, Resolved: resolved}
	}
	for _, tc := range []struct {
		name string
		body string
		want want
	}{
		{"a kit that resolves: input order kept, role defaulted to llm, a Provider with no phase is usable",
			`{"arenaConfig": "spec:\n  deploy:\n    provider: omnia\n    config:\n      providers:\n        - {name: judge, ref: claude-new}\n        - {name: default, ref: claude-prod, role: llm}\n        - {name: embed, ref: voyage, role: embedding}\n      tool_registry_ref: support-tools\n      skills: [{source: policies}]\n"}`,
			want{providers: []intent.PlanProvider{pp("judge", "claude-new", "llm", true), pp("default", "claude-prod", "llm", true), pp("embed", "voyage", "embedding", true)},
				tools: intent.PlanToolRegistry{Mode: ModeBind, Name: "support-tools", Resolved: true}, skills: []intent.PlanSkill{{Source: "policies", Resolved: true}}, diags: []diag{}}},
		{"every provider diagnostic, each on its binding",
			`{"deployConfig": {"providers": [
				{"name": "Default", "ref": "claude-prod"},
				{"name": "b", "ref": ""},
				{"name": "c", "ref": "Claude_Prod"},
				{"name": "d", "ref": "claude-prod", "role": "chat"},
				{"name": "e", "ref": "claude-missing"},
				{"name": "f", "ref": "claude-broken"},
				{"name": "g", "ref": "voyage"},
				{"name": "e", "ref": "claude-prod"},
				{"name": "h", "ref": "claude-prod", "role": "embedding"}]}}`,
			want{providers: []intent.PlanProvider{pp("Default", "claude-prod", "llm", false), pp("b", "", "llm", false), pp("c", "Claude_Prod", "llm", false),
				pp("d", "claude-prod", "chat", false), pp("e", "claude-missing", "llm", false), pp("f", "claude-broken", "llm", false),
				pp("g", "voyage", "llm", false), pp("e", "claude-prod", "llm", false), pp("h", "claude-prod", "embedding", false)},
				tools: none, skills: []intent.PlanSkill{}, diags: []diag{
					{CodeInvalidBinding, "deploy.config.providers[0].name"},
					{CodeInvalidBinding, "deploy.config.providers[1].ref"},
					{CodeInvalidBinding, "deploy.config.providers[2].ref"},
					{CodeInvalidBinding, "deploy.config.providers[3].role"},
					{CodeProviderNotFound, "deploy.config.providers[4].ref"},
					{CodeProviderNotReady, "deploy.config.providers[5].ref"},
					{CodeProviderRoleMismatch, "deploy.config.providers[6].role"},
					{CodeInvalidBinding, "deploy.config.providers[7].name"},
					{CodeProviderRoleMismatch, "deploy.config.providers[8].role"},
				}}},
		{"tool registry and skills not found, a malformed skill source",
			`{"deployConfig": {"providers": [{"name": "default", "ref": "claude-prod"}], "tool_registry_ref": "no-such-tools",
				"skills": [{"source": "policies"}, {"source": "faq"}, {"source": ""}, {"source": "Bad Name"}]}}`,
			want{providers: []intent.PlanProvider{pp("default", "claude-prod", "llm", true)},
				tools:  intent.PlanToolRegistry{Mode: ModeBind, Name: "no-such-tools", Resolved: false},
				skills: []intent.PlanSkill{{Source: "policies", Resolved: true}, {Source: "faq"}, {Source: ""}, {Source: "Bad Name"}},
				diags: []diag{{CodeToolRegistryNotFound, "deploy.config.tool_registry_ref"}, {CodeSkillSourceNotFound, "deploy.config.skills[1].source"},
					{CodeInvalidBinding, "deploy.config.skills[2].source"}, {CodeInvalidBinding, "deploy.config.skills[3].source"}}}},
		{"a malformed tool_registry_ref", `{"deployConfig": {"providers": [{"name": "default", "ref": "claude-prod"}], "tool_registry_ref": "Tools!"}}`,
			want{providers: []intent.PlanProvider{pp("default", "claude-prod", "llm", true)},
				tools: intent.PlanToolRegistry{Mode: ModeBind, Name: "Tools!"}, skills: []intent.PlanSkill{},
				diags: []diag{{CodeInvalidBinding, "deploy.config.tool_registry_ref"}}}},
		{"both tool_registry_ref and tools", `{"deployConfig": {"providers": [{"name": "default", "ref": "claude-prod"}], "tool_registry_ref": "support-tools", "tools": [{"name": "x"}]}}`,
			want{providers: []intent.PlanProvider{pp("default", "claude-prod", "llm", true)},
				tools: intent.PlanToolRegistry{Mode: ModeBind, Name: "support-tools"}, skills: []intent.PlanSkill{},
				diags: []diag{{CodeInvalidBinding, "deploy.config.tool_registry_ref"}}}},
		{"inline tools: create mode, resolved",
			`{"arenaConfig": "{\"deploy\": {\"provider\": \"omnia\", \"config\": {\"providers\": [{\"name\": \"default\", \"ref\": \"claude-prod\"}], \"tools\": [{\"name\":  \"lookup\"}]}}}"}`,
			want{providers: []intent.PlanProvider{pp("default", "claude-prod", "llm", true)},
				tools:  intent.PlanToolRegistry{Mode: ModeCreate, Resolved: true, Tools: []json.RawMessage{json.RawMessage(`{"name":  "lookup"}`)}},
				skills: []intent.PlanSkill{}, diags: []diag{}}},
		{"no deploy block: the only diagnostic", `{"arenaConfig": "spec:\n  prompt_configs: []\n"}`,
			want{providers: []intent.PlanProvider{}, tools: none, skills: []intent.PlanSkill{}, diags: []diag{{CodeNoDeployConfig, "deploy"}}}},
		{"a deploy block without provider: the bindings still plan",
			`{"arenaConfig": "deploy:\n  config:\n    providers: [{name: default, ref: claude-prod}]\n"}`,
			want{providers: []intent.PlanProvider{pp("default", "claude-prod", "llm", true)}, tools: none, skills: []intent.PlanSkill{},
				diags: []diag{{CodeNoDeployProvider, "deploy.provider"}}}},
		{"no provider bindings, providers only under environments",
			`{"arenaConfig": "spec:\n  deploy:\n    provider: omnia\n    environments:\n      staging:\n        config:\n          providers: [{name: default, ref: claude-new}]\n      production:\n        config:\n          providers: [{name: default, ref: claude-prod}, {name: judge, ref: claude-big}]\n"}`,
			want{providers: []intent.PlanProvider{}, tools: none, skills: []intent.PlanSkill{}, diags: []diag{{CodeNoProviderBindings, "deploy.config.providers"}}}},
		{"an empty deployConfig: empty lists, no provider check",
			`{"deployConfig": {}}`,
			want{providers: []intent.PlanProvider{}, tools: none, skills: []intent.PlanSkill{}, diags: []diag{{CodeNoProviderBindings, "deploy.config.providers"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := Decode([]byte(tc.body))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			got := Plan(context.Background(), k8s, ns, req)
			if !slices.Equal(got.Providers, tc.want.providers) {
				t.Errorf("providers = %+v\nwant %+v", got.Providers, tc.want.providers)
			}
			gt, wt := got.ToolRegistry, tc.want.tools
			if gt.Mode != wt.Mode || gt.Name != wt.Name || gt.Resolved != wt.Resolved || !slices.EqualFunc(gt.Tools, wt.Tools, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
				t.Errorf("toolRegistry = %+v, want %+v", gt, wt)
			}
			if !slices.Equal(got.Skills, tc.want.skills) {
				t.Errorf("skills = %+v, want %+v", got.Skills, tc.want.skills)
			}
			if d := diags(got); !slices.Equal(d, tc.want.diags) {
				t.Errorf("diagnostics = %v\nwant %v", d, tc.want.diags)
			}
			for _, d := range got.Diagnostics {
				if d.Message == "" || d.Remediation == "" {
					t.Errorf("diagnostic %+v lacks a message or a remediation", d)
				}
			}
			if testing.Verbose() {
				b, _ := json.MarshalIndent(got, "", "  ")
				t.Logf("%s", b)
			}
		})
	}
}

// planBody plans one request body in ns and returns the response and its
// wire bytes.
func planBody(t *testing.T, ns, body string) (intent.PlanResponse, string) {
	t.Helper()
	req, err := Decode([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	resp := Plan(context.Background(), k8s, ns, req)
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// TestPlanWire asserts on the marshalled bytes: arrays are never null.
func TestPlanWire(t *testing.T) {
	ns := workspace(t)
	_, clean := planBody(t, ns, `{"deployConfig": {"providers": [{"name": "default", "ref": "claude-prod"}]}}`)
	for _, want := range []string{`"diagnostics":[]`, `"skills":[]`, `"providers":[{"name":"default","ref":"claude-prod","role":"llm","resolved":true}]`,
		`"toolRegistry":{"mode":"none","resolved":true}`} {
		if !strings.Contains(clean, want) {
			t.Errorf("%s does not contain %s", clean, want)
		}
	}
	_, empty := planBody(t, ns, `{"arenaConfig": "kind: Arena\n"}`)
	for _, want := range []string{`"providers":[]`, `"skills":[]`, `"diagnostics":[{"code":"no_deploy_config","path":"deploy"`} {
		if !strings.Contains(empty, want) {
			t.Errorf("%s does not contain %s", empty, want)
		}
	}
	if strings.Contains(empty+clean, "null") {
		t.Errorf("a response carries null: %s %s", clean, empty)
	}
}

// TestPlanMessages pins the texts the spec gives or requires.
func TestPlanMessages(t *testing.T) {
	ns := workspace(t)
	find := func(r intent.PlanResponse, code string) intent.Diagnostic {
		t.Helper()
		for _, d := range r.Diagnostics {
			if d.Code == code {
				return d
			}
		}
		t.Fatalf("no %s in %+v", code, r.Diagnostics)
		return intent.Diagnostic{}
	}
	contains := func(what, s string, subs ...string) {
		t.Helper()
		for _, sub := range subs {
			if !strings.Contains(s, sub) {
				t.Errorf("%s %q does not contain %q", what, s, sub)
			}
		}
	}

	r, _ := planBody(t, ns, `{"deployConfig": {"providers": [{"name": "default", "ref": "claude-broken"}]}}`)
	d := find(r, CodeProviderNotReady)
	if d.Message != `provider "claude-broken" is not ready (phase: Error)` {
		t.Errorf("message = %q", d.Message)
	}
	if d.Remediation != "wait for Provider claude-broken to become Ready (phase: Error), or change the ref" {
		t.Errorf("remediation = %q", d.Remediation)
	}

	// The catalog's rule IDs and messages, through the plan.
	r, _ = planBody(t, ns, `{"deployConfig": {"providers": [{"name": "Bad", "ref": "claude-prod"}, {"name": "x", "ref": "claude-prod", "role": "chat"}, {"name": "Default", "ref": "claude-prod"}, {"name": "x", "ref": "claude-prod"}]}}`)
	contains("role", r.Diagnostics[1].Message, "[agentruntime/schema:spec.providers[].role:enum]", `"chat"`, `"embedding"`)
	// The third binding's message names its own index, though the first
	// was left out of the list it was judged in.
	contains("name", r.Diagnostics[2].Message, "[agentruntime/schema:spec.providers[].name:pattern]", "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "spec.providers[2].name")
	contains("duplicate", r.Diagnostics[3].Message, "[agentruntime/provider-names-unique]")
	if len(r.Diagnostics) != 4 {
		t.Errorf("diagnostics = %+v, want 4", r.Diagnostics)
	}
	r, _ = planBody(t, ns, `{"deployConfig": {"providers": [{"name": "e", "ref": "voyage", "role": "llm"}]}}`)
	d = find(r, CodeProviderRoleMismatch)
	contains("role mismatch", d.Message, "voyage", "embedding", "llm")
	contains("role mismatch remediation", d.Remediation, "role: embedding")

	r, _ = planBody(t, ns, `{"arenaConfig": "spec:\n  scenarios: []\n"}`)
	d = find(r, CodeNoDeployConfig)
	// The complete minimal block, naming a usable llm Provider of the
	// workspace (claude-new sorts first; claude-broken is not usable).
	contains("no_deploy_config remediation", d.Remediation, "provider: omnia", "providers: [{name: default, ref: claude-new, role: llm}]")

	r, _ = planBody(t, ns, `{"arenaConfig": "deploy:\n  config:\n    providers: [{name: default, ref: claude-prod}]\n"}`)
	contains("no_deploy_provider remediation", find(r, CodeNoDeployProvider).Remediation, "spec.deploy.provider: omnia")

	r, _ = planBody(t, ns, `{"arenaConfig": "spec:\n  deploy:\n    provider: omnia\n    environments:\n      staging:\n        config:\n          providers: [{name: default, ref: claude-new}]\n      production:\n        config:\n          providers: [{name: default, ref: claude-prod}, {name: judge, ref: claude-big}]\n"}`)
	contains("no_provider_bindings remediation", find(r, CodeNoProviderBindings).Remediation,
		"deploy.environments.production: default → claude-prod, judge → claude-big", "deploy.environments.staging: default → claude-new")
	r, _ = planBody(t, ns, `{"deployConfig": {}}`)
	if rem := find(r, CodeNoProviderBindings).Remediation; strings.Contains(rem, "environments") {
		t.Errorf("remediation names environments where there are none: %q", rem)
	}
}

// TestPlanFromCache plans through an informer cache, the reader the
// operator passes (mgr.GetClient()'s cache): objects created before the
// cache started are seen once it has synced.
func TestPlanFromCache(t *testing.T) {
	ns := workspace(t)
	c, err := cache.New(cfg, cache.Options{Scheme: scheme})
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		t.Fatal("cache did not sync")
	}
	req, err := Decode([]byte(`{"deployConfig": {"providers": [{"name": "default", "ref": "claude-prod"}, {"name": "x", "ref": "gone"}],
		"tool_registry_ref": "support-tools", "skills": [{"source": "policies"}]}}`))
	must(t, err)
	got := Plan(ctx, c, ns, req)
	want := []intent.PlanProvider{{Name: "default", Ref: "claude-prod", Role: "llm", Resolved: true}, {Name: "x", Ref: "gone", Role: "llm"}}
	if !slices.Equal(got.Providers, want) || !got.ToolRegistry.Resolved || !got.Skills[0].Resolved ||
		!slices.Equal(diags(got), []diag{{CodeProviderNotFound, "deploy.config.providers[1].ref"}}) {
		t.Errorf("plan from the cache = %+v", got)
	}
}
