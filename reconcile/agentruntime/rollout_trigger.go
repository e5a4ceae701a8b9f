package agentruntime

import (
	"context"
	"fmt"
	"strings"

	"golang.org/x/mod/semver"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
)

// The version trigger (agentruntime.md § rollout, rollout.trigger.
// promptPackChannel): "when a version newer than the agent's active one
// appears on this channel, the controller sets it as rollout.candidate".
//
// The agent's active version is spec.promptPackRef.version (the trigger
// requires a version-pinned ref, CEL-validated). The trigger only writes
// spec.rollout.candidate.promptPackRef; the step machine (rollout.go) runs
// the rollout from there. The PromptPack watch already re-reconciles the
// agents naming a pack when one of its versions appears or changes.

// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=agentruntimes,verbs=get;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// TriggeredVersionAnnotation is on an agent whose rollout the trigger
// started: the version it last set as the candidate. The trigger proposes
// only versions newer than both the active one and this one, so a
// candidate that was rolled back (the candidate reverted to the spec, which
// makes the rollout idle) is not proposed again; a later version is.
// Removing the annotation lets the trigger propose the rolled-back version
// once more.
const TriggeredVersionAnnotation = "omnia.altairalabs.ai/rollout-triggered-version"

// Event reason and action of the trigger's write.
const (
	ReasonRolloutTriggered = "RolloutTriggered"
	rolloutTriggerAction   = "SetRolloutCandidate"
)

// triggerRollout is rollout.trigger.promptPackChannel: a version newer than
// the active one on the channel becomes spec.rollout.candidate. It runs
// before resolve; stop is true when it wrote the spec (the write itself
// re-reconciles the agent).
//
// It never overrides a rollout in progress (rolloutInProgress) and is
// idempotent: once it has set a candidate, the candidate differs from the
// spec until the rollout ends, and after it ends the annotation keeps it
// from proposing the same version again. The patch carries the agent's
// resourceVersion, so a candidate someone set concurrently is never
// overwritten (the conflict requeues the agent).
func (r *Reconciler) triggerRollout(ctx context.Context, ar *v1alpha1.AgentRuntime, facts *clusterfacts.Facts) (stop bool, err error) {
	ro, ref := ar.Spec.Rollout, ar.Spec.PromptPackRef
	if ro == nil || ro.Trigger == nil || ref == nil || ref.Version == "" || ref.Track != "" {
		return false, nil
	}
	if rolloutInProgress(ar) {
		return false, nil
	}
	// A failed list leaves packs empty: nothing is triggered, and
	// Reconcile reports facts.Err() after resolve.
	packs := facts.PromptPacks(ar.Namespace, ref.Name)
	version, ok := triggerCandidateVersion(packs, ref.Version, ro.Trigger.PromptPackChannel, ar.Annotations[TriggeredVersionAnnotation])
	if !ok {
		return false, nil
	}
	base := ar.DeepCopy()
	ar.Spec.Rollout.Candidate = &v1alpha1.AgentRuntimeRolloutCandidate{
		PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: ref.Name, Version: version},
	}
	ann := map[string]string{}
	for k, v := range ar.Annotations {
		ann[k] = v
	}
	ann[TriggeredVersionAnnotation] = version
	ar.SetAnnotations(ann)
	if err := r.client.Patch(ctx, ar, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return false, fmt.Errorf("setting rollout.candidate from rollout.trigger: %w", err)
	}
	if r.recorder == nil {
		return true, nil
	}
	r.recorder.Eventf(ar, nil, corev1.EventTypeNormal, ReasonRolloutTriggered, rolloutTriggerAction,
		"PromptPack %s version %s on channel %s is newer than the active %s: set as rollout.candidate",
		ref.Name, version, channelOf(ro.Trigger.PromptPackChannel), ref.Version)
	return true, nil
}

// channelOf is the trigger's channel, stable unless prerelease.
func channelOf(c v1alpha1.AgentRuntimePromptPackTrack) v1alpha1.AgentRuntimePromptPackTrack {
	if c == v1alpha1.AgentRuntimePromptPackTrackPrerelease {
		return c
	}
	return v1alpha1.AgentRuntimePromptPackTrackStable
}

