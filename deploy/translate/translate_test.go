package translate

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/deploy/merge"
	"github.com/altairalabs/omnia/rules"
)

const secretValue = "ghp_s3cr3t-value-never-in-a-spec"

func eq[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %#v\n want %#v", what, got, want)
	}
}

func base() *intent.DeployIntent {
	return &intent.DeployIntent{
		APIVersion: intent.APIVersion,
		Pack:       intent.Pack{Name: "my-pack", Version: "v1.2.3", Content: `{"id":"my-pack"}`},
		Labels:     map[string]string{"team": "support", rules.PromptPackLabel: "spoof"},
		Agents: []intent.Agent{{
			Name:      "support-bot",
			Providers: []intent.AgentProvider{{Name: "default", Ref: "claude"}},
		}},
	}
}

func TestPackObjectName(t *testing.T) {
	cases := []struct{ pack, version, want string }{
		{"my-pack", "", "my-pack"},
		{"my-pack", "1.2.3", "my-pack-1.2.3"},
		{"my-pack", "1.0.0-rc.1", "my-pack-1.0.0-rc.1"},
		// build metadata and upper case cannot be in a name: sanitized,
		// with a hash of the version so +build and -build differ.
		{"my-pack", "1.0.0+gAAAA", "my-pack-1.0.0-gaaaa-" + hash8("1.0.0+gAAAA")},
		{"my-pack", "1.0.0-gaaaa", "my-pack-1.0.0-gaaaa"},
		{"my-pack", "+++", "my-pack-" + hash8("+++")},
		// Two dots make an empty DNS label: not a name as written.
		{"my-pack", "1..2", "my-pack-" + hash8("1..2")},
	}
	for _, c := range cases {
		if got := PackObjectName(c.pack, c.version); got != c.want {
			t.Errorf("PackObjectName(%q, %q) = %q, want %q", c.pack, c.version, got, c.want)
		}
	}
}

func hash8(v string) string {
	n := PackObjectName("x", v)
	return n[len(n)-8:]
}

