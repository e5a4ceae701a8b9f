// Package policies compiles a platform team's ValidationPolicies (CEL with
// the Kubernetes CEL libraries, Rego with OPA) into catalog rules, bounded in
// cost and time, and keeps the catalog in force as policies change. Every
// surface asks the catalog a Store gives: the webhook, the reconcilers, the
// background audit, and omniactl (offline, with policies read from files).
package policies

import (
	"time"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// Languages a policy rule is written in, as metrics and docs name them.
const (
	LanguageCEL  = "cel"
	LanguageRego = "rego"
)

// Compiled is one ValidationPolicy, compiled.
type Compiled struct {
	// Name and Generation identify the policy version compiled.
	Name       string
	Generation int64
	// Rules are the catalog entries, one per policy rule (ID
	// policy/<policy>/<rule>), ready for rules.Catalog.With. Empty when
	// Errors is not: a policy with any error is not in force.
	Rules []rules.Rule
	// Errors are the compile errors, by rule, as the policy's status and
	// the webhook's refusal report them.
	Errors []v1alpha1.ValidationPolicyRuleError
}

// Observer is told of every rule evaluation: the policy, the rule's
// language, how long it took and whether it failed to evaluate (a runtime
// cost or time limit, a Rego error). The operator records it as metrics.
type Observer func(policy, language string, took time.Duration, failed bool)

// Options bound compilation and evaluation. The zero value takes every
// default.
type Options struct {
	// RegoTimeout bounds one Rego evaluation; 0 means DefaultRegoTimeout.
	RegoTimeout time.Duration
	// RegoPolicyBudget bounds all Rego rules of one policy evaluating one
	// object together; 0 means DefaultRegoPolicyBudget.
	RegoPolicyBudget time.Duration
	// Observe, when set, is told of every evaluation.
	Observe Observer
}

func (o Options) withDefaults() Options {
	if o.RegoTimeout <= 0 {
		o.RegoTimeout = DefaultRegoTimeout
	}
	if o.RegoPolicyBudget <= 0 {
		o.RegoPolicyBudget = DefaultRegoPolicyBudget
	}
	return o
}

// DefaultRegoTimeout bounds one Rego rule's evaluation of one object: long
// enough for any sane module, short enough that a looping one cannot hold a
// webhook worker near its 10 s timeout.
const DefaultRegoTimeout = 100 * time.Millisecond

// DefaultRegoPolicyBudget bounds the Rego rules of one policy on one object
// together: without it a policy of 64 slow rules would take 64 timeouts
// (6.4 s) per object against the webhook's 10 s. A rule that starts with the
// budget spent is not run and reports a finding, never a pass.
const DefaultRegoPolicyBudget = 500 * time.Millisecond
