package rules

import (
	"github.com/altairalabs/omnia/api/v1alpha1"
)

// AgentRuntime rules: the CEL rules of the AgentRuntime CRD (documented here,
// enforced by the API server) and the Go checks the schema cannot make. The
// Go checks are split by topic:
//
//   - agentruntime_env.go: reserved OMNIA_* keys and the primary facade's
//     OMNIA_* tuning variables in extraEnv;
//   - agentruntime_refs.go: namespaces of references, spec.a2aClients versus
//     the deprecated facades[].a2a.clients, the custom facade's licence;
//   - agentruntime_durations.go: duration strings and the idle-timeout
//     annotation;
//   - agentruntime_jsonschema.go: function-mode inputSchema/outputSchema;
//   - agentruntime_facts.go: reconcile-stage lookups of Providers and
//     PromptPacks;
//   - agentruntime_quota.go: the Workspace agent quota's decision
//     (AgentRuntimeQuota, a decision function, not a catalog rule).

const kindAgentRuntime = "AgentRuntime"

// agentRuntimeKinds is the Kinds list of every AgentRuntime rule.
var agentRuntimeKinds = []string{kindAgentRuntime}

// agentRuntimeSchemaRules document the CEL rules on the AgentRuntime CRD.
// Kinds, Stage, Severity and Source are filled in at registration.
var agentRuntimeSchemaRules = []Rule{
	{
		ID:   "agentruntime/facade-type-for-mode",
		Doc:  "spec.facades[].type must match spec.mode: agent allows websocket, a2a and custom; function allows rest and mcp.",
		Spec: "agentruntime.md#mode",
	},
	{
		ID:   "agentruntime/function-needs-rest",
		Doc:  "mode function requires exactly one rest facade in spec.facades.",
		Spec: "agentruntime.md#mode",
	},
	{
		ID:   "agentruntime/function-needs-input-schema",
		Doc:  "mode function requires spec.inputSchema.",
		Spec: "agentruntime.md#inputschema",
	},
	{
		ID:   "agentruntime/function-needs-output-schema",
		Doc:  "mode function requires spec.outputSchema.",
		Spec: "agentruntime.md#outputschema",
	},
	{
		ID:   "agentruntime/agent-forbids-input-schema",
		Doc:  "spec.inputSchema is only allowed with mode function.",
		Spec: "agentruntime.md#inputschema",
	},
	{
		ID:   "agentruntime/agent-forbids-output-schema",
		Doc:  "spec.outputSchema is only allowed with mode function.",
		Spec: "agentruntime.md#outputschema",
	},
	{
		ID:   "agentruntime/agent-forbids-output-format",
		Doc:  "spec.outputFormat is only allowed with mode function.",
		Spec: "agentruntime.md#outputformat",
	},
	{
		ID:   "agentruntime/rollout-trigger-needs-pinned-version",
		Doc:  "spec.rollout.trigger requires spec.promptPackRef.version set and spec.promptPackRef.track unset.",
		Spec: "agentruntime.md#rollout",
	},
	{
		ID:   "agentruntime/facade-types-unique",
		Doc:  "spec.facades must not list two entries of the same type.",
		Spec: "agentruntime.md#facades",
	},
	{
		ID:   "agentruntime/custom-facade-alone",
		Doc:  "a custom facade must be the only entry in spec.facades.",
		Spec: "agentruntime.md#facades",
	},
	{
		ID:   "agentruntime/extra-env-primary-only",
		Doc:  "spec.facades[].extraEnv is only allowed on the primary facade (websocket if present, else rest, else a2a; or custom).",
		Spec: "agentruntime.md#facades",
	},
	{
		ID:   "agentruntime/a2a-client-names-unique",
		Doc:  "spec.a2aClients[].name must be unique.",
		Spec: "agentruntime.md#a2aclients",
	},
	{
		ID:   "agentruntime/promptpackref-version-track-exclusive",
		Doc:  "promptPackRef.version and promptPackRef.track are mutually exclusive (spec and rollout.candidate).",
		Spec: "agentruntime.md#promptpackref",
	},
	{
		ID:   "agentruntime/provider-names-unique",
		Doc:  "providers[].name must be unique within spec.providers and rollout.candidate.providerRefs.",
		Spec: "agentruntime.md#providers",
	},
	{
		ID:   "agentruntime/context-redis-needs-store-ref",
		Doc:  "spec.context.type redis requires spec.context.storeRef.",
		Spec: "agentruntime.md#context",
	},
	{
		ID:   "agentruntime/custom-facade-needs-image",
		Doc:  "a facade of type custom requires spec.facades[].image.",
		Spec: "agentruntime.md#facades",
	},
	{
		ID:   "agentruntime/data-plane-needs-management-plane",
		Doc:  "spec.facades[].dataPlane false requires managementPlane not false on the same facade.",
		Spec: "agentruntime.md#facadesdataplane",
	},
	{
		ID:   "agentruntime/rollout-step-exactly-one",
		Doc:  "each spec.rollout.steps[] entry sets exactly one of setWeight, pause and analysis.",
		Spec: "agentruntime.md#rollout",
	},
	{
		ID:   "agentruntime/scale-to-zero-needs-keda-triggers",
		Doc:  "spec.runtime.autoscaling.minReplicas 0 requires spec.runtime.autoscaling.keda.triggers.",
		Spec: "agentruntime.md#runtimeautoscaling",
		// The autoscaling type is also a Workspace service group's
		// default (spec.services[].autoscaling), and carries the rule there.
		Kinds: []string{kindAgentRuntime, "Workspace"},
	},
	{
		ID:   "agentruntime/sandbox-connection-exactly-one",
		Doc:  "each spec.sandbox.connections[] entry sets exactly one of connection and unbind: true.",
		Spec: "agentruntime.md#sandbox",
	},
	{
		ID:   "agentruntime/media-storage-needs-block",
		Doc:  "spec.media.storage.type local, s3, gcs or azure requires the matching block.",
		Spec: "agentruntime.md#mediastorage",
	},
	{
		ID:   "agentruntime/media-s3-bucket-region",
		Doc:  "spec.media.storage.s3 requires bucket and region.",
		Spec: "agentruntime.md#mediastorage",
	},
}

