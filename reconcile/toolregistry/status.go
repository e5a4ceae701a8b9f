package toolregistry

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/reconcile/policycheck"
	"github.com/altairalabs/omnia/reconcile/prober"
	"github.com/altairalabs/omnia/rules"
)

// maxListed bounds how many tools a condition message names.
const maxListed = 10

// policyState is what the controller knows of the ToolPolicies selecting a
// registry.
type policyState struct {
	// installed is false when the ToolPolicy CRD is not served: policyCount
	// and PolicyBound are then absent.
	installed bool
	// names are the selecting ToolPolicies, sorted.
	names []string
}

// statusInput is everything a status is computed from besides the object.
// It holds no client and no clock: computeStatus is pure.
type statusInput struct {
	// findings of every rule, stage and severity on the object.
	findings []rules.Finding
	// validation is the verdict of the ValidationPolicy rules in force
	// (policycheck): it sets policy conditions only, never Ready, Degraded
	// or the phase. (policy, below, is the ToolPolicy view.)
	validation policycheck.Verdict
	// tools as discoverTools resolved them, and how many handlers yielded one.
	tools             []resolvedTool
	handlersWithTools int
	// probe is spec.probe resolved; results are the prober's stored results
	// by dial address, and previous the probe results of the stored status
	// by toolKey (they stand in until the prober has one).
	probe    probeSettings
	results  map[string]prober.Result
	previous map[string]v1alpha1.ToolRegistryDiscoveredTool
	// policy is the ToolPolicy view.
	policy policyState
	// now is the reconcile's time, truncated to the second (the precision
	// status times are stored with), so an unchanged status compares equal.
	now time.Time
}

// findingsFor returns the findings that set condType. HandlersValid takes
// its own and every deny finding that names no condition: a handler the
// webhook would refuse is invalid. Findings naming another condition
// (SandboxesValid, HandlerConnectionsValid) set that one. A warn finding
// that names no condition is advisory (e.g. auth on a client handler, which
// the spec says has no effect): the webhook warns, and it sets no condition,
// so it never fails the registry.
func findingsFor(findings []rules.Finding, condType string) []rules.Finding {
	var out []rules.Finding
	for _, f := range findings {
		c := f.Condition
		if c == "" {
			if f.Severity == rules.SeverityWarn {
				continue
			}
			c = v1alpha1.ToolRegistryConditionHandlersValid
		}
		if c == condType {
			out = append(out, f)
		}
	}
	return out
}

// invalidHandlers returns the indexes of the handlers a finding names
// (its field is under spec.handlers[i]).
func invalidHandlers(findings []rules.Finding) map[int]bool {
	out := map[int]bool{}
	const prefix = "spec.handlers["
	for _, f := range findings {
		rest, ok := strings.CutPrefix(f.Field, prefix)
		if !ok {
			continue
		}
		idx, _, ok := strings.Cut(rest, "]")
		if !ok {
			continue
		}
		if i, err := strconv.Atoi(idx); err == nil {
			out[i] = true
		}
	}
	return out
}

// probeTargets are the tools a probe round dials: with probing on, every
// tool with a network endpoint whose handler passed validation (a handler
// that failed validation, such as an mcp endpoint at a cloud-metadata
// address, is never dialled). Client, platform and sandbox tools have no
// address to dial.
func probeTargets(tools []resolvedTool, invalid map[int]bool, p probeSettings) []resolvedTool {
	if !p.enabled {
		return nil
	}
	var out []resolvedTool
	for _, t := range tools {
		if t.network && !invalid[t.handler] {
			out = append(out, t)
		}
	}
	return out
}

