package workload

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// Reserved keys are dropped from the three extraEnv lists, reported with
// their field, and never reach a container; the operator's own values stay.
func TestReservedEnvDropped(t *testing.T) {
	cases := []struct {
		name        string
		mut         func(*v1alpha1.AgentRuntime)
		wantDropped []DroppedEnv
	}{
		{"no extraEnv", func(*v1alpha1.AgentRuntime) {}, nil},
		{"ordinary keys kept", func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{ExtraEnv: []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "debug"}}}
		}, nil},
		{"facade extraEnv", func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Facades[0].ExtraEnv = []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "debug"}, {Name: "OMNIA_SESSION_TAGS", Value: "kind:dev"}}
		}, []DroppedEnv{{Field: "spec.facades[0].extraEnv[1].name", Name: "OMNIA_SESSION_TAGS"}}},
		{"runtime extraEnv", func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{ExtraEnv: []corev1.EnvVar{{Name: "OMNIA_PACK_MODE", Value: "compile"}}}
		}, []DroppedEnv{{Field: "spec.runtime.extraEnv[0].name", Name: "OMNIA_PACK_MODE"}}},
		{"podOverrides extraEnv, reported once for both containers", func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.PodOverrides = &v1alpha1.PodOverrides{ExtraEnv: []corev1.EnvVar{{Name: "OMNIA_IDLE_TIMEOUT", Value: "1s"}}}
		}, []DroppedEnv{{Field: "spec.podOverrides.extraEnv[0].name", Name: "OMNIA_IDLE_TIMEOUT"}}},
		{"all three lists, in order", func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Facades[0].ExtraEnv = []corev1.EnvVar{{Name: "OMNIA_SESSION_PACK_NAME"}}
			ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{ExtraEnv: []corev1.EnvVar{{Name: "OMNIA_PACK_SOURCE_DIR"}, {Name: "OMNIA_PACK_OUT_DIR"}}}
			ar.Spec.PodOverrides = &v1alpha1.PodOverrides{ExtraEnv: []corev1.EnvVar{{Name: "OMNIA_PACK_CONFIG_FILE"}}}
		}, []DroppedEnv{
			{Field: "spec.facades[0].extraEnv[0].name", Name: "OMNIA_SESSION_PACK_NAME"},
			{Field: "spec.runtime.extraEnv[0].name", Name: "OMNIA_PACK_SOURCE_DIR"},
			{Field: "spec.runtime.extraEnv[1].name", Name: "OMNIA_PACK_OUT_DIR"},
			{Field: "spec.podOverrides.extraEnv[0].name", Name: "OMNIA_PACK_CONFIG_FILE"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod, dropped := mustDeployment(t, agent(tc.mut), resolved())
			if !slices.Equal(dropped, tc.wantDropped) {
				t.Errorf("dropped = %v, want %v", dropped, tc.wantDropped)
			}
			if got := ReservedEnvDropped(agent(tc.mut)); !slices.Equal(got, tc.wantDropped) {
				t.Errorf("ReservedEnvDropped = %v, want %v", got, tc.wantDropped)
			}
			facade, runtime := container(t, pod, ContainerFacade), container(t, pod, ContainerRuntime)
			// The operator's values of reserved keys are the only ones.
			if v, _ := literal(runtime, EnvPackMode); v != "static" {
				t.Errorf("runtime OMNIA_PACK_MODE = %q, want static", v)
			}
			for _, n := range []string{EnvSessionTags, EnvSessionPackName} {
				if v, ok := literal(facade, n); !ok || v != "" {
					t.Errorf("facade %s = %q (set %v), want an explicit empty value", n, v, ok)
				}
			}
			for _, c := range pod.Containers {
				for _, d := range tc.wantDropped {
					if e := env(&c, d.Name); e != nil && e.Value != "" && e.Value != "static" {
						t.Errorf("%s carries the user's %s=%q", c.Name, d.Name, e.Value)
					}
				}
				seen := map[string]bool{}
				for _, e := range c.Env {
					if seen[e.Name] {
						t.Errorf("%s has %s twice: server-side apply refuses duplicate env names", c.Name, e.Name)
					}
					seen[e.Name] = true
				}
			}
			if env(runtime, EnvIdleTimeout) != nil {
				t.Errorf("runtime has OMNIA_IDLE_TIMEOUT without the annotation")
			}
		})
	}
}

