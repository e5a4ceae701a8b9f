package arenarun

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// groupResolution is the outcome of resolving a run's service group
// (arenajob.md § serviceGroup).
type groupResolution struct {
	// group is the resolved group; nil when none applies.
	group *v1alpha1.WorkspaceServiceGroup
	// failReason fails the run (ServiceGroupAmbiguous, ServiceGroupNotFound).
	failReason string
	// retryMessage leaves the Job uncreated (JobCreated=False,
	// JobCreationFailed) and is retried with backoff.
	retryMessage string
	message      string
}

// resolveServiceGroup resolves the template's serviceGroup in the
// workspace. The group is needed for the session-api when sessionRecording
// is true or the job is datagen, and for the queue whenever any group sets
// a redis.
func resolveServiceGroup(t *v1alpha1.ArenaJobSpec, ws *v1alpha1.Workspace) groupResolution {
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
		return groupResolution{}
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
				return groupResolution{failReason: v1alpha1.ArenaRunReasonServiceGroupNotFound, message: msg}
			}
			return groupResolution{retryMessage: msg}
		}
	case len(groups) == 1:
		g = &groups[0]
	case len(groups) > 1:
		return groupResolution{failReason: v1alpha1.ArenaRunReasonServiceGroupAmbiguous,
			message: fmt.Sprintf("the workspace has %d service groups and the job names none in spec.serviceGroup", len(groups))}
	default:
		return groupResolution{retryMessage: "the workspace has no service groups to record sessions into"}
	}
	if needSession && g.Session == nil {
		return groupResolution{group: g, retryMessage: fmt.Sprintf("service group %q declares no session-api", g.Name)}
	}
	return groupResolution{group: g}
}

// redisHash fingerprints a group's redis block (status.queue.configHash).
func redisHash(r *v1alpha1.WorkspaceServiceBlock) string {
	if r == nil {
		return ""
	}
	b, _ := json.Marshal(r)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