// toolStatuses gives each resolved tool its status:
//   - Unknown when its handler failed validation (see HandlersValid);
//   - without probing, or for a tool with no network address, Available:
//     the configuration is valid and the endpoint resolves from it (nothing
//     is contacted);
//   - with probing, Available or Unavailable from the prober's latest
//     result for its address, with lastChecked the time that result last
//     changed (see lastChecked); before the prober has one, the stored
//     status's result for the same tool, or Unknown ("not probed yet") for
//     a tool never probed.
func toolStatuses(tools []resolvedTool, invalid map[int]bool, p probeSettings, previous map[string]v1alpha1.ToolRegistryDiscoveredTool, results map[string]prober.Result) []v1alpha1.ToolRegistryDiscoveredTool {
	out := make([]v1alpha1.ToolRegistryDiscoveredTool, 0, len(tools))
	for _, rt := range tools {
		t := rt.tool
		res, probed := results[rt.dialAddr]
		prev, hadResult := previous[toolKey(&t)]
		switch {
		case invalid[rt.handler]:
			t.Status = v1alpha1.ToolRegistryToolStatusUnknown
			t.Error = "handler " + t.HandlerName + " failed validation: see the HandlersValid condition"
		case !p.enabled || !rt.network:
			t.Status = v1alpha1.ToolRegistryToolStatusAvailable
		case probed:
			if res.Failure != "" {
				t.Status, t.Error = v1alpha1.ToolRegistryToolStatusUnavailable, "TCP connect failed: "+res.Detail
			} else {
				t.Status = v1alpha1.ToolRegistryToolStatusAvailable
			}
			t.LastChecked = lastChecked(t, prev, hadResult, res.At)
		case hadResult:
			t.Status, t.Error, t.LastChecked = prev.Status, prev.Error, prev.LastChecked
		default:
			t.Status, t.Error = v1alpha1.ToolRegistryToolStatusUnknown, NotProbedYet
		}
		out = append(out, t)
	}
	return out
}

// lastChecked is a probed tool's lastChecked: the time its probe result
// (status and error) last changed, like a condition's lastTransitionTime.
// A round that finds what the stored status already says keeps the stored
// time, so a registry whose tools stay as they are writes nothing however
// often it is probed; the time of the latest probe lives in the prober,
// which schedules the next round from it. A tool with no stored result
// (first probe, new endpoint) or a different one takes the probe's time,
// at the second precision status times are stored with.
func lastChecked(probed v1alpha1.ToolRegistryDiscoveredTool, stored v1alpha1.ToolRegistryDiscoveredTool, hadStored bool, at time.Time) *metav1.Time {
	if hadStored && stored.LastChecked != nil && stored.Status == probed.Status && stored.Error == probed.Error {
		kept := *stored.LastChecked
		return &kept
	}
	t := metav1.NewTime(at.Truncate(time.Second))
	return &t
}

// NotProbedYet is the error of a probed tool before its first probe result.
const NotProbedYet = "not probed yet"

// probesPending counts the tools waiting for their first probe result.
func probesPending(tools []v1alpha1.ToolRegistryDiscoveredTool) int {
	n := 0
	for i := range tools {
		if tools[i].Status == v1alpha1.ToolRegistryToolStatusUnknown && tools[i].Error == NotProbedYet {
			n++
		}
	}
	return n
}

// toolCounts counts tools by status.
func toolCounts(tools []v1alpha1.ToolRegistryDiscoveredTool) (available, unavailable int) {
	for i := range tools {
		switch tools[i].Status {
		case v1alpha1.ToolRegistryToolStatusAvailable:
			available++
		case v1alpha1.ToolRegistryToolStatusUnavailable:
			unavailable++
		}
	}
	return available, unavailable
}

// phaseOf is the registry phase (toolregistry.md#phase): Failed when a
// handler failed validation or no tool was discovered; Pending while a
// probed tool waits for its first probe result (probes run asynchronously,
// so the first reconcile of a probed registry has none: its phase is not
// yet known); Failed when no tool is available; Degraded when some are
// available and some unreachable (only with probing); Ready when every tool
// is available.
func phaseOf(handlersValid bool, tools []v1alpha1.ToolRegistryDiscoveredTool) v1alpha1.ToolRegistryPhase {
	available, unavailable := toolCounts(tools)
	switch {
	case !handlersValid, len(tools) == 0:
		return v1alpha1.ToolRegistryPhaseFailed
	case probesPending(tools) > 0:
		return v1alpha1.ToolRegistryPhasePending
	case available == 0:
		return v1alpha1.ToolRegistryPhaseFailed
	case unavailable > 0, available < len(tools):
		return v1alpha1.ToolRegistryPhaseDegraded
	}
	return v1alpha1.ToolRegistryPhaseReady
}