func init() {
	for _, r := range agentRuntimeSchemaRules {
		if r.Kinds == nil {
			r.Kinds = agentRuntimeKinds
		}
		r.Stage = StageAdmission
		r.Severity = SeverityDeny
		r.Source = SourceSchema
		Default.Register(r)
	}
}

// agentRuntimeOf returns the AgentRuntime under evaluation, nil for another kind.
func agentRuntimeOf(obj any) *v1alpha1.AgentRuntime {
	ar, _ := obj.(*v1alpha1.AgentRuntime)
	return ar
}

// agentRuntimeFacadeType is a facade's type with the schema default
// (websocket) applied, so an undefaulted object reads as the stored one.
func agentRuntimeFacadeType(f *v1alpha1.AgentRuntimeFacade) v1alpha1.AgentRuntimeFacadeType {
	if f.Type == "" {
		return v1alpha1.AgentRuntimeFacadeTypeWebSocket
	}
	return f.Type
}

// agentRuntimePrimaryFacade returns the index of the primary facade:
// websocket if present, else rest, else a2a, else a custom facade (which
// must be alone); -1 when there is none (mcp is never primary).
func agentRuntimePrimaryFacade(facades []v1alpha1.AgentRuntimeFacade) int {
	best, bestRank := -1, 0
	for i := range facades {
		rank := 0
		switch agentRuntimeFacadeType(&facades[i]) {
		case v1alpha1.AgentRuntimeFacadeTypeWebSocket:
			rank = 4
		case v1alpha1.AgentRuntimeFacadeTypeREST:
			rank = 3
		case v1alpha1.AgentRuntimeFacadeTypeA2A:
			rank = 2
		case v1alpha1.AgentRuntimeFacadeTypeCustom:
			rank = 1
		}
		if rank > bestRank {
			best, bestRank = i, rank
		}
	}
	return best
}

// agentRuntimeIsFunction reports whether the agent runs in function mode.
func agentRuntimeIsFunction(ar *v1alpha1.AgentRuntime) bool {
	return ar.Spec.Mode == v1alpha1.AgentRuntimeModeFunction
}
