package rules

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// KubeAPIAudiences are the audiences a Kubernetes API server accepts on a
// ServiceAccount token by default: its issuer and the in-cluster Service
// names (kubeadm, kind, k3s, EKS, GKE and AKS issue for one of these). A
// serviceAccount tool handler asking for one of them would project into the
// runtime, which runs the tenant's image, a token the API server takes as
// the pod's ServiceAccount: the facade's identity, which the operator keeps
// out of the runtime (docs/security.md). The comparison ignores case and a
// trailing slash.
var KubeAPIAudiences = []string{
	"https://kubernetes.default.svc.cluster.local",
	"https://kubernetes.default.svc",
	"https://kubernetes.default",
	"https://kubernetes",
	"kubernetes.default.svc.cluster.local",
	"kubernetes.default.svc",
	"kubernetes.default",
	"kubernetes",
	"api",
}

// ToolAudienceIsKubeAPI reports whether audience is one the API server
// accepts (KubeAPIAudiences, or an audience the cluster's issuer adds:
// extra). The rule and the pod builder ask this one function: the builder
// leaves such a token out even when the registry got in without the rule.
func ToolAudienceIsKubeAPI(audience string, extra []string) bool {
	a := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(audience)), "/")
	return slices.ContainsFunc(append(slices.Clone(KubeAPIAudiences), extra...), func(k string) bool {
		return strings.TrimSuffix(strings.ToLower(k), "/") == a
	})
}

func init() {
	Default.Register(Rule{
		ID:       "toolregistry/serviceaccount-audience-not-kube-api",
		Kinds:    toolRegistryKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc: "A serviceAccount handler's auth.serviceAccount.audience is not an audience the Kubernetes API server accepts (its issuer, " +
			"kubernetes.default.svc and the like): the projected token would let the runtime, which runs the tenant's image, call the API " +
			"server as the pod's ServiceAccount. The pod builder leaves such a token out too.",
		Spec:  "toolregistry.md#authenticating-tools",
		Check: checkToolRegistryServiceAccountAudience,
	})
}

func checkToolRegistryServiceAccountAudience(in Input) field.ErrorList {
	tr := toolRegistryOf(in)
	if tr == nil {
		return nil
	}
	var errs field.ErrorList
	for i := range tr.Spec.Handlers {
		a := tr.Spec.Handlers[i].Auth
		if a == nil || a.Type != v1alpha1.ToolRegistryAuthTypeServiceAccount || a.ServiceAccount == nil {
			continue
		}
		if ToolAudienceIsKubeAPI(a.ServiceAccount.Audience, nil) {
			errs = append(errs, field.Forbidden(toolRegistryHandlersPath.Index(i).Child("auth", "serviceAccount", "audience"),
				"audience "+a.ServiceAccount.Audience+" is one the Kubernetes API server accepts: the runtime would hold a token for the API; "+
					"use the tool backend's own audience (e.g. its Service name), which it checks with a TokenReview"))
		}
	}
	return errs
}
