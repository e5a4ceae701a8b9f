package rules

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// AgentRuntime reference rules: namespaces of Provider, ToolRegistry and A2A
// client references, spec.a2aClients against the deprecated
// spec.facades[].a2a.clients, and the custom facade's enterprise licence.

// AgentRuntimeA2AClientsExclusiveMessage is the spec's message for an agent
// that sets both spec.a2aClients and the deprecated facades[].a2a.clients.
const AgentRuntimeA2AClientsExclusiveMessage = "spec.a2aClients and the deprecated spec.facades[].a2a.clients are mutually exclusive"

func init() {
	Default.Register(Rule{
		ID:        "agentruntime/provider-cross-namespace",
		Kinds:     agentRuntimeKinds,
		Stage:     StageAdmission,
		Severity:  SeverityDeny,
		Condition: v1alpha1.AgentRuntimeConditionProviderReady,
		Reason:    v1alpha1.AgentRuntimeReasonProviderCrossNamespace,
		Doc: "spec.providers[].providerRef.namespace (and rollout.candidate.providerRefs[]) must be omitted or equal the AgentRuntime's own " +
			"namespace; any other value is refused. An agent that has one anyway (the webhook off) is Failed and its Deployments are stopped.",
		Spec:  "agentruntime.md#providers",
		Check: checkAgentRuntimeProviderNamespace,
	})
	Default.Register(Rule{
		ID:        "agentruntime/a2a-client-cross-namespace",
		Kinds:     agentRuntimeKinds,
		Stage:     StageAdmission,
		Severity:  SeverityDeny,
		Condition: v1alpha1.AgentRuntimeConditionA2AClientsResolved,
		Reason:    v1alpha1.AgentRuntimeReasonCrossNamespaceRef,
		Doc: "spec.a2aClients[].agentRuntimeRef.namespace (and the deprecated facades[].a2a.clients[]) may only be the agent's own namespace; " +
			"any other is refused.",
		Spec:  "agentruntime.md#a2aclients",
		Check: checkAgentRuntimeA2AClientNamespace,
	})
	Default.Register(Rule{
		ID:        "agentruntime/tool-registry-cross-namespace",
		Kinds:     agentRuntimeKinds,
		Stage:     StageAdmission,
		Severity:  SeverityWarn,
		Condition: v1alpha1.AgentRuntimeConditionToolRegistryReady,
		Reason:    v1alpha1.AgentRuntimeReasonToolRegistryCrossNamespace,
		Doc: "spec.toolRegistryRef.namespace (and rollout.candidate.toolRegistryRef) must be omitted or equal the AgentRuntime's own namespace; " +
			"otherwise ToolRegistryReady is False and the agent is held Pending.",
		Spec:  "agentruntime.md#toolregistryref",
		Check: checkAgentRuntimeToolRegistryNamespace,
	})
	Default.Register(Rule{
		ID:       "agentruntime/a2a-clients-exclusive",
		Kinds:    agentRuntimeKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc:      "spec.a2aClients and the deprecated spec.facades[].a2a.clients are mutually exclusive; setting both is refused.",
		Spec:     "agentruntime.md#a2aclients",
		Check:    checkAgentRuntimeA2AClientsExclusive,
	})
	Default.Register(Rule{
		ID:       "agentruntime/deprecated-a2a-clients",
		Kinds:    agentRuntimeKinds,
		Stage:    StageAdmission,
		Severity: SeverityWarn,
		Doc:      "spec.facades[].a2a.clients is deprecated: honoured while spec.a2aClients is unset, with an admission warning; move the entries to spec.a2aClients.",
		Spec:     "agentruntime.md#facadesa2a",
		Check:    checkAgentRuntimeDeprecatedA2AClients,
	})
	Default.Register(Rule{
		ID:       "agentruntime/custom-facade-license",
		Kinds:    agentRuntimeKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc: "A facade of type custom is an enterprise-licensed capability, enforced at admission: refused unless the licence grants customFacade " +
			"(an update of an agent that already had a custom facade is let through).",
		Spec:  "agentruntime.md#facades",
		Check: checkAgentRuntimeCustomFacadeLicense,
	})
}

// agentRuntimeForeignNamespace reports whether ref names a namespace other
// than the agent's own. An agent without a namespace (a manifest checked
// offline before one is assigned) cannot be judged and is let through.
func agentRuntimeForeignNamespace(ar *v1alpha1.AgentRuntime, ns string) bool {
	return ns != "" && ar.Namespace != "" && ns != ar.Namespace
}

func checkAgentRuntimeProviderNamespace(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil {
		return nil
	}
	var errs field.ErrorList
	check := func(list v1alpha1.AgentRuntimeProviders, base *field.Path) {
		for i := range list {
			ns := list[i].ProviderRef.Namespace
			if !agentRuntimeForeignNamespace(ar, ns) {
				continue
			}
			p := base.Index(i).Child("providerRef", "namespace")
			errs = append(errs, field.Invalid(p, ns,
				p.String()+" must be omitted or equal the AgentRuntime's namespace "+ar.Namespace+
					": cross-namespace Provider references are not supported; create the Provider in "+ar.Namespace+" or drop the namespace"))
		}
	}
	check(ar.Spec.Providers, field.NewPath("spec", "providers"))
	if r := ar.Spec.Rollout; r != nil && r.Candidate != nil {
		check(r.Candidate.ProviderRefs, field.NewPath("spec", "rollout", "candidate", "providerRefs"))
	}
	return errs
}

