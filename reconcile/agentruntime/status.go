package agentruntime

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/reconcile/internal/requeue"
	"github.com/altairalabs/omnia/reconcile/policycheck"
	"github.com/altairalabs/omnia/rules"
)

// failedReasons are the False reasons that make the phase Failed
// (agentruntime.md#phase: a configuration error that will not resolve on
// its own). Every other False resolution reason holds the agent Pending.
var failedReasons = map[string]bool{
	v1alpha1.AgentRuntimeReasonPromptPackNotFound:     true,
	v1alpha1.AgentRuntimeReasonPromptPackInvalid:      true,
	v1alpha1.AgentRuntimeReasonInvalidPromptPackRef:   true,
	v1alpha1.AgentRuntimeReasonPromptPackNameConflict: true,
	v1alpha1.AgentRuntimeReasonProviderNotFound:       true,
	v1alpha1.AgentRuntimeReasonRoleMismatch:           true,
	// provider.md § Cross-namespace references are refused.
	v1alpha1.AgentRuntimeReasonProviderCrossNamespace: true,
}

// statusInput is everything the status is computed from besides the agent.
// It holds no client and no clock: computeStatus is pure.
type statusInput struct {
	// findings of the AgentRuntime rules (every stage and severity).
	findings []rules.Finding
	// policy is the verdict of the policy rules in force (policycheck): it
	// sets policy conditions only, never Ready, the phase or the workload.
	policy policycheck.Verdict
	// frameworkImageOK is rules.AgentRuntimeFrameworkImage's verdict.
	frameworkImageOK bool
	// toolCredentials is how many credentials the agent's ToolRegistry
	// handlers read from Secrets (rules.ToolCredentials).
	toolCredentials int
	// dropped are the reserved keys the Deployment builder dropped.
	dropped []workload.DroppedEnv
	// deployment is the applied Deployment as the API server has it; nil
	// when none was applied (held back by a resolution condition).
	deployment *appsv1.Deployment
	// serviceApplied reports whether the Service was applied.
	serviceApplied bool
	// autoscaling is what the autoscaling step did; nil when it did not
	// run (workload held back), which leaves AutoscalingReady as it was.
	autoscaling *autoscalingOutcome
	// activeVersion is the resolved PromptPack's version.
	activeVersion string
	// compositionDigest is the digest of the resolved inputs
	// (composition.go); empty until each has published its identity.
	compositionDigest string
	// a2aClients is how each A2A client resolved (status.a2a.clients).
	a2aClients []rules.AgentRuntimeA2AClientResolution
	now        metav1.Time

	// quota is the Workspace quota's verdict (quota.go).
	quota rules.AgentRuntimeQuotaVerdict

	// workspace is the Workspace of the agent's namespace; nil when none
	// (SessionRecording, session_conditions.go).
	workspace *v1alpha1.Workspace
	// maxReplicas is the most replicas the agent can run
	// (A2ATaskStoreShared, session_conditions.go).
	maxReplicas int32

	// applyErr is why applyWorkload stopped; nil when it did not fail
	// (apply_failure.go).
	applyErr error

	// The feature groups (rollout, autoscaling, exposure, external auth,
	// async): what each apply step did (nil when it did
	// not run).
	rollout      *rolloutOutcome
	exposure     *exposureOutcome
	externalAuth *externalAuthOutcome
	async        *asyncOutcome
	// requeue is the earliest time a step asked to be reconciled again
	// (a pause's end, a JWKS refresh): requeue.go.
	requeue requeue.Earliest
}

// byCondition returns the findings that set condType.
func byCondition(findings []rules.Finding, condType string) []rules.Finding {
	var out []rules.Finding
	for _, f := range findings {
		if f.Condition == condType {
			out = append(out, f)
		}
	}
	return out
}

