package merge

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules/schema"
)

// stored is ar as the API server stores it: defaulted (and pruned) by the
// embedded CRD schema with the API server's own code. A live object in
// these tests always goes through it, so it carries every server default
// the desired object leaves unset.
func stored(t *testing.T, ar *v1alpha1.AgentRuntime) *v1alpha1.AgentRuntime {
	t.Helper()
	sv, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ar)
	if err != nil {
		t.Fatal(err)
	}
	u["apiVersion"], u["kind"] = v1alpha1.GroupVersion.String(), "AgentRuntime"
	res, err := sv.ValidateCreate(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	out := &v1alpha1.AgentRuntime{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(res.Object, out); err != nil {
		t.Fatal(err)
	}
	return out
}

const noteAnnotation = "example.com/note"

// liveAgent is an agent a first deploy made and others then edited: every
// Preserved field set by someone else.
func liveAgent() *v1alpha1.AgentRuntime {
	return &v1alpha1.AgentRuntime{
		ObjectMeta: metav1.ObjectMeta{
			Name: "support-bot", Namespace: "acme",
			Labels:      map[string]string{"team": "support"},
			Annotations: map[string]string{noteAnnotation: "kubectl"},
		},
		Spec: v1alpha1.AgentRuntimeSpec{
			PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "support-pack", Version: "1.0.0"},
			Providers: v1alpha1.AgentRuntimeProviders{
				{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "claude"}},
			},
			Framework: &v1alpha1.AgentRuntimeFramework{Image: "registry.example.com/promptkit:pinned"},
			Facades: []v1alpha1.AgentRuntimeFacade{{
				Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, Port: ptr.To[int32](9000), DrainTimeout: "45s",
				Image: "registry.example.com/facade:pinned", ClientToolTimeout: "90s",
				ExtraEnv: []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "debug"}},
				Expose:   &v1alpha1.AgentRuntimeFacadeExpose{Enabled: true, Host: "bot.example.com"},
			}},
			ToolRegistryRef: &v1alpha1.NamespacedObjectReference{Name: "support-tools"},
			A2AClients:      []v1alpha1.AgentRuntimeA2AClient{{Name: "billing", URL: "https://billing.example.com"}},
			Sandbox:         &v1alpha1.AgentRuntimeSandbox{Enabled: true},
			Context:         &v1alpha1.AgentRuntimeContext{TTL: "1h"},
			Media:           &v1alpha1.AgentRuntimeMedia{BasePath: "/data/media"},
			RateLimit:       &v1alpha1.AgentRuntimeRateLimit{MaxInvocationsPerMinute: ptr.To[int32](60)},
			Runtime: &v1alpha1.AgentRuntimeRuntime{
				Replicas:     ptr.To[int32](2),
				NodeSelector: map[string]string{"pool": "agents"},
				Tolerations:  []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}},
				Volumes:      []corev1.Volume{{Name: "media", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
				VolumeMounts: []corev1.VolumeMount{{Name: "media", MountPath: "/data/media"}},
				ExtraEnv:     []corev1.EnvVar{{Name: "LOG_SAMPLING", Value: "off"}},
				Events:       &v1alpha1.AgentRuntimeEvents{Record: "lifecycle"},
			},
			Evals:               &v1alpha1.AgentRuntimeEvals{Enabled: true},
			Memory:              &v1alpha1.AgentRuntimeMemory{Enabled: true},
			ExternalAuth:        &v1alpha1.AgentRuntimeExternalAuth{ClientKeys: &v1alpha1.AgentRuntimeClientKeys{}},
			Console:             &v1alpha1.AgentRuntimeConsole{MaxFiles: ptr.To[int32](3)},
			Duplex:              &v1alpha1.AgentRuntimeDuplex{Enabled: true},
			ServiceGroup:        "blue",
			PrivacyPolicyRef:    &v1alpha1.LocalObjectReference{Name: "strict"},
			ExtraPodAnnotations: map[string]string{"prometheus.io/scrape": "true"},
			PodOverrides:        &v1alpha1.PodOverrides{ServiceAccountName: "bot-sa"},
		},
	}
}

