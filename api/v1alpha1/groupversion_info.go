// Package v1alpha1 holds the Omnia API types of group omnia.altairalabs.ai.
//
// Every rule the API server enforces on these kinds is written here, once, as
// a kubebuilder marker (OpenAPI constraint or x-kubernetes-validations CEL
// rule). CEL rule messages start with the rule's stable catalog ID in
// brackets, e.g. "[agentruntime/function-needs-rest] ...", so a refusal from
// the API server, from `omniactl check` and from the webhook names the same
// rule.
//
// +kubebuilder:object:generate=true
// +groupName=omnia.altairalabs.ai
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of every kind in this package.
	GroupVersion = schema.GroupVersion{Group: "omnia.altairalabs.ai", Version: "v1alpha1"}

	// SchemeBuilder registers the kinds of this package with a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the kinds of this package to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
