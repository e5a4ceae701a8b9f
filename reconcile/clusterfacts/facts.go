// Package clusterfacts answers the rule catalog's Facts from the manager's
// cache, so every reconciler (and the webhook, for the rules the spec says it
// refuses with cluster facts) hands rules.Evaluate the same view of the
// cluster. It reads; it never writes.
//
// A lookup has three outcomes, and rules see only two of them: found, or not
// found (apierrors.IsNotFound, an empty list, or a kind the API server does
// not serve). Anything else — a cache that has not synced, a Forbidden, a
// cancelled context — means the answer is unknown. The lookup still answers
// "not found" to the rule (rules.Facts stays a pure question-and-answer
// interface), but the error is recorded and Err returns it: the caller must
// discard that evaluation's findings and retry, never report a missing
// object it could not look for.
package clusterfacts

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// PromptPackLabel labels a PromptPack with its pack name (spec.packName), so
// a lookup by pack name is a label-selected list (agentruntime.md,
// promptPackRef). It is the key existing installations use;
// rules.PromptPackLabel is the same key, checked by promptpack/label-matches.
const PromptPackLabel = rules.PromptPackLabel

// Facts reads cluster state for rules through a (cached) client, and Secrets
// through a separate reader.
type Facts struct {
	ctx     context.Context
	reader  client.Reader
	secrets client.Reader
	mapper  meta.RESTMapper
	license rules.License

	mu   sync.Mutex
	errs []error
	// configMaps remembers the ConfigMaps read in this evaluation (nil for
	// one that is absent or could not be read): several rules ask about the
	// same ConfigMap, and each read goes to the API server.
	configMaps map[client.ObjectKey]*corev1.ConfigMap
	// secretsRead remembers the Secrets read in this evaluation, as
	// configMaps does (several Provider rules ask about the same Secret).
	// It lives as long as the Facts, one evaluation: nothing holds a
	// Secret's data beyond it.
	secretsRead map[client.ObjectKey]secretRead
	// secretKeys, when set (WithSecretKeyCache), answers SecretKeys
	// without reading an unchanged Secret again.
	secretKeys *SecretKeyCache
	// exposureBaseDomain is the operator's --exposure-base-domain
	// (WithExposureBaseDomain); empty: exposure off.
	exposureBaseDomain string
}

// secretRead is one Secret read: the Secret, or why it could not be.
type secretRead struct {
	secret *corev1.Secret
	err    error
}

var _ rules.Facts = (*Facts)(nil)

// New returns Facts reading through reader (the manager's cached client) and
// mapper (the manager's REST mapper, for optional CRDs). ctx bounds every
// lookup of one evaluation. Use one Facts per evaluation and check Err after
// it.
//
// Secrets and ConfigMaps are read through secrets, which should be uncached
// (the manager's APIReader): the operator caches them as metadata only, so
// the data of a Secret or ConfigMap is fetched only when a rule asks about
// the one an object names, and never held in memory cluster-wide. A nil
// secrets reads them through reader.
//
// license is read once here, so one evaluation sees one licence however the
// licence Secret changes meanwhile; the next evaluation sees the new one
// (the operator passes its licensing.Store, tests a fixed rules.License; nil
// is the open-core licence).
func New(ctx context.Context, reader, secrets client.Reader, mapper meta.RESTMapper, license rules.LicenseSource) *Facts {
	if secrets == nil {
		secrets = reader
	}
	return &Facts{ctx: ctx, reader: reader, secrets: secrets, mapper: mapper, license: rules.CurrentLicense(license)}
}

// Err returns the lookups that failed for another reason than "not found",
// joined (nil when every lookup was answered). When it is not nil, a rule
// may have been told "not found" about an object that exists: the findings
// of the evaluation are not to be reported.
func (f *Facts) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return errors.Join(f.errs...)
}

// notFound reports whether err means the object is absent: the API said
// NotFound, or the API server does not serve the kind at all (no CRD, so no
// such object). Every other error is recorded.
func (f *Facts) notFound(err error, what string) bool {
	if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
		return true
	}
	wrapped := fmt.Errorf("looking up %s: %w", what, err)
	f.mu.Lock()
	defer f.mu.Unlock()
	// Several rules ask the same question: report each failure once.
	for _, e := range f.errs {
		if e.Error() == wrapped.Error() {
			return false
		}
	}
	f.errs = append(f.errs, wrapped)
	return false
}

// get reads one object; false when it is absent or could not be read
// (recorded).
func (f *Facts) get(key client.ObjectKey, obj client.Object, what string) bool {
	if err := f.reader.Get(f.ctx, key, obj); err != nil {
		f.notFound(err, what+" "+key.String())
		return false
	}
	return true
}

// list lists; false when the kind is not served or the list failed
// (recorded).
func (f *Facts) list(list client.ObjectList, what string, opts ...client.ListOption) bool {
	if err := f.reader.List(f.ctx, list, opts...); err != nil {
		f.notFound(err, what)
		return false
	}
	return true
}

