package agentruntime

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// toolAuthRegistry is the spec's tool-auth example in namespace ns: a
// bearer handler with a header from a Secret, a basic handler, and a
// serviceAccount handler.
func toolAuthRegistry(ns string) *v1alpha1.ToolRegistry {
	tool := func(name string) *v1alpha1.ToolRegistryToolDefinition {
		return &v1alpha1.ToolRegistryToolDefinition{Name: name, Description: "calls " + name, InputSchema: runtime.RawExtension{Raw: []byte(`{"type":"object"}`)}}
	}
	return &v1alpha1.ToolRegistry{ObjectMeta: metav1.ObjectMeta{Name: "tools", Namespace: ns}, Spec: v1alpha1.ToolRegistrySpec{Handlers: []v1alpha1.ToolRegistryHandler{
		{Name: "crm", Type: v1alpha1.ToolRegistryHandlerTypeHTTP, Tool: tool("crm_lookup"),
			HTTPConfig: &v1alpha1.ToolRegistryHTTPConfig{Endpoint: "https://crm.example.com/v1/lookup",
				HeadersFromSecret: map[string]v1alpha1.ToolRegistrySecretKeyRef{"X-Api-Key": {Name: "crm-credentials", Key: "api-key"}}},
			Auth: &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeBearer, SecretRef: &v1alpha1.ToolRegistrySecretKeyRef{Name: "crm-credentials", Key: "token"}}},
		{Name: "billing", Type: v1alpha1.ToolRegistryHandlerTypeHTTP, Tool: tool("billing_lookup"),
			HTTPConfig: &v1alpha1.ToolRegistryHTTPConfig{Endpoint: "https://billing.example.com"},
			Auth:       &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeBasic, SecretRef: &v1alpha1.ToolRegistrySecretKeyRef{Name: "billing-credentials", Key: "userpass"}}},
		{Name: "inventory", Type: v1alpha1.ToolRegistryHandlerTypeHTTP, Tool: tool("inventory_lookup"),
			HTTPConfig: &v1alpha1.ToolRegistryHTTPConfig{Endpoint: "http://inventory.tools.svc:8080"},
			Auth: &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeServiceAccount,
				ServiceAccount: &v1alpha1.ToolRegistryServiceAccountAuth{Audience: "inventory.tools"}}},
	}}}
}

func toolSecret(ns, name string, optIn bool, data map[string]string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, StringData: data}
	if optIn {
		s.Labels = map[string]string{v1alpha1.ToolCredentialsLabel: v1alpha1.ToolCredentialsValue}
	}
	return s
}

// toolSecretsData is the agent's tool-secrets as strings; nil when absent.
func toolSecretsData(t *testing.T, ar *v1alpha1.AgentRuntime) map[string]string {
	t.Helper()
	s := &corev1.Secret{}
	err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ar.Namespace, Name: workload.ToolSecretsName(ar)}, s)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for k, v := range s.Data {
		out[k] = string(v)
	}
	return out
}

