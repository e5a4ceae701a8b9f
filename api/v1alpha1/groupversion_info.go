// Package v1alpha1 holds the Omnia API types of group omnia.altairalabs.ai.
//
// Every rule the API server enforces on these kinds is written here, once, as
// a kubebuilder marker (OpenAPI constraint or x-kubernetes-validations CEL
// rule). CEL rule messages start with the rule's stable catalog ID in
// brackets, e.g. "[agentruntime/function-needs-rest] ...", so a refusal from
// the API server, from `omniactl check` and from the webhook names the same
// rule.
//
// The package imports only k8s.io/apimachinery and k8s.io/api, so any
// client can use the types without pulling in controller-runtime.
//
// +kubebuilder:object:generate=true
// +groupName=omnia.altairalabs.ai
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the group and version of every kind in this package.
var GroupVersion = schema.GroupVersion{Group: "omnia.altairalabs.ai", Version: "v1alpha1"}

// schemeBuilder collects the kinds each type file registers from init().
type schemeBuilder struct{ objects []runtime.Object }

// Register adds kinds (each object and its list) to the group version.
func (b *schemeBuilder) Register(objects ...runtime.Object) {
	b.objects = append(b.objects, objects...)
}

// AddToScheme adds every registered kind to s.
func (b *schemeBuilder) AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, b.objects...)
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

var (
	// SchemeBuilder registers the kinds of this package with a scheme.
	SchemeBuilder = &schemeBuilder{}

	// AddToScheme adds the kinds of this package to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
