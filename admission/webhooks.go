package admission

// The ValidatingWebhookConfiguration is generated from these markers into
// config/webhook/manifests.yaml. Every webhook fails closed (failurePolicy
// Fail), has no side effects (dry-run safe), answers within 10 s, and skips
// the operator's own namespace so a broken webhook can never lock out the
// operator's recovery.
//
// +kubebuilder:webhook:path=/validate-omnia-altairalabs-ai-v1alpha1-agentruntime,mutating=false,failurePolicy=fail,sideEffects=None,groups=omnia.altairalabs.ai,resources=agentruntimes,verbs=create;update,versions=v1alpha1,name=vagentruntime.omnia.altairalabs.ai,admissionReviewVersions=v1,timeoutSeconds=10,patch=`{"namespaceSelector":{"matchExpressions":[{"key":"kubernetes.io/metadata.name","operator":"NotIn","values":["omnia-system"]}]}}`
// +kubebuilder:webhook:path=/validate-omnia-altairalabs-ai-v1alpha1-provider,mutating=false,failurePolicy=fail,sideEffects=None,groups=omnia.altairalabs.ai,resources=providers,verbs=create;update,versions=v1alpha1,name=vprovider.omnia.altairalabs.ai,admissionReviewVersions=v1,timeoutSeconds=10,patch=`{"namespaceSelector":{"matchExpressions":[{"key":"kubernetes.io/metadata.name","operator":"NotIn","values":["omnia-system"]}]}}`
// +kubebuilder:webhook:path=/validate-omnia-altairalabs-ai-v1alpha1-toolregistry,mutating=false,failurePolicy=fail,sideEffects=None,groups=omnia.altairalabs.ai,resources=toolregistries,verbs=create;update,versions=v1alpha1,name=vtoolregistry.omnia.altairalabs.ai,admissionReviewVersions=v1,timeoutSeconds=10,patch=`{"namespaceSelector":{"matchExpressions":[{"key":"kubernetes.io/metadata.name","operator":"NotIn","values":["omnia-system"]}]}}`
// +kubebuilder:webhook:path=/validate-omnia-altairalabs-ai-v1alpha1-arenajob,mutating=false,failurePolicy=fail,sideEffects=None,groups=omnia.altairalabs.ai,resources=arenajobs,verbs=create;update,versions=v1alpha1,name=varenajob.omnia.altairalabs.ai,admissionReviewVersions=v1,timeoutSeconds=10,patch=`{"namespaceSelector":{"matchExpressions":[{"key":"kubernetes.io/metadata.name","operator":"NotIn","values":["omnia-system"]}]}}`
// +kubebuilder:webhook:path=/validate-omnia-altairalabs-ai-v1alpha1-arenarun,mutating=false,failurePolicy=fail,sideEffects=None,groups=omnia.altairalabs.ai,resources=arenaruns,verbs=create;update,versions=v1alpha1,name=varenarun.omnia.altairalabs.ai,admissionReviewVersions=v1,timeoutSeconds=10,patch=`{"namespaceSelector":{"matchExpressions":[{"key":"kubernetes.io/metadata.name","operator":"NotIn","values":["omnia-system"]}]}}`

// The handler reads Namespace labels (per-namespace enforcement mode).
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
