package agentruntime

import (
	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/transitions"
)

// waitingReasons are the False reasons of an agent that is still coming up:
// its Provider or PromptPack has not been reconciled yet, its Deployment is
// held back by one of those, or it has no available replica yet. Every
// agent passes through them on a healthy start, so a first one warns no
// one (they used to be three Warnings and three Normal events per agent,
// most of what an agent's start wrote to the API server); a wait that
// follows True (a replica lost) still warns.
var waitingReasons = map[string]bool{
	v1alpha1.AgentRuntimeReasonProviderNotReady:       true,
	v1alpha1.AgentRuntimeReasonPromptPackNotValidated: true,
	v1alpha1.AgentRuntimeReasonDeploymentNotCreated:   true,
	v1alpha1.AgentRuntimeReasonDeploymentUnavailable:  true,
	v1alpha1.AgentRuntimeReasonRoutesPending:          true,
	// An oidc agent's JWKS is fetched in the background after its first
	// reconcile (externalauth.go).
	v1alpha1.AgentRuntimeReasonJWKSPending: true,
}

// eventPolicy is the agent's transitions.Policy: waits are silent, and the
// start ends with one Normal event, Ready turning True.
var eventPolicy = transitions.Policy{
	Waiting:   func(reason string) bool { return waitingReasons[reason] },
	ReadyType: v1alpha1.AgentRuntimeConditionReady,
}
