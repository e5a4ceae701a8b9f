package provider

import "github.com/altairalabs/omnia/api/v1alpha1"

// conditionTypes are every condition type the controller sets
// (api/v1alpha1/provider_conditions.go): a policy rule naming one reports
// to PolicyCompliant instead (policycheck).
var conditionTypes = []string{v1alpha1.ProviderConditionReady, v1alpha1.ProviderConditionSecretFound, v1alpha1.ProviderConditionCredentialConfigured,
	v1alpha1.ProviderConditionCredentialValid, v1alpha1.ProviderConditionEndpointReachable, v1alpha1.ProviderConditionAuthConfigured, v1alpha1.ProviderConditionModelValid}