// unavailableList names the unreachable tools with their errors.
func unavailableList(tools []v1alpha1.ToolRegistryDiscoveredTool) string {
	var parts []string
	n := 0
	for i := range tools {
		t := &tools[i]
		if t.Status != v1alpha1.ToolRegistryToolStatusUnavailable {
			continue
		}
		n++
		if n > maxListed {
			continue
		}
		parts = append(parts, t.HandlerName+"/"+t.Name+" ("+t.Error+")")
	}
	s := strings.Join(parts, "; ")
	if n > maxListed {
		s += fmt.Sprintf("; and %d more", n-maxListed)
	}
	return s
}

// plural returns "n word" or "n words".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// setHandlersValidCondition sets HandlersValid from the findings that set
// it: True when there are none, else False (ValidationFailed) listing every
// finding as "[rule] field: message".
func setHandlersValidCondition(st *v1alpha1.ToolRegistryStatus, findings []rules.Finding, handlers int, generation int64, now metav1.Time) {
	c := conditions.FromFindings(v1alpha1.ToolRegistryConditionHandlersValid, findings,
		v1alpha1.ToolRegistryReasonHandlersValid, "all "+plural(handlers, "handler")+" passed validation", v1alpha1.ToolRegistryReasonValidationFailed, generation)
	conditions.Set(&st.Conditions, c, now)
}

// setToolsDiscoveredCondition reports how many tools were discovered from
// how many handlers: True when at least one was, else False
// (NoToolsDiscovered).
func setToolsDiscoveredCondition(st *v1alpha1.ToolRegistryStatus, tools, handlersWithTools, handlers int, generation int64, now metav1.Time) {
	c := metav1.Condition{Type: v1alpha1.ToolRegistryConditionToolsDiscovered, ObservedGeneration: generation}
	from := plural(handlers, "handler")
	if handlersWithTools != handlers {
		from = strconv.Itoa(handlersWithTools) + " of " + from
	}
	if tools == 0 {
		c.Status, c.Reason = metav1.ConditionFalse, v1alpha1.ToolRegistryReasonNoToolsDiscovered
		c.Message = "no tool discovered from " + plural(handlers, "handler")
	} else {
		c.Status, c.Reason = metav1.ConditionTrue, v1alpha1.ToolRegistryReasonToolsDiscovered
		c.Message = plural(tools, "tool") + " discovered from " + from
	}
	conditions.Set(&st.Conditions, c, now)
}

// setDegradedCondition sets Degraded: True (SomeToolsUnavailable) when the
// phase is Degraded, naming the unreachable tools; False
// (AllToolsAvailable) otherwise.
func setDegradedCondition(st *v1alpha1.ToolRegistryStatus, phase v1alpha1.ToolRegistryPhase, tools []v1alpha1.ToolRegistryDiscoveredTool, generation int64, now metav1.Time) {
	c := metav1.Condition{Type: v1alpha1.ToolRegistryConditionDegraded, ObservedGeneration: generation}
	_, unavailable := toolCounts(tools)
	switch phase {
	case v1alpha1.ToolRegistryPhaseDegraded:
		c.Status, c.Reason = metav1.ConditionTrue, v1alpha1.ToolRegistryReasonSomeToolsUnavailable
		c.Message = strconv.Itoa(unavailable) + " of " + plural(len(tools), "tool") + " unreachable: " + unavailableList(tools)
	case v1alpha1.ToolRegistryPhaseFailed:
		c.Status, c.Reason = metav1.ConditionFalse, v1alpha1.ToolRegistryReasonAllToolsAvailable
		c.Message = "not degraded: the phase is Failed (see the Ready condition)"
	case v1alpha1.ToolRegistryPhasePending:
		c.Status, c.Reason = metav1.ConditionUnknown, v1alpha1.ToolRegistryReasonProbesPending
		c.Message = pendingMessage(tools)
	default:
		c.Status, c.Reason = metav1.ConditionFalse, v1alpha1.ToolRegistryReasonAllToolsAvailable
		c.Message = "every tool is available"
	}
	conditions.Set(&st.Conditions, c, now)
}