func TestTranslate(t *testing.T) {
	cases := []struct {
		name   string
		intent func(in *intent.DeployIntent)
		check  func(t *testing.T, o *Objects)
	}{{
		name: "pack only: ConfigMap and PromptPack, version stripped, server labels win",
		check: func(t *testing.T, o *Objects) {
			eq(t, "configmap name", o.ConfigMap.Name, "my-pack-1.2.3-content")
			eq(t, "configmap namespace", o.ConfigMap.Namespace, "acme")
			eq(t, "configmap data", o.ConfigMap.Data, map[string]string{"pack.json": `{"id":"my-pack"}`})
			eq(t, "promptpack name", o.PromptPack.Name, "my-pack-1.2.3")
			eq(t, "promptpack spec", o.PromptPack.Spec, v1alpha1.PromptPackSpec{
				PackName: "my-pack", Version: "1.2.3",
				Source: v1alpha1.PromptPackContentSource{ConfigMapRef: &v1alpha1.LocalObjectReference{Name: "my-pack-1.2.3-content"}},
			})
			eq(t, "promptpack labels", o.PromptPack.Labels, map[string]string{"team": "support", rules.PromptPackLabel: "my-pack"})
			eq(t, "no registry", o.ToolRegistry, (*v1alpha1.ToolRegistry)(nil))
			eq(t, "no secret", o.Secret, (*corev1.Secret)(nil))
			eq(t, "no policy", o.ToolPolicy, (*v1alpha1.ToolPolicy)(nil))
		},
	}, {
		name:   "1.2.3 and v1.2.3 are the same version",
		intent: func(in *intent.DeployIntent) { in.Pack.Version = "1.2.3" },
		check: func(t *testing.T, o *Objects) {
			eq(t, "names", []string{o.PromptPack.Name, o.PromptPack.Spec.Version, o.Agents[0].Desired.Spec.PromptPackRef.Version},
				[]string{"my-pack-1.2.3", "1.2.3", "1.2.3"})
		},
	}, {
		name:   "a pack without a version is named after the pack (the spec's my-pack / my-pack-content)",
		intent: func(in *intent.DeployIntent) { in.Pack.Version = "" },
		check: func(t *testing.T, o *Objects) {
			eq(t, "names", []string{o.PromptPack.Name, o.ConfigMap.Name}, []string{"my-pack", "my-pack-content"})
			eq(t, "agent pin", o.Agents[0].Desired.Spec.PromptPackRef, &v1alpha1.AgentRuntimePromptPackRef{Name: "my-pack"})
		},
	}, {
		name: "pack skills and skillsConfig on the PromptPack",
		intent: func(in *intent.DeployIntent) {
			in.Pack.Skills = []intent.Skill{{Source: "policies", Include: []string{"refunds"}, MountAs: "team"}, {Source: "faq"}}
			in.Pack.SkillsConfig = &intent.SkillsConfig{MaxActive: ptr.To(int32(3)), Selector: "tags.has('billing')"}
		},
		check: func(t *testing.T, o *Objects) {
			eq(t, "skills", o.PromptPack.Spec.Skills, []v1alpha1.PromptPackSkill{
				{Source: "policies", Include: []string{"refunds"}, MountAs: "team"}, {Source: "faq"}})
			eq(t, "skillsConfig", o.PromptPack.Spec.SkillsConfig, &v1alpha1.PromptPackSkillsConfig{MaxActive: ptr.To(int32(3)), Selector: "tags.has('billing')"})
		},
	}, {
		name: "agent defaults: one websocket facade with handler runtime, role llm, pack ref, intent labels",
		check: func(t *testing.T, o *Objects) {
			a := o.Agents[0]
			eq(t, "err", a.Err, nil)
			eq(t, "create", a.Create, false)
			eq(t, "options", a.Options, merge.Options{})
			eq(t, "facades", a.Desired.Spec.Facades, []v1alpha1.AgentRuntimeFacade{{Type: "websocket", Handler: "runtime"}})
			eq(t, "providers", a.Desired.Spec.Providers, v1alpha1.AgentRuntimeProviders{{
				Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "claude"}, Role: "llm",
			}})
			eq(t, "pack ref", a.Desired.Spec.PromptPackRef, &v1alpha1.AgentRuntimePromptPackRef{Name: "my-pack", Version: "1.2.3"})
			eq(t, "labels", a.Desired.Labels, map[string]string{"team": "support", rules.PromptPackLabel: "spoof"})
			eq(t, "name", a.Desired.Name+"/"+a.Desired.Namespace, "support-bot/acme")
			eq(t, "no tools", a.Desired.Spec.ToolRegistryRef, (*v1alpha1.NamespacedObjectReference)(nil))
			eq(t, "no runtime", a.Desired.Spec.Runtime, (*v1alpha1.AgentRuntimeRuntime)(nil))
		},
	}, {
		name: "agent fields: facades, roles, externalAuth, memory, evals, rollout, create, preserveUnset, idleTimeout",
		intent: func(in *intent.DeployIntent) {
			a := &in.Agents[0]
			a.Create, a.PreserveUnset, a.IdleTimeout = ptr.To(true), ptr.To(true), "30m"
			a.Providers = append(a.Providers, intent.AgentProvider{Name: "embed", Ref: "openai-embed", Role: "embedding"})
			a.Facades = []intent.Facade{{Type: "a2a", DataPlane: ptr.To(false)}, {Type: "websocket", ManagementPlane: ptr.To(true)}}
			a.ExternalAuth = &intent.ExternalAuth{
				ClientKeys: &intent.ClientKeys{DefaultRole: "editor", TrustEndUserHeader: ptr.To(true)},
				OIDC:       &intent.OIDC{Issuer: "https://idp", Audience: "agents", ClaimMapping: &intent.ClaimMapping{Subject: "uid"}},
				EdgeTrust: &intent.EdgeTrust{HeaderMapping: &intent.HeaderMapping{Email: "x-mail"},
					ClaimsFromHeaders: map[string]string{"x-tenant": "tenant"}},
			}
			a.Memory = &intent.Memory{Enabled: ptr.To(true), Retrieval: &intent.MemoryRetrieval{
				Strategy: "semantic", Limit: ptr.To[int32](5), DenyCEL: "false"}, Tools: &intent.MemoryTools{Enabled: ptr.To(false)}}
			a.Evals = &intent.Evals{Enabled: ptr.To(true), WorkerGroups: []string{"external"}}
			a.Rollout = &intent.Rollout{Trigger: &intent.RolloutTrigger{PromptPackChannel: "stable"},
				Steps: []intent.RolloutStep{{SetWeight: ptr.To[int32](10)}, {PauseDuration: "5m"}}}
		},
		check: func(t *testing.T, o *Objects) {
			a := o.Agents[0]
			eq(t, "create", a.Create, true)
			eq(t, "options", a.Options, merge.Options{PreserveUnset: true, RolloutBlock: true, IdleTimeout: "30m"})
			s := a.Desired.Spec
			eq(t, "second provider role", s.Providers[1].Role, v1alpha1.AgentRuntimeProviderRole("embedding"))
			eq(t, "facades", s.Facades, []v1alpha1.AgentRuntimeFacade{
				{Type: "a2a", Handler: "runtime", DataPlane: ptr.To(false)},
				{Type: "websocket", Handler: "runtime", ManagementPlane: ptr.To(true)},
			})
			eq(t, "externalAuth", s.ExternalAuth, &v1alpha1.AgentRuntimeExternalAuth{
				ClientKeys: &v1alpha1.AgentRuntimeClientKeys{DefaultRole: "editor", TrustEndUserHeader: true},
				OIDC: &v1alpha1.AgentRuntimeOIDC{Issuer: "https://idp", Audience: "agents",
					ClaimMapping: &v1alpha1.AgentRuntimeOIDCClaimMapping{Subject: "uid"}},
				EdgeTrust: &v1alpha1.AgentRuntimeEdgeTrust{
					HeaderMapping:     &v1alpha1.AgentRuntimeEdgeTrustHeaderMapping{Email: "x-mail"},
					ClaimsFromHeaders: map[string]string{"x-tenant": "tenant"}},
			})
			eq(t, "memory", s.Memory, &v1alpha1.AgentRuntimeMemory{Enabled: true,
				Retrieval: &v1alpha1.AgentRuntimeMemoryRetrieval{Strategy: "semantic", Limit: ptr.To[int32](5),
					AccessFilter: &v1alpha1.AgentRuntimeMemoryAccessFilter{DenyCEL: "false"}},
				Tools: &v1alpha1.AgentRuntimeMemoryTools{Enabled: ptr.To(false)}})
			eq(t, "evals", s.Evals, &v1alpha1.AgentRuntimeEvals{Enabled: true,
				Worker: &v1alpha1.AgentRuntimeEvalsWorker{Groups: []string{"external"}}})
			eq(t, "rollout", s.Rollout, &v1alpha1.AgentRuntimeRollout{
				Trigger: &v1alpha1.AgentRuntimeRolloutTrigger{PromptPackChannel: "stable"},
				Steps: []v1alpha1.AgentRuntimeRolloutStep{{SetWeight: ptr.To[int32](10)},
					{Pause: &v1alpha1.AgentRuntimeRolloutPause{Duration: "5m"}}},
			})
		},
	}, {
		name: "runtime: replicas, cpu request only (memory keeps the default request), no limits",
		intent: func(in *intent.DeployIntent) {
			in.Agents[0].Runtime = &intent.Runtime{Replicas: ptr.To[int32](3), CPU: "500m"}
		},
		check: func(t *testing.T, o *Objects) {
			eq(t, "runtime", o.Agents[0].Desired.Spec.Runtime, &v1alpha1.AgentRuntimeRuntime{
				Replicas: ptr.To[int32](3),
				Resources: &corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")}},
			})
		},
	}, {
		name:   "runtime: memory is the request and the limit",
		intent: func(in *intent.DeployIntent) { in.Agents[0].Runtime = &intent.Runtime{Memory: "1Gi"} },
		check: func(t *testing.T, o *Objects) {
			eq(t, "resources", o.Agents[0].Desired.Spec.Runtime.Resources, &corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("1Gi")},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")},
			})
		},
	}, {
		name: "an unparsable quantity fails that agent only",
		intent: func(in *intent.DeployIntent) {
			in.Agents = append(in.Agents, intent.Agent{Name: "triage-bot", Runtime: &intent.Runtime{CPU: "lots"}})
		},
		check: func(t *testing.T, o *Objects) {
			eq(t, "first agent ok", o.Agents[0].Err, nil)
			a := o.Agents[1]
			if a.Err == nil || !strings.Contains(a.Err.Error(), `runtime.cpu "lots"`) || a.Desired != nil || a.Name != "triage-bot" {
				t.Errorf("want a runtime.cpu error on triage-bot and no desired object, got %+v", a)
			}
		},
	}, {
		name: "tools.ref: no registry; useTools binds the referenced registry; the policy selects it",
		intent: func(in *intent.DeployIntent) {
			in.Tools = &intent.Tools{Ref: "shared-tools"}
			in.Policy = &intent.Policy{ToolBlocklist: []string{"delete_repo", `we"ird`}}
			in.Agents[0].UseTools = ptr.To(true)
		},
		check: func(t *testing.T, o *Objects) {
			eq(t, "no registry", o.ToolRegistry, (*v1alpha1.ToolRegistry)(nil))
			eq(t, "no registry name", o.ToolRegistryName, "")
			eq(t, "ref", o.Agents[0].Desired.Spec.ToolRegistryRef, &v1alpha1.NamespacedObjectReference{Name: "shared-tools"})
			eq(t, "policy name", o.ToolPolicy.Name, "my-pack-tools-policy")
			eq(t, "policy selector", o.ToolPolicy.Spec.Selector.Registry, "shared-tools")
			eq(t, "blocklist", o.ToolPolicy.Spec.ToolBlocklist, []string{"delete_repo", `we"ird`})
		},
	}, {
		name: "useTools false binds nothing",
		intent: func(in *intent.DeployIntent) {
			in.Tools = &intent.Tools{Ref: "shared-tools"}
			in.Agents[0].UseTools = ptr.To(false)
		},
		check: func(t *testing.T, o *Objects) {
			eq(t, "ref", o.Agents[0].Desired.Spec.ToolRegistryRef, (*v1alpha1.NamespacedObjectReference)(nil))
		},
	}, {
		name: "handlers and credentials: typed blocks, references repointed only for supplied keys",
		intent: func(in *intent.DeployIntent) {
			in.Tools = &intent.Tools{Handlers: []intent.Handler{{
				Name: "github", Type: "http", Timeout: "10s",
				Tool: json.RawMessage(`{"name":"get_issue","description":"d","inputSchema":{"type":"object","x-free":{"any":1}}}`),
				HTTPConfig: json.RawMessage(`{"endpoint":"https://api.github.com","headersFromSecret":{
					"X-Token":{"name":"placeholder","key":"GITHUB_TOKEN"},
					"X-Other":{"name":"ops-secret","key":"OPS_KEY"}},
					"retryPolicy":{"maxAttempts":3}}`),
			}, {
				Name: "search", Type: "mcp",
				MCPConfig: json.RawMessage(`{"transport":"sse","endpoint":"https://mcp"}`),
				Auth:      json.RawMessage(`{"type":"bearer","secretRef":{"name":"x","key":"SEARCH_TOKEN"}}`),
			}, {
				Name: "docs", Type: "openapi",
				OpenAPIConfig: json.RawMessage(`{"specURL":"https://docs/openapi.json","authType":"bearer","authSecretRef":{"name":"docs-secret","key":"DOCS_TOKEN"}}`),
			}}}
			in.Credentials = &intent.Credentials{Data: map[string]string{"GITHUB_TOKEN": secretValue, "SEARCH_TOKEN": secretValue + "2"}}
			in.Agents[0].UseTools = ptr.To(true)
		},
		check: func(t *testing.T, o *Objects) {
			eq(t, "err", o.ToolRegistryErr, nil)
			eq(t, "registry name", o.ToolRegistry.Name, "my-pack-tools")
			eq(t, "registry name field", o.ToolRegistryName, "my-pack-tools")
			h := o.ToolRegistry.Spec.Handlers
			eq(t, "handlers", len(h), 3)
			eq(t, "timeout", h[0].Timeout, "10s")
			eq(t, "tool", h[0].Tool.Name, "get_issue")
			eq(t, "free-form schema kept", strings.Contains(string(h[0].Tool.InputSchema.Raw), `"x-free"`), true)
			eq(t, "retry", h[0].HTTPConfig.RetryPolicy.MaxAttempts, int32(3))
			eq(t, "supplied key repointed", h[0].HTTPConfig.HeadersFromSecret["X-Token"],
				v1alpha1.ToolRegistrySecretKeyRef{Name: "my-pack-tools-credentials", Key: "GITHUB_TOKEN"})
			eq(t, "unsupplied key left alone", h[0].HTTPConfig.HeadersFromSecret["X-Other"],
				v1alpha1.ToolRegistrySecretKeyRef{Name: "ops-secret", Key: "OPS_KEY"})
			eq(t, "auth secretRef repointed", *h[1].Auth.SecretRef,
				v1alpha1.ToolRegistrySecretKeyRef{Name: "my-pack-tools-credentials", Key: "SEARCH_TOKEN"})
			eq(t, "openapi legacy ref left alone", *h[2].OpenAPIConfig.AuthSecretRef,
				v1alpha1.ToolRegistrySecretKeyRef{Name: "docs-secret", Key: "DOCS_TOKEN"})
			eq(t, "secret", o.Secret.Name, "my-pack-tools-credentials")
			eq(t, "secret type", o.Secret.Type, corev1.SecretTypeOpaque)
			eq(t, "secret data verbatim", o.Secret.Data, map[string][]byte{
				"GITHUB_TOKEN": []byte(secretValue), "SEARCH_TOKEN": []byte(secretValue + "2")})
			eq(t, "agent bound to the created registry", o.Agents[0].Desired.Spec.ToolRegistryRef,
				&v1alpha1.NamespacedObjectReference{Name: "my-pack-tools"})
			// No credential value anywhere but the Secret's data.
			o.Secret = nil
			all, err := json.Marshal(o)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(all), "s3cr3t") {
				t.Errorf("a credential value is in an object other than the Secret: %s", all)
			}
		},
	}, {
		name: "an unknown key in a handler block names it",
		intent: func(in *intent.DeployIntent) {
			in.Tools = &intent.Tools{Handlers: []intent.Handler{
				{Name: "ok", Type: "mcp", MCPConfig: json.RawMessage(`{"transport":"sse","endpoint":"https://mcp"}`)},
				{Name: "bad", Type: "http", HTTPConfig: json.RawMessage(`{"endpoint":"https://x","endpont":"typo"}`)},
			}}
		},
		check: func(t *testing.T, o *Objects) {
			wantErr(t, o, "tools.handlers[1].httpConfig.endpont: unknown field")
			eq(t, "registry name still known", o.ToolRegistryName, "my-pack-tools")
		},
	}, {
		name: "a nested unknown key names its full path",
		intent: func(in *intent.DeployIntent) {
			in.Tools = &intent.Tools{Handlers: []intent.Handler{{Name: "h", Type: "http",
				HTTPConfig: json.RawMessage(`{"endpoint":"https://x","headersFromSecret":{"X-A":{"name":"s","key":"k","namespace":"other"}}}`)}}}
		},
		check: func(t *testing.T, o *Objects) {
			wantErr(t, o, "tools.handlers[0].httpConfig.headersFromSecret.X-A.namespace: unknown field")
		},
	}, {
		name: "keys are matched exactly, not case-insensitively as encoding/json would",
		intent: func(in *intent.DeployIntent) {
			in.Tools = &intent.Tools{Handlers: []intent.Handler{{Name: "h", Type: "grpc",
				GRPCConfig: json.RawMessage(`{"Endpoint":"host:443"}`)}}}
		},
		check: func(t *testing.T, o *Objects) { wantErr(t, o, "tools.handlers[0].grpcConfig.Endpoint: unknown field") },
	}, {
		name: "a type mismatch names the block and field",
		intent: func(in *intent.DeployIntent) {
			in.Tools = &intent.Tools{Handlers: []intent.Handler{{Name: "h", Type: "client",
				ClientConfig: json.RawMessage(`{"categories":"location"}`)}}}
		},
		check: func(t *testing.T, o *Objects) { wantErr(t, o, "tools.handlers[0].clientConfig: categories") },
	}, {
		name: "a null block is an absent block",
		intent: func(in *intent.DeployIntent) {
			in.Tools = &intent.Tools{Handlers: []intent.Handler{{Name: "h", Type: "mcp", Auth: json.RawMessage(`null`),
				MCPConfig: json.RawMessage(`{"transport":"sse","endpoint":"https://mcp"}`)}}}
		},
		check: func(t *testing.T, o *Objects) {
			eq(t, "err", o.ToolRegistryErr, nil)
			eq(t, "auth", o.ToolRegistry.Spec.Handlers[0].Auth, (*v1alpha1.ToolRegistryHandlerAuth)(nil))
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := base()
			if tc.intent != nil {
				tc.intent(in)
			}
			tc.check(t, Translate(in, "acme"))
		})
	}
}

