package rules

import "github.com/altairalabs/omnia/api/v1alpha1"

// AgentRuntimeFrameworkTypeDefault is framework.type when unset.
const AgentRuntimeFrameworkTypeDefault = "promptkit"

// AgentRuntimeFrameworkImage resolves the runtime image in the spec's order
// (agentruntime.md#image-override): framework.image; the operator's
// --framework-image=<type>=<image> entry for the type (flagImages); the
// built-in image, for promptkit only. ok is false when none applies: the
// agent is held with FrameworkReady=False (FrameworkImageUnavailable) and
// the PromptKit image is never substituted for another type.
//
// It is a decision function rather than a catalog rule because its input is
// operator configuration, not the object or cluster facts.
func AgentRuntimeFrameworkImage(ar *v1alpha1.AgentRuntime, flagImages map[string]string, builtin string) (image string, ok bool) {
	typ := AgentRuntimeFrameworkTypeDefault
	if f := ar.Spec.Framework; f != nil {
		if f.Image != "" {
			return f.Image, true
		}
		if f.Type != "" {
			typ = string(f.Type)
		}
	}
	if img := flagImages[typ]; img != "" {
		return img, true
	}
	if typ == AgentRuntimeFrameworkTypeDefault && builtin != "" {
		return builtin, true
	}
	return "", false
}
