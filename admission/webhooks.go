package admission

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The ValidatingWebhookConfiguration is generated from these markers into
// config/webhook/manifests.yaml. Every webhook fails closed (failurePolicy
// Fail), has no side effects (dry-run safe) and answers within 10 s.
//
// Every webhook also skips the operator's own namespace, so a broken webhook
// can never lock out the operator's recovery. That namespace is deployment
// configuration, not a literal in the generated file: the operator takes it
// from --excluded-namespace (Config.ExcludedNamespace) and the registration's
// namespaceSelector is set from the same value — by ExcludeNamespace where Go
// registers the webhooks (make run, test/controlplane), by the kustomization
// in config/webhook (from the namespace it deploys to) in a cluster.
//
// +kubebuilder:webhook:path=/validate-omnia-altairalabs-ai-v1alpha1-agentruntime,mutating=false,failurePolicy=fail,sideEffects=None,groups=omnia.altairalabs.ai,resources=agentruntimes,verbs=create;update,versions=v1alpha1,name=vagentruntime.omnia.altairalabs.ai,admissionReviewVersions=v1,timeoutSeconds=10
// +kubebuilder:webhook:path=/validate-omnia-altairalabs-ai-v1alpha1-provider,mutating=false,failurePolicy=fail,sideEffects=None,groups=omnia.altairalabs.ai,resources=providers,verbs=create;update,versions=v1alpha1,name=vprovider.omnia.altairalabs.ai,admissionReviewVersions=v1,timeoutSeconds=10
// +kubebuilder:webhook:path=/validate-omnia-altairalabs-ai-v1alpha1-toolregistry,mutating=false,failurePolicy=fail,sideEffects=None,groups=omnia.altairalabs.ai,resources=toolregistries,verbs=create;update,versions=v1alpha1,name=vtoolregistry.omnia.altairalabs.ai,admissionReviewVersions=v1,timeoutSeconds=10
// +kubebuilder:webhook:path=/validate-omnia-altairalabs-ai-v1alpha1-arenajob,mutating=false,failurePolicy=fail,sideEffects=None,groups=omnia.altairalabs.ai,resources=arenajobs,verbs=create;update,versions=v1alpha1,name=varenajob.omnia.altairalabs.ai,admissionReviewVersions=v1,timeoutSeconds=10
// +kubebuilder:webhook:path=/validate-omnia-altairalabs-ai-v1alpha1-arenarun,mutating=false,failurePolicy=fail,sideEffects=None,groups=omnia.altairalabs.ai,resources=arenaruns,verbs=create;update,versions=v1alpha1,name=varenarun.omnia.altairalabs.ai,admissionReviewVersions=v1,timeoutSeconds=10
// +kubebuilder:webhook:path=/validate-omnia-altairalabs-ai-v1alpha1-arenaproject,mutating=false,failurePolicy=fail,sideEffects=None,groups=omnia.altairalabs.ai,resources=arenaprojects,verbs=create;update,versions=v1alpha1,name=varenaproject.omnia.altairalabs.ai,admissionReviewVersions=v1,timeoutSeconds=10
// +kubebuilder:webhook:path=/validate-omnia-altairalabs-ai-v1alpha1-promptpack,mutating=false,failurePolicy=fail,sideEffects=None,groups=omnia.altairalabs.ai,resources=promptpacks,verbs=create;update,versions=v1alpha1,name=vpromptpack.omnia.altairalabs.ai,admissionReviewVersions=v1,timeoutSeconds=10
// +kubebuilder:webhook:path=/validate-omnia-altairalabs-ai-v1alpha1-rolloutanalysis,mutating=false,failurePolicy=fail,sideEffects=None,groups=omnia.altairalabs.ai,resources=rolloutanalyses,verbs=create;update,versions=v1alpha1,name=vrolloutanalysis.omnia.altairalabs.ai,admissionReviewVersions=v1,timeoutSeconds=10
//
// The policy kind's webhook. ValidationPolicy is cluster-scoped: the API
// server never skips a webhook for a cluster-scoped object on its
// namespaceSelector (that selector judges only namespaced objects, and
// Namespaces by their own labels), so the excluded-namespace selector
// ExcludeNamespace sets on every webhook leaves it judging every policy.
// +kubebuilder:webhook:path=/validate-omnia-altairalabs-ai-v1alpha1-validationpolicy,mutating=false,failurePolicy=fail,sideEffects=None,groups=omnia.altairalabs.ai,resources=validationpolicies,verbs=create;update,versions=v1alpha1,name=vvalidationpolicy.omnia.altairalabs.ai,admissionReviewVersions=v1,timeoutSeconds=10

// The handler reads Namespace labels (per-namespace enforcement mode).
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch

// DefaultExcludedNamespace is the namespace the operator is deployed to by
// config/, and the excluded namespace when the operator cannot tell its own.
const DefaultExcludedNamespace = "omnia-system"

// NamespaceNameLabel is set by the API server on every Namespace to its name.
const NamespaceNameLabel = "kubernetes.io/metadata.name"

// ExcludeNamespace sets every webhook's namespaceSelector to skip namespace,
// the value the operator is given as --excluded-namespace, replacing any
// selector the configuration had. An empty namespace clears the selector.
func ExcludeNamespace(configs []*admissionregistrationv1.ValidatingWebhookConfiguration, namespace string) {
	for _, c := range configs {
		for i := range c.Webhooks {
			if namespace == "" {
				c.Webhooks[i].NamespaceSelector = nil
				continue
			}
			c.Webhooks[i].NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key:      NamespaceNameLabel,
				Operator: metav1.LabelSelectorOpNotIn,
				Values:   []string{namespace},
			}}}
		}
	}
}
