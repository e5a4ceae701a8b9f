package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// ManifestFacts answers Facts from objects held in memory: the documents
// omniactl check was given, so reconcile-stage rules can be run offline with
// the manifests as the cluster. It is pure (no I/O) and answers the licence
// given with SetLicense (the open-core licence by default).
//
// Fill it with Add and AddSecret, then hand it to any number of concurrent
// evaluations: lookups only read. Adding is not safe concurrently with
// anything else.
//
// Namespaces are compared exactly; a document without a namespace is in the
// namespace "" and sees only facts without a namespace, as documents applied
// together into one namespace would.
type ManifestFacts struct {
	providers  map[string]*v1alpha1.Provider   // namespace/name
	packs      map[string]*v1alpha1.PromptPack // namespace/name
	packNames  map[string][]string             // namespace/PromptPackLabel value → names, in order added
	secrets    map[string][]string             // namespace/name → data keys
	configMaps map[string]map[string][]byte    // namespace/name → data and binaryData
	workspaces map[string]*v1alpha1.Workspace  // spec.namespace.name
	policies   map[string]*v1alpha1.ToolPolicy // namespace/name
	crds       map[string]bool                 // group/Kind
	registries map[string]*v1alpha1.ToolRegistry
	agents     map[string]*v1alpha1.AgentRuntime
	claims     map[string]bool // namespace/name of PersistentVolumeClaims
	namespaces map[string]*corev1.Namespace
	license    License // zero: open-core
	// exposureBaseDomain: SetExposureBaseDomain (omniactl
	// --exposure-base-domain); empty: exposure off.
	exposureBaseDomain string
}

var (
	_ Facts          = (*ManifestFacts)(nil)
	_ NamespaceFacts = (*ManifestFacts)(nil)
)

// NewManifestFacts returns facts that know nothing yet.
func NewManifestFacts() *ManifestFacts {
	return &ManifestFacts{
		providers:  map[string]*v1alpha1.Provider{},
		packs:      map[string]*v1alpha1.PromptPack{},
		packNames:  map[string][]string{},
		secrets:    map[string][]string{},
		configMaps: map[string]map[string][]byte{},
		workspaces: map[string]*v1alpha1.Workspace{},
		policies:   map[string]*v1alpha1.ToolPolicy{},
		crds:       map[string]bool{},
		registries: map[string]*v1alpha1.ToolRegistry{},
		agents:     map[string]*v1alpha1.AgentRuntime{},
		claims:     map[string]bool{},
		namespaces: map[string]*corev1.Namespace{},
	}
}

// toolPolicyGroupKind is the optional CRD a ToolPolicy document implies.
var toolPolicyGroupKind = v1alpha1.GroupVersion.Group + "/ToolPolicy"

func factKey(namespace, name string) string { return namespace + "/" + name }

// IsFactKind reports whether documents of an Omnia kind are facts for the
// others (Provider, PromptPack, Workspace, ToolPolicy, ToolRegistry, and
// AgentRuntime as an A2A client's target). Secrets, ConfigMaps and
// PersistentVolumeClaims, core kinds, are facts too: see AddSecret.
func IsFactKind(kind string) bool {
	switch kind {
	case "Provider", "PromptPack", "Workspace", "ToolPolicy", "ToolRegistry", "AgentRuntime":
		return true
	}
	return false
}

