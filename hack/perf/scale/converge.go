package main

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// When an object has converged: its controller has observed its current
// generation and reports the state the object settles in. Each predicate
// reads only what the controller writes into status.
//
//   - Provider: status.observedGeneration is the generation and the phase
//     is Ready (its health check reached the harness's local vendor);
//   - ToolRegistry: the same with phase Ready (every tool Available; for a
//     probing registry, after its first probe of the local listener);
//   - AgentRuntime: the same with phase Running (its Deployment has a
//     ready replica: a real ReplicaSet and Pod, made Ready by kwok);
//   - ArenaJob: its Ready condition is True for the current generation and
//     the run it started (status.lastRunRef) is finished (Succeeded, Failed
//     or Cancelled: nothing more happens to it). The harness plays the
//     worker pods (arenaworkers.go), so a run normally Succeeds; one that
//     ends otherwise still counts as settled, and the report gives the
//     outcomes.

// providerConverged reports whether a Provider has converged.
func providerConverged(p *v1alpha1.Provider) bool {
	return p.Status.ObservedGeneration == p.Generation && p.Status.Phase == v1alpha1.ProviderPhaseReady
}

// toolRegistryConverged reports whether a ToolRegistry has converged.
func toolRegistryConverged(tr *v1alpha1.ToolRegistry) bool {
	return tr.Status.ObservedGeneration == tr.Generation && tr.Status.Phase == v1alpha1.ToolRegistryPhaseReady
}

// agentRuntimeConverged reports whether an AgentRuntime has converged.
func agentRuntimeConverged(ar *v1alpha1.AgentRuntime) bool {
	return ar.Status.ObservedGeneration == ar.Generation && ar.Status.Phase == v1alpha1.AgentRuntimePhaseRunning
}

// arenaJobConverged reports whether an ArenaJob has converged, given the
// phases of the runs in its namespace by name.
func arenaJobConverged(job *v1alpha1.ArenaJob, runPhase func(name string) v1alpha1.ArenaRunPhase) bool {
	if !conditionTrueAt(job.Status.Conditions, v1alpha1.ArenaJobConditionReady, job.Generation) {
		return false
	}
	if job.Status.ObservedGeneration != job.Generation || job.Status.LastRunRef == nil {
		return false
	}
	return rules.ArenaRunPhaseFinal(runPhase(job.Status.LastRunRef.Name))
}

// conditionTrueAt reports whether condition t is True for generation gen.
func conditionTrueAt(conds []metav1.Condition, t string, gen int64) bool {
	c := meta.FindStatusCondition(conds, t)
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == gen
}
