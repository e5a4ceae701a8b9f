package main

import (
	"flag"
	"fmt"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/altairalabs/omnia/policies"
	"github.com/altairalabs/omnia/reconcile/validationpolicy"
)

// policyFlags bound the evaluation of Rego policy rules.
type policyFlags struct {
	regoTimeout time.Duration
	regoBudget  time.Duration
}

func (f *policyFlags) bind(fs *flag.FlagSet) {
	fs.DurationVar(&f.regoTimeout, "policy-rego-timeout", policies.DefaultRegoTimeout,
		"bound on one Rego policy rule's evaluation of one object; a module that runs longer is a finding (result error in omnia_policy_evaluations_total), never a hung webhook")
	fs.DurationVar(&f.regoBudget, "policy-rego-budget", policies.DefaultRegoPolicyBudget,
		"bound on all Rego rules of one policy evaluating one object together; a rule that starts with it spent is a finding, never a pass")
}

// setupPolicies builds the policy compiler (its evaluations observed as
// omnia_policy_evaluations_total and omnia_policy_evaluation_duration_seconds)
// and registers the policy controllers and the readiness check that waits
// for the cluster's policies to be loaded. It must run before the webhooks
// are registered (they compile with op.policyEnv) and the other
// controllers are set up. The loader fills op.policies on every replica.
func setupPolicies(mgr ctrl.Manager, op *operator) error {
	f := op.flags.policies
	if f.regoTimeout <= 0 {
		return fmt.Errorf("--policy-rego-timeout %s: must be positive", f.regoTimeout)
	}
	if f.regoBudget <= 0 {
		return fmt.Errorf("--policy-rego-budget %s: must be positive", f.regoBudget)
	}
	m := validationpolicy.NewMetrics(metrics.Registry)
	env, err := policies.NewEnv(policies.Options{RegoTimeout: f.regoTimeout, RegoPolicyBudget: f.regoBudget, Observe: m.Observe})
	if err != nil {
		return fmt.Errorf("building the policy compiler: %w", err)
	}
	op.policyEnv = env
	loader, err := validationpolicy.SetupWithManager(mgr, validationpolicy.Options{Store: op.policies, Compiler: env})
	if err != nil {
		return err
	}
	return mgr.AddReadyzCheck("policies", loader.ReadyzCheck)
}