// computeStatus is the agent's status: the resolution conditions from the
// rule findings, the workload conditions from the applied objects, the
// phase from agentruntime.md#phase, and the endpoints and replica counts.
func computeStatus(ar *v1alpha1.AgentRuntime, in statusInput) v1alpha1.AgentRuntimeStatus {
	st := *ar.Status.DeepCopy()
	gen := ar.Generation
	set := func(c metav1.Condition) { conditions.Set(&st.Conditions, c, in.now) }

	set(conditions.FromFindings(v1alpha1.AgentRuntimeConditionPromptPackReady,
		failedFirst(byCondition(in.findings, v1alpha1.AgentRuntimeConditionPromptPackReady)),
		v1alpha1.AgentRuntimeReasonPromptPackResolved, "the PromptPack resolved and is valid", v1alpha1.AgentRuntimeReasonPromptPackNotFound, gen))
	set(conditions.FromFindings(v1alpha1.AgentRuntimeConditionProviderReady,
		failedFirst(byCondition(in.findings, v1alpha1.AgentRuntimeConditionProviderReady)),
		v1alpha1.AgentRuntimeReasonProvidersReady, "every referenced Provider exists, is Ready and matches its role and capabilities", v1alpha1.AgentRuntimeReasonProviderNotFound, gen))
	trOK, trMsg := v1alpha1.AgentRuntimeReasonToolRegistryFound, "the ToolRegistry exists in the agent's namespace"
	if ar.Spec.ToolRegistryRef == nil {
		trOK, trMsg = v1alpha1.AgentRuntimeReasonNoToolRegistry, "no toolRegistryRef: the agent runs without tools"
	}
	set(conditions.FromFindings(v1alpha1.AgentRuntimeConditionToolRegistryReady,
		byCondition(in.findings, v1alpha1.AgentRuntimeConditionToolRegistryReady), trOK, trMsg, v1alpha1.AgentRuntimeReasonToolRegistryNotFound, gen))
	set(toolCredentialsCondition(in, gen))
	fw := metav1.Condition{Type: v1alpha1.AgentRuntimeConditionFrameworkReady, Status: metav1.ConditionTrue,
		Reason: v1alpha1.AgentRuntimeReasonFrameworkImageResolved, Message: "a runtime image resolved for framework.type", ObservedGeneration: gen}
	if !in.frameworkImageOK {
		fw.Status, fw.Reason = metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonFrameworkImageUnavailable
		fw.Message = "no framework.image, no --framework-image entry for the type, and only promptkit has a built-in image"
	}
	set(fw)
	set(reservedEnvCondition(in.dropped, gen))
	setIdleTimeoutCondition(&st.Conditions, ar, in.findings, in.now)
	if c, held := podChecksCondition(in.findings, gen); held {
		set(c)
	} else {
		set(deploymentCondition(in.deployment, gen))
	}
	svc := metav1.Condition{Type: v1alpha1.AgentRuntimeConditionServiceReady, Status: metav1.ConditionTrue,
		Reason: v1alpha1.AgentRuntimeReasonServiceCreated, Message: "the Service is applied", ObservedGeneration: gen}
	if !in.serviceApplied {
		svc.Status, svc.Reason, svc.Message = metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonServiceNotCreated, "the Service is not applied"
	}
	set(svc)
	if in.autoscaling != nil {
		set(autoscalingCondition(*in.autoscaling, gen))
	}
	setApplyFailureConditions(set, in, gen)
	capsReported, capsSatisfied := capabilityConditions(ar, in.findings)
	set(capsReported)
	set(capsSatisfied)
	setReferenceStatus(&st, ar, in)
	setSessionConditions(&st, ar, in)
	setRolloutStatus(&st, ar, in)
	setTrafficRoutingStatus(&st, ar, in.rollout.trafficOutcome(), in.now)
	setExposureStatus(&st, ar, in)
	setExternalAuthStatus(&st, ar, in)
	setAsyncStatus(&st, ar, in)
	set(conditions.RollUp(st.Conditions, v1alpha1.AgentRuntimeConditionReady, []string{
		v1alpha1.AgentRuntimeConditionPromptPackReady, v1alpha1.AgentRuntimeConditionProviderReady,
		v1alpha1.AgentRuntimeConditionFrameworkReady, v1alpha1.AgentRuntimeConditionDeploymentReady,
		v1alpha1.AgentRuntimeConditionServiceReady,
	}, v1alpha1.AgentRuntimeReasonAgentReady, "at least one replica is ready", gen))

	st.Phase = phaseOf(st.Conditions, in.deployment)
	setQuotaStatus(&st, in.quota, gen, in.now)
	st.Replicas = replicasOf(in.deployment)
	st.ServiceEndpoint, st.ManagementEndpoints = "", nil
	if in.serviceApplied {
		st.ServiceEndpoint, st.ManagementEndpoints = workload.ServiceEndpoint(ar), workload.ManagementEndpoints(ar)
	}
	st.ActiveVersion = in.activeVersion
	st.CompositionDigest = in.compositionDigest
	st.RuntimeCapabilities = runtimeCapabilitiesKept(ar)
	// Policy conditions last, after the phase: they never feed it.
	in.policy.Set(&st.Conditions, conditionTypes, gen, in.now)
	st.ObservedGeneration = gen
	return st
}

