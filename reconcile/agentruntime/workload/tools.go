package workload

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// The agent's tools (toolregistry.md § Authenticating tools), with the
// upstream operator's names so the published runtime finds them: the tools
// file is key tools.yaml of the ConfigMap <agentruntime>-tools, mounted at
// /etc/omnia/tools (OMNIA_TOOLS_CONFIG_PATH names the file); the handlers'
// Secret credentials are in <agentruntime>-tool-secrets, mounted read-only
// at /etc/omnia/tool-secrets; a serviceAccount handler's audience-bound
// token is projected at /var/run/secrets/omnia/tool-tokens/<handler>.token.
// The file says, per handler, which of those files holds its credential,
// and never holds a credential itself.
const (
	EnvToolsConfigPath = "OMNIA_TOOLS_CONFIG_PATH"

	VolumeTools       = "omnia-tools"
	VolumeToolSecrets = "omnia-tool-secrets"
	VolumeToolTokens  = "omnia-tool-tokens"

	ToolsMountPath       = "/etc/omnia/tools"
	ToolsConfigFile      = "tools.yaml"
	ToolSecretsMountPath = "/etc/omnia/tool-secrets"
	ToolTokensMountPath  = "/var/run/secrets/omnia/tool-tokens"

	// toolTokenSeconds is a tool token's lifetime; the kubelet refreshes
	// it at 80%, so the runtime reads the file per call.
	toolTokenSeconds = 3600
)

// ToolsConfigMapName is the agent's tools ConfigMap.
func ToolsConfigMapName(ar *v1alpha1.AgentRuntime) string { return ar.Name + "-tools" }

// ToolSecretsName is the agent's tool credential Secret.
func ToolSecretsName(ar *v1alpha1.AgentRuntime) string { return ar.Name + "-tool-secrets" }

// ResolvedTools is the agent's ToolRegistry, once it is in the agent's
// namespace.
type ResolvedTools struct {
	// Registry is the ToolRegistry.
	Registry *v1alpha1.ToolRegistry
	// Credentials are rules.ToolCredentials(Registry): the tools file
	// names each one's file, present in the tool-secrets only while it is
	// usable.
	Credentials []rules.ToolCredential
	// Usable holds, by Key, the credentials rules.ToolCredentialProblem
	// found nothing wrong with: only these are copied into the
	// tool-secrets.
	Usable map[string]bool
}

// ToolsFile is tools.yaml: the registry and its handlers as the runtime
// calls them. Platform handlers are not in it (OMNIA_PLATFORM_TOOLS).
type ToolsFile struct {
	Registry ToolsFileRegistry  `json:"registry"`
	Handlers []ToolsFileHandler `json:"handlers"`
}

// ToolsFileRegistry names the registry the file was rendered from.
type ToolsFileRegistry struct {
	Name       string `json:"name"`
	Namespace  string `json:"namespace"`
	Generation int64  `json:"generation"`
}

// ToolsFileHandler is one handler: its spec, with every Secret reference
// replaced by the file that holds the value.
type ToolsFileHandler struct {
	Name          string                                  `json:"name"`
	Type          v1alpha1.ToolRegistryHandlerType        `json:"type"`
	Tool          *v1alpha1.ToolRegistryToolDefinition    `json:"tool,omitempty"`
	HTTPConfig    *v1alpha1.ToolRegistryHTTPConfig        `json:"httpConfig,omitempty"`
	GRPCConfig    *v1alpha1.ToolRegistryGRPCConfig        `json:"grpcConfig,omitempty"`
	MCPConfig     *v1alpha1.ToolRegistryMCPConfig         `json:"mcpConfig,omitempty"`
	OpenAPIConfig *v1alpha1.ToolRegistryOpenAPIConfig     `json:"openAPIConfig,omitempty"`
	ClientConfig  *v1alpha1.ToolRegistryClientConfig      `json:"clientConfig,omitempty"`
	Sandbox       *v1alpha1.ToolRegistryHandlerSandbox    `json:"sandbox,omitempty"`
	Delegation    *v1alpha1.ToolRegistryHandlerDelegation `json:"delegation,omitempty"`
	Timeout       string                                  `json:"timeout,omitempty"`
	Auth          ToolsFileAuth                           `json:"auth"`
	// HeadersFromFiles maps a header name to the file holding its value
	// (httpConfig.headersFromSecret). A file that is absent means the
	// credential is not usable: the runtime refuses the call.
	HeadersFromFiles map[string]string `json:"headersFromFiles,omitempty"`
}

