package v1alpha1

// The core conditions an AgentRuntime's status carries (agentruntime.md#conditions)
// and their reasons: the Ready roll-up, the workload, the references the
// agent resolves and the checks on its spec. One const block per condition
// type, its reasons after it, then the reasons several types carry
// (hack/conditionsdoc generates docs/conditions.md from the
// agentruntime_*_conditions.go files). The spec names most False reasons of
// the resolution conditions and the quota's reasons; a reason it does not
// name (mostly those of True conditions) is the controller's and its
// comment says so. The rules that report a condition use these constants,
// so a finding's condition and the condition the controller sets are the
// same string.

const (
	// AgentRuntimeConditionReady is True when at least one replica is ready:
	// the roll-up of PromptPackReady, ProviderReady, FrameworkReady,
	// DeploymentReady and ServiceReady, in that order. The first of them that
	// is not True gives Ready its status and reason (Unknown with reason
	// Awaiting<Type> when it has not been reported yet), except while the
	// Workspace has not admitted the agent.
	AgentRuntimeConditionReady = "Ready"
	// AgentRuntimeReasonAgentReady (Ready=True, not named by the spec): every
	// condition of the roll-up is True; at least one replica is ready.
	AgentRuntimeReasonAgentReady = "ReplicaReady"
	// AgentRuntimeReasonWorkspaceQuotaExceeded (Ready=False, spec): the
	// Workspace has not admitted the agent (WithinWorkspaceQuota False,
	// AgentRuntimeQuotaExceeded); it names Ready's reason whatever else is
	// False, and the phase stays Pending.
	AgentRuntimeReasonWorkspaceQuotaExceeded = "WorkspaceQuotaExceeded"
)

const (
	// AgentRuntimeConditionDeploymentReady: the agent's Deployment is applied
	// and has an available replica.
	AgentRuntimeConditionDeploymentReady = "DeploymentReady"
	// AgentRuntimeReasonDeploymentAvailable (DeploymentReady=True, not named
	// by the spec): the Deployment has at least one available replica.
	AgentRuntimeReasonDeploymentAvailable = "DeploymentAvailable"
	// AgentRuntimeReasonDeploymentUnavailable (DeploymentReady=False, not
	// named by the spec): the Deployment is applied but has no available
	// replica yet.
	AgentRuntimeReasonDeploymentUnavailable = "DeploymentUnavailable"
	// AgentRuntimeReasonDeploymentNotCreated (DeploymentReady=False, not named
	// by the spec): no Deployment exists, because a resolution condition
	// holds the agent back.
	AgentRuntimeReasonDeploymentNotCreated = "DeploymentNotCreated"
	// AgentRuntimeReasonDeploymentApplyFailed (DeploymentReady=False, not
	// named by the spec): the Deployment was not applied: it was refused,
	// could not be built, or an object it waits for (the pod's
	// ServiceAccount, Role, RoleBinding, the Service) was refused. The
	// reconcile returns the error and is retried with backoff.
	AgentRuntimeReasonDeploymentApplyFailed = "DeploymentApplyFailed"
	// AgentRuntimeReasonPodSecurityViolation (DeploymentReady=False, not named
	// by the spec): the agent's pod breaks the Pod Security Standard in force
	// (rule agentruntime/pod-security); the Deployment is held back.
	AgentRuntimeReasonPodSecurityViolation = "PodSecurityViolation"
	// AgentRuntimeReasonRuntimeClassNotAllowed (DeploymentReady=False, not
	// named by the spec): podOverrides.runtimeClassName names a RuntimeClass
	// the operator does not allow (rule agentruntime/runtime-class-allowed);
	// the Deployment is held back.
	AgentRuntimeReasonRuntimeClassNotAllowed = "RuntimeClassNotAllowed"
)

const (
	// AgentRuntimeConditionServiceReady: the agent's Service is applied.
	AgentRuntimeConditionServiceReady = "ServiceReady"
	// AgentRuntimeReasonServiceCreated (ServiceReady=True, not named by the
	// spec): the Service is applied.
	AgentRuntimeReasonServiceCreated = "ServiceCreated"
	// AgentRuntimeReasonServiceNotCreated (ServiceReady=False, not named by
	// the spec): the Service is not applied, because a resolution condition
	// holds the agent back.
	AgentRuntimeReasonServiceNotCreated = "ServiceNotCreated"
	// AgentRuntimeReasonServiceApplyFailed (ServiceReady=False, not named by
	// the spec): the API server refused the Service (and so the Deployment,
	// which follows it, was not applied). The reconcile returns the error
	// and is retried with backoff.
	AgentRuntimeReasonServiceApplyFailed = "ServiceApplyFailed"
)

