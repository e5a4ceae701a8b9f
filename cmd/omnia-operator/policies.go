package main

import (
	"flag"
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/altairalabs/omnia/policies"
	"github.com/altairalabs/omnia/reconcile/validationpolicy"
	"github.com/altairalabs/omnia/rules"
)

// policyStore is the catalog in force: the built-in rules and the
// ValidationPolicies that compiled. One per process, created before flags
// are parsed so every controller's setup can capture it; the webhook takes
// its catalog once per request, the reconcilers and the background audit
// call policyStore.Catalog() per evaluation and may wait on
// policyStore.Changes(). The policy loader (setupPolicies) fills it on every
// replica.
var policyStore = policies.NewStore(rules.Default)

// policyEnv compiles ValidationPolicies, for the policy webhook and the
// policy controllers; set by setupPolicies.
var policyEnv *policies.Env

var policyRegoTimeout = flag.Duration("policy-rego-timeout", policies.DefaultRegoTimeout,
	"bound on one Rego policy rule's evaluation of one object; a module that runs longer is a finding (result error in omnia_policy_evaluations_total), never a hung webhook")

var policyRegoBudget = flag.Duration("policy-rego-budget", policies.DefaultRegoPolicyBudget,
	"bound on all Rego rules of one policy evaluating one object together; a rule that starts with it spent is a finding, never a pass")

// setupPolicies builds the policy compiler (its evaluations observed as
// omnia_policy_evaluations_total and omnia_policy_evaluation_duration_seconds)
// and registers the policy controllers and the readiness check that waits
// for the cluster's policies to be loaded. It must run before the webhooks
// are registered and the other controllers are set up.
func setupPolicies(mgr ctrl.Manager) error {
	if *policyRegoTimeout <= 0 {
		return fmt.Errorf("--policy-rego-timeout %s: must be positive", *policyRegoTimeout)
	}
	if *policyRegoBudget <= 0 {
		return fmt.Errorf("--policy-rego-budget %s: must be positive", *policyRegoBudget)
	}
	m := validationpolicy.NewMetrics(metrics.Registry)
	env, err := policies.NewEnv(policies.Options{RegoTimeout: *policyRegoTimeout, RegoPolicyBudget: *policyRegoBudget, Observe: m.Observe})
	if err != nil {
		return fmt.Errorf("building the policy compiler: %w", err)
	}
	policyEnv = env
	loader, err := validationpolicy.SetupWithManager(mgr, validationpolicy.Options{Store: policyStore, Compiler: env})
	if err != nil {
		return err
	}
	return mgr.AddReadyzCheck("policies", loader.ReadyzCheck)
}