// User lists are appended: podOverrides.extraEnv after the container's own;
// the last entry of a name wins and keeps its place; a user entry replaces
// a non-reserved operator entry; the policy broker gets none of them.
func TestUserEnvMerge(t *testing.T) {
	ar := agent(func(ar *v1alpha1.AgentRuntime) {
		ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{ExtraEnv: []corev1.EnvVar{
			{Name: "B", Value: "runtime"}, {Name: "A", Value: "first"}, {Name: EnvContextTTL, Value: "1h"},
		}}
		ar.Spec.PodOverrides = &v1alpha1.PodOverrides{
			ExtraEnv:     []corev1.EnvVar{{Name: "A", Value: "override"}, {Name: "REF", Value: "$(B)"}},
			ExtraEnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}},
		}
	})
	pod, _ := mustDeployment(t, ar, resolved())
	runtime := container(t, pod, ContainerRuntime)
	var tail []string
	for _, e := range runtime.Env[len(runtime.Env)-4:] {
		tail = append(tail, e.Name+"="+e.Value)
	}
	if want := []string{"B=runtime", EnvContextTTL + "=1h", "A=override", "REF=$(B)"}; !slices.Equal(tail, want) {
		t.Errorf("runtime env tail = %v, want %v", tail, want)
	}
	facade := container(t, pod, ContainerFacade)
	if v, _ := literal(facade, "A"); v != "override" {
		t.Errorf("facade A = %q; podOverrides.extraEnv applies to the facade too", v)
	}
	if env(facade, "B") != nil {
		t.Errorf("facade has runtime.extraEnv's B")
	}
	for _, c := range []*corev1.Container{facade, runtime} {
		if len(c.EnvFrom) != 1 || c.EnvFrom[0].ConfigMapRef.Name != "cm" {
			t.Errorf("%s envFrom = %v", c.Name, c.EnvFrom)
		}
	}
	broker := container(t, pod, ContainerPolicyBroker)
	if env(broker, "A") != nil || len(broker.EnvFrom) != 0 {
		t.Errorf("policy-broker got podOverrides env: %v %v", broker.Env, broker.EnvFrom)
	}
	// Operator entries come first, in name order.
	var names []string
	for _, e := range runtime.Env[:len(runtime.Env)-4] {
		names = append(names, e.Name)
	}
	if !slices.IsSorted(names) {
		t.Errorf("operator env not sorted: %v", names)
	}
}