const (
	// AgentRuntimeConditionPromptPackReady: the PromptPack spec.promptPackRef
	// names resolved and is valid.
	AgentRuntimeConditionPromptPackReady = "PromptPackReady"
	// AgentRuntimeReasonPromptPackResolved (PromptPackReady=True, not named by
	// the spec): the PromptPack resolved and is valid.
	AgentRuntimeReasonPromptPackResolved = "PromptPackResolved"
	// AgentRuntimeReasonPromptPackNotFound (PromptPackReady=False, spec): no
	// PromptPack matches spec.promptPackRef; phase Failed.
	AgentRuntimeReasonPromptPackNotFound = "PromptPackNotFound"
	// AgentRuntimeReasonInvalidPromptPackRef (PromptPackReady=False, spec): a
	// version or track on a ref naming a live pack, or a rollout over a live
	// pack; phase Failed.
	AgentRuntimeReasonInvalidPromptPackRef = "InvalidPromptPackRef"
	// AgentRuntimeReasonPromptPackNameConflict (PromptPackReady=False, spec):
	// a pack name has both a live pack and published versions; phase Failed.
	AgentRuntimeReasonPromptPackNameConflict = "PromptPackNameConflict"
	// AgentRuntimeReasonPromptPackInvalid (PromptPackReady=False, spec): the
	// resolved PromptPack failed source or schema validation (status.phase
	// Invalid); phase Failed.
	AgentRuntimeReasonPromptPackInvalid = "PromptPackInvalid"
	// AgentRuntimeReasonPromptPackNotValidated (PromptPackReady=False, not
	// named by the spec): the resolved PromptPack has no status.phase yet;
	// the agent is held Pending.
	AgentRuntimeReasonPromptPackNotValidated = "PromptPackNotValidated"
)

const (
	// AgentRuntimeConditionProviderReady: every referenced Provider exists, is
	// Ready, matches the declared role and advertises the required
	// capabilities.
	AgentRuntimeConditionProviderReady = "ProviderReady"
	// AgentRuntimeReasonProvidersReady (ProviderReady=True, not named by the
	// spec): every referenced Provider exists, is Ready and matches its role
	// and capabilities.
	AgentRuntimeReasonProvidersReady = "ProvidersReady"
	// AgentRuntimeReasonProviderNotFound (ProviderReady=False, spec): a
	// referenced Provider does not exist; phase Failed.
	AgentRuntimeReasonProviderNotFound = "ProviderNotFound"
	// AgentRuntimeReasonProviderCrossNamespace (ProviderReady=False, spec): a
	// providerRef names another namespace.
	AgentRuntimeReasonProviderCrossNamespace = "ProviderCrossNamespace"
	// AgentRuntimeReasonProviderNotReady (ProviderReady=False, not named by
	// the spec): a referenced Provider exists but its status.phase is not
	// Ready; the agent is held Pending.
	AgentRuntimeReasonProviderNotReady = "ProviderNotReady"
	// AgentRuntimeReasonRoleMismatch (ProviderReady=False, spec): a
	// Provider's spec.role differs from providers[].role; phase Failed.
	AgentRuntimeReasonRoleMismatch = "RoleMismatch"
	// AgentRuntimeReasonCapabilityMismatch (ProviderReady=False, spec): a
	// Provider does not advertise a required capability.
	AgentRuntimeReasonCapabilityMismatch = "CapabilityMismatch"
)

const (
	// AgentRuntimeConditionToolRegistryReady: the referenced ToolRegistry
	// exists and is in the agent's namespace. A missing registry sets it
	// False and the agent runs without tools.
	AgentRuntimeConditionToolRegistryReady = "ToolRegistryReady"
	// AgentRuntimeReasonToolRegistryFound (ToolRegistryReady=True, not named
	// by the spec): the ToolRegistry exists in the agent's namespace.
	AgentRuntimeReasonToolRegistryFound = "ToolRegistryFound"
	// AgentRuntimeReasonNoToolRegistry (ToolRegistryReady=True, not named by
	// the spec): the agent sets no toolRegistryRef and runs without tools.
	AgentRuntimeReasonNoToolRegistry = "NoToolRegistry"
	// AgentRuntimeReasonToolRegistryNotFound (ToolRegistryReady=False, spec):
	// toolRegistryRef names a ToolRegistry that does not exist (the spec's
	// "a missing registry"); the agent runs without tools.
	AgentRuntimeReasonToolRegistryNotFound = "ToolRegistryNotFound"
	// AgentRuntimeReasonToolRegistryCrossNamespace (ToolRegistryReady=False,
	// spec): toolRegistryRef names another namespace.
	AgentRuntimeReasonToolRegistryCrossNamespace = "ToolRegistryCrossNamespace"
)

