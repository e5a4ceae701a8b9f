package workload

import (
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// A rollout's candidate runs as a second Deployment beside the stable one,
// built by the same builder from the agent with the candidate's overrides
// applied (the controller's candidateAgent).

// CandidateDeploymentName is the rollout candidate's Deployment,
// `<agent>-candidate`.
func CandidateDeploymentName(ar *v1alpha1.AgentRuntime) string { return ar.Name + "-candidate" }

// CandidateDeployment is the candidate's Deployment: stable is what the
// shared builder (Deployment) made from the candidate agent, renamed
// `<agent>-candidate`, its pods labelled rollout-track=candidate and
// selected by that label too (so the candidate's ReplicaSets never count the
// stable pods, which carry rollout-track=stable), with replicas and the
// progress deadline of spec.rollout.rollback.progressDeadlineSeconds (unset
// inherits Kubernetes' 600 s). The agent's Service selects both tracks.
func CandidateDeployment(ar *v1alpha1.AgentRuntime, built *appsv1.Deployment, replicas int32) *appsv1.Deployment {
	d := built.DeepCopy()
	d.Name = CandidateDeploymentName(ar)
	sel := SelectorLabels(ar)
	sel[LabelRolloutTrack] = RolloutTrackCandidate
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: sel}
	labels := maps.Clone(d.Spec.Template.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[LabelRolloutTrack] = RolloutTrackCandidate
	d.Spec.Template.Labels = labels
	d.Spec.Replicas = ptr.To(replicas)
	d.Spec.ProgressDeadlineSeconds = nil
	if rb := ar.Spec.Rollout; rb != nil && rb.Rollback != nil && rb.Rollback.ProgressDeadlineSeconds != nil {
		d.Spec.ProgressDeadlineSeconds = ptr.To(*rb.Rollback.ProgressDeadlineSeconds)
	}
	return d
}
