package rules

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// AgentRuntime reconcile-stage rules: lookups of the Providers and
// PromptPacks the agent references. They never deny or warn at admission
// (objects arrive in any order); the reconciler sets ProviderReady and
// PromptPackReady, and the phase, from them.

func init() {
	Default.Register(Rule{
		ID:        "agentruntime/provider-exists",
		Kinds:     agentRuntimeKinds,
		Stage:     StageReconcile,
		Severity:  SeverityWarn,
		Condition: v1alpha1.AgentRuntimeConditionProviderReady,
		Reason:    v1alpha1.AgentRuntimeReasonProviderNotFound,
		Doc:       "Every spec.providers[].providerRef names an existing Provider in the agent's namespace (phase Failed otherwise).",
		Spec:      "agentruntime.md#phase",
		Check:     checkAgentRuntimeProviderExists,
	})
	Default.Register(Rule{
		ID:        AgentRuntimeProviderRoleID,
		Kinds:     agentRuntimeKinds,
		Stage:     StageReconcile,
		Severity:  SeverityWarn,
		Condition: v1alpha1.AgentRuntimeConditionProviderReady,
		Reason:    v1alpha1.AgentRuntimeReasonRoleMismatch,
		Doc:       "A referenced Provider's spec.role equals spec.providers[].role (both default llm); a mismatch puts the agent in phase Failed.",
		Spec:      "agentruntime.md#providers",
		Check:     checkAgentRuntimeProviderRole,
	})
	Default.Register(Rule{
		ID:        "agentruntime/provider-capabilities",
		Kinds:     agentRuntimeKinds,
		Stage:     StageReconcile,
		Severity:  SeverityWarn,
		Condition: v1alpha1.AgentRuntimeConditionProviderReady,
		Reason:    v1alpha1.AgentRuntimeReasonCapabilityMismatch,
		Doc:       "A referenced Provider advertises every capability in spec.providers[].requiredCapabilities; a missing one holds the agent Pending.",
		Spec:      "agentruntime.md#providers",
		Check:     checkAgentRuntimeProviderCapabilities,
	})
	Default.Register(Rule{
		ID:        "agentruntime/promptpack-resolves",
		Kinds:     agentRuntimeKinds,
		Stage:     StageReconcile,
		Severity:  SeverityWarn,
		Condition: v1alpha1.AgentRuntimeConditionPromptPackReady,
		Reason:    v1alpha1.AgentRuntimeReasonPromptPackNotFound,
		Doc: "A published PromptPack labelled with spec.promptPackRef.name matches the ref (the exact version, or a version on the track; " +
			"stable when neither is set); phase Failed otherwise.",
		Spec:  "agentruntime.md#promptpackref",
		Check: checkAgentRuntimePromptPackResolves,
	})
	Default.Register(Rule{
		ID:        "agentruntime/promptpack-name-conflict",
		Kinds:     agentRuntimeKinds,
		Stage:     StageReconcile,
		Severity:  SeverityWarn,
		Condition: v1alpha1.AgentRuntimeConditionPromptPackReady,
		Reason:    v1alpha1.AgentRuntimeReasonPromptPackNameConflict,
		Doc:       "A pack name with both a live PromptPack and published versions resolves for no ref (spec.promptPackRef or rollout.candidate.promptPackRef).",
		Spec:      "agentruntime.md#promptpackref",
		Check:     checkAgentRuntimePromptPackNameConflict,
	})
	Default.Register(Rule{
		ID:        "agentruntime/promptpack-live-ref",
		Kinds:     agentRuntimeKinds,
		Stage:     StageReconcile,
		Severity:  SeverityDeny,
		Condition: v1alpha1.AgentRuntimeConditionPromptPackReady,
		Reason:    v1alpha1.AgentRuntimeReasonInvalidPromptPackRef,
		Doc: "Only a bare promptPackRef (no version, no track) may name a live PromptPack, and spec.rollout is not allowed when the stable pack " +
			"or rollout.candidate.promptPackRef is live; phase Failed otherwise. The spec says the webhook refuses the same specs, so it runs " +
			"this rule at admission with facts from its cache (and refuses while that cache has not synced).",
		AdmissionFacts: true,
		Spec:           "agentruntime.md#promptpackref",
		Check:          checkAgentRuntimePromptPackLiveRef,
	})
}

