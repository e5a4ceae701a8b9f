package clusterfacts

import (
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/rules"
)

var _ rules.NamespaceFacts = (*Facts)(nil)

// Namespace implements rules.NamespaceFacts: the Namespace a policy rule
// matches (namespaceSelector) and reads (namespaceObject), from the cache
// (the operator watches Namespaces for the webhook's enforcement modes). A
// lookup that fails for another reason than "not found" is recorded (Err).
func (f *Facts) Namespace(name string) (*corev1.Namespace, bool) {
	ns := &corev1.Namespace{}
	if !f.get(client.ObjectKey{Name: name}, ns, "Namespace") {
		return nil, false
	}
	// A cached object carries no TypeMeta; namespaceObject is read as the
	// API server would send it.
	ns.APIVersion, ns.Kind = "v1", "Namespace"
	return ns, true
}