// desiredAgent is what the same intent translates to: only what an intent
// can express, nothing the API server would default.
func desiredAgent() *v1alpha1.AgentRuntime {
	return &v1alpha1.AgentRuntime{
		ObjectMeta: metav1.ObjectMeta{Name: "support-bot", Namespace: "acme"},
		Spec: v1alpha1.AgentRuntimeSpec{
			PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "support-pack", Version: "1.0.0"},
			Providers: v1alpha1.AgentRuntimeProviders{
				{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "claude"}},
			},
			Facades:         []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}},
			ToolRegistryRef: &v1alpha1.NamespacedObjectReference{Name: "support-tools"},
			Runtime:         &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](2)},
			Evals:           &v1alpha1.AgentRuntimeEvals{Enabled: true},
			Memory:          &v1alpha1.AgentRuntimeMemory{Enabled: true},
			ExternalAuth:    &v1alpha1.AgentRuntimeExternalAuth{ClientKeys: &v1alpha1.AgentRuntimeClientKeys{}},
		},
	}
}

// liveRollout is a manually driven canary, with every Preserved rollout
// sub-field set.
func liveRollout() *v1alpha1.AgentRuntimeRollout {
	return &v1alpha1.AgentRuntimeRollout{
		Candidate: &v1alpha1.AgentRuntimeRolloutCandidate{
			PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "support-pack", Version: "1.1.0"},
		},
		Steps:          []v1alpha1.AgentRuntimeRolloutStep{{SetWeight: ptr.To[int32](10)}, {Pause: &v1alpha1.AgentRuntimeRolloutPause{}}},
		StickySession:  &v1alpha1.AgentRuntimeRolloutStickySession{HashOn: "x-user-id"},
		Rollback:       &v1alpha1.AgentRuntimeRolloutRollback{Mode: "automatic"},
		TrafficRouting: &v1alpha1.AgentRuntimeRolloutTrafficRouting{Mode: "replicaWeighted"},
	}
}

func intentSteps() []v1alpha1.AgentRuntimeRolloutStep {
	return []v1alpha1.AgentRuntimeRolloutStep{{SetWeight: ptr.To[int32](50)}, {SetWeight: ptr.To[int32](100)}}
}

func stableTrigger() *v1alpha1.AgentRuntimeRolloutTrigger {
	return &v1alpha1.AgentRuntimeRolloutTrigger{PromptPackChannel: v1alpha1.AgentRuntimePromptPackTrackStable}
}

func eq(t *testing.T, what string, got, want any) {
	t.Helper()
	if !apiequality.Semantic.DeepEqual(got, want) {
		t.Errorf("%s: got %+v, want %+v", what, got, want)
	}
}

