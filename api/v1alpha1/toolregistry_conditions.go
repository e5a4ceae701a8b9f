package v1alpha1

// The conditions a ToolRegistry's status carries (toolregistry.md#conditions)
// and their reasons: one const block per condition type, its reasons after
// it, then the reasons several types carry (hack/conditionsdoc generates
// docs/conditions.md from this file). The spec names the Ready, Degraded
// and PolicyBound reasons; where it names none the comment says so and the
// reason is the condition's own name or its plain negation.

const (
	// ToolRegistryConditionReady is True when handlers are valid and at least one tool is available.
	ToolRegistryConditionReady = "Ready"
	// ToolRegistryReasonNoToolsAvailable is Ready=False: the handlers are valid but no
	// tool is available (none was discovered, or with probing none is
	// reachable).
	ToolRegistryReasonNoToolsAvailable = "NoToolsAvailable"
)

const (
	// ToolRegistryConditionDegraded is True when the phase is Degraded.
	ToolRegistryConditionDegraded = "Degraded"
	// ToolRegistryReasonSomeToolsUnavailable is Degraded=True: the phase is Degraded,
	// some tools reachable and some not (only with probing).
	ToolRegistryReasonSomeToolsUnavailable = "SomeToolsUnavailable"
	// ToolRegistryReasonAllToolsAvailable is Degraded=False, in every phase but Degraded.
	ToolRegistryReasonAllToolsAvailable = "AllToolsAvailable"
)

const (
	// ToolRegistryConditionHandlersValid is True when every handler passed validation.
	ToolRegistryConditionHandlersValid = "HandlersValid"
	// ToolRegistryReasonHandlersValid is HandlersValid=True (the spec names no reason;
	// this follows SandboxesValid and HandlerConnectionsValid, whose True
	// reason is the condition's name).
	ToolRegistryReasonHandlersValid = "HandlersValid"
)

const (
	// ToolRegistryConditionToolsDiscovered reports how many tools were discovered from how many handlers.
	ToolRegistryConditionToolsDiscovered = "ToolsDiscovered"
	// ToolRegistryReasonNoToolsDiscovered is ToolsDiscovered=False: no handler yielded a
	// tool (the spec names no reason).
	ToolRegistryReasonNoToolsDiscovered = "NoToolsDiscovered"
)

const (
	// ToolRegistryConditionPolicyBound is True when at least one ToolPolicy selects this registry.
	ToolRegistryConditionPolicyBound = "PolicyBound"
	// ToolRegistryReasonPolicySelectsRegistry is PolicyBound=True: at least one
	// ToolPolicy names this registry in spec.selector.registry.
	ToolRegistryReasonPolicySelectsRegistry = "PolicySelectsRegistry"
	// ToolRegistryReasonNoPolicySelectsRegistry is PolicyBound=False: no ToolPolicy
	// selects this registry, so the default-deny broker refuses every call
	// (the spec names no reason for False).
	ToolRegistryReasonNoPolicySelectsRegistry = "NoPolicySelectsRegistry"
)

const (
	// ToolRegistryConditionSandboxesValid reports whether sandboxes and handlers on them resolve.
	ToolRegistryConditionSandboxesValid = "SandboxesValid"
	// ToolRegistryReasonSandboxesValid is SandboxesValid=True (the spec's reason).
	ToolRegistryReasonSandboxesValid = "SandboxesValid"
	// ToolRegistryReasonSandboxNotDeclared: a handler's sandbox.name is not
	// in spec.sandboxes (SandboxesValid).
	ToolRegistryReasonSandboxNotDeclared = "SandboxNotDeclared"
)

const (
	// ToolRegistryConditionSandboxConnectionsValid reports whether sandboxes' default connections check.
	ToolRegistryConditionSandboxConnectionsValid = "SandboxConnectionsValid"
)

const (
	// ToolRegistryConditionHandlerConnectionsValid reports whether handlers' auth.connectionRef resolve.
	ToolRegistryConditionHandlerConnectionsValid = "HandlerConnectionsValid"
	// ToolRegistryReasonHandlerConnectionsValid is HandlerConnectionsValid=True (the
	// spec's reason).
	ToolRegistryReasonHandlerConnectionsValid = "HandlerConnectionsValid"
	// ToolRegistryReasonConnectionHostNotCovered: a URL a connectionRef
	// handler sends its credential to cannot be covered by a Connection
	// (HandlerConnectionsValid).
	ToolRegistryReasonConnectionHostNotCovered = "ConnectionHostNotCovered"
)

const (
	// ToolRegistryReasonToolsDiscovered is Ready=True: the handlers are valid and at least
	// one tool is available. It is also ToolsDiscovered=True (the spec names
	// no reason for that condition).
	ToolRegistryReasonToolsDiscovered = "ToolsDiscovered"
	// ToolRegistryReasonValidationFailed is the reason of HandlersValid=False.
	// The spec names no HandlersValid reason; ValidationFailed is the one it
	// gives Ready when a handler fails validation.
	ToolRegistryReasonValidationFailed = "ValidationFailed"
	// ToolRegistryReasonProbesPending is Ready=Unknown and Degraded=Unknown, with the
	// phase Pending, while a probed tool waits for its first probe result:
	// probes run outside the reconcile, so a new probed registry (or a new
	// endpoint) is first written before it has been dialled. The spec names
	// no reason for this state.
	ToolRegistryReasonProbesPending = "ProbesPending"
)