const (
	// AgentRuntimeConditionToolCredentialsReady (not named by the spec):
	// every credential the agent's ToolRegistry handlers read from a Secret
	// (auth.secretRef, the deprecated authSecretRef, headersFromSecret) is
	// in <agentruntime>-tool-secrets. False names each handler whose
	// credential is left out: the runtime then refuses that handler's calls
	// instead of calling unauthenticated (toolregistry.md § Authenticating
	// tools: "A missing Secret/key ... fails the AgentRuntime reconcile").
	AgentRuntimeConditionToolCredentialsReady = "ToolCredentialsReady"
	// AgentRuntimeReasonToolCredentialsResolved (ToolCredentialsReady=True,
	// not named by the spec): every handler credential is delivered.
	AgentRuntimeReasonToolCredentialsResolved = "ToolCredentialsResolved"
	// AgentRuntimeReasonNoToolCredentials (ToolCredentialsReady=True, not
	// named by the spec): no handler reads a credential from a Secret.
	AgentRuntimeReasonNoToolCredentials = "NoToolCredentials"
	// AgentRuntimeReasonToolCredentialSecretNotFound (ToolCredentialsReady=
	// False, not named by the spec): a handler's Secret does not exist in
	// the agent's namespace.
	AgentRuntimeReasonToolCredentialSecretNotFound = "ToolCredentialSecretNotFound"
	// AgentRuntimeReasonToolCredentialKeyMissing (ToolCredentialsReady=
	// False, not named by the spec): a handler's Secret has no such key.
	AgentRuntimeReasonToolCredentialKeyMissing = "ToolCredentialKeyMissing"
	// AgentRuntimeReasonToolCredentialSecretNotOptedIn (ToolCredentialsReady=
	// False, not named by the spec): a handler's Secret is not labelled
	// omnia.altairalabs.ai/secret-type=tool-credentials, so the operator
	// does not copy it into the agent's pod.
	AgentRuntimeReasonToolCredentialSecretNotOptedIn = "ToolCredentialSecretNotOptedIn"
)

const (
	// AgentRuntimeConditionFrameworkReady: a runtime image resolved for
	// framework.type.
	AgentRuntimeConditionFrameworkReady = "FrameworkReady"
	// AgentRuntimeReasonFrameworkImageResolved (FrameworkReady=True, not named
	// by the spec): framework.image, the operator's --framework-image entry
	// for the type, or the built-in promptkit image gave the runtime image.
	AgentRuntimeReasonFrameworkImageResolved = "FrameworkImageResolved"
	// AgentRuntimeReasonFrameworkImageUnavailable (FrameworkReady=False,
	// spec): no runtime image resolved for framework.type: no framework.image,
	// no --framework-image entry for the type, and only promptkit has a
	// built-in image.
	AgentRuntimeReasonFrameworkImageUnavailable = "FrameworkImageUnavailable"
)

const (
	// AgentRuntimeConditionCapabilitiesSatisfied: the running runtime
	// advertises every capability the spec requires; while False for the
	// current generation the Deployment is scaled to zero. Unknown with
	// AgentRuntimeReasonAwaitingRuntimeReport until the runtime reports.
	AgentRuntimeConditionCapabilitiesSatisfied = "CapabilitiesSatisfied"
	// AgentRuntimeReasonRuntimeCapabilitiesSatisfied (CapabilitiesSatisfied=True,
	// not named by the spec): the runtime's report holds every required
	// capability.
	AgentRuntimeReasonRuntimeCapabilitiesSatisfied = "RuntimeCapabilitiesSatisfied"
	// AgentRuntimeReasonNoRuntimeCapabilitiesRequired (CapabilitiesSatisfied=True,
	// not named by the spec): the spec requires no capability, so any runtime
	// satisfies it, reported or not.
	AgentRuntimeReasonNoRuntimeCapabilitiesRequired = "NoRuntimeCapabilitiesRequired"
	// AgentRuntimeReasonRuntimeCapabilitiesMissing (CapabilitiesSatisfied=False,
	// not named by the spec): the runtime reported its capabilities for the
	// current generation and lacks one the spec requires (rule
	// agentruntime/runtime-capabilities-satisfied); the Deployment is scaled
	// to zero.
	AgentRuntimeReasonRuntimeCapabilitiesMissing = "RuntimeCapabilitiesMissing"
)

