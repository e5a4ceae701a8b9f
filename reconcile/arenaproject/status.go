package arenaproject

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
	"github.com/altairalabs/omnia/rules"
)

// observation is what one look at the repository found: Head's answer.
type observation struct {
	opened source.Opened
	err    error
}

// phaseOf is the phase of a look that failed with reason: Pending while
// the fetcher lists the refs (Fetching), and for the failures of a hosted
// project that the editor (or whoever fills the content volume) is
// expected to fix by creating the repository or its first commit. Every
// other failure is Failed.
func phaseOf(p *v1alpha1.ArenaProject, reason string) v1alpha1.ArenaProjectPhase {
	if reason == v1alpha1.ArenaProjectReasonFetching {
		return v1alpha1.ArenaProjectPhasePending
	}
	if p.Spec.Git == nil && (reason == v1alpha1.ArenaProjectReasonRepositoryNotFound || reason == v1alpha1.ArenaProjectReasonEmptyRepository) {
		return v1alpha1.ArenaProjectPhasePending
	}
	return v1alpha1.ArenaProjectPhaseFailed
}

// denyFindings are the findings that refuse the spec: deny severity (warn
// findings are advisory and set nothing).
func denyFindings(findings []rules.Finding) []rules.Finding {
	var out []rules.Finding
	for _, f := range findings {
		if f.Severity != rules.SeverityWarn {
			out = append(out, f)
		}
	}
	return out
}

// setReadyCondition sets Ready from the spec's deny findings and, when there
// are none, from the observation (nil when nothing was looked at because of
// the findings).
func setReadyCondition(st *v1alpha1.ArenaProjectStatus, gen int64, deny []rules.Finding, obs *observation, now metav1.Time) {
	var c metav1.Condition
	switch {
	case len(deny) > 0:
		c = conditions.FromFindings(v1alpha1.ArenaProjectConditionReady, deny, v1alpha1.ArenaProjectReasonResolved, "", v1alpha1.ArenaProjectReasonInvalidSpec, gen)
	case obs.err != nil:
		c = metav1.Condition{Type: v1alpha1.ArenaProjectConditionReady, Status: metav1.ConditionFalse, Reason: source.ReasonOf(obs.err),
			Message: conditions.Truncate(source.StatusMessage(obs.err), 4096), ObservedGeneration: gen}
	default:
		c = metav1.Condition{Type: v1alpha1.ArenaProjectConditionReady, Status: metav1.ConditionTrue, Reason: v1alpha1.ArenaProjectReasonResolved,
			Message: "default branch " + obs.opened.DefaultBranch + " is at " + obs.opened.Commit, ObservedGeneration: gen}
	}
	conditions.Set(&st.Conditions, c, now)
}

// computeStatus is the project's status after an observation (obs nil when
// deny findings stopped the look). Pure: it starts from the stored status so
// the condition keeps its lastTransitionTime, and the caller writes only a
// change. A failed look keeps the last known defaultBranch and headCommit.
func computeStatus(p *v1alpha1.ArenaProject, findings []rules.Finding, obs *observation, now metav1.Time) v1alpha1.ArenaProjectStatus {
	st := *p.Status.DeepCopy()
	gen := p.Generation
	deny := denyFindings(findings)
	setReadyCondition(&st, gen, deny, obs, now)
	st.Repository = source.RepositoryName(p)
	switch {
	case len(deny) > 0:
		st.Phase = v1alpha1.ArenaProjectPhaseFailed
	case obs.err != nil:
		st.Phase = phaseOf(p, source.ReasonOf(obs.err))
	default:
		st.Phase = v1alpha1.ArenaProjectPhaseReady
		st.DefaultBranch = obs.opened.DefaultBranch
		st.HeadCommit = obs.opened.Commit
	}
	st.ObservedGeneration = gen
	return st
}

// backoffDelay is the wait after failures consecutive failed looks:
// min·2^(failures-1), capped at max.
func backoffDelay(failures int, min, max time.Duration) time.Duration {
	if failures <= 0 {
		return 0
	}
	d := min
	for i := 1; i < failures && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	return d
}
