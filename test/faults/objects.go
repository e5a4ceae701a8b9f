package faults

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// What the stream writes in its namespace. Each group i is a Provider, a
// ToolRegistry and an AgentRuntime using both (plus the namespace's one
// PromptPack and credential Secret, created before the stream). Every spec
// is a function of (group, version) only, so two runs of the stream write
// the same objects. The Providers' baseURL is a plain-http address on
// loopback: the operator sends no credential probe over plain http, so
// they go Ready with nothing listening and nothing leaving the machine;
// the ToolRegistries have one client-side tool, which is never probed.
const (
	credentialSecret = "stream-credentials"
	packName         = "stream-pack"
	packVersion      = "1.0.0"
	vendorURL        = "http://127.0.0.1:9/v1"
)

// Kinds the stream writes, in the order of a group.
const (
	KindProvider     = "Provider"
	KindToolRegistry = "ToolRegistry"
	KindAgentRuntime = "AgentRuntime"
)

// streamKinds are the kinds compared and re-checked after a run.
var streamKinds = []string{KindProvider, KindToolRegistry, KindAgentRuntime}

// objectName is the name of group i's object of kind.
func objectName(kind string, i int) string {
	switch kind {
	case KindProvider:
		return fmt.Sprintf("provider-%d", i)
	case KindToolRegistry:
		return fmt.Sprintf("tools-%d", i)
	default:
		return fmt.Sprintf("agent-%d", i)
	}
}

// invalidName is the name of the j-th invalid object (it must never exist).
func invalidName(kind string, j int) string {
	return fmt.Sprintf("invalid-%s-%d", map[string]string{KindProvider: "provider", KindToolRegistry: "tools", KindAgentRuntime: "agent"}[kind], j)
}

// prerequisites are created in each namespace before the stream.
func prerequisites(ns string) []client.Object {
	return []client.Object{
		&corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: credentialSecret},
			StringData: map[string]string{"ANTHROPIC_API_KEY": "sk-faults-not-a-key"},
		},
		&corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: packName},
			Data:       map[string]string{"pack.json": fmt.Sprintf(`{"id": %q, "version": %q}`, packName, packVersion)},
		},
		&v1alpha1.PromptPack{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: packName, Labels: map[string]string{rules.PromptPackLabel: packName}},
			Spec: v1alpha1.PromptPackSpec{PackName: packName, Version: packVersion,
				Source: v1alpha1.PromptPackContentSource{ConfigMapRef: &v1alpha1.LocalObjectReference{Name: packName}}},
		},
	}
}

// validObject is group i's object of kind at spec version v (0 on create;
// each update writes the next version).
func validObject(ns, kind string, i, v int) client.Object {
	meta := metav1.ObjectMeta{Namespace: ns, Name: objectName(kind, i)}
	switch kind {
	case KindProvider:
		return &v1alpha1.Provider{ObjectMeta: meta, Spec: v1alpha1.ProviderSpec{
			Type:       v1alpha1.ProviderTypeClaude,
			Model:      "claude-sonnet-4-20250514",
			BaseURL:    vendorURL,
			Credential: &v1alpha1.ProviderCredential{SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: credentialSecret}},
			Defaults:   &v1alpha1.ProviderDefaults{RequestTimeout: fmt.Sprintf("%ds", 30+v)},
		}}
	case KindToolRegistry:
		return &v1alpha1.ToolRegistry{ObjectMeta: meta, Spec: v1alpha1.ToolRegistrySpec{
			Handlers: []v1alpha1.ToolRegistryHandler{{
				Name: "geo", Type: v1alpha1.ToolRegistryHandlerTypeClient,
				Tool: &v1alpha1.ToolRegistryToolDefinition{
					Name: "get_location", Description: fmt.Sprintf("where the user is (version %d)", v),
					InputSchema: runtime.RawExtension{Raw: []byte(`{"type":"object"}`)},
				},
			}},
		}}
	default:
		return &v1alpha1.AgentRuntime{ObjectMeta: meta, Spec: v1alpha1.AgentRuntimeSpec{
			PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: packName, Version: packVersion},
			Providers: []v1alpha1.AgentRuntimeProvider{{Name: "default",
				ProviderRef: v1alpha1.NamespacedObjectReference{Name: objectName(KindProvider, i)}}},
			ToolRegistryRef: &v1alpha1.NamespacedObjectReference{Name: objectName(KindToolRegistry, i)},
			Facades: []v1alpha1.AgentRuntimeFacade{{
				Type:     v1alpha1.AgentRuntimeFacadeTypeWebSocket,
				ExtraEnv: []corev1.EnvVar{{Name: "STREAM_VERSION", Value: fmt.Sprint(v)}},
			}},
		}}
	}
}

// invalidObject is an object of kind the webhook must refuse: each breaks
// an admission rule of severity deny that the API server's schema does not
// hold (so it is the webhook, not the CRD, that refuses it). It is group
// i's valid object with one field spoiled, so it serves both as an invalid
// create (under invalidName) and as an invalid update of a stored object.
func invalidObject(ns, kind string, i int, name string) client.Object {
	obj := validObject(ns, kind, i, 0)
	obj.SetName(name)
	switch o := obj.(type) {
	case *v1alpha1.Provider:
		o.Spec.Defaults.RequestTimeout = "soon" // provider/defaults-timeout-duration
	case *v1alpha1.ToolRegistry:
		o.Spec.Handlers[0].Timeout = "fast" // toolregistry/duration-format
	case *v1alpha1.AgentRuntime:
		o.Spec.Facades[0].ExtraEnv = append(o.Spec.Facades[0].ExtraEnv, corev1.EnvVar{Name: "OMNIA_PACK_MODE", Value: "x"}) // agentruntime/reserved-env-key
	}
	return obj
}

// newObject returns an empty object of kind, to read into.
func newObject(kind string) client.Object {
	switch kind {
	case KindProvider:
		return &v1alpha1.Provider{}
	case KindToolRegistry:
		return &v1alpha1.ToolRegistry{}
	default:
		return &v1alpha1.AgentRuntime{}
	}
}

// newList returns an empty list of kind.
func newList(kind string) client.ObjectList {
	switch kind {
	case KindProvider:
		return &v1alpha1.ProviderList{}
	case KindToolRegistry:
		return &v1alpha1.ToolRegistryList{}
	default:
		return &v1alpha1.AgentRuntimeList{}
	}
}

// copySpec sets stored's spec to want's (both of one kind).
func copySpec(stored, want client.Object) error {
	switch s := stored.(type) {
	case *v1alpha1.Provider:
		s.Spec = want.(*v1alpha1.Provider).Spec
	case *v1alpha1.ToolRegistry:
		s.Spec = want.(*v1alpha1.ToolRegistry).Spec
	case *v1alpha1.AgentRuntime:
		s.Spec = want.(*v1alpha1.AgentRuntime).Spec
	default:
		return fmt.Errorf("faults: no spec to copy on %T", stored)
	}
	return nil
}

// listItems returns a list's objects.
func listItems(list client.ObjectList) ([]client.Object, error) {
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	out := make([]client.Object, 0, len(items))
	for _, it := range items {
		o, ok := it.(client.Object)
		if !ok {
			return nil, fmt.Errorf("faults: %T is not an object", it)
		}
		out = append(out, o)
	}
	return out, nil
}