func TestMerge(t *testing.T) {
	cases := []struct {
		name        string
		live        func(*v1alpha1.AgentRuntime) // edits liveAgent() before it is stored
		desired     func(*v1alpha1.AgentRuntime) // edits desiredAgent()
		opts        Options
		wantChanged bool
		check       func(t *testing.T, live, merged *v1alpha1.AgentRuntime)
	}{
		// ---- no-op ----
		{
			name:        "no-op: the same intent again, live carrying server defaults desired leaves unset",
			wantChanged: false,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				// The defaults are really there in live only.
				f := live.Spec.Facades[0]
				if f.ManagementPlane == nil || f.DataPlane == nil || f.Handler != FacadeHandler || live.Spec.Runtime.Resources == nil ||
					live.Spec.Mode != v1alpha1.AgentRuntimeModeAgent || live.Spec.Memory.Retrieval == nil {
					t.Fatalf("live is not server-defaulted: %+v", live.Spec)
				}
				eq(t, "merged facades", merged.Spec.Facades[0].Port, ptr.To[int32](9000))
			},
		},
		{
			name:        "no-op: idle timeout unchanged",
			live:        func(ar *v1alpha1.AgentRuntime) { ar.Annotations[IdleTimeoutAnnotation] = "30m" },
			opts:        Options{IdleTimeout: "30m"},
			wantChanged: false,
		},
		{
			name: "no-op: desired's facade type unset equals live's defaulted websocket",
			desired: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.Facades[0].Type = ""
				ar.Spec.Facades[0].ManagementPlane = ptr.To(true)
			},
			wantChanged: false,
		},
		// ---- tier: Preserved (top level) ----
		{
			name: "preserved top-level fields keep the live values whatever desired holds",
			desired: func(ar *v1alpha1.AgentRuntime) {
				ar.Labels = map[string]string{"team": "other"}
				ar.Spec.Mode = v1alpha1.AgentRuntimeModeFunction
				ar.Spec.Framework = &v1alpha1.AgentRuntimeFramework{Image: "other"}
				ar.Spec.Context = &v1alpha1.AgentRuntimeContext{TTL: "5m"}
				ar.Spec.ServiceGroup = "red"
				ar.Spec.A2AClients = nil
				ar.Spec.Sandbox = nil
				ar.Spec.PodOverrides = &v1alpha1.PodOverrides{ServiceAccountName: "other"}
				ar.Spec.ExtraPodAnnotations = map[string]string{"a": "b"}
			},
			wantChanged: false,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				eq(t, "labels", merged.Labels, live.Labels)
				eq(t, "mode", merged.Spec.Mode, live.Spec.Mode)
				eq(t, "framework", merged.Spec.Framework, live.Spec.Framework)
				eq(t, "context", merged.Spec.Context, live.Spec.Context)
				eq(t, "serviceGroup", merged.Spec.ServiceGroup, "blue")
				eq(t, "a2aClients", merged.Spec.A2AClients, live.Spec.A2AClients)
				eq(t, "sandbox", merged.Spec.Sandbox, live.Spec.Sandbox)
				eq(t, "podOverrides", merged.Spec.PodOverrides, live.Spec.PodOverrides)
				eq(t, "extraPodAnnotations", merged.Spec.ExtraPodAnnotations, live.Spec.ExtraPodAnnotations)
				eq(t, "media", merged.Spec.Media, live.Spec.Media)
				eq(t, "console", merged.Spec.Console, live.Spec.Console)
				eq(t, "duplex", merged.Spec.Duplex, live.Spec.Duplex)
				eq(t, "rateLimit", merged.Spec.RateLimit, live.Spec.RateLimit)
				eq(t, "privacyPolicyRef", merged.Spec.PrivacyPolicyRef, live.Spec.PrivacyPolicyRef)
			},
		},
		// ---- tier: IntentOwned ----
		{
			name: "intent-owned fields are replaced wholesale",
			live: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.Memory.Facet = "project-x"
				ar.Spec.Providers[0].RequiredCapabilities = []v1alpha1.AgentRuntimeProviderCapability{"tools"}
			},
			desired: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.Providers = v1alpha1.AgentRuntimeProviders{
					{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "gpt"}},
					{Name: "judge", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "claude"}},
				}
				ar.Spec.ToolRegistryRef = &v1alpha1.NamespacedObjectReference{Name: "new-tools"}
				ar.Spec.Memory = &v1alpha1.AgentRuntimeMemory{Enabled: true, Retrieval: &v1alpha1.AgentRuntimeMemoryRetrieval{Strategy: "semantic"}}
				ar.Spec.Evals = &v1alpha1.AgentRuntimeEvals{Enabled: false}
				ar.Spec.ExternalAuth = &v1alpha1.AgentRuntimeExternalAuth{OIDC: &v1alpha1.AgentRuntimeOIDC{Issuer: "https://id.example.com", Audience: "bot"}}
			},
			wantChanged: true,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				eq(t, "providers", len(merged.Spec.Providers), 2)
				eq(t, "providers[0]", merged.Spec.Providers[0].ProviderRef.Name, "gpt")
				eq(t, "providers[0].requiredCapabilities (wholesale: cleared)", merged.Spec.Providers[0].RequiredCapabilities, []v1alpha1.AgentRuntimeProviderCapability(nil))
				eq(t, "toolRegistryRef", merged.Spec.ToolRegistryRef.Name, "new-tools")
				eq(t, "memory.facet (wholesale: cleared)", merged.Spec.Memory.Facet, "")
				eq(t, "memory.retrieval", merged.Spec.Memory.Retrieval, &v1alpha1.AgentRuntimeMemoryRetrieval{Strategy: "semantic"})
				eq(t, "evals", merged.Spec.Evals, &v1alpha1.AgentRuntimeEvals{Enabled: false})
				eq(t, "externalAuth", merged.Spec.ExternalAuth.ClientKeys, (*v1alpha1.AgentRuntimeClientKeys)(nil))
				eq(t, "externalAuth.oidc.issuer", merged.Spec.ExternalAuth.OIDC.Issuer, "https://id.example.com")
			},
		},
		{
			name: "intent-owned fields the intent omits are cleared (preserveUnset off)",
			desired: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.Memory, ar.Spec.Evals, ar.Spec.ExternalAuth, ar.Spec.ToolRegistryRef = nil, nil, nil, nil
			},
			wantChanged: true,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				eq(t, "memory", merged.Spec.Memory, (*v1alpha1.AgentRuntimeMemory)(nil))
				eq(t, "evals", merged.Spec.Evals, (*v1alpha1.AgentRuntimeEvals)(nil))
				eq(t, "externalAuth", merged.Spec.ExternalAuth, (*v1alpha1.AgentRuntimeExternalAuth)(nil))
				eq(t, "toolRegistryRef", merged.Spec.ToolRegistryRef, (*v1alpha1.NamespacedObjectReference)(nil))
			},
		},
		{
			name: "preserveUnset: memory, evals and externalAuth the intent leaves empty keep the live values; toolRegistryRef does not",
			live: func(ar *v1alpha1.AgentRuntime) { ar.Spec.Memory.Facet = "project-x" },
			desired: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.Memory, ar.Spec.Evals, ar.Spec.ExternalAuth, ar.Spec.ToolRegistryRef = nil, nil, nil, nil
			},
			opts:        Options{PreserveUnset: true},
			wantChanged: true,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				eq(t, "memory", merged.Spec.Memory, live.Spec.Memory)
				eq(t, "memory.facet", merged.Spec.Memory.Facet, "project-x")
				eq(t, "evals", merged.Spec.Evals, live.Spec.Evals)
				eq(t, "externalAuth", merged.Spec.ExternalAuth, live.Spec.ExternalAuth)
				eq(t, "toolRegistryRef", merged.Spec.ToolRegistryRef, (*v1alpha1.NamespacedObjectReference)(nil))
			},
		},
		{
			name: "preserveUnset: what the intent does set still replaces",
			live: func(ar *v1alpha1.AgentRuntime) { ar.Spec.Memory.Facet = "project-x" },
			desired: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.Memory = &v1alpha1.AgentRuntimeMemory{Enabled: false}
				ar.Spec.Evals = nil
			},
			opts:        Options{PreserveUnset: true},
			wantChanged: true,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				eq(t, "memory", merged.Spec.Memory, &v1alpha1.AgentRuntimeMemory{Enabled: false})
				eq(t, "evals", merged.Spec.Evals, live.Spec.Evals)
			},
		},
		// ---- tier: FieldMerged runtime ----
		{
			name: "runtime: replicas and resources from the intent, the rest kept",
			live: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.Runtime.Autoscaling = &v1alpha1.AgentRuntimeAutoscaling{Enabled: true}
				ar.Spec.Runtime.Affinity = &corev1.Affinity{}
			},
			desired: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{
					Replicas: ptr.To[int32](5),
					Resources: &corev1.ResourceRequirements{Requests: corev1.ResourceList{
						corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi"),
					}},
					NodeSelector: map[string]string{"pool": "ignored"},
				}
			},
			wantChanged: true,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				r := merged.Spec.Runtime
				eq(t, "replicas", r.Replicas, ptr.To[int32](5))
				eq(t, "resources.requests.cpu", r.Resources.Requests.Cpu().String(), "500m")
				eq(t, "nodeSelector", r.NodeSelector, live.Spec.Runtime.NodeSelector)
				eq(t, "tolerations", r.Tolerations, live.Spec.Runtime.Tolerations)
				eq(t, "affinity", r.Affinity, live.Spec.Runtime.Affinity)
				eq(t, "volumes", r.Volumes, live.Spec.Runtime.Volumes)
				eq(t, "volumeMounts", r.VolumeMounts, live.Spec.Runtime.VolumeMounts)
				eq(t, "extraEnv", r.ExtraEnv, live.Spec.Runtime.ExtraEnv)
				eq(t, "events", r.Events, live.Spec.Runtime.Events)
				eq(t, "autoscaling", r.Autoscaling, live.Spec.Runtime.Autoscaling)
			},
		},
		{
			name:        "runtime: replicas the intent omits go back to the server default",
			desired:     func(ar *v1alpha1.AgentRuntime) { ar.Spec.Runtime = nil },
			wantChanged: true,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				eq(t, "replicas", merged.Spec.Runtime.Replicas, (*int32)(nil))
				eq(t, "nodeSelector", merged.Spec.Runtime.NodeSelector, live.Spec.Runtime.NodeSelector)
			},
		},
		// ---- tier: FieldMerged facades ----
		{
			name: "facades: planes from the intent, live port, drainTimeout, image, extraEnv, clientToolTimeout and expose kept",
			desired: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.Facades[0].DataPlane = ptr.To(false)
				ar.Spec.Facades[0].ManagementPlane = ptr.To(true)
				ar.Spec.Facades[0].Port = ptr.To[int32](1234)
			},
			wantChanged: true,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				f, l := merged.Spec.Facades[0], live.Spec.Facades[0]
				eq(t, "dataPlane", f.DataPlane, ptr.To(false))
				eq(t, "managementPlane", f.ManagementPlane, ptr.To(true))
				eq(t, "port", f.Port, ptr.To[int32](9000))
				eq(t, "drainTimeout", f.DrainTimeout, l.DrainTimeout)
				eq(t, "image", f.Image, l.Image)
				eq(t, "extraEnv", f.ExtraEnv, l.ExtraEnv)
				eq(t, "clientToolTimeout", f.ClientToolTimeout, l.ClientToolTimeout)
				eq(t, "expose", f.Expose, l.Expose)
			},
		},
		{
			name: "facades: the handler is forced to runtime",
			live: func(ar *v1alpha1.AgentRuntime) { ar.Spec.Facades[0].Handler = "demo" },
			desired: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.Facades[0].Handler = "echo"
			},
			wantChanged: true,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				eq(t, "handler", merged.Spec.Facades[0].Handler, FacadeHandler)
			},
		},
		{
			name: "facades: a type the intent drops is removed with its settings; a kept type keeps its own",
			live: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.Facades = append(ar.Spec.Facades, v1alpha1.AgentRuntimeFacade{
					Type: v1alpha1.AgentRuntimeFacadeTypeA2A, A2A: &v1alpha1.AgentRuntimeFacadeA2A{TaskTTL: "2h"},
				})
			},
			desired: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.Facades = []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeA2A}}
			},
			wantChanged: true,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				eq(t, "len", len(merged.Spec.Facades), 1)
				eq(t, "type", merged.Spec.Facades[0].Type, v1alpha1.AgentRuntimeFacadeTypeA2A)
				eq(t, "a2a.taskTTL (live, matched by type)", merged.Spec.Facades[0].A2A.TaskTTL, "2h")
				eq(t, "port (live a2a facade's, defaulted)", merged.Spec.Facades[0].Port, ptr.To[int32](8080))
			},
		},
		{
			name: "facades: a type live does not have starts with only what the intent says",
			desired: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.Facades = append(ar.Spec.Facades, v1alpha1.AgentRuntimeFacade{Type: v1alpha1.AgentRuntimeFacadeTypeA2A, DataPlane: ptr.To(true)})
			},
			wantChanged: true,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				eq(t, "facades", merged.Spec.Facades[1], v1alpha1.AgentRuntimeFacade{
					Type: v1alpha1.AgentRuntimeFacadeTypeA2A, DataPlane: ptr.To(true), Handler: FacadeHandler,
				})
				eq(t, "websocket keeps its port", merged.Spec.Facades[0].Port, ptr.To[int32](9000))
			},
		},
		{
			name: "facades: reordered by the intent, each keeping its own live settings",
			live: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.Facades = append(ar.Spec.Facades, v1alpha1.AgentRuntimeFacade{
					Type: v1alpha1.AgentRuntimeFacadeTypeA2A, A2A: &v1alpha1.AgentRuntimeFacadeA2A{TaskTTL: "2h"},
				})
			},
			desired: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.Facades = []v1alpha1.AgentRuntimeFacade{
					{Type: v1alpha1.AgentRuntimeFacadeTypeA2A}, {Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket},
				}
			},
			wantChanged: true,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				eq(t, "order", []v1alpha1.AgentRuntimeFacadeType{merged.Spec.Facades[0].Type, merged.Spec.Facades[1].Type},
					[]v1alpha1.AgentRuntimeFacadeType{"a2a", "websocket"})
				eq(t, "a2a keeps its a2a block", merged.Spec.Facades[0].A2A.TaskTTL, "2h")
				eq(t, "websocket keeps its port", merged.Spec.Facades[1].Port, ptr.To[int32](9000))
			},
		},
		// ---- tier: FieldMerged promptPackRef (plain) ----
		{
			name: "promptPackRef: name and pin from the intent",
			desired: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "other-pack", Version: "2.0.0"}
			},
			wantChanged: true,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				eq(t, "promptPackRef", merged.Spec.PromptPackRef, &v1alpha1.AgentRuntimePromptPackRef{Name: "other-pack", Version: "2.0.0"})
			},
		},
		{
			name: "promptPackRef: no deploy writes track",
			desired: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.PromptPackRef.Track = v1alpha1.AgentRuntimePromptPackTrackPrerelease
			},
			wantChanged: false,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				eq(t, "promptPackRef", merged.Spec.PromptPackRef, &v1alpha1.AgentRuntimePromptPackRef{Name: "support-pack", Version: "1.0.0"})
			},
		},
		// ---- rollout interaction ----
		{
			name: "rollout: no rollout block leaves the live rollout untouched, a manually driven canary included",
			live: func(ar *v1alpha1.AgentRuntime) { ar.Spec.Rollout = liveRollout() },
			desired: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.Rollout = &v1alpha1.AgentRuntimeRollout{Steps: intentSteps(), Trigger: stableTrigger()}
			},
			opts:        Options{RolloutBlock: false},
			wantChanged: false,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				eq(t, "rollout", merged.Spec.Rollout, live.Spec.Rollout)
			},
		},
		{
			name: "rollout: no rollout block, live under a version trigger keeps its live pin",
			live: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.Rollout = liveRollout()
				ar.Spec.Rollout.Trigger = stableTrigger()
				ar.Spec.PromptPackRef.Version = "1.1.0" // advanced by the rollout controller
			},
			desired:     func(ar *v1alpha1.AgentRuntime) { ar.Spec.PromptPackRef.Version = "2.0.0" },
			wantChanged: false,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				eq(t, "version", merged.Spec.PromptPackRef.Version, "1.1.0")
				eq(t, "trigger", merged.Spec.Rollout.Trigger, stableTrigger())
			},
		},
		{
			name: "rollout: a block with no trigger clears the trigger and takes the pin from the intent; live sub-fields kept",
			live: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.Rollout = liveRollout()
				ar.Spec.Rollout.Trigger = stableTrigger()
				ar.Spec.PromptPackRef.Version = "1.1.0"
			},
			desired: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.PromptPackRef.Version = "2.0.0"
				ar.Spec.Rollout = &v1alpha1.AgentRuntimeRollout{Steps: intentSteps()}
			},
			opts:        Options{RolloutBlock: true},
			wantChanged: true,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				r := merged.Spec.Rollout
				eq(t, "trigger", r.Trigger, (*v1alpha1.AgentRuntimeRolloutTrigger)(nil))
				eq(t, "version", merged.Spec.PromptPackRef.Version, "2.0.0")
				eq(t, "steps", r.Steps, intentSteps())
				eq(t, "candidate", r.Candidate, live.Spec.Rollout.Candidate)
				eq(t, "stickySession", r.StickySession, live.Spec.Rollout.StickySession)
				eq(t, "rollback", r.Rollback, live.Spec.Rollout.Rollback)
				eq(t, "trafficRouting", r.TrafficRouting, live.Spec.Rollout.TrafficRouting)
			},
		},
		{
			name: "rollout: declaring a trigger enters trigger mode: the track is cleared and the pin comes from the intent",
			live: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "support-pack", Track: v1alpha1.AgentRuntimePromptPackTrackStable}
			},
			desired: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.PromptPackRef.Version = "2.0.0"
				ar.Spec.Rollout = &v1alpha1.AgentRuntimeRollout{Steps: intentSteps(), Trigger: stableTrigger()}
			},
			opts:        Options{RolloutBlock: true},
			wantChanged: true,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				eq(t, "promptPackRef", merged.Spec.PromptPackRef, &v1alpha1.AgentRuntimePromptPackRef{Name: "support-pack", Version: "2.0.0"})
				eq(t, "rollout", merged.Spec.Rollout, &v1alpha1.AgentRuntimeRollout{Steps: intentSteps(), Trigger: stableTrigger()})
			},
		},
		{
			name: "rollout: declaring a trigger on an agent already in trigger mode leaves the live pin with the controller",
			live: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.Rollout = liveRollout()
				ar.Spec.Rollout.Trigger = stableTrigger()
				ar.Spec.PromptPackRef.Version = "1.1.0"
			},
			desired: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.PromptPackRef.Version = "2.0.0"
				ar.Spec.Rollout = &v1alpha1.AgentRuntimeRollout{
					Steps:   intentSteps(),
					Trigger: &v1alpha1.AgentRuntimeRolloutTrigger{PromptPackChannel: v1alpha1.AgentRuntimePromptPackTrackPrerelease},
				}
			},
			opts:        Options{RolloutBlock: true},
			wantChanged: true,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				eq(t, "version", merged.Spec.PromptPackRef.Version, "1.1.0")
				eq(t, "trigger (the intent's)", merged.Spec.Rollout.Trigger.PromptPackChannel, v1alpha1.AgentRuntimePromptPackTrackPrerelease)
				eq(t, "steps (the intent's)", merged.Spec.Rollout.Steps, intentSteps())
				eq(t, "candidate (live)", merged.Spec.Rollout.Candidate, live.Spec.Rollout.Candidate)
			},
		},
		{
			name: "rollout: a track follower keeps following and gets no version",
			live: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "support-pack", Track: v1alpha1.AgentRuntimePromptPackTrackPrerelease}
			},
			desired:     func(ar *v1alpha1.AgentRuntime) { ar.Spec.PromptPackRef.Version = "2.0.0" },
			wantChanged: false,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				eq(t, "promptPackRef", merged.Spec.PromptPackRef,
					&v1alpha1.AgentRuntimePromptPackRef{Name: "support-pack", Track: v1alpha1.AgentRuntimePromptPackTrackPrerelease})
			},
		},
		{
			name: "rollout: a track follower keeps following under a rollout block without trigger",
			live: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "support-pack", Track: v1alpha1.AgentRuntimePromptPackTrackStable}
			},
			desired: func(ar *v1alpha1.AgentRuntime) {
				ar.Spec.PromptPackRef.Version = "2.0.0"
				ar.Spec.Rollout = &v1alpha1.AgentRuntimeRollout{Steps: intentSteps()}
			},
			opts:        Options{RolloutBlock: true},
			wantChanged: true,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				eq(t, "promptPackRef", merged.Spec.PromptPackRef,
					&v1alpha1.AgentRuntimePromptPackRef{Name: "support-pack", Track: v1alpha1.AgentRuntimePromptPackTrackStable})
				eq(t, "rollout", merged.Spec.Rollout, &v1alpha1.AgentRuntimeRollout{Steps: intentSteps()})
			},
		},
		// ---- idle-timeout annotation ----
		{
			name:        "idle timeout: set from the intent, other annotations untouched",
			opts:        Options{IdleTimeout: "45m"},
			wantChanged: true,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				eq(t, "annotations", merged.Annotations, map[string]string{noteAnnotation: "kubectl", IdleTimeoutAnnotation: "45m"})
			},
		},
		{
			name:        "idle timeout: a new value replaces the old",
			live:        func(ar *v1alpha1.AgentRuntime) { ar.Annotations[IdleTimeoutAnnotation] = "30m" },
			opts:        Options{IdleTimeout: "2h"},
			wantChanged: true,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				eq(t, "idle timeout", merged.Annotations[IdleTimeoutAnnotation], "2h")
			},
		},
		{
			name:        "idle timeout: removed when the intent has none, so the agent is never reaped",
			live:        func(ar *v1alpha1.AgentRuntime) { ar.Annotations[IdleTimeoutAnnotation] = "30m" },
			opts:        Options{},
			wantChanged: true,
			check: func(t *testing.T, live, merged *v1alpha1.AgentRuntime) {
				eq(t, "annotations", merged.Annotations, map[string]string{noteAnnotation: "kubectl"})
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := liveAgent()
			if tc.live != nil {
				tc.live(l)
			}
			live := stored(t, l)
			desired := desiredAgent()
			if tc.desired != nil {
				tc.desired(desired)
			}
			liveBefore, desiredBefore := live.DeepCopy(), desired.DeepCopy()

			merged, changed := Merge(live, desired, tc.opts)

			if changed != tc.wantChanged {
				t.Errorf("changed: got %v, want %v", changed, tc.wantChanged)
			}
			if tc.check != nil {
				tc.check(t, live, merged)
			}
			if !apiequality.Semantic.DeepEqual(live, liveBefore) || !apiequality.Semantic.DeepEqual(desired, desiredBefore) {
				t.Error("Merge modified its arguments")
			}
			// Every merged facade has the runtime handler; metadata other
			// than annotations is live's.
			for i, f := range merged.Spec.Facades {
				if f.Handler != FacadeHandler {
					t.Errorf("facades[%d].handler = %q, want %q", i, f.Handler, FacadeHandler)
				}
			}
			eq(t, "labels", merged.Labels, live.Labels)
			eq(t, "name", merged.Name, live.Name)
		})
	}
}

