package workload

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// The spec's complete example (agentruntime.md#complete-example), with the
// Providers, pack and registry it names resolved, has the shape the spec
// lays out.
func TestCompleteExampleWorkload(t *testing.T) {
	ar := loadExample(t, "production-agent.yaml")
	r := resolved()
	r.PromptPack = &ResolvedPromptPack{PackName: "customer-service-prompts", Version: "2.1.0", ConfigMapName: "customer-service-prompts-2.1.0"}
	r.ToolRegistryName = "service-tools"
	r.Providers = map[string]ResolvedProvider{
		"default": {Provider: provider("claude-production", "claude-sonnet-4"), SecretKey: "ANTHROPIC_API_KEY"},
		"judge":   {Provider: provider("claude-haiku", "claude-haiku-4"), SecretKey: "api-key"},
	}

	d, dropped, err := Deployment(ar, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) != 0 {
		t.Errorf("dropped %v from an example with no extraEnv", dropped)
	}
	if d.APIVersion != "apps/v1" || d.Kind != "Deployment" || d.Name != "production-agent" || d.Namespace != "agents" {
		t.Errorf("Deployment identity = %s %s %s/%s", d.APIVersion, d.Kind, d.Namespace, d.Name)
	}
	if d.Spec.Replicas != nil {
		t.Errorf("replicas = %d; KEDA autoscaling is enabled, so the ScaledObject owns replicas and the Deployment must leave them unset", *d.Spec.Replicas)
	}
	pod := &d.Spec.Template.Spec
	var names []string
	for _, c := range pod.Containers {
		names = append(names, c.Name)
	}
	if !slices.Equal(names, []string{"facade", "runtime", "policy-broker"}) {
		t.Fatalf("containers = %v", names)
	}
	facade, runtime, broker := &pod.Containers[0], &pod.Containers[1], &pod.Containers[2]
	if facade.Image != r.FacadeImage || runtime.Image != r.RuntimeImage || broker.Image != r.PolicyBrokerImage {
		t.Errorf("images = %s, %s, %s", facade.Image, runtime.Image, broker.Image)
	}

	var fports []string
	for _, p := range facade.Ports {
		fports = append(fports, p.Name+":"+itoa(p.ContainerPort))
	}
	if want := []string{"facade:8080", "facade-mgmt:18080", "facade-health:18081"}; !slices.Equal(fports, want) {
		t.Errorf("facade ports = %v, want %v", fports, want)
	}

	// Resources: the runtime's replace the default; the facade and broker get the fixed requests.
	if got := runtime.Resources.Limits[corev1.ResourceMemory]; got.Cmp(resource.MustParse("512Mi")) != 0 {
		t.Errorf("runtime memory limit = %s, want the spec's 512Mi", got.String())
	}
	if got := runtime.Resources.Requests[corev1.ResourceCPU]; got.Cmp(resource.MustParse("500m")) != 0 {
		t.Errorf("runtime cpu request = %s, want the spec's 500m", got.String())
	}
	if got := facade.Resources.Requests[corev1.ResourceMemory]; got.Cmp(resource.MustParse("128Mi")) != 0 {
		t.Errorf("facade memory request = %s, want 128Mi", got.String())
	}
	if got := broker.Resources.Requests[corev1.ResourceCPU]; got.Cmp(resource.MustParse("50m")) != 0 {
		t.Errorf("broker cpu request = %s, want 50m", got.String())
	}

	for name, want := range map[string]string{
		EnvPackMode:          "static",
		EnvPromptPackName:    "customer-service-prompts",
		EnvPromptPackVersion: "2.1.0",
		EnvProviders:         "default,judge",
		EnvToolRegistryName:  "service-tools",
		EnvContextType:       "redis",
		EnvContextTTL:        "24h",
		ProviderEnvPrefix("default") + "PROVIDER": "claude-production",
		ProviderEnvPrefix("judge") + "PROVIDER":   "claude-haiku",
	} {
		if got, ok := literal(runtime, name); !ok || got != want {
			t.Errorf("runtime %s = %q (set %v), want %q", name, got, ok, want)
		}
	}
	for name, want := range map[string]string{
		EnvContextRedisURL:                       "redis-credentials/url",
		ProviderEnvPrefix("default") + "API_KEY": "claude-production-key/ANTHROPIC_API_KEY",
		ProviderEnvPrefix("judge") + "API_KEY":   "claude-haiku-key/api-key",
	} {
		if got := secretRef(runtime, name); got != want {
			t.Errorf("runtime %s from %q, want Secret %q", name, got, want)
		}
	}
	for _, name := range []string{EnvSessionTags, EnvSessionPackName} {
		if got, ok := literal(facade, name); !ok || got != "" {
			t.Errorf("facade %s = %q (set %v); the spec sets it empty, explicitly", name, got, ok)
		}
	}

	svc := Service(ar)
	var sports []string
	for _, p := range svc.Spec.Ports {
		sports = append(sports, p.Name+":"+itoa(p.Port))
	}
	if want := []string{"facade:8080", "facade-mgmt:18080"}; !slices.Equal(sports, want) {
		t.Errorf("Service ports = %v, want %v", sports, want)
	}
	if got := ServiceEndpoint(ar); got != "production-agent.agents.svc.cluster.local:8080" {
		t.Errorf("ServiceEndpoint = %q", got)
	}

	// With KEDA absent the agent runs its static replicas.
	r.KEDAUnavailable = true
	d, _, _ = Deployment(ar, r)
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 3 {
		t.Errorf("replicas without KEDA = %v, want runtime.replicas 3", d.Spec.Replicas)
	}
}

// provider is a claude Provider reading its key from the Secret <name>-key.
func provider(name, model string) *v1alpha1.Provider {
	return &v1alpha1.Provider{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "agents"},
		Spec: v1alpha1.ProviderSpec{
			Type:       v1alpha1.ProviderTypeClaude,
			Model:      model,
			Credential: &v1alpha1.ProviderCredential{SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: name + "-key"}},
		},
	}
}