const (
	// AgentRuntimeConditionRuntimeCapabilitiesReported: the runtime has
	// reported its capabilities (status.runtimeCapabilities) for the current
	// generation. False with AgentRuntimeReasonAwaitingRuntimeReport before.
	AgentRuntimeConditionRuntimeCapabilitiesReported = "RuntimeCapabilitiesReported"
	// AgentRuntimeReasonRuntimeCapabilitiesReported (RuntimeCapabilitiesReported=True,
	// not named by the spec): the runtime reported for the current
	// generation; the message lists what it reported.
	AgentRuntimeReasonRuntimeCapabilitiesReported = "CapabilitiesReported"
)

const (
	// AgentRuntimeConditionAutoscalingReady: which autoscaling policy is in
	// effect (agentruntime.md § runtime.autoscaling).
	AgentRuntimeConditionAutoscalingReady = "AutoscalingReady"
	// AgentRuntimeReasonAutoscalingScaling (AutoscalingReady=True, spec): an
	// HPA or a KEDA ScaledObject scales the Deployment.
	AgentRuntimeReasonAutoscalingScaling = "Scaling"
	// AgentRuntimeReasonAutoscalingDisabled (AutoscalingReady=True, spec): no
	// autoscaling is asked for (by the agent or its service group), or the
	// Deployment is held at zero (CapabilitiesSatisfied False): the
	// Deployment runs static replicas.
	AgentRuntimeReasonAutoscalingDisabled = "Disabled"
	// AgentRuntimeReasonKEDANotInstalled (AutoscalingReady=False, spec): type
	// keda is asked for but the KEDA CRDs are absent: the Deployment runs
	// static replicas until they are installed.
	AgentRuntimeReasonKEDANotInstalled = "KEDANotInstalled"
	// AgentRuntimeReasonAutoscalerApplyFailed (AutoscalingReady=False, not
	// named by the spec): the Deployment was applied but its
	// HorizontalPodAutoscaler or ScaledObject was not (or a stale one could
	// not be deleted). The reconcile returns the error and is retried with
	// backoff.
	AgentRuntimeReasonAutoscalerApplyFailed = "AutoscalerApplyFailed"
)

const (
	// AgentRuntimeConditionVolumes: every PersistentVolumeClaim the pod
	// mounts exists. The Deployment is applied either way; its pods stay
	// Pending until the claims exist.
	AgentRuntimeConditionVolumes = "Volumes"
	// AgentRuntimeReasonVolumeClaimsFound (Volumes=True, not named by the
	// spec): every PersistentVolumeClaim the pod mounts exists (or it mounts
	// none).
	AgentRuntimeReasonVolumeClaimsFound = "PersistentVolumeClaimsFound"
	// AgentRuntimeReasonPersistentVolumeClaimNotFound (Volumes=False, spec):
	// the pod mounts a PersistentVolumeClaim that does not exist; the
	// message names the missing claims.
	AgentRuntimeReasonPersistentVolumeClaimNotFound = "PersistentVolumeClaimNotFound"
)

const (
	// AgentRuntimeConditionA2AClientsResolved: every spec.a2aClients entry
	// resolved; False names the unresolved ones. Present only on an agent
	// with clients.
	AgentRuntimeConditionA2AClientsResolved = "A2AClientsResolved"
	// AgentRuntimeReasonA2AClientsResolved (A2AClientsResolved=True, not named
	// by the spec): every A2A client resolved to an endpoint.
	AgentRuntimeReasonA2AClientsResolved = "A2AClientsResolved"
	// AgentRuntimeReasonCrossNamespaceRef (A2AClientsResolved=False, spec): an
	// A2A client's agentRuntimeRef names another namespace; it is reported
	// before Unresolved.
	AgentRuntimeReasonCrossNamespaceRef = "CrossNamespaceRef"
	// AgentRuntimeReasonUnresolved (A2AClientsResolved=False, spec): an A2A
	// client resolved to no endpoint; the client is left out of the runtime.
	AgentRuntimeReasonUnresolved = "Unresolved"
)