// agentRuntimeProviderEntries calls fn for each spec.providers entry whose
// Provider exists in the agent's namespace; missing and cross-namespace refs
// are other rules' findings.
func agentRuntimeProviderEntries(in Input, fn func(e *v1alpha1.AgentRuntimeProvider, p *v1alpha1.Provider, ref string, path *field.Path)) {
	ar := agentRuntimeOf(in.Object)
	if ar == nil {
		return
	}
	base := field.NewPath("spec", "providers")
	for i := range ar.Spec.Providers {
		e := &ar.Spec.Providers[i]
		if agentRuntimeForeignNamespace(ar, e.ProviderRef.Namespace) {
			continue
		}
		if p, ok := in.Facts.Provider(ar.Namespace, e.ProviderRef.Name); ok && p != nil {
			fn(e, p, ar.Namespace+"/"+e.ProviderRef.Name, base.Index(i))
		}
	}
}

func checkAgentRuntimeProviderExists(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil {
		return nil
	}
	var errs field.ErrorList
	base := field.NewPath("spec", "providers")
	for i := range ar.Spec.Providers {
		ref := ar.Spec.Providers[i].ProviderRef
		if agentRuntimeForeignNamespace(ar, ref.Namespace) {
			continue // provider-cross-namespace reports it
		}
		if _, ok := in.Facts.Provider(ar.Namespace, ref.Name); ok {
			continue
		}
		p := base.Index(i).Child("providerRef", "name")
		errs = append(errs, field.NotFound(p, ref.Name))
		errs[len(errs)-1].Detail = "Provider " + ar.Namespace + "/" + ref.Name + " named by " + p.String() +
			" does not exist; create it or fix the name"
	}
	return errs
}

func checkAgentRuntimeProviderRole(in Input) field.ErrorList {
	var errs field.ErrorList
	agentRuntimeProviderEntries(in, func(e *v1alpha1.AgentRuntimeProvider, p *v1alpha1.Provider, ref string, path *field.Path) {
		want, got, mismatch := AgentRuntimeProviderRoleMismatch(string(e.Role), string(p.Spec.Role))
		if !mismatch {
			return
		}
		fp := path.Child("role")
		errs = append(errs, field.Invalid(fp, want,
			"Provider "+ref+" has role "+got+" but "+fp.String()+" requires "+want+
				"; reference a Provider with role "+want+" or set "+fp.String()+" to "+got))
	})
	return errs
}

func checkAgentRuntimeProviderCapabilities(in Input) field.ErrorList {
	var errs field.ErrorList
	agentRuntimeProviderEntries(in, func(e *v1alpha1.AgentRuntimeProvider, p *v1alpha1.Provider, ref string, path *field.Path) {
		var missing []string
		for _, c := range e.RequiredCapabilities {
			if !slices.Contains(p.Spec.Capabilities, v1alpha1.ProviderCapability(c)) {
				missing = append(missing, string(c))
			}
		}
		if len(missing) == 0 {
			return
		}
		fp := path.Child("requiredCapabilities")
		errs = append(errs, field.Invalid(fp, missing,
			"Provider "+ref+" does not advertise "+strings.Join(missing, ", ")+" (spec.capabilities); "+
				"add them to the Provider if it supports them, reference another Provider, or drop them from "+fp.String()))
	})
	return errs
}

// agentRuntimePackKind sorts the packs labelled with one pack name.
type agentRuntimePackKind struct {
	live, published []v1alpha1.PromptPack
}

func agentRuntimePacks(in Input, ns, name string) agentRuntimePackKind {
	var k agentRuntimePackKind
	for _, p := range in.Facts.PromptPacks(ns, name) {
		if p.Spec.Source.Live != nil {
			k.live = append(k.live, p)
		} else {
			k.published = append(k.published, p)
		}
	}
	return k
}

// agentRuntimeIsPrerelease reports whether a pack version is a prerelease
// (a semver pre-release part: '-' before any '+build' metadata).
func agentRuntimeIsPrerelease(v string) bool {
	if i := strings.IndexByte(v, '+'); i >= 0 {
		v = v[:i]
	}
	return strings.Contains(v, "-")
}

