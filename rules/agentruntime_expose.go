package rules

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// AgentRuntime exposure (agentruntime.md § facades, the `expose`
// paragraph): each facade with expose.enabled gets its own HTTPRoute, the
// primary on `<agent>.<namespace>.<baseDomain>`, a secondary one on
// `<agent>-<type>.<namespace>.<baseDomain>`, expose.host overriding either.
// Every route matches the root path, so "two of an agent's facades must not
// share a host: the Gateway would serve only the older route".
//
// The rule denies it. The spec states it as a requirement on the object
// ("must not"), not as a condition the agent runs with, and an agent that
// has it is broken in a way nothing reports: one of its facades is
// silently unreachable, and which one depends on creation order. The
// update ratchet keeps an object admitted before the rule editable. For an
// object that got in anyway (webhook off, audit mode) the reconciler asks
// AgentRuntimeExposedFacades with its base domain, reports the condition
// Exposed False with ExposeHostConflict, and routes only the first facade
// of each host.

func init() {
	Default.Register(Rule{
		ID:        "agentruntime/expose-host-unique",
		Kinds:     agentRuntimeKinds,
		Stage:     StageAdmission,
		Severity:  SeverityDeny,
		Condition: v1alpha1.AgentRuntimeConditionExposed,
		Reason:    v1alpha1.AgentRuntimeReasonExposeHostConflict,
		Doc: "Two exposed facades (expose.enabled, dataPlane not false) must not share a host: every operator-managed HTTPRoute " +
			"matches the root path, so the Gateway would serve only the older route. Admission compares the expose.host overrides " +
			"(the base domain of the defaults is the operator's); the reconciler also compares them with the defaulted hosts.",
		Spec:  "agentruntime.md#facades",
		Check: checkAgentRuntimeExposeHostUnique,
	})
}

// AgentRuntimeExposedFacade is one facade that asks for an HTTPRoute.
type AgentRuntimeExposedFacade struct {
	// Index is the facade's index in spec.facades.
	Index int
	// Type is the facade's type.
	Type v1alpha1.AgentRuntimeFacadeType
	// Primary is true for the primary facade (AgentRuntimePrimaryFacade).
	Primary bool
	// Host is the route's host, lower-cased without a trailing dot:
	// expose.host, else the default under baseDomain; "" when expose.host
	// is unset and no baseDomain was given.
	Host string
	// Explicit is true when Host is expose.host.
	Explicit bool
	// ConflictsWith is the index of the earlier facade with the same
	// host, or -1. The earlier one is the primary when either is.
	ConflictsWith int
}

// AgentRuntimeExposedFacades lists the facades that ask for an HTTPRoute
// (expose.enabled with the data plane on: `expose.enabled` is ignored when
// `dataPlane` is false), the primary first, then in spec order, each with
// its host under baseDomain and the earlier facade it shares the host with.
func AgentRuntimeExposedFacades(ar *v1alpha1.AgentRuntime, baseDomain string) []AgentRuntimeExposedFacade {
	facades := ar.Spec.Facades
	primary := agentRuntimePrimaryFacade(facades)
	order := make([]int, 0, len(facades))
	if primary >= 0 && primary < len(facades) {
		order = append(order, primary)
	}
	for i := range facades {
		if i != primary {
			order = append(order, i)
		}
	}
	var out []AgentRuntimeExposedFacade
	seen := map[string]int{}
	for _, i := range order {
		f := &facades[i]
		if f.Expose == nil || !f.Expose.Enabled || (f.DataPlane != nil && !*f.DataPlane) {
			continue
		}
		e := AgentRuntimeExposedFacade{Index: i, Type: agentRuntimeFacadeType(f), Primary: i == primary, ConflictsWith: -1}
		switch {
		case f.Expose.Host != "":
			e.Host, e.Explicit = normalizeHost(f.Expose.Host), true
		case baseDomain != "":
			e.Host = AgentRuntimeDefaultExposeHost(ar, e.Type, e.Primary, baseDomain)
		}
		if e.Host != "" {
			if j, ok := seen[e.Host]; ok {
				e.ConflictsWith = j
			} else {
				seen[e.Host] = i
			}
		}
		out = append(out, e)
	}
	return out
}

// AgentRuntimeDefaultExposeHost is a facade's host when expose.host is
// unset: `<agent>.<namespace>.<baseDomain>` for the primary facade,
// `<agent>-<type>.<namespace>.<baseDomain>` for a secondary one.
func AgentRuntimeDefaultExposeHost(ar *v1alpha1.AgentRuntime, t v1alpha1.AgentRuntimeFacadeType, primary bool, baseDomain string) string {
	label := ar.Name
	if !primary {
		label += "-" + string(t)
	}
	return normalizeHost(label + "." + ar.Namespace + "." + baseDomain)
}

func normalizeHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(h)), ".")
}

func checkAgentRuntimeExposeHostUnique(in Input) field.ErrorList {
	ar, ok := in.Object.(*v1alpha1.AgentRuntime)
	if !ok {
		return nil
	}
	var errs field.ErrorList
	for _, e := range AgentRuntimeExposedFacades(ar, "") {
		if e.ConflictsWith < 0 {
			continue
		}
		errs = append(errs, field.Invalid(field.NewPath("spec", "facades").Index(e.Index).Child("expose", "host"), ar.Spec.Facades[e.Index].Expose.Host,
			"facades["+strconv.Itoa(e.ConflictsWith)+"] is exposed on the same host: every facade's route matches the root path, so the "+
				"Gateway would serve only the older route; give each exposed facade its own expose.host"))
	}
	return errs
}
