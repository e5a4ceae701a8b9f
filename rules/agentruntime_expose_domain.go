package rules

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Which hosts an agent may claim on the platform's shared default-exposure
// Gateway (agentruntime.md § facades[].expose; the attack is hostname
// squatting). Every exposed facade gets an HTTPRoute on the one Gateway
// every namespace shares, so expose.host is a claim on a hostname that
// every other tenant's agents share too. Left free, a tenant routes another
// namespace's default host (`<agent>.<other>.<baseDomain>`), or with a
// wildcard all of `*.<baseDomain>`, to its own agent.
//
//   - agentruntime/expose-host-wildcard: no `*` anywhere in expose.host. A
//     wildcard claims hosts of every tenant at once; the object alone shows
//     it, so it is an admission rule.
//   - agentruntime/expose-host-outside-namespace-domain: expose.host is
//     under the namespace's own domain, `<namespace>.<baseDomain>` (its
//     default hosts, `<agent>.<namespace>.<baseDomain>`, are there), or
//     under a domain the namespace's Workspace grants
//     (spec.exposure.allowedHostSuffixes). Namespace names are DNS labels,
//     so two namespaces' domains never nest: each is a tenant's alone. The
//     rule needs the operator's base domain and the Workspace, so it is a
//     reconcile-stage rule, and, like agentruntime/promptpack-live-ref, it
//     is marked AdmissionFacts: the webhook refuses a hostile host with
//     facts from its cache (and refuses while that cache cannot answer),
//     the reconciler routes no facade whose host it reports. With no base
//     domain (exposure off: the operator makes no route at all) it reports
//     nothing; once exposure is on, the reconciler judges every agent's
//     hosts before any route is made.
//
// The reconciler also withholds a host another agent holds first
// (AgentRuntimeExposeHostHolder, agentruntime_expose_claims.go).

// Rule IDs.
const (
	AgentRuntimeExposeHostWildcardID               = "agentruntime/expose-host-wildcard"
	AgentRuntimeExposeHostOutsideNamespaceDomainID = "agentruntime/expose-host-outside-namespace-domain"
)

func init() {
	Default.Register(Rule{
		ID:        AgentRuntimeExposeHostWildcardID,
		Kinds:     agentRuntimeKinds,
		Stage:     StageAdmission,
		Severity:  SeverityDeny,
		Condition: v1alpha1.AgentRuntimeConditionExposed,
		Reason:    v1alpha1.AgentRuntimeReasonExposeHostWildcard,
		Doc: "An exposed facade's expose.host holds no wildcard (`*` anywhere): the Gateway is shared by every namespace, and a " +
			"wildcard host would route other tenants' hosts to this agent. The reconciler routes no facade with one.",
		Spec:  "agentruntime.md#facadesexpose",
		Check: checkAgentRuntimeExposeHostWildcard,
	})
	Default.Register(Rule{
		ID:        AgentRuntimeExposeHostOutsideNamespaceDomainID,
		Kinds:     agentRuntimeKinds,
		Stage:     StageReconcile,
		Severity:  SeverityDeny,
		Condition: v1alpha1.AgentRuntimeConditionExposed,
		Reason:    v1alpha1.AgentRuntimeReasonExposeHostNotAllowed,
		Doc: "An exposed facade's expose.host is the namespace's own domain `<namespace>.<exposure base domain>` or below it (where " +
			"the default hosts are), or a domain the namespace's Workspace grants in spec.exposure.allowedHostSuffixes or below " +
			"it: another namespace's hosts are not this agent's to route on the shared Gateway. The webhook runs it with facts " +
			"from its cache (and refuses while that cache has not synced); the reconciler routes no facade it reports. Silent " +
			"when the operator has no --exposure-base-domain (exposure off); omniactl takes the domain as --exposure-base-domain.",
		AdmissionFacts: true,
		Spec:           "agentruntime.md#facadesexpose",
		Check:          checkAgentRuntimeExposeHostInNamespaceDomain,
	})
}

// AgentRuntimeExposeHostField is the field an exposure host finding names
// for facade index: the reconciler matches findings to facades by it.
func AgentRuntimeExposeHostField(index int) string {
	return agentRuntimeExposeHostPath(index).String()
}

