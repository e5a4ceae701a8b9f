package workload

import (
	"os"
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// contractAgents are agents that, between them, switch on every feature the
// pod builder wires into a container: each facade type, async, the a2a
// task store, OIDC, media on each backend, the redis context store,
// sandboxes, function mode and the idle timeout.
const contractAgents = `
- metadata: {annotations: {omnia.altairalabs.ai/idle-timeout: 30m}}
  spec:
    facades:
      - {type: websocket, async: {enabled: true, workers: 2}}
      - {type: a2a, a2a: {taskStore: {type: redis, redisSecretRef: {name: tasks}}}}
      - {type: mcp}
    externalAuth: {oidc: {issuer: "https://issuer.example.com", audience: agents}}
    context: {type: redis, ttl: 1h, storeRef: {name: ctx}}
    sandbox: {enabled: true}
    media:
      basePath: /media
      storage: {type: s3, s3: {bucket: b, region: r, prefix: p, endpoint: "https://s3.example.com"}, defaultTTL: 1h, uploadURLTTL: 5m, downloadURLTTL: 5m}
- spec:
    mode: function
    facades: [{type: rest}]
    media: {storage: {type: local, local: {basePath: /data, volumeClaim: media}}}
- spec:
    facades: [{type: websocket}]
    media: {storage: {type: gcs, gcs: {bucket: b, prefix: p}}}
- spec:
    facades: [{type: websocket}]
    media: {storage: {type: azure, azure: {account: a, container: c, prefix: p}}}
- spec:
    facades: [{type: a2a}]
`

// contractResolved resolves everything the builder can use: a pack, a
// Provider per credential kind, tools with a serviceAccount handler, an
// async queue Secret, a JWKS Secret, the sandbox API and a platform tool.
func contractResolved(ar *v1alpha1.AgentRuntime) Resolved {
	r := resolved()
	r.PromptPack = &ResolvedPromptPack{PackName: "pack", Version: "1.0.0", ConfigMapName: "pack"}
	r.Providers = map[string]ResolvedProvider{}
	ar.Spec.Providers = nil
	for name, c := range map[string]*v1alpha1.ProviderCredential{
		"secret": {SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: "s"}}, "env": {EnvVar: "KEY"}, "file": {FilePath: "/k"},
	} {
		ar.Spec.Providers = append(ar.Spec.Providers, v1alpha1.AgentRuntimeProvider{Name: name, ProviderRef: v1alpha1.NamespacedObjectReference{Name: name}})
		r.Providers[name] = ResolvedProvider{Provider: &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeClaude, Model: "m", Credential: c}}, SecretKey: "api-key"}
	}
	tr := &v1alpha1.ToolRegistry{ObjectMeta: metav1.ObjectMeta{Name: "tools"}, Spec: v1alpha1.ToolRegistrySpec{Handlers: []v1alpha1.ToolRegistryHandler{{
		Name: "inv", Type: v1alpha1.ToolRegistryHandlerTypeHTTP,
		Auth: &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeServiceAccount, ServiceAccount: &v1alpha1.ToolRegistryServiceAccountAuth{Audience: "inv"}}}}}}
	r.ToolRegistryName, r.Tools = "tools", &ResolvedTools{Registry: tr, Credentials: rules.ToolCredentials(tr)}
	r.AsyncQueue = &AsyncQueue{SecretName: AsyncRedisSecretName(ar), Hash: "h", KeyPrefix: "async:ns:"}
	r.OIDCJWKSSecret = OIDCJWKSSecretName(ar)
	r.SandboxAPIURL = "https://omnia.example/sandbox"
	ar.Spec.A2AClients = []v1alpha1.AgentRuntimeA2AClient{{Name: "billing", AgentRuntimeRef: &v1alpha1.NamespacedObjectReference{Name: "billing"},
		Authentication: &v1alpha1.AgentRuntimeA2AClientAuthentication{SecretRef: &v1alpha1.LocalObjectReference{Name: "billing-key"}}}}
	r.A2AClients = []ResolvedA2AClient{{Name: "billing", URL: "http://billing.team-a.svc.cluster.local:9999"}}
	r.SessionAPIURL, r.MemoryAPIURL = "http://session.svc:8080", "http://memory.svc:8080"
	r.PlatformTools = []PlatformTool{{Name: "catalog_overview", InputSchema: []byte(`{}`)}}
	return r
}

// providerVar is a per-Provider variable: the doc names it with <NAME>.
var providerVar = regexp.MustCompile(`^OMNIA_PROVIDER_[A-Z0-9_]+?_(PROVIDER|TYPE|ROLE|MODEL|SPEC|API_KEY|CREDENTIAL_ENV|CREDENTIAL_FILE)$`)

// TestAgentPodContractListed: every variable, volume and mount path the
// builder gives a container of the spec's complete example, or of an agent
// per feature, is named in docs/agent-pod.md, the contract page.
func TestAgentPodContractListed(t *testing.T) {
	raw, err := os.ReadFile("../../../docs/agent-pod.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	listed := func(s string) bool { return strings.Contains(doc, "`"+s+"`") || strings.Contains(doc, "`"+s+" ") }
	var agents []*v1alpha1.AgentRuntime
	if err := yaml.UnmarshalStrict([]byte(contractAgents), &agents); err != nil {
		t.Fatal(err)
	}
	agents = append(agents, loadExample(t, "production-agent.yaml"))
	seen := map[string]bool{}
	for i, ar := range agents {
		ar.Name, ar.Namespace, ar.UID = "agent", "team-a", "uid"
		d, _, err := Deployment(ar, contractResolved(ar))
		if err != nil {
			t.Fatalf("agent %d: %v", i, err)
		}
		spec := &d.Spec.Template.Spec
		for _, v := range spec.Volumes {
			if rules.AgentRuntimeOperatorVolume(v.Name) {
				seen["volume "+v.Name] = true
			}
		}
		for _, c := range spec.Containers {
			for _, e := range c.Env {
				if strings.HasPrefix(e.Name, "OMNIA_") || strings.HasSuffix(e.Name, "_API_URL") {
					seen["env "+e.Name] = true
				}
			}
			for _, m := range c.VolumeMounts {
				if rules.AgentRuntimeOperatorVolume(m.Name) && m.Name != VolumeMedia {
					seen["mount "+m.MountPath] = true
				}
			}
		}
	}
	for _, want := range []string{"env " + EnvToolsConfigPath, "volume " + VolumeToolTokens, "env " + EnvA2ATaskStoreURL, "env " + EnvMediaStorageAzAccount, "env " + EnvMemoryAPIURL, "volume " + VolumeA2ATokens} {
		if !seen[want] {
			t.Errorf("the agents above do not exercise %s: the listing would pass vacuously", want)
		}
	}
	for item := range seen {
		name := item[strings.Index(item, " ")+1:]
		switch {
		case listed(name):
		case providerVar.MatchString(name):
			suffix := providerVar.FindStringSubmatch(name)[1]
			if !listed("OMNIA_PROVIDER_<NAME>_"+suffix) && !listed("_"+suffix) {
				t.Errorf("docs/agent-pod.md does not name %s (as OMNIA_PROVIDER_<NAME>_%s)", name, suffix)
			}
		case strings.HasPrefix(name, "OMNIA_MEDIA_STORAGE_") && listed("_"+strings.TrimPrefix(name, "OMNIA_MEDIA_STORAGE_")):
		case strings.HasPrefix(name, "OMNIA_") && strings.HasSuffix(name, "_PORT") && listed(name):
		default:
			t.Errorf("docs/agent-pod.md does not name the %s", item)
		}
	}
}