// The environment the spec names per topic.
func TestTopicEnv(t *testing.T) {
	type want struct {
		container, name, value, secret string
		absent                         bool
	}
	cases := []struct {
		name string
		mut  func(*v1alpha1.AgentRuntime, *Resolved)
		want []want
	}{
		{"context defaults to memory, 24h", func(*v1alpha1.AgentRuntime, *Resolved) {}, []want{
			{container: ContainerRuntime, name: EnvContextType, value: "memory"},
			{container: ContainerRuntime, name: EnvContextTTL, value: "24h"},
			{container: ContainerRuntime, name: EnvContextRedisURL, absent: true},
		}},
		{"no tool registry resolved: no tools", func(*v1alpha1.AgentRuntime, *Resolved) {}, []want{
			{container: ContainerRuntime, name: EnvToolRegistryName, absent: true},
		}},
		{"tool registry", func(_ *v1alpha1.AgentRuntime, r *Resolved) { r.ToolRegistryName = "tools" }, []want{
			{container: ContainerRuntime, name: EnvToolRegistryName, value: "tools"},
			{container: ContainerPolicyBroker, name: EnvToolRegistryName, value: "tools"},
		}},
		{"sandbox enabled", func(ar *v1alpha1.AgentRuntime, r *Resolved) {
			ar.Spec.Sandbox = &v1alpha1.AgentRuntimeSandbox{Enabled: true}
			r.SandboxAPIURL = "http://sandbox"
		}, []want{{container: ContainerRuntime, name: EnvSandboxAPIURL, value: "http://sandbox"}}},
		{"sandbox not enabled", func(ar *v1alpha1.AgentRuntime, r *Resolved) {
			ar.Spec.Sandbox = &v1alpha1.AgentRuntimeSandbox{}
			r.SandboxAPIURL = "http://sandbox"
		}, []want{{container: ContainerRuntime, name: EnvSandboxAPIURL, absent: true}}},
		{"media defaults: base path only", func(*v1alpha1.AgentRuntime, *Resolved) {}, []want{
			{container: ContainerRuntime, name: EnvMediaBasePath, value: "/etc/omnia/media"},
			{container: ContainerFacade, name: EnvMediaBasePath, value: "/etc/omnia/media"},
			{container: ContainerFacade, name: EnvMediaStorageType, absent: true},
		}},
		{"media storage none is explicit", func(ar *v1alpha1.AgentRuntime, _ *Resolved) {
			ar.Spec.Media = &v1alpha1.AgentRuntimeMedia{Storage: &v1alpha1.AgentRuntimeMediaStorage{Type: "none"}}
		}, []want{{container: ContainerFacade, name: EnvMediaStorageType, value: "none"}}},
		{"media s3 with credentials", func(ar *v1alpha1.AgentRuntime, _ *Resolved) {
			ar.Spec.Media = &v1alpha1.AgentRuntimeMedia{Storage: &v1alpha1.AgentRuntimeMediaStorage{
				Type: "s3", S3: &v1alpha1.AgentRuntimeMediaS3{Bucket: "media", Region: "eu-west-1"}, SecretRef: &v1alpha1.LocalObjectReference{Name: "s3-creds"},
			}}
		}, []want{
			{container: ContainerFacade, name: EnvMediaStorageType, value: "s3"},
			{container: ContainerRuntime, name: EnvMediaStorageS3Bucket, value: "media"},
			{container: ContainerFacade, name: EnvMediaStorageMaxFileSize, value: "104857600"},
			{container: ContainerFacade, name: EnvMediaStorageDefaultTTL, value: "24h"},
			{container: ContainerFacade, name: "AWS_SECRET_ACCESS_KEY", secret: "s3-creds/AWS_SECRET_ACCESS_KEY"},
		}},
		{"async with the operator's Secret copy", func(ar *v1alpha1.AgentRuntime, r *Resolved) {
			ar.Spec.Mode = v1alpha1.AgentRuntimeModeFunction
			ar.Spec.Facades = []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeREST, Async: &v1alpha1.AgentRuntimeFacadeAsync{Enabled: true, Workers: ptr.To[int32](4)}}}
			r.AsyncQueue = &AsyncQueue{SecretName: AsyncRedisSecretName(ar), URL: "redis://ignored"}
		}, []want{
			{container: ContainerFacade, name: EnvAsyncEnabled, value: "true"},
			{container: ContainerFacade, name: EnvAsyncWorkers, value: "4"},
			{container: ContainerFacade, name: EnvAsyncRedisURL, secret: "agent-support-async-redis/url"},
			{container: ContainerRuntime, name: EnvOutputFormat, value: "json_schema"},
		}},
		{"async without a queue backend stays off", func(ar *v1alpha1.AgentRuntime, _ *Resolved) {
			ar.Spec.Facades[0].Async = &v1alpha1.AgentRuntimeFacadeAsync{Enabled: true}
		}, []want{{container: ContainerFacade, name: EnvAsyncEnabled, absent: true}}},
		{"idle-timeout annotation switches renewal on", func(ar *v1alpha1.AgentRuntime, _ *Resolved) {
			ar.Annotations = map[string]string{"omnia.altairalabs.ai/idle-timeout": "30m"}
		}, []want{{container: ContainerFacade, name: EnvIdleTimeout, value: "30m"}}},
		{"invalid idle-timeout: no renewal", func(ar *v1alpha1.AgentRuntime, _ *Resolved) {
			ar.Annotations = map[string]string{"omnia.altairalabs.ai/idle-timeout": "soon"}
		}, []want{{container: ContainerFacade, name: EnvIdleTimeout, absent: true}}},
		{"primary facade settings and defaults", func(ar *v1alpha1.AgentRuntime, _ *Resolved) {
			ar.Spec.Facades[0].DrainTimeout = "45s"
		}, []want{
			{container: ContainerFacade, name: EnvHandler, value: "runtime"},
			{container: ContainerFacade, name: EnvDrainTimeout, value: "45s"},
			{container: ContainerFacade, name: EnvClientToolTimeout, value: "60s"},
			{container: ContainerFacade, name: EnvRuntimeAddress, value: "localhost:19000"},
		}},
		{"custom facade gets no drain or client-tool timeout", func(ar *v1alpha1.AgentRuntime, _ *Resolved) {
			ar.Spec.Facades = []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeCustom, Image: "me/f:1", DrainTimeout: "10s"}}
		}, []want{
			{container: ContainerFacade, name: EnvDrainTimeout, absent: true},
			{container: ContainerFacade, name: EnvClientToolTimeout, absent: true},
		}},
		{"provider credentials by kind", func(ar *v1alpha1.AgentRuntime, r *Resolved) {
			ar.Spec.Providers = v1alpha1.AgentRuntimeProviders{
				{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "p1"}},
				{Name: "tts-voice", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "p2"}, Role: "tts"},
				{Name: "unresolved", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "p3"}},
			}
			p2 := provider("p2", "")
			p2.Spec.Role = v1alpha1.ProviderRoleTTS
			p2.Spec.Credential = &v1alpha1.ProviderCredential{FilePath: "/var/run/key"}
			r.Providers = map[string]ResolvedProvider{"default": {Provider: provider("p1", "m")}, "tts-voice": {Provider: p2}}
		}, []want{
			{container: ContainerRuntime, name: EnvProviders, value: "default,tts-voice"},
			{container: ContainerRuntime, name: "OMNIA_PROVIDER_DEFAULT_API_KEY", absent: true}, // no key chosen yet
			{container: ContainerRuntime, name: "OMNIA_PROVIDER_DEFAULT_ROLE", value: "llm"},
			{container: ContainerRuntime, name: "OMNIA_PROVIDER_TTS_VOICE_ROLE", value: "tts"},
			{container: ContainerRuntime, name: "OMNIA_PROVIDER_TTS_VOICE_CREDENTIAL_FILE", value: "/var/run/key"},
			{container: ContainerRuntime, name: "OMNIA_PROVIDER_UNRESOLVED_TYPE", absent: true},
			{container: ContainerFacade, name: "OMNIA_PROVIDER_DEFAULT_TYPE", absent: true},
		}},
		{"secretRef.key used when no key was chosen", func(ar *v1alpha1.AgentRuntime, r *Resolved) {
			ar.Spec.Providers = v1alpha1.AgentRuntimeProviders{{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "p1"}}}
			p := provider("p1", "m")
			p.Spec.Credential.SecretRef.Key = "token"
			r.Providers = map[string]ResolvedProvider{"default": {Provider: p}}
		}, []want{{container: ContainerRuntime, name: "OMNIA_PROVIDER_DEFAULT_API_KEY", secret: "p1-key/token"}}},
		{"a2a redis task store", func(ar *v1alpha1.AgentRuntime, _ *Resolved) {
			ar.Spec.Facades = append(ar.Spec.Facades, v1alpha1.AgentRuntimeFacade{Type: v1alpha1.AgentRuntimeFacadeTypeA2A, A2A: &v1alpha1.AgentRuntimeFacadeA2A{
				TaskStore: &v1alpha1.AgentRuntimeA2ATaskStore{Type: "redis", RedisURL: "redis://x", RedisSecretRef: &v1alpha1.LocalObjectReference{Name: "tasks"}},
			}})
		}, []want{{container: ContainerFacade, name: EnvA2ATaskStoreURL, secret: "tasks/url"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := resolved()
			ar := agent(func(ar *v1alpha1.AgentRuntime) { tc.mut(ar, &r) })
			pod, _ := mustDeployment(t, ar, r)
			for _, w := range tc.want {
				c := container(t, pod, w.container)
				e := env(c, w.name)
				switch {
				case w.absent:
					if e != nil {
						t.Errorf("%s has %s=%q, want it absent", w.container, w.name, e.Value)
					}
				case w.secret != "":
					if got := secretRef(c, w.name); got != w.secret {
						t.Errorf("%s %s from Secret %q, want %q", w.container, w.name, got, w.secret)
					}
				default:
					if got, ok := literal(c, w.name); !ok || got != w.value {
						t.Errorf("%s %s = %q (set %v), want %q", w.container, w.name, got, ok, w.value)
					}
				}
			}
		})
	}
}