const (
	// AgentRuntimeConditionReservedEnvClean: no extraEnv entry names a
	// reserved key; False names every key dropped from the pod.
	AgentRuntimeConditionReservedEnvClean = "ReservedEnvClean"
	// AgentRuntimeReasonReservedEnvClean (ReservedEnvClean=True, not named by
	// the spec): no extraEnv entry names a reserved key.
	AgentRuntimeReasonReservedEnvClean = "ReservedEnvClean"
	// AgentRuntimeReasonReservedEnvKey (ReservedEnvClean=False, not named by
	// the spec): an extraEnv list names a reserved OMNIA_* key (rule
	// agentruntime/reserved-env-key); the key is dropped from the pod.
	AgentRuntimeReasonReservedEnvKey = "ReservedEnvKey"
)

const (
	// AgentRuntimeConditionSandboxConnectionsValid reports, before any session
	// starts, a spec.sandbox.connections binding that names a sandbox the
	// registry does not declare, an unbind of a required role, a required
	// role left unbound, or another Connection check that fails
	// (agentruntime.md § sandbox). It is a condition type the controller
	// owns, so a policy rule naming it reports to PolicyCompliant; no reason
	// of it is declared here.
	AgentRuntimeConditionSandboxConnectionsValid = "SandboxConnectionsValid"
)

const (
	// AgentRuntimeConditionWithinWorkspaceQuota: the Workspace's
	// spec.quotas.agents applied to this agent. Present only when the
	// Workspace sets an agent quota.
	AgentRuntimeConditionWithinWorkspaceQuota = "WithinWorkspaceQuota"
	// AgentRuntimeReasonQuotaSatisfied (WithinWorkspaceQuota=True, spec): the
	// Workspace admits the agent and its replicas are within
	// maxReplicasPerAgent.
	AgentRuntimeReasonQuotaSatisfied = "QuotaSatisfied"
	// AgentRuntimeReasonRunningOverAgentRuntimeQuota (WithinWorkspaceQuota=True,
	// spec): the agent was admitted (it has its Deployment) before
	// maxAgentRuntimes was lowered beneath it; it keeps running.
	AgentRuntimeReasonRunningOverAgentRuntimeQuota = "RunningOverAgentRuntimeQuota"
	// AgentRuntimeReasonReplicasClamped (WithinWorkspaceQuota=False, spec):
	// the agent asks for more replicas than maxReplicasPerAgent and runs at
	// the cap; it is otherwise reconciled as usual.
	AgentRuntimeReasonReplicasClamped = "ReplicasClamped"
	// AgentRuntimeReasonAgentRuntimeQuotaExceeded (WithinWorkspaceQuota=False,
	// spec): the Workspace has not admitted the agent and it has no
	// Deployment: nothing is created for it, phase Pending, Ready reason
	// WorkspaceQuotaExceeded.
	AgentRuntimeReasonAgentRuntimeQuotaExceeded = "AgentRuntimeQuotaExceeded"
)

const (
	// AgentRuntimeConditionIdleTimeoutValid: the
	// omnia.altairalabs.ai/idle-timeout annotation is a valid duration.
	// Present only on an annotated agent.
	AgentRuntimeConditionIdleTimeoutValid = "IdleTimeoutValid"
	// AgentRuntimeReasonIdleTimeoutValid (IdleTimeoutValid=True, not named by
	// the spec): the annotation is a positive duration; the message says
	// after how long without use the agent is deleted.
	AgentRuntimeReasonIdleTimeoutValid = "ValidIdleTimeout"
	// AgentRuntimeReasonInvalidIdleTimeout (IdleTimeoutValid=False, spec): the
	// idle-timeout annotation is not a positive duration (rule
	// agentruntime/idle-timeout-annotation).
	AgentRuntimeReasonInvalidIdleTimeout = "InvalidIdleTimeout"
)

const (
	// AgentRuntimeReasonAwaitingRuntimeReport (RuntimeCapabilitiesReported=False,
	// and CapabilitiesSatisfied=Unknown when the spec requires a capability;
	// not named by the spec): the runtime has not reported its capabilities
	// for the current generation yet.
	AgentRuntimeReasonAwaitingRuntimeReport = "AwaitingRuntimeReport"
)