// ToolsFileAuth is how the runtime authenticates the handler's calls.
type ToolsFileAuth struct {
	// Type is the effective auth type (auth.type, else the deprecated
	// authType): none, bearer, basic, serviceAccount or workloadIdentity.
	Type v1alpha1.ToolRegistryAuthType `json:"type"`
	// CredentialFile holds the bearer token or "username:password" (bearer,
	// basic). Absent file: refuse the call, never send it unauthenticated.
	CredentialFile string `json:"credentialFile,omitempty"`
	// TokenFile holds the projected ServiceAccount token (serviceAccount),
	// bound to Audience; sent as Authorization: Bearer.
	TokenFile string `json:"tokenFile,omitempty"`
	Audience  string `json:"audience,omitempty"`
	// WorkloadIdentity is the spec's block, as given (workloadIdentity).
	WorkloadIdentity *v1alpha1.ToolRegistryWorkloadIdentityAuth `json:"workloadIdentity,omitempty"`
}

// RenderToolsFile renders tools.yaml for t. It reads only the spec: a
// credential's usability changes the tool-secrets, never this file.
func RenderToolsFile(t *ResolvedTools) ([]byte, error) {
	tr := t.Registry
	f := ToolsFile{Registry: ToolsFileRegistry{Name: tr.Name, Namespace: tr.Namespace, Generation: tr.Generation}, Handlers: []ToolsFileHandler{}}
	files := map[string]string{} // handler + "\x00" + header → file
	for _, c := range t.Credentials {
		files[c.Handler+"\x00"+c.Header] = ToolSecretsMountPath + "/" + c.Key
	}
	for i := range tr.Spec.Handlers {
		h := tr.Spec.Handlers[i].DeepCopy()
		if h.Type == v1alpha1.ToolRegistryHandlerTypePlatform {
			continue
		}
		out := ToolsFileHandler{Name: h.Name, Type: h.Type, Tool: h.Tool, HTTPConfig: h.HTTPConfig, GRPCConfig: h.GRPCConfig,
			MCPConfig: h.MCPConfig, OpenAPIConfig: h.OpenAPIConfig, ClientConfig: h.ClientConfig, Sandbox: h.Sandbox,
			Delegation: h.Delegation, Timeout: h.Timeout}
		out.Auth = ToolsFileAuth{Type: rules.ToolAuthType(h), CredentialFile: files[h.Name+"\x00"]}
		if a := h.Auth; a != nil {
			if a.Type == v1alpha1.ToolRegistryAuthTypeServiceAccount && a.ServiceAccount != nil {
				out.Auth.TokenFile, out.Auth.Audience = ToolTokensMountPath+"/"+toolTokenFile(h.Name), a.ServiceAccount.Audience
			}
			out.Auth.WorkloadIdentity = a.WorkloadIdentity
		}
		if c := out.HTTPConfig; c != nil {
			for name := range c.HeadersFromSecret {
				if out.HeadersFromFiles == nil {
					out.HeadersFromFiles = map[string]string{}
				}
				out.HeadersFromFiles[name] = files[h.Name+"\x00"+name]
			}
			c.HeadersFromSecret, c.AuthSecretRef, c.AuthType = nil, nil, ""
		}
		if c := out.OpenAPIConfig; c != nil {
			c.AuthSecretRef, c.AuthType = nil, ""
		}
		f.Handlers = append(f.Handlers, out)
	}
	return yaml.Marshal(f)
}