// TestToolCredentialsDelivered: the agent's tools ConfigMap names each
// handler's credential file and holds no value; <agentruntime>-tool-secrets
// holds every opted-in credential, follows a rotation, and loses a key
// whose source is deleted or not opted in (ToolCredentialsReady says
// which); the runtime gets the tools file, the credentials and an
// audience-bound token for the serviceAccount handler. Removing the
// registry removes both objects.
func TestToolCredentialsDelivered(t *testing.T) {
	ctx := context.Background()
	r, _ := newCountingReconciler(t)
	ar := createAgent(t, agent(func(a *v1alpha1.AgentRuntime) {
		a.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts"}
		a.Spec.Providers = []v1alpha1.AgentRuntimeProvider{{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "llm"}}}
		a.Spec.ToolRegistryRef = &v1alpha1.NamespacedObjectReference{Name: "tools"}
	}), "ar-tool-credentials")
	ns := ar.Namespace
	readyDeps(t, ns)
	for _, o := range []client.Object{toolAuthRegistry(ns),
		toolSecret(ns, "crm-credentials", true, map[string]string{"token": "crm-token-1", "api-key": "crm-key-1", "unused": "x"}),
		toolSecret(ns, "billing-credentials", false, map[string]string{"userpass": "bill:pw"}),
	} {
		if err := k8s.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	key := client.ObjectKeyFromObject(ar)
	secretValues := []string{"crm-token-1", "crm-key-1", "bill:pw", "crm-token-2"}

	got := reconcileAgent(t, r, key)
	if c := conditionOf(got, v1alpha1.AgentRuntimeConditionToolCredentialsReady); c != "False/"+v1alpha1.AgentRuntimeReasonToolCredentialSecretNotOptedIn {
		t.Errorf("ToolCredentialsReady = %s, want False/%s (billing-credentials is not labelled)", c, v1alpha1.AgentRuntimeReasonToolCredentialSecretNotOptedIn)
	}
	want := map[string]string{"crm.auth": "crm-token-1", "crm.header.X-Api-Key": "crm-key-1"}
	if d := toolSecretsData(t, got); !maps.Equal(d, want) {
		t.Fatalf("tool-secrets = %v, want %v (no value of a Secret that did not opt in, no key no handler names)", keysOf(d), keysOf(want))
	}

	cm := &corev1.ConfigMap{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: workload.ToolsConfigMapName(ar)}, cm); err != nil {
		t.Fatal(err)
	}
	raw := cm.Data[workload.ToolsConfigFile]
	for _, v := range secretValues {
		if strings.Contains(raw, v) {
			t.Errorf("the tools ConfigMap holds a credential value %q", v)
		}
	}
	var file workload.ToolsFile
	if err := yaml.Unmarshal([]byte(raw), &file); err != nil {
		t.Fatal(err)
	}
	auth := map[string]workload.ToolsFileAuth{}
	for _, h := range file.Handlers {
		auth[h.Name] = h.Auth
	}
	if a := auth["crm"]; a.Type != v1alpha1.ToolRegistryAuthTypeBearer || a.CredentialFile != workload.ToolSecretsMountPath+"/crm.auth" {
		t.Errorf("crm auth = %+v", a)
	}
	if a := auth["billing"]; a.CredentialFile != workload.ToolSecretsMountPath+"/billing.auth" {
		t.Errorf("billing auth = %+v: its file is named even while absent, so the runtime refuses instead of calling unauthenticated", a)
	}
	if a := auth["inventory"]; a.TokenFile != workload.ToolTokensMountPath+"/inventory.token" || a.Audience != "inventory.tools" {
		t.Errorf("inventory auth = %+v", a)
	}

	d := &appsv1.Deployment{}
	if err := k8s.Get(ctx, key, d); err != nil {
		t.Fatal(err)
	}
	assertToolsPod(t, ar, &d.Spec.Template.Spec)

	// Accepted once labelled; rotated when the source changes.
	billing := &corev1.Secret{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "billing-credentials"}, billing); err != nil {
		t.Fatal(err)
	}
	billing.Labels = map[string]string{v1alpha1.ToolCredentialsLabel: v1alpha1.ToolCredentialsValue}
	if err := k8s.Update(ctx, billing); err != nil {
		t.Fatal(err)
	}
	crm := &corev1.Secret{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "crm-credentials"}, crm); err != nil {
		t.Fatal(err)
	}
	crm.Data["token"] = []byte("crm-token-2")
	if err := k8s.Update(ctx, crm); err != nil {
		t.Fatal(err)
	}
	got = reconcileAgent(t, r, key)
	if c := conditionOf(got, v1alpha1.AgentRuntimeConditionToolCredentialsReady); c != "True/"+v1alpha1.AgentRuntimeReasonToolCredentialsResolved {
		t.Errorf("ToolCredentialsReady = %s after the opt-in", c)
	}
	want = map[string]string{"crm.auth": "crm-token-2", "crm.header.X-Api-Key": "crm-key-1", "billing.auth": "bill:pw"}
	if d := toolSecretsData(t, got); !maps.Equal(d, want) {
		t.Fatalf("tool-secrets after rotation = %v, want the rotated token and billing's credential", keysOf(d))
	}

	// Deleted source: its keys go, they are not kept.
	if err := k8s.Delete(ctx, crm); err != nil {
		t.Fatal(err)
	}
	got = reconcileAgent(t, r, key)
	if c := conditionOf(got, v1alpha1.AgentRuntimeConditionToolCredentialsReady); c != "False/"+v1alpha1.AgentRuntimeReasonToolCredentialSecretNotFound {
		t.Errorf("ToolCredentialsReady = %s after deleting crm-credentials", c)
	}
	if d := toolSecretsData(t, got); !maps.Equal(d, map[string]string{"billing.auth": "bill:pw"}) {
		t.Fatalf("tool-secrets after deleting the source = %v, want billing.auth only", keysOf(d))
	}
	for _, v := range secretValues {
		for _, c := range got.Status.Conditions {
			if strings.Contains(c.Message, v) {
				t.Errorf("condition %s names a credential value", c.Type)
			}
		}
	}

	// No registry: both objects are removed.
	got.Spec.ToolRegistryRef = nil
	if err := k8s.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	got = reconcileAgent(t, r, key)
	if d := toolSecretsData(t, got); d != nil {
		t.Errorf("tool-secrets still exists without a ToolRegistry: %v", keysOf(d))
	}
	err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: workload.ToolsConfigMapName(ar)}, &corev1.ConfigMap{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("tools ConfigMap without a ToolRegistry: %v", err)
	}
	if c := conditionOf(got, v1alpha1.AgentRuntimeConditionToolCredentialsReady); c != "True/"+v1alpha1.AgentRuntimeReasonNoToolCredentials {
		t.Errorf("ToolCredentialsReady = %s without a registry", c)
	}
}