// TestReservedKeysShadowExtraEnvFrom: with podOverrides.extraEnvFrom, the
// facade and the runtime set every reserved key explicitly (the operator's
// value, else empty), so a ConfigMap or Secret naming one is overridden;
// without it the env carries only the operator's own reserved entries.
func TestReservedKeysShadowExtraEnvFrom(t *testing.T) {
	for _, tc := range []struct {
		name    string
		envFrom bool
		want    map[string]map[string]string // container → reserved key → value
	}{
		{"no extraEnvFrom", false, map[string]map[string]string{
			ContainerFacade:  {"OMNIA_SESSION_TAGS": "", "OMNIA_SESSION_PACK_NAME": ""},
			ContainerRuntime: {"OMNIA_PACK_MODE": "static"},
		}},
		{"extraEnvFrom a ConfigMap", true, map[string]map[string]string{
			ContainerFacade: {"OMNIA_SESSION_TAGS": "", "OMNIA_SESSION_PACK_NAME": "", "OMNIA_PACK_MODE": "", "OMNIA_PACK_SOURCE_DIR": "",
				"OMNIA_PACK_CONFIG_FILE": "", "OMNIA_PACK_OUT_DIR": "", "OMNIA_IDLE_TIMEOUT": ""},
			ContainerRuntime: {"OMNIA_SESSION_TAGS": "", "OMNIA_SESSION_PACK_NAME": "", "OMNIA_PACK_MODE": "static", "OMNIA_PACK_SOURCE_DIR": "",
				"OMNIA_PACK_CONFIG_FILE": "", "OMNIA_PACK_OUT_DIR": "", "OMNIA_IDLE_TIMEOUT": ""},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := loadExample(t, "production-agent.yaml")
			ar.Spec.PodOverrides = nil
			if tc.envFrom {
				ar.Spec.PodOverrides = &v1alpha1.PodOverrides{ExtraEnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "tenant-env"}}}}}
			}
			d, _, err := Deployment(ar, resolved())
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range d.Spec.Template.Spec.Containers {
				want, ok := tc.want[c.Name]
				if !ok {
					continue
				}
				got := map[string]string{}
				for _, e := range c.Env {
					if rules.AgentRuntimeReservedEnvKey(e.Name) {
						got[e.Name] = e.Value
					}
				}
				if !maps.Equal(got, want) {
					t.Errorf("%s reserved env = %v, want %v", c.Name, got, want)
				}
			}
		})
	}
}