func TestMergeCreate(t *testing.T) {
	desired := desiredAgent()
	desired.Labels = map[string]string{"omnia.altairalabs.ai/dev": "true"}
	desired.Spec.PromptPackRef.Track = v1alpha1.AgentRuntimePromptPackTrackStable
	desired.Spec.Mode = v1alpha1.AgentRuntimeModeFunction
	desired.Spec.Rollout = &v1alpha1.AgentRuntimeRollout{Steps: intentSteps(), Trigger: stableTrigger()}

	merged, changed := Merge(nil, desired, Options{IdleTimeout: "30m", RolloutBlock: true})

	if !changed {
		t.Error("creating an agent must report changed")
	}
	eq(t, "labels (desired's on create)", merged.Labels, desired.Labels)
	eq(t, "annotations", merged.Annotations, map[string]string{IdleTimeoutAnnotation: "30m"})
	eq(t, "promptPackRef (track never written)", merged.Spec.PromptPackRef, &v1alpha1.AgentRuntimePromptPackRef{Name: "support-pack", Version: "1.0.0"})
	eq(t, "mode (Preserved: not the deploy's)", merged.Spec.Mode, v1alpha1.AgentRuntimeMode(""))
	eq(t, "rollout", merged.Spec.Rollout, &v1alpha1.AgentRuntimeRollout{Steps: intentSteps(), Trigger: stableTrigger()})
	eq(t, "facade handler", merged.Spec.Facades[0].Handler, FacadeHandler)
	eq(t, "providers", merged.Spec.Providers, desired.Spec.Providers)
}