func checkAgentRuntimeA2AClientNamespace(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil {
		return nil
	}
	var errs field.ErrorList
	check := func(list []v1alpha1.AgentRuntimeA2AClient, base *field.Path) {
		for i := range list {
			ref := list[i].AgentRuntimeRef
			if ref == nil || !agentRuntimeForeignNamespace(ar, ref.Namespace) {
				continue
			}
			p := base.Index(i).Child("agentRuntimeRef", "namespace")
			errs = append(errs, field.Invalid(p, ref.Namespace,
				p.String()+" may only be the agent's own namespace "+ar.Namespace+
					": drop the namespace to call an AgentRuntime in "+ar.Namespace+", or use url for an agent elsewhere"))
		}
	}
	check(ar.Spec.A2AClients, field.NewPath("spec", "a2aClients"))
	for i := range ar.Spec.Facades {
		if a := AgentRuntimeFacadeA2A(&ar.Spec.Facades[i]); a != nil {
			check(a.Clients, field.NewPath("spec", "facades").Index(i).Child("a2a", "clients"))
		}
	}
	return errs
}

func checkAgentRuntimeToolRegistryNamespace(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil {
		return nil
	}
	var errs field.ErrorList
	check := func(ref *v1alpha1.NamespacedObjectReference, p *field.Path) {
		if ref == nil || !agentRuntimeForeignNamespace(ar, ref.Namespace) {
			return
		}
		p = p.Child("namespace")
		errs = append(errs, field.Invalid(p, ref.Namespace,
			p.String()+" must be omitted or equal the AgentRuntime's namespace "+ar.Namespace+
				": the agent pod's Role is namespace-scoped and cannot read a foreign ToolRegistry, so the agent is held Pending; "+
				"use a ToolRegistry in "+ar.Namespace))
	}
	check(ar.Spec.ToolRegistryRef, field.NewPath("spec", "toolRegistryRef"))
	if r := ar.Spec.Rollout; r != nil && r.Candidate != nil {
		check(r.Candidate.ToolRegistryRef, field.NewPath("spec", "rollout", "candidate", "toolRegistryRef"))
	}
	return errs
}

func checkAgentRuntimeA2AClientsExclusive(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil || len(ar.Spec.A2AClients) == 0 {
		return nil
	}
	var errs field.ErrorList
	for i := range ar.Spec.Facades {
		if a := AgentRuntimeFacadeA2A(&ar.Spec.Facades[i]); a != nil && len(a.Clients) > 0 {
			errs = append(errs, field.Forbidden(field.NewPath("spec", "facades").Index(i).Child("a2a", "clients"),
				AgentRuntimeA2AClientsExclusiveMessage))
		}
	}
	return errs
}

func checkAgentRuntimeDeprecatedA2AClients(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil || len(ar.Spec.A2AClients) > 0 {
		// With both set the exclusive rule refuses the object instead.
		return nil
	}
	var errs field.ErrorList
	for i := range ar.Spec.Facades {
		if a := AgentRuntimeFacadeA2A(&ar.Spec.Facades[i]); a != nil && len(a.Clients) > 0 {
			p := field.NewPath("spec", "facades").Index(i).Child("a2a", "clients")
			errs = append(errs, field.Invalid(p, len(a.Clients),
				p.String()+" is deprecated: move its entries to spec.a2aClients, which takes the same entries and does not need an a2a facade"))
		}
	}
	return errs
}

func agentRuntimeHasCustomFacade(ar *v1alpha1.AgentRuntime) bool {
	for i := range ar.Spec.Facades {
		if agentRuntimeFacadeType(&ar.Spec.Facades[i]) == v1alpha1.AgentRuntimeFacadeTypeCustom {
			return true
		}
	}
	return false
}

func checkAgentRuntimeCustomFacadeLicense(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil || !agentRuntimeHasCustomFacade(ar) || in.Facts.License().Has(FeatureCustomFacade) {
		return nil
	}
	// An agent admitted with a custom facade is not locked out of updates
	// (finalizer removal, labels) once the licence lapses.
	if old := agentRuntimeOf(in.Old); old != nil && agentRuntimeHasCustomFacade(old) {
		return nil
	}
	var errs field.ErrorList
	for i := range ar.Spec.Facades {
		if agentRuntimeFacadeType(&ar.Spec.Facades[i]) == v1alpha1.AgentRuntimeFacadeTypeCustom {
			errs = append(errs, field.Forbidden(field.NewPath("spec", "facades").Index(i).Child("type"),
				"a custom facade needs an enterprise licence granting the customFacade feature; install such a licence, "+
					"or use a built-in facade type (websocket, a2a)"))
		}
	}
	return errs
}