// Provider implements rules.Facts.
func (f *Facts) Provider(namespace, name string) (*v1alpha1.Provider, bool) {
	p := &v1alpha1.Provider{}
	if !f.get(client.ObjectKey{Namespace: namespace, Name: name}, p, "Provider") {
		return nil, false
	}
	return p, true
}

// PromptPacks implements rules.Facts: the packs in namespace labelled
// PromptPackLabel=packName.
func (f *Facts) PromptPacks(namespace, packName string) []v1alpha1.PromptPack {
	list := &v1alpha1.PromptPackList{}
	if !f.list(list, "PromptPacks labelled "+PromptPackLabel+"="+packName+" in namespace "+namespace,
		client.InNamespace(namespace), client.MatchingLabels{PromptPackLabel: packName}) {
		return nil
	}
	return list.Items
}

// secret reads the Secret namespace/name, once per evaluation.
func (f *Facts) secret(namespace, name string) (*corev1.Secret, bool) {
	s, err := f.readSecret(client.ObjectKey{Namespace: namespace, Name: name})
	return s, err == nil
}

// readSecret reads the Secret key through the secrets reader, once per
// evaluation, and records a failure other than "not found".
func (f *Facts) readSecret(key client.ObjectKey) (*corev1.Secret, error) {
	f.mu.Lock()
	r, seen := f.secretsRead[key]
	f.mu.Unlock()
	if seen {
		return r.secret, r.err
	}
	s := &corev1.Secret{}
	if err := f.secrets.Get(f.ctx, key, s); err != nil {
		f.notFound(err, "Secret "+key.String())
		r = secretRead{err: err}
	} else {
		r = secretRead{secret: s}
	}
	f.mu.Lock()
	if f.secretsRead == nil {
		f.secretsRead = map[client.ObjectKey]secretRead{}
	}
	f.secretsRead[key] = r
	f.mu.Unlock()
	return r.secret, r.err
}

// SecretKeys implements rules.Facts: the Secret's data keys, never values.
// With a SecretKeyCache, an unchanged Secret is not read again.
func (f *Facts) SecretKeys(namespace, name string) ([]string, bool) {
	key := client.ObjectKey{Namespace: namespace, Name: name}
	if f.secretKeys != nil {
		if keys, ok := f.secretKeys.cached(f.ctx, key); ok {
			return keys, true
		}
	}
	s, err := f.readSecret(key)
	if err != nil {
		if f.secretKeys != nil {
			f.secretKeys.forget(key, err)
		}
		return nil, false
	}
	// StringData is write-only: a Secret read back holds every key in Data.
	keys := make([]string, 0, len(s.Data))
	for k := range s.Data {
		keys = append(keys, k)
	}
	if f.secretKeys != nil {
		f.secretKeys.remember(key, s, keys)
	}
	return keys, true
}

// configMap reads the ConfigMap namespace/name through the uncached reader
// (the operator does not cache ConfigMaps: it would hold every ConfigMap of
// the cluster in memory), once per evaluation.
func (f *Facts) configMap(namespace, name string) (*corev1.ConfigMap, bool) {
	key := client.ObjectKey{Namespace: namespace, Name: name}
	f.mu.Lock()
	cm, seen := f.configMaps[key]
	f.mu.Unlock()
	if seen {
		return cm, cm != nil
	}
	cm = &corev1.ConfigMap{}
	if err := f.secrets.Get(f.ctx, key, cm); err != nil {
		f.notFound(err, "ConfigMap "+key.String())
		cm = nil
	}
	f.mu.Lock()
	if f.configMaps == nil {
		f.configMaps = map[client.ObjectKey]*corev1.ConfigMap{}
	}
	f.configMaps[key] = cm
	f.mu.Unlock()
	return cm, cm != nil
}

// ConfigMapValue implements rules.Facts: the value of key in the
// ConfigMap's data, else its binaryData.
func (f *Facts) ConfigMapValue(namespace, name, key string) ([]byte, bool, bool) {
	cm, ok := f.configMap(namespace, name)
	if !ok {
		return nil, false, false
	}
	if v, ok := cm.Data[key]; ok {
		return []byte(v), true, true
	}
	v, ok := cm.BinaryData[key]
	return v, ok, true
}

// Workspace implements rules.Facts: the cluster-scoped Workspace whose
// spec.namespace.name is namespace.
func (f *Facts) Workspace(namespace string) (*v1alpha1.Workspace, bool) {
	list := &v1alpha1.WorkspaceList{}
	if !f.list(list, "Workspaces") {
		return nil, false
	}
	for i := range list.Items {
		if list.Items[i].Spec.Namespace.Name == namespace {
			return &list.Items[i], true
		}
	}
	return nil, false
}

// License implements rules.Facts.
func (f *Facts) License() rules.License { return f.license }

