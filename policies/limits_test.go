package policies

import (
	"testing"

	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
)

// TestCELCostLimitsAreTheAPIServers: the compile-time limits are the API
// server's for CRD validation rules, copied (see cel.go for why).
func TestCELCostLimitsAreTheAPIServers(t *testing.T) {
	if CELExpressionCostLimit != apiextensionsvalidation.StaticEstimatedCostLimit {
		t.Errorf("CELExpressionCostLimit %d, API server %d", CELExpressionCostLimit, apiextensionsvalidation.StaticEstimatedCostLimit)
	}
	if CELPolicyCostLimit != apiextensionsvalidation.StaticEstimatedCRDCostLimit {
		t.Errorf("CELPolicyCostLimit %d, API server %d", CELPolicyCostLimit, apiextensionsvalidation.StaticEstimatedCRDCostLimit)
	}
}