// Add records a typed Omnia object of a fact kind (*v1alpha1.Provider,
// *v1alpha1.PromptPack, *v1alpha1.Workspace, *v1alpha1.ToolPolicy,
// *v1alpha1.ToolRegistry or *v1alpha1.AgentRuntime). A
// later object with the same namespace and name replaces an earlier one, as
// a later `kubectl apply` would. Other kinds are an error.
func (f *ManifestFacts) Add(obj runtime.Object) error {
	switch o := obj.(type) {
	case *v1alpha1.Provider:
		f.providers[factKey(o.Namespace, o.Name)] = o
	case *v1alpha1.PromptPack:
		// Found by its label, as the cluster finds it, or by spec.packName
		// when it has none: the PromptPack controller adds that label.
		key := factKey(o.Namespace, o.Name)
		if old, ok := f.packs[key]; ok {
			if as := PromptPackFoundAs(old); as != "" {
				byName := factKey(old.Namespace, as)
				f.packNames[byName] = slices.DeleteFunc(f.packNames[byName], func(n string) bool { return n == o.Name })
			}
		}
		f.packs[key] = o
		if as := PromptPackFoundAs(o); as != "" {
			byName := factKey(o.Namespace, as)
			f.packNames[byName] = append(f.packNames[byName], o.Name)
		}
	case *v1alpha1.Workspace:
		// Cluster-scoped: looked up by the namespace it owns.
		for ns, w := range f.workspaces {
			if w.Name == o.Name {
				delete(f.workspaces, ns)
			}
		}
		f.workspaces[o.Spec.Namespace.Name] = o
	case *v1alpha1.ToolPolicy:
		f.policies[factKey(o.Namespace, o.Name)] = o
		f.crds[toolPolicyGroupKind] = true
	case *v1alpha1.ToolRegistry:
		f.registries[factKey(o.Namespace, o.Name)] = o
	case *v1alpha1.AgentRuntime:
		f.agents[factKey(o.Namespace, o.Name)] = o
	default:
		return fmt.Errorf("rules: %T is not a fact kind", obj)
	}
	return nil
}

// AddSecret records that the Secret namespace/name exists with the given
// data keys (data and stringData). Values are never handed over.
func (f *ManifestFacts) AddSecret(namespace, name string, keys []string) {
	f.secrets[factKey(namespace, name)] = slices.Clone(keys)
}

// AddConfigMap records the ConfigMap namespace/name with its data (data
// and binaryData merged; a data key wins, as the API server refuses a key in
// both). A later ConfigMap of the same name replaces an earlier one.
func (f *ManifestFacts) AddConfigMap(namespace, name string, data map[string][]byte) {
	m := make(map[string][]byte, len(data))
	for k, v := range data {
		m[k] = slices.Clone(v)
	}
	f.configMaps[factKey(namespace, name)] = m
}

// AddPersistentVolumeClaim records that the PersistentVolumeClaim
// namespace/name exists.
func (f *ManifestFacts) AddPersistentVolumeClaim(namespace, name string) {
	f.claims[factKey(namespace, name)] = true
}

// AddNamespace records a Namespace (its name, labels and annotations; a
// policy's namespaceSelector and `namespaceObject` read them). A later
// Namespace of the same name replaces an earlier one. It carries the
// kubernetes.io/metadata.name label as the API server sets it on every
// Namespace, so a selector on that label matches offline as in a cluster. A
// Namespace without a name is ignored: the schema of no kind refers to it.
func (f *ManifestFacts) AddNamespace(ns *corev1.Namespace) {
	if ns == nil || ns.Name == "" {
		return
	}
	kept := &corev1.Namespace{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{
			Name:        ns.Name,
			Labels:      make(map[string]string, len(ns.Labels)+1),
			Annotations: maps.Clone(ns.Annotations),
		},
	}
	maps.Copy(kept.Labels, ns.Labels)
	kept.Labels[corev1.LabelMetadataName] = ns.Name
	f.namespaces[ns.Name] = kept
}

// Namespace implements NamespaceFacts: a Namespace given with AddNamespace.
// Unknown names are answered by NamespaceOf (a bare Namespace).
func (f *ManifestFacts) Namespace(name string) (*corev1.Namespace, bool) {
	ns, ok := f.namespaces[name]
	if !ok {
		return nil, false
	}
	return ns.DeepCopy(), true
}

// AddCRD records that a CustomResourceDefinition for groupKind ("group/Kind")
// is installed.
func (f *ManifestFacts) AddCRD(groupKind string) { f.crds[groupKind] = true }

// Provider implements Facts.
func (f *ManifestFacts) Provider(namespace, name string) (*v1alpha1.Provider, bool) {
	p, ok := f.providers[factKey(namespace, name)]
	return p, ok
}