func wantErr(t *testing.T, o *Objects, prefix string) {
	t.Helper()
	if o.ToolRegistryErr == nil || !strings.HasPrefix(o.ToolRegistryErr.Error(), prefix) {
		t.Errorf("ToolRegistryErr = %v, want it to start with %q", o.ToolRegistryErr, prefix)
	}
	if o.ToolRegistry != nil {
		t.Error("no registry is built from a handler that did not decode")
	}
}

// TestRepointCoversEverySecretReference walks ToolRegistryHandler for every
// ToolRegistrySecretKeyRef: a new Secret reference in the type fails here
// until repoint handles it.
func TestRepointCoversEverySecretReference(t *testing.T) {
	var paths []string
	var walk func(tp reflect.Type, path string, depth int)
	walk = func(tp reflect.Type, path string, depth int) {
		if depth > 8 {
			return
		}
		for tp.Kind() == reflect.Pointer || tp.Kind() == reflect.Slice || tp.Kind() == reflect.Map {
			if tp.Kind() == reflect.Map {
				path += ".*"
			}
			tp = tp.Elem()
		}
		if tp == reflect.TypeOf(v1alpha1.ToolRegistrySecretKeyRef{}) {
			paths = append(paths, path)
			return
		}
		if tp.Kind() != reflect.Struct || tp.PkgPath() != reflect.TypeOf(v1alpha1.ToolRegistry{}).PkgPath() {
			return
		}
		for name, ft := range jsonFields(tp) {
			walk(ft, path+"."+name, depth+1)
		}
	}
	walk(reflect.TypeOf(v1alpha1.ToolRegistryHandler{}), "", 0)
	sort.Strings(paths)
	eq(t, "secret reference paths repoint handles", paths, []string{
		".auth.secretRef", ".httpConfig.authSecretRef", ".httpConfig.headersFromSecret.*", ".openAPIConfig.authSecretRef",
	})
}