// rolloutInProgress reports whether a rollout is running, which the trigger
// must never override: a candidate that differs from the spec (agentruntime.
// md § rollout: "When candidate matches the current spec, the rollout is
// idle"), or a status that says the step machine is still active or
// promoting (a promotion copies the candidate into the spec, so the
// candidate matches the spec while traffic is still being moved back).
func rolloutInProgress(ar *v1alpha1.AgentRuntime) bool {
	if st := ar.Status.Rollout; st != nil && (st.Active || st.Promoting) {
		return true
	}
	return rolloutCandidateDiffers(ar)
}

// rolloutCandidateDiffers reports whether spec.rollout.candidate overrides
// anything with a value other than the spec's. Its fields are sparse: an
// unset field overrides nothing.
func rolloutCandidateDiffers(ar *v1alpha1.AgentRuntime) bool {
	if ar.Spec.Rollout == nil || ar.Spec.Rollout.Candidate == nil {
		return false
	}
	c := ar.Spec.Rollout.Candidate
	if c.PromptPackRef != nil && (ar.Spec.PromptPackRef == nil || !equality.Semantic.DeepEqual(*c.PromptPackRef, *ar.Spec.PromptPackRef)) {
		return true
	}
	if c.ProviderRefs != nil && !equality.Semantic.DeepEqual(c.ProviderRefs, ar.Spec.Providers) {
		return true
	}
	if c.ToolRegistryRef != nil && (ar.Spec.ToolRegistryRef == nil || !equality.Semantic.DeepEqual(*c.ToolRegistryRef, *ar.Spec.ToolRegistryRef)) {
		return true
	}
	return false
}

// triggerCandidateVersion is the version the trigger sets as the
// candidate: the highest published version of the pack on channel that is
// newer (semver precedence) than active and than lastTriggered (the
// version the trigger set last, "" when none). ok is false when there is
// none.
//
//   - channel stable (or unset) sees release versions only; prerelease sees
//     every version, so 2.0.0-rc.1 is a candidate over 1.0.0 there.
//   - Build metadata does not count: 1.0.0+build.2 is not newer than 1.0.0.
//   - A pack whose version is not a full semver (MAJOR.MINOR.PATCH) is skipped, as is a live pack
//     (no version) and one whose validation failed (status.phase Invalid:
//     its rollout could only fail). An active version that is not semver
//     triggers nothing: nothing can be shown newer than it.
//   - Among versions of equal precedence the string order decides, so the
//     pick is deterministic.
func triggerCandidateVersion(packs []v1alpha1.PromptPack, active string, channel v1alpha1.AgentRuntimePromptPackTrack, lastTriggered string) (string, bool) {
	floor := "v" + active
	if !strictSemver(active) {
		return "", false
	}
	if last := "v" + lastTriggered; strictSemver(lastTriggered) && semver.Compare(last, floor) > 0 {
		floor = last
	}
	best := ""
	for i := range packs {
		p := &packs[i]
		v := "v" + p.Spec.Version
		switch {
		case p.Spec.Source.Live != nil, !strictSemver(p.Spec.Version):
			continue
		case p.Status.Phase == v1alpha1.PromptPackPhaseInvalid:
			continue
		case channel != v1alpha1.AgentRuntimePromptPackTrackPrerelease && semver.Prerelease(v) != "":
			continue
		case semver.Compare(v, floor) <= 0:
			continue
		}
		if best == "" {
			best = p.Spec.Version
			continue
		}
		if c := semver.Compare(v, "v"+best); c > 0 || (c == 0 && p.Spec.Version > best) {
			best = p.Spec.Version
		}
	}
	return best, best != ""
}

// strictSemver reports whether v is a full semantic version,
// MAJOR.MINOR.PATCH with an optional prerelease and build (no leading v):
// x/mod/semver alone also takes the shorthands 2 and 2.0.
func strictSemver(v string) bool {
	if !semver.IsValid("v" + v) {
		return false
	}
	core, _, _ := strings.Cut(v, "+")
	core, _, _ = strings.Cut(core, "-")
	return strings.Count(core, ".") == 2
}