func agentRuntimeExposeHostPath(index int) *field.Path {
	return field.NewPath("spec", "facades").Index(index).Child("expose", "host")
}

// NormalizeExposeHost is a host as the operator routes it: trimmed,
// lower-cased, without a trailing dot.
func NormalizeExposeHost(h string) string { return normalizeHost(h) }

// AgentRuntimeNamespaceExposeDomain is namespace's own exposure domain,
// `<namespace>.<baseDomain>`; "" when either is unknown.
func AgentRuntimeNamespaceExposeDomain(namespace, baseDomain string) string {
	if namespace == "" || baseDomain == "" {
		return ""
	}
	return normalizeHost(namespace + "." + baseDomain)
}

// AgentRuntimeExposeHostAllowed reports whether an agent of namespace may
// claim host (normalized) on the shared Gateway: host is the namespace's
// own domain or below it (when baseDomain is known), or one of ws's
// spec.exposure.allowedHostSuffixes or below it (ws nil: no grant). A
// wildcard host is never allowed.
func AgentRuntimeExposeHostAllowed(namespace, host, baseDomain string, ws *v1alpha1.Workspace) bool {
	if host == "" || strings.Contains(host, "*") {
		return false
	}
	if d := AgentRuntimeNamespaceExposeDomain(namespace, baseDomain); d != "" && hostUnder(host, d) {
		return true
	}
	for _, s := range workspaceAllowedHostSuffixes(ws) {
		if s = normalizeHost(s); s != "" && !strings.Contains(s, "*") && hostUnder(host, s) {
			return true
		}
	}
	return false
}

// hostUnder reports whether host is domain or below it, whole labels only.
func hostUnder(host, domain string) bool {
	return host == domain || strings.HasSuffix(host, "."+domain)
}

func workspaceAllowedHostSuffixes(ws *v1alpha1.Workspace) []string {
	if ws == nil || ws.Spec.Exposure == nil {
		return nil
	}
	return ws.Spec.Exposure.AllowedHostSuffixes
}

func checkAgentRuntimeExposeHostWildcard(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil {
		return nil
	}
	var errs field.ErrorList
	for _, e := range AgentRuntimeExposedFacades(ar, "") {
		if !e.Explicit || !strings.Contains(e.Host, "*") {
			continue
		}
		errs = append(errs, field.Invalid(agentRuntimeExposeHostPath(e.Index), ar.Spec.Facades[e.Index].Expose.Host,
			"a wildcard host claims every matching host on the Gateway all namespaces share, other tenants' included; "+
				"name one host (or leave expose.host unset for the default, <agent>.<namespace>.<exposure base domain>)"))
	}
	return errs
}

func checkAgentRuntimeExposeHostInNamespaceDomain(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil || ar.Namespace == "" {
		// A manifest without a namespace lands in whichever one it is
		// applied to (omniactl -n gives it one): its domain is unknown.
		return nil
	}
	base := normalizeHost(in.Facts.ExposureBaseDomain())
	if base == "" {
		return nil
	}
	ws, _ := in.Facts.Workspace(ar.Namespace)
	own := AgentRuntimeNamespaceExposeDomain(ar.Namespace, base)
	var errs field.ErrorList
	for _, e := range AgentRuntimeExposedFacades(ar, base) {
		if !e.Explicit || strings.Contains(e.Host, "*") {
			continue // defaults are under the namespace's domain; wildcards are expose-host-wildcard's
		}
		if AgentRuntimeExposeHostAllowed(ar.Namespace, e.Host, base, ws) {
			continue
		}
		grant := "namespace " + ar.Namespace + " has no Workspace granting more"
		if ws != nil {
			grant = "nor under a domain Workspace " + ws.Name + " grants in spec.exposure.allowedHostSuffixes"
		}
		errs = append(errs, field.Invalid(agentRuntimeExposeHostPath(e.Index), ar.Spec.Facades[e.Index].Expose.Host,
			"the host is not under the namespace's own domain "+own+" ("+grant+"): on the Gateway every namespace "+
				"shares, another namespace's hosts are not this agent's to route; use a host under "+own+
				", or ask the platform to grant the domain in the Workspace"))
	}
	return errs
}