func checkAgentRuntimePromptPackResolves(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil || ar.Spec.PromptPackRef == nil {
		return nil
	}
	ref := ar.Spec.PromptPackRef
	packs := agentRuntimePacks(in, ar.Namespace, ref.Name)
	if len(packs.live) > 0 {
		return nil // a live pack resolves a bare ref; the other live rules cover the rest
	}
	base := field.NewPath("spec", "promptPackRef")
	if len(packs.published) == 0 {
		p := base.Child("name")
		return field.ErrorList{field.Invalid(p, ref.Name,
			"no PromptPack in "+namespaceText(ar.Namespace)+" is labelled "+PromptPackLabel+"="+ref.Name+"; create one (its spec.packName "+
				ref.Name+", with that label) or fix "+p.String()+" (it names the logical pack name, not a PromptPack object name)")}
	}
	switch {
	case ref.Version != "":
		for _, p := range packs.published {
			if p.Spec.Version == ref.Version {
				return nil
			}
		}
		p := base.Child("version")
		return field.ErrorList{field.Invalid(p, ref.Version,
			"no PromptPack "+ref.Name+" has version "+ref.Version+" (compared as a string, build metadata included); "+
				"publish that version or pin one that exists")}
	case ref.Track == v1alpha1.AgentRuntimePromptPackTrackPrerelease:
		return nil // any published version is on the prerelease track
	default:
		for _, p := range packs.published {
			if !agentRuntimeIsPrerelease(p.Spec.Version) {
				return nil
			}
		}
		p := base.Child("track")
		if ref.Track == "" {
			p = base.Child("name")
		}
		return field.ErrorList{field.Invalid(p, ref.Name,
			"PromptPack "+ref.Name+" has only prerelease versions and the agent follows the stable track; "+
				"publish a stable version, set spec.promptPackRef.track to prerelease, or pin a version")}
	}
}

// agentRuntimePackRefs calls fn for spec.promptPackRef and
// spec.rollout.candidate.promptPackRef, when set.
func agentRuntimePackRefs(ar *v1alpha1.AgentRuntime, fn func(ref *v1alpha1.AgentRuntimePromptPackRef, p *field.Path)) {
	if ar.Spec.PromptPackRef != nil {
		fn(ar.Spec.PromptPackRef, field.NewPath("spec", "promptPackRef"))
	}
	if r := ar.Spec.Rollout; r != nil && r.Candidate != nil && r.Candidate.PromptPackRef != nil {
		fn(r.Candidate.PromptPackRef, field.NewPath("spec", "rollout", "candidate", "promptPackRef"))
	}
}

func checkAgentRuntimePromptPackNameConflict(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil {
		return nil
	}
	var errs field.ErrorList
	agentRuntimePackRefs(ar, func(ref *v1alpha1.AgentRuntimePromptPackRef, base *field.Path) {
		packs := agentRuntimePacks(in, ar.Namespace, ref.Name)
		if len(packs.live) == 0 || len(packs.published) == 0 {
			return
		}
		p := base.Child("name")
		errs = append(errs, field.Invalid(p, ref.Name,
			"pack name "+ref.Name+" has both a live PromptPack ("+packs.live[0].Name+") and published versions, so it resolves for no ref; "+
				"give the live pack or the published versions another spec.packName"))
	})
	return errs
}

func checkAgentRuntimePromptPackLiveRef(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil {
		return nil
	}
	// live reports whether name resolves to a live pack (a name that also has
	// published versions is promptpack-name-conflict's finding).
	live := func(name string) bool {
		packs := agentRuntimePacks(in, ar.Namespace, name)
		return len(packs.live) > 0 && len(packs.published) == 0
	}
	var errs field.ErrorList
	if ref := ar.Spec.PromptPackRef; ref != nil && live(ref.Name) {
		base := field.NewPath("spec", "promptPackRef")
		if ref.Version != "" {
			p := base.Child("version")
			errs = append(errs, field.Forbidden(p,
				ref.Name+" is a live PromptPack, which only a bare ref (no version, no track) may name; remove "+p.String()))
		}
		if ref.Track != "" {
			p := base.Child("track")
			errs = append(errs, field.Forbidden(p,
				ref.Name+" is a live PromptPack, which only a bare ref (no version, no track) may name; remove "+p.String()))
		}
		if ar.Spec.Rollout != nil {
			p := field.NewPath("spec", "rollout")
			errs = append(errs, field.Forbidden(p,
				"spec.promptPackRef names the live PromptPack "+ref.Name+", which cannot be rolled out progressively; remove spec.rollout "+
					"or point spec.promptPackRef at a published pack"))
		}
	}
	if r := ar.Spec.Rollout; r != nil && r.Candidate != nil && r.Candidate.PromptPackRef != nil && live(r.Candidate.PromptPackRef.Name) {
		p := field.NewPath("spec", "rollout", "candidate", "promptPackRef")
		errs = append(errs, field.Forbidden(p,
			r.Candidate.PromptPackRef.Name+" is a live PromptPack, which cannot be a rollout candidate; name a published pack version"))
	}
	return errs
}