// ToolsConfigMap is <agentruntime>-tools holding data as tools.yaml.
func ToolsConfigMap(ar *v1alpha1.AgentRuntime, data []byte) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: ObjectMeta(ar, ToolsConfigMapName(ar)),
		Data:       map[string]string{ToolsConfigFile: string(data)},
	}
}

// ToolSecrets is <agentruntime>-tool-secrets holding data (key: the
// credential's rules.ToolCredential.Key). hash, a digest of data salted
// with the agent's UID, lets the controller skip an unchanged write.
func ToolSecrets(ar *v1alpha1.AgentRuntime, data map[string][]byte, hash string) *corev1.Secret {
	s := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: ObjectMeta(ar, ToolSecretsName(ar)),
		Type:       corev1.SecretTypeOpaque,
		Data:       data,
	}
	s.Annotations = map[string]string{ToolSecretsHashAnnotation: hash}
	return s
}

// ToolSecretsHashAnnotation is the digest of the tool-secrets' data, on
// that Secret.
const ToolSecretsHashAnnotation = "omnia.altairalabs.ai/tool-secrets-hash"

// toolTokenFile is a serviceAccount handler's token file name.
func toolTokenFile(handler string) string { return handler + ".token" }

// toolVolumes are the runtime's tools volumes: the tools file, the
// credentials and, when a handler asks for one, the projected tokens.
func toolVolumes(ar *v1alpha1.AgentRuntime, t *ResolvedTools) []corev1.Volume {
	if t == nil {
		return nil
	}
	vols := []corev1.Volume{
		{Name: VolumeTools, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: ToolsConfigMapName(ar)}, DefaultMode: ptrInt32(0o444)}}},
		{Name: VolumeToolSecrets, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: ToolSecretsName(ar), DefaultMode: ptrInt32(0o440)}}},
	}
	var tokens []corev1.VolumeProjection
	for i := range t.Registry.Spec.Handlers {
		h := &t.Registry.Spec.Handlers[i]
		// A token the API server would accept is never projected: the
		// runtime runs the tenant's image (rules.ToolAudienceIsKubeAPI).
		if a := h.Auth; a != nil && a.Type == v1alpha1.ToolRegistryAuthTypeServiceAccount && a.ServiceAccount != nil &&
			a.ServiceAccount.Audience != "" && !rules.ToolAudienceIsKubeAPI(a.ServiceAccount.Audience, nil) {
			tokens = append(tokens, corev1.VolumeProjection{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{
				Audience: a.ServiceAccount.Audience, ExpirationSeconds: ptr.To[int64](toolTokenSeconds), Path: toolTokenFile(h.Name)}})
		}
	}
	if len(tokens) > 0 {
		vols = append(vols, corev1.Volume{Name: VolumeToolTokens, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
			DefaultMode: ptrInt32(0o440), Sources: tokens}}})
	}
	return vols
}

// toolMounts are the runtime's mounts of toolVolumes, all read-only.
func toolMounts(vols []corev1.Volume) []corev1.VolumeMount {
	paths := map[string]string{VolumeTools: ToolsMountPath, VolumeToolSecrets: ToolSecretsMountPath, VolumeToolTokens: ToolTokensMountPath}
	out := make([]corev1.VolumeMount, 0, len(vols))
	for _, v := range vols {
		out = append(out, corev1.VolumeMount{Name: v.Name, MountPath: paths[v.Name], ReadOnly: true})
	}
	return out
}

// toolsEnv names the tools file.
func toolsEnv(e envSet, t *ResolvedTools) {
	if t != nil {
		e.lit(EnvToolsConfigPath, ToolsMountPath+"/"+ToolsConfigFile)
	}
}
