package rules

import (
	"slices"
	"strings"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// First come, first served: two AgentRuntimes (in one namespace, or in two
// namespaces a Workspace grants the same domain) may ask for routes on one
// host, and the Gateway would then pick one route by its own tie-break,
// silently. The operator decides instead, and says so: the agent that
// claimed the host first holds it, the later one gets no route for that
// host and the Exposed condition ExposeHostInUse.
//
// "First" is the earlier creationTimestamp, then namespace, then name:
// fields the API server sets or fixes at creation, so a tenant cannot
// reorder them, and every reconcile of either agent reaches the same
// verdict from the same view. A claim counts only when the rules grant it
// (no wildcard, under the claimant's namespace domain or its Workspace's
// grants): a refused claim holds nothing, so a tenant cannot block another
// namespace's host by asking for it first. An agent being deleted holds
// nothing either: its routes go with it.
//
// It is a decision function rather than a catalog rule because its input is
// the state of other agents, as AgentRuntimeQuota's is.

// AgentRuntimeExposeHostClaims are the agents among candidates that hold
// a claim on host (normalized) under baseDomain, first come first: each
// asks for a route on host (AgentRuntimeExposedFacades), is not being
// deleted, and is granted host by the rules (AgentRuntimeExposeHostAllowed,
// its namespace's Workspace answered by facts). The first one holds the
// host; every later one is refused it.
func AgentRuntimeExposeHostClaims(host, baseDomain string, candidates []v1alpha1.AgentRuntime, facts Facts) []*v1alpha1.AgentRuntime {
	grants := map[string]*v1alpha1.Workspace{}
	var out []*v1alpha1.AgentRuntime
	for i := range candidates {
		a := &candidates[i]
		if a.DeletionTimestamp != nil || !AgentRuntimeAsksForExposeHost(a, host, baseDomain) {
			continue
		}
		ws, seen := grants[a.Namespace]
		if !seen {
			ws, _ = facts.Workspace(a.Namespace)
			grants[a.Namespace] = ws
		}
		if AgentRuntimeExposeHostAllowed(a.Namespace, host, baseDomain, ws) {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b *v1alpha1.AgentRuntime) int {
		switch {
		case agentRuntimeClaimsFirst(a, b):
			return -1
		case agentRuntimeClaimsFirst(b, a):
			return 1
		}
		return 0
	})
	return out
}

// AgentRuntimeExposeHostHolder returns the agent that holds host before
// ar, or nil when ar may have it: the first of the claims
// (AgentRuntimeExposeHostClaims over candidates, which may include ar) when
// it claimed before ar. ar's own claim is the caller's to have checked
// (the host rules passed).
func AgentRuntimeExposeHostHolder(ar *v1alpha1.AgentRuntime, host, baseDomain string, candidates []v1alpha1.AgentRuntime, facts Facts) *v1alpha1.AgentRuntime {
	claims := AgentRuntimeExposeHostClaims(host, baseDomain, candidates, facts)
	if len(claims) == 0 {
		return nil
	}
	if first := claims[0]; !(first.Namespace == ar.Namespace && first.Name == ar.Name) && agentRuntimeClaimsFirst(first, ar) {
		return first
	}
	return nil
}

// AgentRuntimeAsksForExposeHost reports whether one of ar's exposed facades
// is on host (normalized).
func AgentRuntimeAsksForExposeHost(ar *v1alpha1.AgentRuntime, host, baseDomain string) bool {
	for _, e := range AgentRuntimeExposedFacades(ar, baseDomain) {
		if e.Host == host {
			return true
		}
	}
	return false
}

// AgentRuntimeExposeHosts are the distinct hosts ar's exposed facades ask
// for under baseDomain: what an index of claims keys ar by.
func AgentRuntimeExposeHosts(ar *v1alpha1.AgentRuntime, baseDomain string) []string {
	var out []string
	for _, e := range AgentRuntimeExposedFacades(ar, baseDomain) {
		if e.Host != "" && e.ConflictsWith < 0 {
			out = append(out, e.Host)
		}
	}
	return out
}

// agentRuntimeClaimsFirst reports whether a claimed before b: the earlier
// creationTimestamp, then namespace, then name.
func agentRuntimeClaimsFirst(a, b *v1alpha1.AgentRuntime) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c < 0
	}
	return a.Name < b.Name
}