// assertToolsPod checks the runtime container gets the tools file, the
// credentials and the serviceAccount handler's token, read-only, and the
// facade none of them.
func assertToolsPod(t *testing.T, ar *v1alpha1.AgentRuntime, spec *corev1.PodSpec) {
	t.Helper()
	vols := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		vols[v.Name] = v
	}
	if v := vols[workload.VolumeTools]; v.ConfigMap == nil || v.ConfigMap.Name != workload.ToolsConfigMapName(ar) {
		t.Errorf("tools volume = %+v", v)
	}
	if v := vols[workload.VolumeToolSecrets]; v.Secret == nil || v.Secret.SecretName != workload.ToolSecretsName(ar) {
		t.Errorf("tool-secrets volume = %+v", v)
	}
	tok := vols[workload.VolumeToolTokens]
	if tok.Projected == nil || len(tok.Projected.Sources) != 1 || tok.Projected.Sources[0].ServiceAccountToken == nil ||
		tok.Projected.Sources[0].ServiceAccountToken.Audience != "inventory.tools" {
		t.Fatalf("tool token volume = %+v", tok)
	}
	for _, c := range spec.Containers {
		var mounted []string
		for _, m := range c.VolumeMounts {
			if strings.HasPrefix(m.Name, "omnia-tool") {
				if !m.ReadOnly {
					t.Errorf("%s mounts %s writable", c.Name, m.Name)
				}
				mounted = append(mounted, m.Name+"="+m.MountPath)
			}
		}
		slices.Sort(mounted)
		var env string
		for _, e := range c.Env {
			if e.Name == workload.EnvToolsConfigPath {
				env = e.Value
			}
		}
		if c.Name == workload.ContainerRuntime {
			want := []string{"omnia-tool-secrets=/etc/omnia/tool-secrets", "omnia-tool-tokens=/var/run/secrets/omnia/tool-tokens", "omnia-tools=/etc/omnia/tools"}
			if !slices.Equal(mounted, want) || env != "/etc/omnia/tools/tools.yaml" {
				t.Errorf("runtime mounts %v, %s=%q; want %v and the tools file", mounted, workload.EnvToolsConfigPath, env, want)
			}
		} else if len(mounted) > 0 || env != "" {
			t.Errorf("container %s gets the tools: %v %q", c.Name, mounted, env)
		}
	}
}

// keysOf lists a map's keys, never its values (they are credentials).
func keysOf(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
