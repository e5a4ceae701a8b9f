package rules

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NamespaceFacts is an optional part of Facts: the Namespace object policy
// rules match (a policy's namespaceSelector) and read (`namespaceObject`).
// The operator answers from its cache, omniactl from the Namespace documents
// it was given.
type NamespaceFacts interface {
	// Namespace returns the Namespace name, if it is known.
	Namespace(name string) (*corev1.Namespace, bool)
}

// NamespaceOf returns the Namespace name as facts know it or, when they do
// not (facts without Namespaces, omniactl given no Namespace document), as
// the API server would create it bare: only its name and the
// kubernetes.io/metadata.name label every Namespace carries. Empty name (a
// cluster-scoped object) gives nil.
func NamespaceOf(facts Facts, name string) *corev1.Namespace {
	if name == "" {
		return nil
	}
	if nf, ok := facts.(NamespaceFacts); ok {
		if ns, found := nf.Namespace(name); found && ns != nil {
			return ns
		}
	}
	return &corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelMetadataName: name}},
	}
}
