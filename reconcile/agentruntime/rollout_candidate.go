package agentruntime

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// The candidate of a rollout (agentruntime.md § rollout): the agent with
// spec.rollout.candidate's sparse overrides applied (candidateAgent), from
// which the same builder as the stable one makes the candidate's
// Deployment (workload.CandidateDeployment). Pure functions.

// rolloutCandidate is spec.rollout.candidate, nil when unset.
func rolloutCandidate(ar *v1alpha1.AgentRuntime) *v1alpha1.AgentRuntimeRolloutCandidate {
	if ar.Spec.Rollout == nil {
		return nil
	}
	return ar.Spec.Rollout.Candidate
}

// candidateMatchesSpec reports whether every override the candidate sets
// equals the current spec's field ("When candidate matches the current
// spec, the rollout is idle"). A candidate that sets nothing matches.
func candidateMatchesSpec(ar *v1alpha1.AgentRuntime) bool {
	c := rolloutCandidate(ar)
	if c == nil {
		return true
	}
	if c.PromptPackRef != nil && !equality.Semantic.DeepEqual(c.PromptPackRef, ar.Spec.PromptPackRef) {
		return false
	}
	if len(c.ProviderRefs) > 0 && !equality.Semantic.DeepEqual(c.ProviderRefs, ar.Spec.Providers) {
		return false
	}
	if c.ToolRegistryRef != nil && !equality.Semantic.DeepEqual(c.ToolRegistryRef, ar.Spec.ToolRegistryRef) {
		return false
	}
	return true
}

// withCandidateSpec returns spec with the candidate's overrides applied:
// promptPackRef, providerRefs (as spec.providers) and toolRegistryRef, each
// only when the candidate sets it. Promotion writes this spec; the
// candidate Deployment is built from it.
func withCandidateSpec(spec v1alpha1.AgentRuntimeSpec, c *v1alpha1.AgentRuntimeRolloutCandidate) v1alpha1.AgentRuntimeSpec {
	out := *spec.DeepCopy()
	if c == nil {
		return out
	}
	if c.PromptPackRef != nil {
		out.PromptPackRef = c.PromptPackRef.DeepCopy()
	}
	if len(c.ProviderRefs) > 0 {
		out.Providers = c.ProviderRefs.DeepCopy()
	}
	if c.ToolRegistryRef != nil {
		out.ToolRegistryRef = c.ToolRegistryRef.DeepCopy()
	}
	return out
}

// candidateAgent is the agent as the candidate runs it: a copy with the
// overrides applied and no spec.rollout (the candidate is not itself rolled
// out; the rules then judge its inputs as they would a stable agent's).
func candidateAgent(ar *v1alpha1.AgentRuntime) *v1alpha1.AgentRuntime {
	cp := ar.DeepCopy()
	cp.Spec = withCandidateSpec(ar.Spec, rolloutCandidate(ar))
	cp.Spec.Rollout = nil
	return cp
}

// revertedCandidate is the candidate set back to match the current spec
// (rollback: "Rollback reverts the candidate to match the current spec"):
// each override the candidate sets takes the spec's value, so the rollout
// is idle and the user sees which fields the rolled-back candidate had.
// An override whose spec field is unset is dropped.
func revertedCandidate(ar *v1alpha1.AgentRuntime) *v1alpha1.AgentRuntimeRolloutCandidate {
	c := rolloutCandidate(ar)
	if c == nil {
		return nil
	}
	out := &v1alpha1.AgentRuntimeRolloutCandidate{}
	if c.PromptPackRef != nil && ar.Spec.PromptPackRef != nil {
		out.PromptPackRef = ar.Spec.PromptPackRef.DeepCopy()
	}
	if len(c.ProviderRefs) > 0 && len(ar.Spec.Providers) > 0 {
		out.ProviderRefs = ar.Spec.Providers.DeepCopy()
	}
	if c.ToolRegistryRef != nil && ar.Spec.ToolRegistryRef != nil {
		out.ToolRegistryRef = ar.Spec.ToolRegistryRef.DeepCopy()
	}
	return out
}

// maxCandidateRatio bounds the candidate in replicaWeighted mode: at most
// this many candidate replicas per stable replica, so a weight above 80%
// (and promotion's 100%) is approximated by 80% rather than an unbounded
// candidate.
const maxCandidateRatio = 4

// candidateReplicas is the candidate's replica count for weight (0–100)
// next to stable replicas of the stable Deployment.
//
// replicaWeighted: the agent's Service selects both tracks, so the replica
// ratio is the traffic split: C/(C+S) ≈ w/100, i.e. C = round(S·w/(100−w)),
// at least 1 while w > 0, at most maxCandidateRatio·S (so w ≥ 80 and
// promotion's 100 give 4·S). A stable at 0 replicas (scaled to zero) keeps
// the candidate at 0.
//
// mesh and external (the weight is enforced by the routing): the candidate
// only needs capacity for its share, C = ceil(S·w/100), at least 1 while
// w > 0.
func candidateReplicas(stable, weight int32, replicaWeighted bool) int32 {
	weight = min(max(weight, 0), 100)
	if stable <= 0 || weight == 0 {
		return 0
	}
	if !replicaWeighted {
		return max(1, (stable*weight+99)/100)
	}
	ceiling := maxCandidateRatio * stable
	if weight == 100 {
		return ceiling
	}
	c := (2*stable*weight + (100 - weight)) / (2 * (100 - weight)) // round(S·w/(100−w))
	return min(max(c, 1), ceiling)
}

// stableReplicas is the stable Deployment's replica count as the API server
// has it (an autoscaler's value when one owns spec.replicas).
func stableReplicas(d *appsv1.Deployment) int32 {
	if d == nil {
		return 0
	}
	if d.Spec.Replicas != nil {
		return *d.Spec.Replicas
	}
	return d.Status.Replicas
}

// deploymentRolledOut reports whether a Deployment runs its current
// template at its desired count: the controller has seen the current
// generation, every replica is updated and available, and no old one is
// left. Used for the candidate at a setWeight step and for the stable
// Deployment during promotion.
func deploymentRolledOut(d *appsv1.Deployment) bool {
	if d == nil || d.Status.ObservedGeneration < d.Generation {
		return false
	}
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	s := d.Status
	return s.UpdatedReplicas >= want && s.AvailableReplicas >= want && s.Replicas == s.UpdatedReplicas
}

// progressDeadlineExceeded reports whether the Deployment's Progressing
// condition is False with reason ProgressDeadlineExceeded (set by
// kube-controller-manager once spec.progressDeadlineSeconds passed without
// progress).
func progressDeadlineExceeded(d *appsv1.Deployment) bool {
	if d == nil {
		return false
	}
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing {
			return c.Status == "False" && c.Reason == "ProgressDeadlineExceeded"
		}
	}
	return false
}
