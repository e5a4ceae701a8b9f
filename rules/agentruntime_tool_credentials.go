package rules

import (
	"slices"
	"sort"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// ToolCredential is one credential a ToolRegistry handler reads from a
// Secret, and where the agent's <agentruntime>-tool-secrets holds it.
type ToolCredential struct {
	// Handler is the handler's name.
	Handler string
	// Header is the HTTP header a headersFromSecret entry sets; empty for
	// the handler's auth credential (bearer or basic).
	Header string
	// Key is the key of <agentruntime>-tool-secrets, and the file name
	// under the mounted directory: "<handler>.auth" for the auth
	// credential, "<handler>.header.<Header>" for a header (the header name
	// when it is a valid Secret key, else "<handler>.header-<n>", n its
	// index in the handler's sorted header names).
	Key string
	// SecretName and SecretKey are the source: a Secret in the agent's
	// namespace.
	SecretName, SecretKey string
	// Path is the field that names the source, for messages.
	Path *field.Path
}

// ToolCredentials lists, in handler order, every credential the
// registry's handlers read from a Secret: auth.secretRef of a bearer or
// basic handler, the deprecated httpConfig/openAPIConfig authSecretRef, and
// each httpConfig.headersFromSecret entry (by header name). It is the one
// list the controller copies into <agentruntime>-tool-secrets, the tools
// file points at, and the rule agentruntime/tool-credentials-usable judges.
// auth.connectionRef is not listed: a Connection's credential is delivered
// by its own checks (HandlerConnectionsValid).
func ToolCredentials(tr *v1alpha1.ToolRegistry) []ToolCredential {
	if tr == nil {
		return nil
	}
	var out []ToolCredential
	handlers := field.NewPath("spec", "handlers")
	for i := range tr.Spec.Handlers {
		h := &tr.Spec.Handlers[i]
		hp := handlers.Index(i)
		if ref, p := toolAuthSecretRef(h, hp); ref != nil {
			out = append(out, ToolCredential{Handler: h.Name, Key: h.Name + ".auth", SecretName: ref.Name, SecretKey: ref.Key, Path: p})
		}
		if h.HTTPConfig == nil || len(h.HTTPConfig.HeadersFromSecret) == 0 {
			continue
		}
		names := make([]string, 0, len(h.HTTPConfig.HeadersFromSecret))
		for name := range h.HTTPConfig.HeadersFromSecret {
			names = append(names, name)
		}
		sort.Strings(names)
		for n, name := range names {
			ref := h.HTTPConfig.HeadersFromSecret[name]
			key := h.Name + ".header." + name
			if len(validation.IsConfigMapKey(key)) > 0 {
				key = h.Name + ".header-" + strconv.Itoa(n)
			}
			out = append(out, ToolCredential{Handler: h.Name, Header: name, Key: key, SecretName: ref.Name, SecretKey: ref.Key,
				Path: hp.Child("httpConfig", "headersFromSecret").Key(name)})
		}
	}
	return out
}

// toolAuthSecretRef is the Secret a handler's bearer or basic credential
// comes from: auth.secretRef, else the deprecated authSecretRef (which the
// spec normalises into the auth stanza).
func toolAuthSecretRef(h *v1alpha1.ToolRegistryHandler, hp *field.Path) (*v1alpha1.ToolRegistrySecretKeyRef, *field.Path) {
	if a := h.Auth; a != nil {
		if (a.Type == v1alpha1.ToolRegistryAuthTypeBearer || a.Type == v1alpha1.ToolRegistryAuthTypeBasic) && a.SecretRef != nil {
			return a.SecretRef, hp.Child("auth", "secretRef")
		}
		return nil, nil
	}
	if c := h.HTTPConfig; c != nil && c.AuthType != "" && c.AuthSecretRef != nil {
		return c.AuthSecretRef, hp.Child("httpConfig", "authSecretRef")
	}
	if c := h.OpenAPIConfig; c != nil && c.AuthType != "" && c.AuthSecretRef != nil {
		return c.AuthSecretRef, hp.Child("openAPIConfig", "authSecretRef")
	}
	return nil, nil
}

// ToolAuthType is the handler's effective auth type: auth.type, else the
// deprecated authType of httpConfig or openAPIConfig, else none.
func ToolAuthType(h *v1alpha1.ToolRegistryHandler) v1alpha1.ToolRegistryAuthType {
	if h.Auth != nil {
		if h.Auth.Type == "" {
			return v1alpha1.ToolRegistryAuthTypeNone
		}
		return h.Auth.Type
	}
	if c := h.HTTPConfig; c != nil && c.AuthType != "" {
		return v1alpha1.ToolRegistryAuthType(c.AuthType)
	}
	if c := h.OpenAPIConfig; c != nil && c.AuthType != "" {
		return v1alpha1.ToolRegistryAuthType(c.AuthType)
	}
	return v1alpha1.ToolRegistryAuthTypeNone
}

// SecretLabelFacts are facts that know a Secret's labels (the operator's
// cluster facts). Facts without them (omniactl, which reads manifests) do
// not judge the tool-credentials opt-in.
type SecretLabelFacts interface {
	// SecretLabels returns the labels of the Secret namespace/name, if it
	// exists.
	SecretLabels(namespace, name string) (map[string]string, bool)
}

// ToolCredentialOptedIn is the one decision whether a Secret opted in to be
// copied into an agent's tool-secrets: labelled
// omnia.altairalabs.ai/secret-type=tool-credentials. It reads labels only.
func ToolCredentialOptedIn(labels map[string]string) bool {
	return labels[v1alpha1.ToolCredentialsLabel] == v1alpha1.ToolCredentialsValue
}

// ToolCredentialProblem says why a credential cannot be delivered: the
// reason (one of the ToolCredentialsReady reasons) and a message naming the
// handler; "" when it can.
func ToolCredentialProblem(f Facts, namespace string, c ToolCredential) (reason, message string) {
	what := "handler " + strconv.Quote(c.Handler)
	if c.Header != "" {
		what += " header " + strconv.Quote(c.Header)
	}
	if c.Path != nil {
		what += " (ToolRegistry " + c.Path.String() + ")"
	}
	secret := "Secret " + strconv.Quote(c.SecretName)
	keys, found := f.SecretKeys(namespace, c.SecretName)
	if !found {
		return v1alpha1.AgentRuntimeReasonToolCredentialSecretNotFound,
			what + ": " + secret + " does not exist in " + namespaceText(namespace) + "; create it there: the runtime refuses this handler's calls until then"
	}
	if lf, ok := f.(SecretLabelFacts); ok {
		if labels, found := lf.SecretLabels(namespace, c.SecretName); found && !ToolCredentialOptedIn(labels) {
			return v1alpha1.AgentRuntimeReasonToolCredentialSecretNotOptedIn,
				what + ": " + secret + " is not labelled " + v1alpha1.ToolCredentialsLabel + "=" + v1alpha1.ToolCredentialsValue +
					"; label it to let the operator copy it into the agent's tool-secrets"
		}
	}
	if !slices.Contains(keys, c.SecretKey) {
		return v1alpha1.AgentRuntimeReasonToolCredentialKeyMissing,
			what + ": " + secret + " has no key " + strconv.Quote(c.SecretKey) + "; add it or correct the key"
	}
	return "", ""
}

// The three rules below judge the same list (ToolCredentials), each for one
// of ToolCredentialProblem's reasons, so a finding's rule ID says which check
// failed.
func init() {
	for _, r := range []struct{ id, reason, doc string }{
		{"agentruntime/tool-credential-secret-found", v1alpha1.AgentRuntimeReasonToolCredentialSecretNotFound,
			"the Secret exists in the agent's namespace"},
		{"agentruntime/tool-credential-opted-in", v1alpha1.AgentRuntimeReasonToolCredentialSecretNotOptedIn,
			"the Secret is labelled " + v1alpha1.ToolCredentialsLabel + "=" + v1alpha1.ToolCredentialsValue +
				" (judged by the operator, which reads labels; omniactl, reading manifests, does not)"},
		{"agentruntime/tool-credential-key-found", v1alpha1.AgentRuntimeReasonToolCredentialKeyMissing,
			"the Secret has the key"},
	} {
		reason := r.reason
		Default.Register(Rule{
			ID:        r.id,
			Kinds:     agentRuntimeKinds,
			Stage:     StageReconcile,
			Severity:  SeverityWarn,
			Condition: v1alpha1.AgentRuntimeConditionToolCredentialsReady,
			Reason:    reason,
			Doc: "For every credential the agent's ToolRegistry handlers read from a Secret (auth.secretRef of a bearer or basic handler, " +
				"the deprecated authSecretRef, httpConfig.headersFromSecret), " + r.doc + ". A credential that fails is left out of " +
				"<agentruntime>-tool-secrets (an earlier value is removed, not kept), and the runtime refuses that handler's calls " +
				"instead of calling unauthenticated.",
			Spec:  "toolregistry.md#authenticating-tools",
			Check: func(in Input) field.ErrorList { return checkAgentRuntimeToolCredentials(in, reason) },
		})
	}
}

// checkAgentRuntimeToolCredentials reports each credential whose problem is
// reason.
func checkAgentRuntimeToolCredentials(in Input, reason string) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil || ar.Spec.ToolRegistryRef == nil || agentRuntimeForeignNamespace(ar, ar.Spec.ToolRegistryRef.Namespace) {
		return nil
	}
	tr, ok := in.Facts.ToolRegistry(ar.Namespace, ar.Spec.ToolRegistryRef.Name)
	if !ok {
		return nil // agentruntime/tool-registry-exists reports it
	}
	var errs field.ErrorList
	for _, c := range ToolCredentials(tr) {
		if got, msg := ToolCredentialProblem(in.Facts, ar.Namespace, c); got == reason {
			errs = append(errs, field.Invalid(field.NewPath("spec", "toolRegistryRef", "name"), ar.Spec.ToolRegistryRef.Name, msg))
		}
	}
	return errs
}