// PromptPacks implements Facts: the packs in namespace labelled
// PromptPackLabel=packName, in the order they were added.
func (f *ManifestFacts) PromptPacks(namespace, packName string) []v1alpha1.PromptPack {
	names := f.packNames[factKey(namespace, packName)]
	if len(names) == 0 {
		return nil
	}
	out := make([]v1alpha1.PromptPack, len(names))
	for i, name := range names {
		out[i] = *f.packs[factKey(namespace, name)]
	}
	return out
}

// SecretKeys implements Facts.
func (f *ManifestFacts) SecretKeys(namespace, name string) ([]string, bool) {
	keys, ok := f.secrets[factKey(namespace, name)]
	if !ok {
		return nil, false
	}
	return slices.Clone(keys), true
}

// ConfigMapValue implements Facts.
func (f *ManifestFacts) ConfigMapValue(namespace, name, key string) ([]byte, bool, bool) {
	m, found := f.configMaps[factKey(namespace, name)]
	if !found {
		return nil, false, false
	}
	v, ok := m[key]
	return slices.Clone(v), ok, true
}

// Workspace implements Facts: the Workspace whose spec.namespace.name is
// namespace.
func (f *ManifestFacts) Workspace(namespace string) (*v1alpha1.Workspace, bool) {
	w, ok := f.workspaces[namespace]
	return w, ok
}

// ToolPolicies returns the ToolPolicies in namespace, sorted by name.
func (f *ManifestFacts) ToolPolicies(namespace string) []*v1alpha1.ToolPolicy {
	var out []*v1alpha1.ToolPolicy
	for _, p := range f.policies {
		if p.Namespace == namespace {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *v1alpha1.ToolPolicy) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// License implements Facts: the licence given with SetLicense (omniactl
// --license), else the open-core licence.
func (f *ManifestFacts) License() License { return f.license }

// SetLicense sets the licence the facts answer (a verified one: omniactl
// verifies the file it is given before handing it here).
func (f *ManifestFacts) SetLicense(l License) { f.license = l }

// ExposureBaseDomain implements Facts: the domain given with
// SetExposureBaseDomain, else "" (exposure off).
func (f *ManifestFacts) ExposureBaseDomain() string { return f.exposureBaseDomain }

// SetExposureBaseDomain sets the operator's --exposure-base-domain the
// facts answer (omniactl --exposure-base-domain), lower-cased without a
// trailing dot as the operator's hosts are.
func (f *ManifestFacts) SetExposureBaseDomain(domain string) {
	f.exposureBaseDomain = NormalizeExposeHost(domain)
}

// CRDInstalled implements Facts: an optional CRD counts as installed when a
// document of its kind (a ToolPolicy) or its CustomResourceDefinition was
// given.
func (f *ManifestFacts) CRDInstalled(groupKind string) bool { return f.crds[groupKind] }

// SecretValueMatches implements Facts: a manifest's Secret values are never
// kept, so no value matches.
func (f *ManifestFacts) SecretValueMatches(string, string, string, func([]byte) (string, bool)) (string, bool) {
	return "", false
}

// ToolRegistry implements Facts.
func (f *ManifestFacts) ToolRegistry(namespace, name string) (*v1alpha1.ToolRegistry, bool) {
	r, ok := f.registries[factKey(namespace, name)]
	return r, ok
}

// AgentRuntime implements Facts.
func (f *ManifestFacts) AgentRuntime(namespace, name string) (*v1alpha1.AgentRuntime, bool) {
	a, ok := f.agents[factKey(namespace, name)]
	return a, ok
}

// PersistentVolumeClaimExists implements Facts: a claim counts as existing
// when a PersistentVolumeClaim document of that name was given.
func (f *ManifestFacts) PersistentVolumeClaimExists(namespace, name string) bool {
	return f.claims[factKey(namespace, name)]
}

// StatusObserved implements Facts: manifests carry no status written by a
// controller, so an empty status is not judged.
func (f *ManifestFacts) StatusObserved() bool { return false }
