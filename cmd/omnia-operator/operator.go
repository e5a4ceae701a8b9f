package main

import (
	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/policies"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
	"github.com/altairalabs/omnia/reconcile/prober"
	"github.com/altairalabs/omnia/rules"
)

// operator is what the setups share: the parsed flags and the
// process-wide objects several of them read. main builds one after
// parsing and hands it to every setup, so each setup names what it uses.
type operator struct {
	flags *operatorFlags

	// license is the licence in force: the webhook's facts and every
	// reconciler read it, the Secret watcher (setupLicense) swaps it. Until
	// the watcher has read the Secret it holds the open-core licence (and
	// /readyz waits).
	license *licensing.Store

	// policies is the catalog in force: the built-in rules and the
	// ValidationPolicies that compiled, filled by the policy loader
	// (setupPolicies) on every replica. The webhook takes its catalog once
	// per request; the controllers of the kinds a policy can match
	// (Provider, AgentRuntime, ToolRegistry, PromptPack, ArenaJob,
	// ArenaRun) answer its policies with conditions and re-reconcile on
	// its changes, and the background audit calls Catalog() per
	// evaluation and waits on Changes().
	policies *policies.Store

	// policyEnv compiles ValidationPolicies, for the policy webhook and
	// the policy controllers; set by setupPolicies, which runs before the
	// webhooks are registered.
	policyEnv *policies.Env

	// prober is the one prober the controllers submit to, created on
	// first use (probeRunner).
	prober *prober.Prober

	// fetcher is the one fetcher of the ArenaProject and ArenaRun
	// controllers, created on first use (arenaFetcher).
	fetcher *source.Fetcher
}

// newOperator is the operator of the parsed flags f, with an empty
// licence and policy store.
func newOperator(f *operatorFlags) *operator {
	return &operator{
		flags:    f,
		license:  licensing.NewStore(),
		policies: policies.NewStore(rules.Default),
	}
}
