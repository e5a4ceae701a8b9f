package agentruntime

import (
	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
	"github.com/altairalabs/omnia/rules"
)

// workloadPlan is what resolve decided: the inputs the builders get, and
// whether a resolution condition holds the workload back.
type workloadPlan struct {
	res workload.Resolved
	// held is true while the workload must not be applied: no runtime
	// image, the PromptPack or a Provider is not usable, the pod breaks a
	// pod check (podoverrides_security.go), or the Workspace has not
	// admitted the agent (quota.go), or its ToolRegistry is in another
	// namespace. Nothing is created, and what exists is left as it is.
	held bool
	// stop is true when what exists must stop too: a Provider in another
	// namespace (provider.md § Cross-namespace references are refused:
	// Failed, "and has its Deployments stopped"). It implies held.
	stop bool
}

// resolve looks up everything the builders need, from the facts only, and
// decides from the rule findings whether the workload may be applied. It
// fills in the status inputs it learns on the way (the framework verdict,
// the active version).
func (r *Reconciler) resolve(ar *v1alpha1.AgentRuntime, facts *clusterfacts.Facts, findings []rules.Finding, in *statusInput) workloadPlan {
	image, imageOK := rules.AgentRuntimeFrameworkImage(ar, r.opts.FrameworkImages, r.opts.BuiltinRuntimeImage)
	in.frameworkImageOK = imageOK
	plan := workloadPlan{held: !imageOK || podChecksHold(findings), res: workload.Resolved{RuntimeImage: image, FacadeImage: r.opts.FacadeImage,
		PolicyBrokerImage: r.opts.PolicyBrokerImage, Providers: map[string]workload.ResolvedProvider{}}}
	// Which findings hold or stop the workload is the catalog's decision.
	if h := rules.AgentRuntimeWorkloadHoldOf(findings); h.Held {
		plan.held, plan.stop = true, h.Stop
	}
	for _, e := range ar.Spec.Providers {
		if p, ok := facts.Provider(ar.Namespace, e.ProviderRef.Name); ok && p != nil {
			plan.res.Providers[e.Name] = workload.ResolvedProvider{Provider: p, SecretKey: providerSecretKey(p, facts)}
		}
	}
	if ref := ar.Spec.PromptPackRef; ref != nil {
		if p := rules.AgentRuntimeSelectPromptPack(facts.PromptPacks(ar.Namespace, ref.Name), ref); p != nil {
			rp := &workload.ResolvedPromptPack{PackName: p.Spec.PackName, Version: p.Spec.Version}
			if p.Spec.Source.ConfigMapRef != nil {
				rp.ConfigMapName = p.Spec.Source.ConfigMapRef.Name
			}
			plan.res.PromptPack = rp
			in.activeVersion = p.Spec.Version
		}
	}
	resolveReferences(ar, facts, &plan.res, in)
	plan.res.PlatformTools = r.resolvePlatformTools(ar, facts)
	plan.res.ScaleToZero = capabilitiesScaleToZero(findings)
	applyWorkspaceQuota(ar, facts, &plan, in)
	resolveAutoscaling(ar, facts, &plan.res)
	in.workspace, _ = facts.Workspace(ar.Namespace)
	// The Workspace's pod identity defaults (agentruntime.md § podOverrides:
	// podOverrides wins, else the Workspace, else the operator's).
	resolveServiceEndpoints(ar, in.workspace, &plan.res)
	if ws := in.workspace; ws != nil && ws.Spec.Runtime != nil {
		plan.res.WorkspaceServiceAccountName = ws.Spec.Runtime.ServiceAccountName
		plan.res.WorkspaceRuntimeClassName = ws.Spec.Runtime.RuntimeClassName
	}
	in.maxReplicas = maxReplicas(ar, &plan.res)
	return plan
}

// providerSecretKey is the key of the Provider's credential Secret the pod
// reads, chosen by rules.ProviderSecretKey over the keys the Secret holds:
// the same choice the Provider's SecretFound condition and the webhook make,
// so the runtime reads the key the Provider reported. "" when the Provider
// has no Secret credential or the Secret holds no candidate key (the builder
// then falls back to credential.secretRef.key, if set).
func providerSecretKey(p *v1alpha1.Provider, facts *clusterfacts.Facts) string {
	c := p.Spec.Credential
	if c == nil || c.SecretRef == nil {
		return ""
	}
	keys, found := facts.SecretKeys(p.Namespace, c.SecretRef.Name)
	if !found {
		return ""
	}
	key, _, _ := rules.ProviderSecretKey(p, keys)
	return key
}
