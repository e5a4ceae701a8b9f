package rules

import (
	"fmt"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// ArenaRunServiceGroupResolution is the outcome of resolving a run's
// service group (arenajob.md § serviceGroup).
type ArenaRunServiceGroupResolution struct {
	// Group is the resolved group; nil when none applies.
	Group *v1alpha1.WorkspaceServiceGroup
	// FailReason fails the run (ServiceGroupAmbiguous, ServiceGroupNotFound).
	FailReason string
	// RetryMessage leaves the Job uncreated (JobCreated=False,
	// JobCreationFailed) and is retried with backoff.
	RetryMessage string
	// Message explains FailReason.
	Message string
}

// ArenaRunServiceGroup resolves the template's serviceGroup in the
// workspace: the one place this decision is made (the reasons are the
// spec's). The group is needed for the session-api when sessionRecording is
// true or the job is datagen, and for the queue whenever any group sets a
// redis.
func ArenaRunServiceGroup(t *v1alpha1.ArenaJobSpec, ws *v1alpha1.Workspace) ArenaRunServiceGroupResolution {
	var groups []v1alpha1.WorkspaceServiceGroup
	if ws != nil {
		groups = ws.Spec.Services
	}
	anyRedis := false
	for _, g := range groups {
		if g.Redis != nil {
			anyRedis = true
		}
	}
	needSession := t.SessionRecording || t.Type == v1alpha1.ArenaJobTypeDataGen
	if !needSession && !anyRedis {
		return ArenaRunServiceGroupResolution{}
	}
	var g *v1alpha1.WorkspaceServiceGroup
	switch {
	case t.ServiceGroup != "":
		for i := range groups {
			if groups[i].Name == t.ServiceGroup {
				g = &groups[i]
			}
		}
		if g == nil {
			msg := fmt.Sprintf("the workspace declares no service group %q", t.ServiceGroup)
			if anyRedis {
				return ArenaRunServiceGroupResolution{FailReason: v1alpha1.ArenaRunReasonServiceGroupNotFound, Message: msg}
			}
			return ArenaRunServiceGroupResolution{RetryMessage: msg}
		}
	case len(groups) == 1:
		g = &groups[0]
	case len(groups) > 1:
		return ArenaRunServiceGroupResolution{FailReason: v1alpha1.ArenaRunReasonServiceGroupAmbiguous,
			Message: fmt.Sprintf("the workspace has %d service groups and the job names none in spec.serviceGroup", len(groups))}
	default:
		return ArenaRunServiceGroupResolution{RetryMessage: "the workspace has no service groups to record sessions into"}
	}
	if needSession && g.Session == nil {
		return ArenaRunServiceGroupResolution{Group: g, RetryMessage: fmt.Sprintf("service group %q declares no session-api", g.Name)}
	}
	return ArenaRunServiceGroupResolution{Group: g}
}