// pendingMessage says how many tools wait for their first probe.
func pendingMessage(tools []v1alpha1.ToolRegistryDiscoveredTool) string {
	return strconv.Itoa(probesPending(tools)) + " of " + plural(len(tools), "tool") + " not probed yet: the first probe results are pending"
}

// setReadyCondition sets Ready from HandlersValid (which must already be
// set) and the tools: False (ValidationFailed) when a handler failed
// validation; Unknown (ProbesPending) while a probed tool waits for its
// first probe result; False (NoToolsAvailable) when none is available; True
// (ToolsDiscovered) otherwise.
func setReadyCondition(st *v1alpha1.ToolRegistryStatus, tools []v1alpha1.ToolRegistryDiscoveredTool, probing bool, generation int64, now metav1.Time) {
	available, _ := toolCounts(tools)
	okMessage := plural(available, "tool") + " available: the configuration is valid (spec.probe is off, so no backend is contacted)"
	if probing {
		okMessage = strconv.Itoa(available) + " of " + plural(len(tools), "tool") + " reachable"
	}
	c := conditions.RollUp(st.Conditions, v1alpha1.ToolRegistryConditionReady,
		[]string{v1alpha1.ToolRegistryConditionHandlersValid}, v1alpha1.ToolRegistryReasonToolsDiscovered, okMessage, generation)
	if c.Status == metav1.ConditionTrue && probesPending(tools) > 0 {
		c.Status, c.Reason, c.Message = metav1.ConditionUnknown, v1alpha1.ToolRegistryReasonProbesPending, pendingMessage(tools)
	} else if c.Status == metav1.ConditionTrue && available == 0 {
		c.Status, c.Reason = metav1.ConditionFalse, v1alpha1.ToolRegistryReasonNoToolsAvailable
		switch {
		case len(tools) == 0:
			c.Message = "no tool was discovered"
		default:
			c.Message = "none of the " + plural(len(tools), "tool") + " is reachable: " + unavailableList(tools)
		}
	}
	conditions.Set(&st.Conditions, c, now)
}

// setPolicyBoundCondition sets PolicyBound from the ToolPolicies naming the
// registry: True (PolicySelectsRegistry) naming them; False
// (NoPolicySelectsRegistry) when none does; absent when the ToolPolicy CRD
// is not installed.
func setPolicyBoundCondition(st *v1alpha1.ToolRegistryStatus, p policyState, registry string, generation int64, now metav1.Time) {
	if !p.installed {
		conditions.Remove(&st.Conditions, v1alpha1.ToolRegistryConditionPolicyBound)
		return
	}
	c := metav1.Condition{Type: v1alpha1.ToolRegistryConditionPolicyBound, ObservedGeneration: generation}
	if len(p.names) == 0 {
		c.Status, c.Reason = metav1.ConditionFalse, v1alpha1.ToolRegistryReasonNoPolicySelectsRegistry
		c.Message = "no ToolPolicy selects this registry (spec.selector.registry: " + registry +
			"): the default-deny policy broker refuses every call to its tools with deniedBy=no-matching-permit"
	} else {
		c.Status, c.Reason = metav1.ConditionTrue, v1alpha1.ToolRegistryReasonPolicySelectsRegistry
		c.Message = fmt.Sprintf("selected by %d ToolPolicy(s): %v", len(p.names), p.names)
	}
	conditions.Set(&st.Conditions, c, now)
}

