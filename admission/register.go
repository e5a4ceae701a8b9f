package admission

import (
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Served maps each validated kind to its webhook path. The
// ValidatingWebhookConfiguration (config/webhook) names the same paths.
var Served = map[string]string{
	"AgentRuntime": "/validate-omnia-altairalabs-ai-v1alpha1-agentruntime",
	"Provider":     "/validate-omnia-altairalabs-ai-v1alpha1-provider",
	"ToolRegistry": "/validate-omnia-altairalabs-ai-v1alpha1-toolregistry",
	"ArenaJob":     "/validate-omnia-altairalabs-ai-v1alpha1-arenajob",
	"ArenaRun":     "/validate-omnia-altairalabs-ai-v1alpha1-arenarun",
	"ArenaProject": "/validate-omnia-altairalabs-ai-v1alpha1-arenaproject",
	"PromptPack":   "/validate-omnia-altairalabs-ai-v1alpha1-promptpack",
	// The rollout analysis template (rules/rolloutanalysis.go).
	"RolloutAnalysis": "/validate-omnia-altairalabs-ai-v1alpha1-rolloutanalysis",
	// The policy kind's own webhook (policy.go): refuses a policy that
	// does not compile.
	PolicyKind: "/validate-omnia-altairalabs-ai-v1alpha1-validationpolicy",
}

// Handlers builds the lookup table from kind to its validating handler.
func Handlers(scheme *runtime.Scheme, cfg *Config) map[string]admission.Handler {
	return map[string]admission.Handler{
		"AgentRuntime":    NewHandler("AgentRuntime", func() *v1alpha1.AgentRuntime { return &v1alpha1.AgentRuntime{} }, scheme, cfg),
		"Provider":        NewHandler("Provider", func() *v1alpha1.Provider { return &v1alpha1.Provider{} }, scheme, cfg),
		"ToolRegistry":    NewHandler("ToolRegistry", func() *v1alpha1.ToolRegistry { return &v1alpha1.ToolRegistry{} }, scheme, cfg),
		"ArenaJob":        NewHandler("ArenaJob", func() *v1alpha1.ArenaJob { return &v1alpha1.ArenaJob{} }, scheme, cfg),
		"ArenaRun":        NewHandler("ArenaRun", func() *v1alpha1.ArenaRun { return &v1alpha1.ArenaRun{} }, scheme, cfg),
		"ArenaProject":    NewHandler("ArenaProject", func() *v1alpha1.ArenaProject { return &v1alpha1.ArenaProject{} }, scheme, cfg),
		"PromptPack":      NewHandler("PromptPack", func() *v1alpha1.PromptPack { return &v1alpha1.PromptPack{} }, scheme, cfg),
		"RolloutAnalysis": NewHandler("RolloutAnalysis", func() *v1alpha1.RolloutAnalysis { return &v1alpha1.RolloutAnalysis{} }, scheme, cfg),
		PolicyKind:        NewPolicyHandler(scheme, cfg),
	}
}

// Register serves every kind's handler on the webhook server.
func Register(server webhook.Server, scheme *runtime.Scheme, cfg *Config) {
	for kind, h := range Handlers(scheme, cfg) {
		server.Register(Served[kind], HTTPHandler(h))
	}
}

// HTTPHandler wraps a handler as controller-runtime's webhook and bounds the
// request body, answering an oversized review with an AdmissionReview error
// instead of reading it.
func HTTPHandler(h admission.Handler) http.Handler {
	return limitBody(&admission.Webhook{Handler: h})
}
