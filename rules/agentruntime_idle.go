package rules

import (
	"time"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Idle reaping (agentruntime.md#idle-reaping): the one decision of when an
// annotated agent is deleted for being idle. The controller reaps and
// requeues on it; omniactl can report it. It is pure: the caller passes the
// time.

// AgentRuntimeIdleTimeout returns the agent's idle-timeout annotation as a
// duration. present reports whether the annotation is set; valid whether
// its value is a positive Go duration. The agentruntime/idle-timeout-annotation
// rule reports an annotation that is present and not valid.
func AgentRuntimeIdleTimeout(ar *v1alpha1.AgentRuntime) (timeout time.Duration, present, valid bool) {
	v, present := ar.Annotations[AgentRuntimeIdleTimeoutAnnotation]
	if !present {
		return 0, false, false
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, true, false
	}
	return d, true, true
}

// AgentRuntimeIdleDeadline is when an idle agent is deleted: status.lastUsedAt
// plus the annotation's timeout, counted from metadata.creationTimestamp when
// the agent was never used. A lastUsedAt after now counts as now (a facade's
// clock ahead of the operator's cannot push the deadline past one timeout
// from now), and so does a zero creationTimestamp (a manifest not yet stored
// is created now). ok is false without the annotation or with an invalid
// value: such an agent is never deleted for being idle.
//
// The deadline has passed when now is not before it: an agent that has gone
// exactly the timeout without use is reaped.
func AgentRuntimeIdleDeadline(ar *v1alpha1.AgentRuntime, now time.Time) (deadline time.Time, ok bool) {
	timeout, _, valid := AgentRuntimeIdleTimeout(ar)
	if !valid {
		return time.Time{}, false
	}
	from := ar.CreationTimestamp.Time
	if ar.Status.LastUsedAt != nil {
		from = ar.Status.LastUsedAt.Time
	}
	if from.IsZero() || from.After(now) {
		from = now
	}
	return from.Add(timeout), true
}