// findingsConditions are the conditions set from their rules' findings
// alone, each present only when the registry has what it checks
// (toolregistry.md#conditions): True with the spec's reason when no rule
// reports a problem, False with the first finding's reason otherwise.
var findingsConditions = []struct {
	condType, okReason string
	// applies reports whether the registry has what the condition checks
	// and says what passed.
	applies func(tr *v1alpha1.ToolRegistry) (okMessage string, ok bool)
}{
	{v1alpha1.ToolRegistryConditionSandboxesValid, v1alpha1.ToolRegistryReasonSandboxesValid, sandboxesChecked},
	{v1alpha1.ToolRegistryConditionHandlerConnectionsValid, v1alpha1.ToolRegistryReasonHandlerConnectionsValid, handlerConnectionsChecked},
}

// sandboxesChecked: SandboxesValid is present when the registry declares a
// sandbox or a handler runs on one.
func sandboxesChecked(tr *v1alpha1.ToolRegistry) (string, bool) {
	onSandbox := 0
	for i := range tr.Spec.Handlers {
		if tr.Spec.Handlers[i].Sandbox != nil {
			onSandbox++
		}
	}
	if len(tr.Spec.Sandboxes) == 0 && onSandbox == 0 {
		return "", false
	}
	sandboxes := strconv.Itoa(len(tr.Spec.Sandboxes)) + " sandboxes"
	if len(tr.Spec.Sandboxes) == 1 {
		sandboxes = "1 sandbox"
	}
	return sandboxes + " and " + plural(onSandbox, "handler") + " on a sandbox passed validation", true
}

// handlerConnectionsChecked: HandlerConnectionsValid is present when a
// handler reads its credential through auth.connectionRef.
func handlerConnectionsChecked(tr *v1alpha1.ToolRegistry) (string, bool) {
	n := 0
	for i := range tr.Spec.Handlers {
		if a := tr.Spec.Handlers[i].Auth; a != nil && a.ConnectionRef != nil {
			n++
		}
	}
	if n == 0 {
		return "", false
	}
	return "every one of " + plural(n, "handler") + " with auth.connectionRef passed validation", true
}

// setFindingsCondition sets a condition of findingsConditions: absent when
// it does not apply and no finding reports it; True (okReason, okMessage)
// with no finding; False with the findings' reason and every finding.
func setFindingsCondition(st *v1alpha1.ToolRegistryStatus, condType string, findings []rules.Finding, applies bool, okReason, okMessage string, generation int64, now metav1.Time) {
	if len(findings) == 0 && !applies {
		conditions.Remove(&st.Conditions, condType)
		return
	}
	c := conditions.FromFindings(condType, findings, okReason, okMessage, v1alpha1.ToolRegistryReasonValidationFailed, generation)
	conditions.Set(&st.Conditions, c, now)
}