// conditionTypes are every condition type the controller sets: a policy
// rule naming one reports to PolicyCompliant instead (policycheck).
var conditionTypes = []string{
	v1alpha1.AgentRuntimeConditionReady, v1alpha1.AgentRuntimeConditionDeploymentReady,
	v1alpha1.AgentRuntimeConditionServiceReady, v1alpha1.AgentRuntimeConditionPromptPackReady,
	v1alpha1.AgentRuntimeConditionProviderReady, v1alpha1.AgentRuntimeConditionToolRegistryReady,
	v1alpha1.AgentRuntimeConditionFrameworkReady, v1alpha1.AgentRuntimeConditionCapabilitiesSatisfied,
	v1alpha1.AgentRuntimeConditionRuntimeCapabilitiesReported, v1alpha1.AgentRuntimeConditionExternalAuth,
	v1alpha1.AgentRuntimeConditionOIDCJWKSReady, v1alpha1.AgentRuntimeConditionAutoscalingReady,
	v1alpha1.AgentRuntimeConditionAsyncInvocationReady, v1alpha1.AgentRuntimeConditionVolumes,
	v1alpha1.AgentRuntimeConditionSessionRecording, v1alpha1.AgentRuntimeConditionPrivacyPolicyResolved,
	v1alpha1.AgentRuntimeConditionWithinWorkspaceQuota, v1alpha1.AgentRuntimeConditionIdleTimeoutValid,
	v1alpha1.AgentRuntimeConditionRolloutActive, v1alpha1.AgentRuntimeConditionTrafficRouting,
	v1alpha1.AgentRuntimeConditionA2AClientsResolved, v1alpha1.AgentRuntimeConditionA2ATaskStoreShared,
	v1alpha1.AgentRuntimeConditionReservedEnvClean, v1alpha1.AgentRuntimeConditionSandboxConnectionsValid,
	v1alpha1.AgentRuntimeConditionExposed, v1alpha1.AgentRuntimeConditionToolCredentialsReady,
}

// toolCredentialsCondition is ToolCredentialsReady: False with the first
// finding's reason, naming every handler whose credential is left out of
// the tool-secrets. It does not feed Ready: the agent serves, and the
// runtime refuses only that handler's calls.
func toolCredentialsCondition(in statusInput, gen int64) metav1.Condition {
	okReason, okMsg := v1alpha1.AgentRuntimeReasonToolCredentialsResolved, "every handler credential is in the agent's tool-secrets"
	if in.toolCredentials == 0 {
		okReason, okMsg = v1alpha1.AgentRuntimeReasonNoToolCredentials, "no ToolRegistry handler reads a credential from a Secret"
	}
	return conditions.FromFindings(v1alpha1.AgentRuntimeConditionToolCredentialsReady,
		byCondition(in.findings, v1alpha1.AgentRuntimeConditionToolCredentialsReady), okReason, okMsg,
		v1alpha1.AgentRuntimeReasonToolCredentialSecretNotFound, gen)
}

// reservedEnvCondition is ReservedEnvClean: False with the rule's reason
// naming every dropped key.
func reservedEnvCondition(dropped []workload.DroppedEnv, gen int64) metav1.Condition {
	c := metav1.Condition{Type: v1alpha1.AgentRuntimeConditionReservedEnvClean, Status: metav1.ConditionTrue,
		Reason: v1alpha1.AgentRuntimeReasonReservedEnvClean, Message: "no extraEnv entry names a reserved key", ObservedGeneration: gen}
	if len(dropped) == 0 {
		return c
	}
	parts := make([]string, 0, len(dropped))
	for _, d := range dropped {
		parts = append(parts, d.Field+"="+d.Name)
	}
	c.Status, c.Reason = metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonReservedEnvKey
	c.Message = conditions.Truncate("reserved keys dropped from the pod: "+strings.Join(parts, ", "), 4096)
	return c
}

// deploymentCondition is DeploymentReady from the Deployment's status:
// True when at least one replica is available, False before that or when
// none was applied.
func deploymentCondition(d *appsv1.Deployment, gen int64) metav1.Condition {
	c := metav1.Condition{Type: v1alpha1.AgentRuntimeConditionDeploymentReady, ObservedGeneration: gen}
	switch {
	case d == nil:
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonDeploymentNotCreated, "no Deployment: a resolution condition holds the agent back"
	case d.Status.AvailableReplicas > 0:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonDeploymentAvailable, "the Deployment has an available replica"
	default:
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonDeploymentUnavailable, "the Deployment has no available replica yet"
	}
	return c
}

// phaseOf follows agentruntime.md#phase: Failed on a configuration error
// that will not resolve on its own, Running with a ready replica, Pending
// otherwise.
func phaseOf(conds []metav1.Condition, d *appsv1.Deployment) v1alpha1.AgentRuntimePhase {
	for _, c := range conds {
		if c.Status == metav1.ConditionFalse && failedReasons[c.Reason] &&
			(c.Type == v1alpha1.AgentRuntimeConditionPromptPackReady || c.Type == v1alpha1.AgentRuntimeConditionProviderReady) {
			return v1alpha1.AgentRuntimePhaseFailed
		}
	}
	if d != nil && d.Status.ReadyReplicas > 0 {
		return v1alpha1.AgentRuntimePhaseRunning
	}
	return v1alpha1.AgentRuntimePhasePending
}

// replicasOf is status.replicas from the Deployment.
func replicasOf(d *appsv1.Deployment) *v1alpha1.AgentRuntimeReplicaStatus {
	if d == nil {
		return nil
	}
	desired := int32(1)
	if d.Spec.Replicas != nil {
		desired = *d.Spec.Replicas
	}
	return &v1alpha1.AgentRuntimeReplicaStatus{Desired: desired, Ready: d.Status.ReadyReplicas, Available: d.Status.AvailableReplicas}
}
