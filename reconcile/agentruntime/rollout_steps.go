package agentruntime

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// The rollout step machine's decisions, one pure function each; rollout.go
// does the I/O they call for. Its state is status.rollout: currentStep,
// stepStartedAt, currentWeight, promoting, analysis.

// rolloutPhase is what a reconcile does with the agent's rollout.
type rolloutPhase int

const (
	// rolloutNone: no spec.rollout and no status.rollout: nothing to do.
	rolloutNone rolloutPhase = iota
	// rolloutIdle: no candidate, or a candidate equal to the spec, and no
	// rollout in progress.
	rolloutIdle
	// rolloutEnded: a rollout was in progress and the candidate is now
	// gone or equal to the spec: clean up (abort, or the end of a
	// promotion or rollback whose status had not been written yet).
	rolloutEnded
	// rolloutRunning: the candidate differs from the spec; run the steps.
	rolloutRunning
	// rolloutPromoting: status.rollout.promoting with a candidate set.
	rolloutPromoting
)

// rolloutPhaseOf decides the phase from the spec and the last status.
func rolloutPhaseOf(ar *v1alpha1.AgentRuntime) rolloutPhase {
	prior := ar.Status.Rollout
	wasActive := prior != nil && prior.Active
	cand := rolloutCandidate(ar)
	switch {
	case ar.Spec.Rollout == nil && prior == nil:
		return rolloutNone
	case prior != nil && prior.Promoting && cand != nil && wasActive:
		return rolloutPromoting
	case cand == nil || candidateMatchesSpec(ar):
		if wasActive {
			return rolloutEnded
		}
		return rolloutIdle
	default:
		return rolloutRunning
	}
}

// rollbackAutomatic reports whether spec.rollout.rollback.mode is
// automatic; manual (the default) and disabled never roll back on their own.
func rollbackAutomatic(ar *v1alpha1.AgentRuntime) bool {
	r := ar.Spec.Rollout
	return r != nil && r.Rollback != nil && r.Rollback.Mode == "automatic"
}

// promoteRequested reports whether a person asked for promotion
// (AgentRuntimeRolloutPromoteAnnotation = "true").
func promoteRequested(ar *v1alpha1.AgentRuntime) bool {
	return ar.Annotations[v1alpha1.AgentRuntimeRolloutPromoteAnnotation] == "true"
}

// startRollout is status.rollout at the start of a rollout: step 0, weight
// 0, both clocks at now. The last rollout's status is replaced.
func startRollout(now metav1.Time) *v1alpha1.AgentRuntimeRolloutStatus {
	return &v1alpha1.AgentRuntimeRolloutStatus{Active: true, CurrentStep: ptr.To[int32](0), CurrentWeight: ptr.To[int32](0),
		StartedAt: ptr.To(now), StepStartedAt: ptr.To(now)}
}

// advanceStep moves to the next step at now, dropping the finished step's
// analysis progress.
func advanceStep(st *v1alpha1.AgentRuntimeRolloutStatus, now metav1.Time) {
	st.CurrentStep = ptr.To(ptr.Deref(st.CurrentStep, 0) + 1)
	st.StepStartedAt = ptr.To(now)
	st.Analysis = nil
}

// endRollout marks status.rollout finished: not active, not promoting, no
// current step; what the rollout was (startedAt, versions) stays, with
// message.
func endRollout(st *v1alpha1.AgentRuntimeRolloutStatus, message string) {
	st.Active, st.Promoting = false, false
	st.CurrentStep, st.StepStartedAt = nil, nil
	st.CurrentWeight = ptr.To[int32](0)
	st.Message = message
}

// pauseDecision is a pause step at now: manual when it has no duration (it
// waits for a person to promote), else the time left (≤ 0: the pause is
// over). An unparsable duration (the rules refuse it at admission) counts
// as no pause.
func pauseDecision(p *v1alpha1.AgentRuntimeRolloutPause, stepStartedAt *metav1.Time, now time.Time) (manual bool, remaining time.Duration) {
	if p.Duration == "" {
		return true, 0
	}
	d, err := time.ParseDuration(p.Duration)
	if err != nil || stepStartedAt == nil {
		return false, 0
	}
	return false, stepStartedAt.Add(d).Sub(now)
}

// analysisAction is what the step machine does after an analysis verdict.
type analysisAction int

const (
	analysisWait     analysisAction = iota // Running: come back later
	analysisAdvance                        // Successful: next step
	analysisRollback                       // Failed or Error under automatic
	analysisHold                           // Failed or Error under manual/disabled
)

// analysisActionOf maps the analysis phase and the rollback mode to the
// machine's action; Error counts as Failed.
func analysisActionOf(phase analysisPhase, automatic bool) analysisAction {
	switch phase {
	case analysisSuccessful:
		return analysisAdvance
	case analysisFailed, analysisError:
		if automatic {
			return analysisRollback
		}
		return analysisHold
	default:
		return analysisWait
	}
}

// analysisSettledFailed reports whether the analysis status is already a
// failure: under manual rollback the machine holds without running it
// again.
func analysisSettledFailed(a *v1alpha1.AgentRuntimeRolloutAnalysisStatus) bool {
	return a != nil && (a.Phase == string(analysisFailed) || a.Phase == string(analysisError))
}

// stepLabel names step i for messages and events: "step 2/5 (pause 5m)".
func stepLabel(steps []v1alpha1.AgentRuntimeRolloutStep, i int32) string {
	if int(i) >= len(steps) || i < 0 {
		return fmt.Sprintf("step %d/%d", i+1, len(steps))
	}
	s := steps[i]
	what := ""
	switch {
	case s.SetWeight != nil:
		what = fmt.Sprintf("setWeight %d", *s.SetWeight)
	case s.Pause != nil && s.Pause.Duration != "":
		what = "pause " + s.Pause.Duration
	case s.Pause != nil:
		what = "pause until promoted"
	case s.Analysis != nil:
		what = "analysis " + s.Analysis.TemplateName
	}
	return fmt.Sprintf("step %d/%d (%s)", i+1, len(steps), what)
}

// promoteHint tells a person how to promote or abort.
const promoteHint = "annotate the AgentRuntime " + v1alpha1.AgentRuntimeRolloutPromoteAnnotation +
	"=true to promote, or remove spec.rollout.candidate to abort"

// defaultProgressDeadline is Kubernetes' default
// spec.progressDeadlineSeconds, the candidate's when
// rollout.rollback.progressDeadlineSeconds is unset.
const defaultProgressDeadline = 600 * time.Second

// stepDeadline is the operator's own bound on a setWeight step waiting for
// the candidate's replicas: the progress deadline counted from
// stepStartedAt. Kubernetes judges spec.progressDeadlineSeconds only while
// a Deployment rolls out a template, not while it scales, so a candidate
// scaled up by a later setWeight whose new pods never run would otherwise
// wait forever. exceeded when the deadline has passed, else the time left.
func stepDeadline(ar *v1alpha1.AgentRuntime, stepStartedAt *metav1.Time, now time.Time) (exceeded bool, remaining time.Duration) {
	if stepStartedAt == nil {
		return false, 0
	}
	d := defaultProgressDeadline
	if r := ar.Spec.Rollout; r != nil && r.Rollback != nil && r.Rollback.ProgressDeadlineSeconds != nil {
		d = time.Duration(*r.Rollback.ProgressDeadlineSeconds) * time.Second
	}
	remaining = stepStartedAt.Add(d).Sub(now)
	return remaining <= 0, remaining
}