// TestA2ABlockOnlyOnA2AFacade: an a2a.taskStore on a websocket facade does
// not configure the facade's task store; on the a2a facade it does.
func TestA2ABlockOnlyOnA2AFacade(t *testing.T) {
	store := &v1alpha1.AgentRuntimeFacadeA2A{TaskStore: &v1alpha1.AgentRuntimeA2ATaskStore{Type: v1alpha1.AgentRuntimeA2ATaskStoreRedis, RedisURL: "redis://r:6379"}}
	for _, tc := range []struct {
		typ  v1alpha1.AgentRuntimeFacadeType
		want string
	}{{v1alpha1.AgentRuntimeFacadeTypeA2A, "redis"}, {v1alpha1.AgentRuntimeFacadeTypeWebSocket, ""}} {
		ar := &v1alpha1.AgentRuntime{Spec: v1alpha1.AgentRuntimeSpec{Facades: []v1alpha1.AgentRuntimeFacade{{Type: tc.typ, A2A: store}}}}
		ar.Name, ar.Namespace = "a", "n"
		d, _, err := Deployment(ar, resolved())
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, e := range d.Spec.Template.Spec.Containers[0].Env {
			if e.Name == EnvA2ATaskStore {
				got = e.Value
			}
		}
		if got != tc.want {
			t.Errorf("%s facade: %s = %q, want %q", tc.typ, EnvA2ATaskStore, got, tc.want)
		}
	}
}

