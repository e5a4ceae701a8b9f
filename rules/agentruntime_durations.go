package rules

import (
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// AgentRuntime duration rules: every duration-string field of the spec
// parses as a Go duration, the bounds the spec puts on some of them, and the
// idle-timeout annotation.

// AgentRuntimeIdleTimeoutAnnotation makes an agent temporary: the operator
// deletes it after this long without use.
const AgentRuntimeIdleTimeoutAnnotation = "omnia.altairalabs.ai/idle-timeout"

// agentRuntimeMaxDrainTimeout caps facades[].drainTimeout.
const agentRuntimeMaxDrainTimeout = 600 * time.Second

// agentRuntimeDurationHint is how every duration message says what a
// duration looks like.
const agentRuntimeDurationHint = "a number with a unit ns, us, ms, s, m or h (e.g. 30s, 5m, 1h30m)"

func init() {
	Default.Register(Rule{
		ID:       "agentruntime/duration-format",
		Kinds:    agentRuntimeKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc: "Every duration string must parse as a Go duration: facades[].drainTimeout, clientToolTimeout, a2a.taskTTL, " +
			"a2a.clients[].timeout; a2aClients[].timeout; context.ttl; sandbox.idleTimeout, releaseGrace, mountReleaseGrace; " +
			"media.storage.defaultTTL, uploadURLTTL, downloadURLTTL; rollout.steps[].pause.duration.",
		Spec:  "agentruntime.md#spec-fields",
		Check: checkAgentRuntimeDurations,
	})
	// The spec says a2a.conversationTTL is deprecated and ignored, and
	// states no refusal: a malformed value warns.
	Default.Register(Rule{
		ID:       "agentruntime/conversation-ttl-format",
		Kinds:    agentRuntimeKinds,
		Stage:    StageAdmission,
		Severity: SeverityWarn,
		Doc: "facades[].a2a.conversationTTL is deprecated and ignored (the A2A facade holds no conversations); a value that is not a " +
			"Go duration is warned about, not refused.",
		Spec:  "agentruntime.md#facadesa2a",
		Check: checkAgentRuntimeConversationTTL,
	})
	Default.Register(Rule{
		ID:       "agentruntime/drain-timeout-range",
		Kinds:    agentRuntimeKinds,
		Stage:    StageAdmission,
		Severity: SeverityWarn,
		Doc: "facades[].drainTimeout is at most 600s (and not negative): a longer value is capped at 600s when it sets the pod's " +
			"terminationGracePeriodSeconds (drain + 30s).",
		Spec:  "agentruntime.md#facades",
		Check: checkAgentRuntimeDrainTimeout,
	})
	Default.Register(Rule{
		ID:       "agentruntime/sandbox-release-grace-positive",
		Kinds:    agentRuntimeKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc:      "sandbox.releaseGrace and sandbox.mountReleaseGrace must be greater than zero.",
		Spec:     "agentruntime.md#sandbox",
		Check:    checkAgentRuntimeReleaseGrace,
	})
	Default.Register(Rule{
		ID:        "agentruntime/idle-timeout-annotation",
		Kinds:     agentRuntimeKinds,
		Stage:     StageAdmission,
		Severity:  SeverityWarn,
		Condition: v1alpha1.AgentRuntimeConditionIdleTimeoutValid,
		Reason:    v1alpha1.AgentRuntimeReasonInvalidIdleTimeout,
		Doc: "The omnia.altairalabs.ai/idle-timeout annotation must be a positive Go duration (e.g. 30m, 2h); an invalid value sets " +
			"IdleTimeoutValid False and the agent is never reaped.",
		Spec:  "agentruntime.md#idle-reaping",
		Check: checkAgentRuntimeIdleTimeout,
	})
}

// agentRuntimeDuration is one duration field's value and path.
type agentRuntimeDuration struct {
	path  *field.Path
	value string
}

// agentRuntimeDurations lists every non-empty duration string of the spec.
func agentRuntimeDurations(ar *v1alpha1.AgentRuntime) []agentRuntimeDuration {
	var out []agentRuntimeDuration
	add := func(p *field.Path, v string) {
		if v != "" {
			out = append(out, agentRuntimeDuration{p, v})
		}
	}
	clients := func(list []v1alpha1.AgentRuntimeA2AClient, base *field.Path) {
		for i := range list {
			add(base.Index(i).Child("timeout"), list[i].Timeout)
		}
	}
	spec := field.NewPath("spec")
	for i := range ar.Spec.Facades {
		f := &ar.Spec.Facades[i]
		fp := spec.Child("facades").Index(i)
		add(fp.Child("drainTimeout"), f.DrainTimeout)
		add(fp.Child("clientToolTimeout"), f.ClientToolTimeout)
		if a := AgentRuntimeFacadeA2A(f); a != nil {
			add(fp.Child("a2a", "taskTTL"), a.TaskTTL)
			clients(a.Clients, fp.Child("a2a", "clients"))
		}
	}
	clients(ar.Spec.A2AClients, spec.Child("a2aClients"))
	if c := ar.Spec.Context; c != nil {
		add(spec.Child("context", "ttl"), c.TTL)
	}
	if s := ar.Spec.Sandbox; s != nil {
		add(spec.Child("sandbox", "idleTimeout"), s.IdleTimeout)
		add(spec.Child("sandbox", "releaseGrace"), s.ReleaseGrace)
		add(spec.Child("sandbox", "mountReleaseGrace"), s.MountReleaseGrace)
	}
	if m := ar.Spec.Media; m != nil && m.Storage != nil {
		sp := spec.Child("media", "storage")
		add(sp.Child("defaultTTL"), m.Storage.DefaultTTL)
		add(sp.Child("uploadURLTTL"), m.Storage.UploadURLTTL)
		add(sp.Child("downloadURLTTL"), m.Storage.DownloadURLTTL)
	}
	if r := ar.Spec.Rollout; r != nil {
		for i := range r.Steps {
			if r.Steps[i].Pause != nil {
				add(spec.Child("rollout", "steps").Index(i).Child("pause", "duration"), r.Steps[i].Pause.Duration)
			}
		}
	}
	return out
}

func checkAgentRuntimeDurations(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil {
		return nil
	}
	var errs field.ErrorList
	for _, d := range agentRuntimeDurations(ar) {
		if _, err := time.ParseDuration(d.value); err != nil {
			errs = append(errs, field.Invalid(d.path, d.value, d.path.String()+" must be a Go duration: "+agentRuntimeDurationHint))
		}
	}
	return errs
}

func checkAgentRuntimeConversationTTL(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil {
		return nil
	}
	var errs field.ErrorList
	for i := range ar.Spec.Facades {
		a := AgentRuntimeFacadeA2A(&ar.Spec.Facades[i])
		if a == nil || a.ConversationTTL == "" {
			continue
		}
		if _, err := time.ParseDuration(a.ConversationTTL); err == nil {
			continue
		}
		p := field.NewPath("spec", "facades").Index(i).Child("a2a", "conversationTTL")
		errs = append(errs, field.Invalid(p, a.ConversationTTL,
			p.String()+" is deprecated and ignored, and this value is not a Go duration ("+agentRuntimeDurationHint+"): remove it"))
	}
	return errs
}

func checkAgentRuntimeDrainTimeout(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil {
		return nil
	}
	var errs field.ErrorList
	for i := range ar.Spec.Facades {
		v := ar.Spec.Facades[i].DrainTimeout
		if v == "" {
			continue
		}
		d, err := time.ParseDuration(v)
		if err != nil || (d >= 0 && d <= agentRuntimeMaxDrainTimeout) {
			continue // a parse error is duration-format's finding
		}
		p := field.NewPath("spec", "facades").Index(i).Child("drainTimeout")
		errs = append(errs, field.Invalid(p, v,
			p.String()+" must be between 0s and 600s; a longer drain is capped at 600s (terminationGracePeriodSeconds 630); set at most 600s"))
	}
	return errs
}

func checkAgentRuntimeReleaseGrace(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil || ar.Spec.Sandbox == nil {
		return nil
	}
	var errs field.ErrorList
	base := field.NewPath("spec", "sandbox")
	for _, g := range [...]struct{ name, value string }{
		{"releaseGrace", ar.Spec.Sandbox.ReleaseGrace},
		{"mountReleaseGrace", ar.Spec.Sandbox.MountReleaseGrace},
	} {
		if g.value == "" {
			continue
		}
		d, err := time.ParseDuration(g.value)
		if err != nil || d > 0 {
			continue // a parse error is duration-format's finding
		}
		p := base.Child(g.name)
		errs = append(errs, field.Invalid(p, g.value, p.String()+" must be a duration greater than zero (e.g. 2m); omit it for the default"))
	}
	return errs
}

func checkAgentRuntimeIdleTimeout(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil {
		return nil
	}
	if _, present, valid := AgentRuntimeIdleTimeout(ar); !present || valid {
		return nil
	}
	v := ar.Annotations[AgentRuntimeIdleTimeoutAnnotation]
	p := field.NewPath("metadata", "annotations").Key(AgentRuntimeIdleTimeoutAnnotation)
	return field.ErrorList{field.Invalid(p, v,
		"the "+AgentRuntimeIdleTimeoutAnnotation+" annotation must be a positive Go duration (e.g. 30m, 2h); with this value the agent is never reaped. "+
			"Fix the value or remove the annotation")}
}
