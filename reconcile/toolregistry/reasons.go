package toolregistry

import "github.com/altairalabs/omnia/rules"

// Condition reasons the controller sets. The spec (toolregistry.md#conditions)
// names the Ready, Degraded and PolicyBound reasons; where it names none the
// constant says so and the reason is the condition's own name or its plain
// negation.
const (
	// ReasonToolsDiscovered is Ready=True: the handlers are valid and at least
	// one tool is available. It is also ToolsDiscovered=True (the spec names
	// no reason for that condition).
	ReasonToolsDiscovered = "ToolsDiscovered"
	// ReasonValidationFailed is Ready=False and HandlersValid=False: a handler
	// failed validation. It is the reason the rules carry
	// (rules.ToolRegistryReasonValidationFailed).
	ReasonValidationFailed = rules.ToolRegistryReasonValidationFailed
	// ReasonNoToolsAvailable is Ready=False: the handlers are valid but no
	// tool is available (none was discovered, or with probing none is
	// reachable).
	ReasonNoToolsAvailable = "NoToolsAvailable"

	// ReasonProbesPending is Ready=Unknown and Degraded=Unknown, with the
	// phase Pending, while a probed tool waits for its first probe result:
	// probes run outside the reconcile, so a new probed registry (or a new
	// endpoint) is first written before it has been dialled. The spec names
	// no reason for this state.
	ReasonProbesPending = "ProbesPending"

	// ReasonSomeToolsUnavailable is Degraded=True: the phase is Degraded,
	// some tools reachable and some not (only with probing).
	ReasonSomeToolsUnavailable = "SomeToolsUnavailable"
	// ReasonAllToolsAvailable is Degraded=False, in every phase but Degraded.
	ReasonAllToolsAvailable = "AllToolsAvailable"

	// ReasonHandlersValid is HandlersValid=True (the spec names no reason;
	// this follows SandboxesValid and HandlerConnectionsValid, whose True
	// reason is the condition's name).
	ReasonHandlersValid = "HandlersValid"

	// ReasonSandboxesValid is SandboxesValid=True (the spec's reason).
	ReasonSandboxesValid = "SandboxesValid"
	// ReasonHandlerConnectionsValid is HandlerConnectionsValid=True (the
	// spec's reason).
	ReasonHandlerConnectionsValid = "HandlerConnectionsValid"

	// ReasonNoToolsDiscovered is ToolsDiscovered=False: no handler yielded a
	// tool (the spec names no reason).
	ReasonNoToolsDiscovered = "NoToolsDiscovered"

	// ReasonPolicySelectsRegistry is PolicyBound=True: at least one
	// ToolPolicy names this registry in spec.selector.registry.
	ReasonPolicySelectsRegistry = "PolicySelectsRegistry"
	// ReasonNoPolicySelectsRegistry is PolicyBound=False: no ToolPolicy
	// selects this registry, so the default-deny broker refuses every call
	// (the spec names no reason for False).
	ReasonNoPolicySelectsRegistry = "NoPolicySelectsRegistry"
)

// Event actions (events.k8s.io/v1 Event.action).
const (
	// ActionReconcile is the action of every condition-transition event.
	ActionReconcile = "Reconcile"
)
