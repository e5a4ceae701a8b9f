package audit

// The audit reads every audited kind and the ValidationPolicies from the
// manager's cache, and writes its reports.
//
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=agentruntimes;providers;toolregistries;promptpacks;arenajobs;arenaruns,verbs=get;list;watch
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=validationpolicies,verbs=get;list;watch
// +kubebuilder:rbac:groups=openreports.io,resources=reports;clusterreports,verbs=get;list;watch;create;update;patch;delete