// computeStatus returns the status the registry should have, computed from
// the fetched object and in. Nothing in it moves unless what it reports
// changed, so recomputing an unchanged registry gives the stored status and
// Reconcile writes nothing: conditions keep their lastTransitionTime unless
// their status flips, a probed tool its lastChecked unless its result
// changes, and lastDiscoveryTime moves only with the tool set
// (discoveryChanged). Pure: no client, no clock.
func computeStatus(tr *v1alpha1.ToolRegistry, in statusInput) v1alpha1.ToolRegistryStatus {
	old := &tr.Status
	st := *old.DeepCopy()
	now := metav1.NewTime(in.now)
	gen := tr.Generation

	handlerFindings := findingsFor(in.findings, v1alpha1.ToolRegistryConditionHandlersValid)
	invalid := invalidHandlers(handlerFindings)
	tools := toolStatuses(in.tools, invalid, in.probe, in.previous, in.results)

	st.ObservedGeneration = gen
	st.DiscoveredTools = tools
	if len(tools) == 0 {
		st.DiscoveredTools = nil
	}
	st.DiscoveredToolsCount = int32(len(tools))
	st.ContentDigest = rules.ToolRegistryContentDigest(tools)
	if discoveryChanged(old, st.ContentDigest) {
		st.LastDiscoveryTime = &now
	}
	st.PolicyCount = nil
	if in.policy.installed {
		n := int32(len(in.policy.names))
		st.PolicyCount = &n
	}

	setHandlersValidCondition(&st, handlerFindings, len(tr.Spec.Handlers), gen, now)
	setToolsDiscoveredCondition(&st, len(tools), in.handlersWithTools, len(tr.Spec.Handlers), gen, now)
	phase := phaseOf(len(handlerFindings) == 0, tools)
	setDegradedCondition(&st, phase, tools, gen, now)
	setReadyCondition(&st, tools, in.probe.enabled, gen, now)
	setPolicyBoundCondition(&st, in.policy, tr.Name, gen, now)
	for _, fc := range findingsConditions {
		okMessage, applies := fc.applies(tr)
		setFindingsCondition(&st, fc.condType, findingsFor(in.findings, fc.condType), applies, fc.okReason, okMessage, gen, now)
	}
	st.Phase = phase
	// Policy conditions last, after Ready and the phase: they never feed them.
	in.validation.Set(&st.Conditions, conditionTypes, gen, now)
	return st
}

// discoveryChanged reports whether lastDiscoveryTime moves: when the stored
// status has none yet, or when the resolved tool set (what contentDigest
// covers: names, descriptions, schemas, endpoints) differs from the stored
// one. It is when the handlers last resolved to something different, the
// moment an agent's view of the registry changed. A spec edit that resolves
// to the same tools (a probe interval, a retry policy) is seen in
// observedGeneration, not here, and a probe result never moves it.
func discoveryChanged(old *v1alpha1.ToolRegistryStatus, digest string) bool {
	return old.LastDiscoveryTime == nil || old.ContentDigest != digest
}

// conditionTypes are every condition type the controller sets: a policy
// rule naming one reports to PolicyCompliant instead (policycheck).
var conditionTypes = []string{
	v1alpha1.ToolRegistryConditionReady, v1alpha1.ToolRegistryConditionDegraded,
	v1alpha1.ToolRegistryConditionHandlersValid, v1alpha1.ToolRegistryConditionToolsDiscovered,
	v1alpha1.ToolRegistryConditionPolicyBound, v1alpha1.ToolRegistryConditionSandboxesValid,
	v1alpha1.ToolRegistryConditionSandboxConnectionsValid, v1alpha1.ToolRegistryConditionHandlerConnectionsValid,
}

// conditionEvent is one event to record for a condition transition.
type conditionEvent struct {
	eventType, reason, note string
}

// maxNote bounds an event note (events.k8s.io/v1 allows 1 kB).
const maxNote = 1000

// transitionEvents returns the events for the conditions whose status
// changed from old to updated: Warning when one turns bad (False, or True
// for Degraded), Normal when one recovers from bad. A condition that
// appears good, or disappears, records nothing.
func transitionEvents(old, updated []metav1.Condition) []conditionEvent {
	var out []conditionEvent
	for _, c := range updated {
		prev := meta.FindStatusCondition(old, c.Type)
		if prev != nil && prev.Status == c.Status {
			continue
		}
		note := conditions.Truncate(c.Type+" is "+string(c.Status)+": "+c.Message, maxNote)
		switch {
		case isBad(c):
			out = append(out, conditionEvent{corev1.EventTypeWarning, c.Reason, note})
		case prev != nil && isBad(*prev):
			out = append(out, conditionEvent{corev1.EventTypeNormal, c.Reason, note})
		}
	}
	return out
}

// isBad reports whether a condition says something is wrong: False, except
// for Degraded, which is wrong when True.
func isBad(c metav1.Condition) bool {
	if c.Type == v1alpha1.ToolRegistryConditionDegraded {
		return c.Status == metav1.ConditionTrue
	}
	return c.Status == metav1.ConditionFalse
}