// CRDInstalled implements rules.Facts; groupKind is "group/Kind". A kind
// the REST mapper does not know is not installed; a discovery failure is
// recorded.
func (f *Facts) CRDInstalled(groupKind string) bool {
	group, kind, ok := strings.Cut(groupKind, "/")
	if !ok || f.mapper == nil {
		return false
	}
	if _, err := f.mapper.RESTMapping(schema.GroupKind{Group: group, Kind: kind}); err != nil {
		f.notFound(err, "the "+groupKind+" CRD")
		return false
	}
	return true
}

// Installed reports whether the API server serves groupKind ("group/Kind").
func Installed(mapper meta.RESTMapper, groupKind string) bool {
	group, kind, ok := strings.Cut(groupKind, "/")
	if !ok || mapper == nil {
		return false
	}
	_, err := mapper.RESTMapping(schema.GroupKind{Group: group, Kind: kind})
	return err == nil
}

// SecretValueMatches implements rules.Facts: it applies match to the value
// of key in the Secret and returns only match's label; the value stays here.
func (f *Facts) SecretValueMatches(namespace, name, key string, match func(value []byte) (string, bool)) (string, bool) {
	s, ok := f.secret(namespace, name)
	if !ok {
		return "", false
	}
	value, ok := s.Data[key]
	if !ok {
		return "", false
	}
	return match(value)
}

// AgentRuntimeQuotaEntries returns the AgentRuntimes of namespace, each with
// whether its Deployment exists: a Deployment in the namespace whose
// controlling owner reference is the agent. It is the view
// rules.AgentRuntimeQuota decides admission from; the deciding is there.
//
// It is bounded: both lists read the manager's informer cache, in memory,
// confined to one namespace by the cache's namespace index (no API request,
// nothing cluster-wide), without deep copies (the objects are only read
// here, and only three fields of each leave). The controller asks only when
// the namespace's Workspace sets maxAgentRuntimes.
func (f *Facts) AgentRuntimeQuotaEntries(namespace string) []rules.AgentRuntimeQuotaEntry {
	agents := &v1alpha1.AgentRuntimeList{}
	if !f.list(agents, "AgentRuntimes in namespace "+namespace, client.InNamespace(namespace), client.UnsafeDisableDeepCopy) {
		return nil
	}
	deployments := &appsv1.DeploymentList{}
	if !f.list(deployments, "Deployments in namespace "+namespace, client.InNamespace(namespace), client.UnsafeDisableDeepCopy) {
		return nil
	}
	controlled := make(map[types.UID]bool, len(deployments.Items))
	for i := range deployments.Items {
		if ref := metav1.GetControllerOfNoCopy(&deployments.Items[i]); ref != nil && ref.Kind == "AgentRuntime" {
			controlled[ref.UID] = true
		}
	}
	out := make([]rules.AgentRuntimeQuotaEntry, 0, len(agents.Items))
	for i := range agents.Items {
		a := &agents.Items[i]
		out = append(out, rules.AgentRuntimeQuotaEntry{Name: a.Name, CreationTimestamp: a.CreationTimestamp, HasDeployment: controlled[a.UID]})
	}
	return out
}

// ToolRegistry implements rules.Facts.
func (f *Facts) ToolRegistry(namespace, name string) (*v1alpha1.ToolRegistry, bool) {
	r := &v1alpha1.ToolRegistry{}
	if !f.get(client.ObjectKey{Namespace: namespace, Name: name}, r, "ToolRegistry") {
		return nil, false
	}
	return r, true
}

// AgentRuntime implements rules.Facts.
func (f *Facts) AgentRuntime(namespace, name string) (*v1alpha1.AgentRuntime, bool) {
	a := &v1alpha1.AgentRuntime{}
	if !f.get(client.ObjectKey{Namespace: namespace, Name: name}, a, "AgentRuntime") {
		return nil, false
	}
	return a, true
}

// PersistentVolumeClaimExists implements rules.Facts. It reads the claim's
// metadata only (a PartialObjectMetadata get: through the manager's cache
// that is a metadata informer, never the claims' specs).
func (f *Facts) PersistentVolumeClaimExists(namespace, name string) bool {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"))
	return f.get(client.ObjectKey{Namespace: namespace, Name: name}, m, "PersistentVolumeClaim")
}

// StatusObserved implements rules.Facts: objects read from the cluster carry
// the status their controllers write.
func (f *Facts) StatusObserved() bool { return true }

var _ rules.SecretLabelFacts = (*Facts)(nil)

// SecretLabels implements rules.SecretLabelFacts: the Secret's labels, read
// with the Secret once per evaluation.
func (f *Facts) SecretLabels(namespace, name string) (map[string]string, bool) {
	s, err := f.readSecret(client.ObjectKey{Namespace: namespace, Name: name})
	if err != nil {
		return nil, false
	}
	return s.Labels, true
}
