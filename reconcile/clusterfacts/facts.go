// Package clusterfacts answers the rule catalog's Facts from the manager's
// cache, so every reconciler hands rules.Evaluate the same view of the
// cluster. It reads; it never writes.
package clusterfacts

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// PackNameLabel labels a PromptPack with its spec.packName, so a lookup by
// pack name is a label-selected list.
const PackNameLabel = "omnia.altairalabs.ai/pack-name"

// Facts reads cluster state for rules through a (cached) client, and Secrets
// through a separate reader.
type Facts struct {
	ctx     context.Context
	reader  client.Reader
	secrets client.Reader
	mapper  meta.RESTMapper
	license rules.License
}

var _ rules.Facts = (*Facts)(nil)

// New returns Facts reading through reader (the manager's cached client) and
// mapper (the manager's REST mapper, for optional CRDs). ctx bounds every
// lookup of one evaluation.
//
// Secrets are read through secrets, which should be uncached (the manager's
// APIReader): the operator caches Secrets as metadata only, so the data of a
// Secret is fetched only when a rule asks about the one Secret an object
// names, and never held in memory cluster-wide. A nil secrets reads Secrets
// through reader.
func New(ctx context.Context, reader, secrets client.Reader, mapper meta.RESTMapper, license rules.License) *Facts {
	if secrets == nil {
		secrets = reader
	}
	return &Facts{ctx: ctx, reader: reader, secrets: secrets, mapper: mapper, license: license}
}

// Provider implements rules.Facts.
func (f *Facts) Provider(namespace, name string) (*v1alpha1.Provider, bool) {
	p := &v1alpha1.Provider{}
	if err := f.reader.Get(f.ctx, client.ObjectKey{Namespace: namespace, Name: name}, p); err != nil {
		return nil, false
	}
	return p, true
}

// PromptPacks implements rules.Facts: the packs in namespace whose
// spec.packName is packName.
func (f *Facts) PromptPacks(namespace, packName string) []v1alpha1.PromptPack {
	list := &v1alpha1.PromptPackList{}
	if err := f.reader.List(f.ctx, list, client.InNamespace(namespace)); err != nil {
		return nil
	}
	var out []v1alpha1.PromptPack
	for _, p := range list.Items {
		if p.Spec.PackName == packName {
			out = append(out, p)
		}
	}
	return out
}

// SecretKeys implements rules.Facts: the Secret's data keys, never values.
func (f *Facts) SecretKeys(namespace, name string) ([]string, bool) {
	s := &corev1.Secret{}
	if err := f.secrets.Get(f.ctx, client.ObjectKey{Namespace: namespace, Name: name}, s); err != nil {
		return nil, false
	}
	keys := make([]string, 0, len(s.Data)+len(s.StringData))
	for k := range s.Data {
		keys = append(keys, k)
	}
	for k := range s.StringData {
		keys = append(keys, k)
	}
	return keys, true
}

// Workspace implements rules.Facts: the cluster-scoped Workspace bound to
// namespace.
func (f *Facts) Workspace(namespace string) (*v1alpha1.Workspace, bool) {
	list := &v1alpha1.WorkspaceList{}
	if err := f.reader.List(f.ctx, list); err != nil {
		return nil, false
	}
	for i := range list.Items {
		if list.Items[i].Spec.Namespace == namespace {
			return &list.Items[i], true
		}
	}
	return nil, false
}

// License implements rules.Facts.
func (f *Facts) License() rules.License { return f.license }

// CRDInstalled implements rules.Facts; groupKind is "group/Kind".
func (f *Facts) CRDInstalled(groupKind string) bool {
	return Installed(f.mapper, groupKind)
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
	s := &corev1.Secret{}
	if err := f.secrets.Get(f.ctx, client.ObjectKey{Namespace: namespace, Name: name}, s); err != nil {
		return "", false
	}
	value, ok := s.Data[key]
	if !ok {
		str, ok := s.StringData[key]
		if !ok {
			return "", false
		}
		value = []byte(str)
	}
	return match(value)
}
