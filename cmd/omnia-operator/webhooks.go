package main

import (
	"context"
	"flag"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/altairalabs/omnia/admission"
	"github.com/altairalabs/omnia/rules"
)

// admissionFlags configure the validating webhooks: how strictly they
// enforce the catalog, rule by rule and namespace by namespace.
type admissionFlags struct {
	mode           string
	severities     rules.SeverityOverrides
	excludedNS     string
	allowDowngrade bool
}

func (f *admissionFlags) bind(fs *flag.FlagSet) {
	f.severities = rules.SeverityOverrides{}
	fs.StringVar(&f.mode, "enforcement-mode", string(admission.ModeEnforce), "global admission mode: enforce, warn or audit; a namespace label "+admission.NamespaceModeLabel+" may make it stricter (or laxer with --allow-namespace-downgrade)")
	fs.Var(f.severities, "rule-severity", "raise (or set) a rule's severity: <rule-id>=deny|warn; repeatable")
	fs.StringVar(&f.excludedNS, "excluded-namespace", ownNamespace(), "namespace the webhooks never validate (the operator's own); the webhook registration's namespaceSelector must skip the same one")
	fs.BoolVar(&f.allowDowngrade, "allow-namespace-downgrade", false, "let the namespace label "+admission.NamespaceModeLabel+" choose a less strict mode than --enforcement-mode (enforce > warn > audit)")
}

// setupWebhooks registers the validating webhooks on the manager's webhook
// server (every replica serves them). They judge with the catalog in force
// (op.policies, compiled by op.policyEnv: setupPolicies runs first), the
// licence in force and the facts of the manager's cache, within the
// watched namespaces. main has checked the mode and pod limits already,
// before connecting (a usage error); they are parsed here again so the
// setup needs nothing but op.
func setupWebhooks(mgr ctrl.Manager, op *operator) error {
	f := op.flags
	mode, err := admission.ParseMode(f.admission.mode)
	if err != nil {
		return err
	}
	podSecurity, err := f.podSecurity.settings()
	if err != nil {
		return err
	}
	facts, err := webhookClusterFacts(mgr, op)
	if err != nil {
		return err
	}
	reader := mgr.GetClient()
	admission.Register(mgr.GetWebhookServer(), mgr.GetScheme(), &admission.Config{
		Catalog:        rules.Default,
		Policies:       op.policies,
		PolicyCompiler: op.policyEnv,
		Mode:           mode,
		Severity:       f.admission.severities,
		Facts:          rules.LicenseFacts{Source: op.license},
		Metrics:        admission.NewMetrics(metrics.Registry),
		NamespaceLabels: func(ctx context.Context, name string) (map[string]string, error) {
			ns := &corev1.Namespace{}
			if err := reader.Get(ctx, client.ObjectKey{Name: name}, ns); err != nil {
				return nil, err
			}
			return ns.Labels, nil
		},
		// The same cached Namespaces, whole, for policy rules.
		Namespace: func(ctx context.Context, name string) (*corev1.Namespace, error) {
			ns := &corev1.Namespace{}
			if err := reader.Get(ctx, client.ObjectKey{Name: name}, ns); err != nil {
				return nil, err
			}
			ns.APIVersion, ns.Kind = "v1", "Namespace"
			return ns, nil
		},
		ExcludedNamespace:       f.admission.excludedNS,
		WatchedNamespaces:       f.servers.watched,
		AllowNamespaceDowngrade: f.admission.allowDowngrade,
		PodSecurity:             podSecurity,
		ClusterFacts:            facts,
	})
	return nil
}