// TestA2AClientsDelivered: each resolved client is in OMNIA_A2A_CLIENTS
// with its endpoint, settings and token file; an agentRuntimeRef target
// gets the delegation audience and a url target none; the token Secret is
// an optional projection, so a missing one does not hold the pod; an
// unresolved client is left out.
func TestA2AClientsDelivered(t *testing.T) {
	ar := agent(func(a *v1alpha1.AgentRuntime) {
		a.Spec.A2AClients = []v1alpha1.AgentRuntimeA2AClient{
			{Name: "billing", AgentRuntimeRef: &v1alpha1.NamespacedObjectReference{Name: "billing-agent"}, ExposeAsTools: true, Timeout: "2m",
				Authentication: &v1alpha1.AgentRuntimeA2AClientAuthentication{SecretRef: &v1alpha1.LocalObjectReference{Name: "billing-agent-key"}}},
			{Name: "partner", URL: "https://partner.example.com/a2a"},
			{Name: "unresolved", AgentRuntimeRef: &v1alpha1.NamespacedObjectReference{Name: "missing"}},
		}
	})
	r := resolved()
	r.A2AClients = []ResolvedA2AClient{{Name: "billing", URL: "http://billing-agent.team-a.svc.cluster.local:9999"}, {Name: "partner", URL: "https://partner.example.com/a2a"}}
	d, _, err := Deployment(ar, r)
	if err != nil {
		t.Fatal(err)
	}
	spec := d.Spec.Template.Spec
	var raw string
	for _, c := range spec.Containers {
		for _, e := range c.Env {
			if e.Name == EnvA2AClients {
				if c.Name != ContainerRuntime {
					t.Errorf("%s gets %s", c.Name, EnvA2AClients)
				}
				raw = e.Value
			}
		}
	}
	var got []A2AClientConfig
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		t.Fatalf("%s = %q: %v", EnvA2AClients, raw, err)
	}
	want := []A2AClientConfig{
		{Name: "billing", URL: "http://billing-agent.team-a.svc.cluster.local:9999", ExposeAsTools: true, Timeout: "2m",
			TokenFile: A2ATokensMountPath + "/0.token", DelegationAudience: "agent-facade:team-a/billing-agent"},
		{Name: "partner", URL: "https://partner.example.com/a2a"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("clients = %+v, want %+v", got, want)
	}
	var vol *corev1.Volume
	for i := range spec.Volumes {
		if spec.Volumes[i].Name == VolumeA2ATokens {
			vol = &spec.Volumes[i]
		}
	}
	if vol == nil || len(vol.Projected.Sources) != 1 {
		t.Fatalf("a2a token volume = %+v, want one Secret source", vol)
	}
	src := vol.Projected.Sources[0].Secret
	if src.Name != "billing-agent-key" || src.Optional == nil || !*src.Optional || src.Items[0] != (corev1.KeyToPath{Key: "token", Path: "0.token"}) {
		t.Errorf("token source = %+v, want billing-agent-key's token as 0.token, optional", src)
	}
}
