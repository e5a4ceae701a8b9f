package agentruntime

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrl "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/rules"
)

// indexToolCredentialSecret indexes ToolRegistries by the Secrets their
// handlers read credentials from (rules.ToolCredentials), so a rotated,
// created or deleted source Secret re-reconciles the agents whose
// tool-secrets copy it.
const indexToolCredentialSecret = "spec.handlers.credentialSecrets"

func toolCredentialSecretNames(o client.Object) []string {
	var out []string
	for _, c := range rules.ToolCredentials(o.(*v1alpha1.ToolRegistry)) {
		out = append(out, c.SecretName)
	}
	return out
}

// indexToolCredentials registers indexToolCredentialSecret.
func indexToolCredentials(ctx context.Context, idx client.FieldIndexer) error {
	return idx.IndexField(ctx, &v1alpha1.ToolRegistry{}, indexToolCredentialSecret, toolCredentialSecretNames)
}

// agentsForToolSecret maps a Secret (metadata) to the agents it concerns:
// the owner of an <agentruntime>-tool-secrets copy (drift, deletion), and
// every agent whose ToolRegistry reads a credential from it.
func (r *Reconciler) agentsForToolSecret(ctx context.Context, o client.Object) []reconcile.Request {
	var out []reconcile.Request
	if ref := metav1.GetControllerOf(o); ref != nil && ref.Kind == "AgentRuntime" && ref.APIVersion == v1alpha1.GroupVersion.String() &&
		o.GetName() == workload.ToolSecretsName(&v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Name: ref.Name}}) {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: ref.Name}})
	}
	registries := &v1alpha1.ToolRegistryList{}
	if err := r.client.List(ctx, registries, client.InNamespace(o.GetNamespace()), client.MatchingFields{indexToolCredentialSecret: o.GetName()}); err != nil {
		ctrl.FromContext(ctx).Error(err, "listing the ToolRegistries reading a credential from a Secret", "secret", o.GetName())
		return out
	}
	byRegistry := r.agentsBy(indexToolRegistry, func(c client.Object) string { return c.GetName() })
	for i := range registries.Items {
		out = append(out, byRegistry(ctx, &registries.Items[i])...)
	}
	return out
}
