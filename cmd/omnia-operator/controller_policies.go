package main

import "github.com/altairalabs/omnia/reconcile/policycheck"

// controllerPolicies are the ValidationPolicies in force that the
// controllers of the kinds a policy can match (Provider, AgentRuntime,
// ToolRegistry, PromptPack, ArenaJob, ArenaRun) answer with conditions, and
// whose changes re-reconcile those kinds: the operator's policies.Store.
// The controllers capture it when they are set up (setupControllers).
var controllerPolicies policycheck.Policies = policyStore
