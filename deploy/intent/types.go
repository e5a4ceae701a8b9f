// Package intent holds the deploy-intent API's wire types, exactly as
// deploy-intent-fields.md lists them (JSON names, optional marks), and
// nothing else: decoding, validation, translation and the HTTP server are
// in their own files and packages. api/openapi/openapi.yaml is the schema
// of record for the same types; a test fails when the two disagree.
//
// Optional scalars are pointers where "unset" differs from the zero value
// (create, preserveUnset, replicas, managementPlane, dataPlane, enabled…),
// so a merge can tell "the intent says false" from "the intent is silent".
package intent

import "encoding/json"

// APIVersion is the only deploy-intent version this operator serves
// (deploy-intent.md § Version negotiation).
const APIVersion = "deploy.omnia.altairalabs.ai/v1"

// SupportedVersions is the deploy profile's supportedDeployIntentVersions.
var SupportedVersions = []string{APIVersion}

// DeployIntent is the body of POST /api/v1/workspaces/{workspace}/deployments.
type DeployIntent struct {
	APIVersion  string            `json:"apiVersion"`
	Pack        Pack              `json:"pack"`
	Tools       *Tools            `json:"tools,omitempty"`
	Policy      *Policy           `json:"policy,omitempty"`
	Credentials *Credentials      `json:"credentials,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Agents      []Agent           `json:"agents"`
}

// Pack is the prompt pack: published content, or an Arena project.
type Pack struct {
	// Name is the PromptPack name (derived for pack.project).
	Name string `json:"name,omitempty"`
	// Version is "1.2.3" or "v1.2.3"; the leading v is stripped.
	Version string `json:"version,omitempty"`
	// Content is the raw pack.json, opaque bytes.
	Content string `json:"content,omitempty"`
	// Project excludes content, version, skills and skillsConfig.
	Project      *Project      `json:"project,omitempty"`
	Skills       []Skill       `json:"skills,omitempty"`
	SkillsConfig *SkillsConfig `json:"skillsConfig,omitempty"`
}

// Project names an Arena project deployed to one hidden dev agent.
type Project struct {
	ID string `json:"id"`
}

// Skill is one skill source the pack uses.
type Skill struct {
	Source  string   `json:"source"`
	Include []string `json:"include,omitempty"`
	MountAs string   `json:"mountAs,omitempty"`
}

// SkillsConfig bounds the pack's active skills.
type SkillsConfig struct {
	MaxActive *int32 `json:"maxActive,omitempty"`
	Selector  string `json:"selector,omitempty"`
}

// Tools is exactly one of ref (an existing ToolRegistry) or handlers (a
// registry to create).
type Tools struct {
	Ref      string    `json:"ref,omitempty"`
	Handlers []Handler `json:"handlers,omitempty"`
}

// Handler is one ToolRegistry handler. The config blocks are free-form JSON
// copied onto the ToolRegistry handler's fields.
type Handler struct {
	Name          string          `json:"name"`
	Type          string          `json:"type"`
	Tool          json.RawMessage `json:"tool,omitempty"`
	HTTPConfig    json.RawMessage `json:"httpConfig,omitempty"`
	OpenAPIConfig json.RawMessage `json:"openAPIConfig,omitempty"`
	GRPCConfig    json.RawMessage `json:"grpcConfig,omitempty"`
	MCPConfig     json.RawMessage `json:"mcpConfig,omitempty"`
	ClientConfig  json.RawMessage `json:"clientConfig,omitempty"`
	Auth          json.RawMessage `json:"auth,omitempty"`
	Timeout       string          `json:"timeout,omitempty"`
}

// Handler types (deploy-intent-fields.md).
const (
	HandlerHTTP    = "http"
	HandlerOpenAPI = "openapi"
	HandlerGRPC    = "grpc"
	HandlerMCP     = "mcp"
	HandlerClient  = "client"
)

// Policy is the intent's ToolPolicy (enterprise only).
type Policy struct {
	ToolBlocklist []string `json:"toolBlocklist"`
}

// Credentials are tool credential values, written to <pack>-tools-credentials.
// Keys match [-._a-zA-Z0-9]+ and are kept verbatim.
type Credentials struct {
	Data map[string]string `json:"data"`
}

// Agent is one AgentRuntime of the intent.
type Agent struct {
	Name          string          `json:"name,omitempty"`
	PromptName    string          `json:"promptName,omitempty"`
	Create        *bool           `json:"create,omitempty"`
	PreserveUnset *bool           `json:"preserveUnset,omitempty"`
	IdleTimeout   string          `json:"idleTimeout,omitempty"`
	Providers     []AgentProvider `json:"providers"`
	Runtime       *Runtime        `json:"runtime,omitempty"`
	Facades       []Facade        `json:"facades,omitempty"`
	UseTools      *bool           `json:"useTools,omitempty"`
	ExternalAuth  *ExternalAuth   `json:"externalAuth,omitempty"`
	Memory        *Memory         `json:"memory,omitempty"`
	Evals         *Evals          `json:"evals,omitempty"`
	Rollout       *Rollout        `json:"rollout,omitempty"`
}

// AgentProvider binds a Provider to the agent by role (default llm).
type AgentProvider struct {
	Name string `json:"name"`
	Ref  string `json:"ref"`
	Role string `json:"role,omitempty"`
}

// Runtime is the agent's replicas and resources.
type Runtime struct {
	Replicas *int32 `json:"replicas,omitempty"`
	CPU      string `json:"cpu,omitempty"`
	Memory   string `json:"memory,omitempty"`
}

// Facade is one facade; empty facades mean one websocket facade, and the
// handler is always "runtime".
type Facade struct {
	Type            string `json:"type"`
	ManagementPlane *bool  `json:"managementPlane,omitempty"`
	DataPlane       *bool  `json:"dataPlane,omitempty"`
}

// ExternalAuth is the agent's external authentication.
type ExternalAuth struct {
	ClientKeys *ClientKeys `json:"clientKeys,omitempty"`
	OIDC       *OIDC       `json:"oidc,omitempty"`
	EdgeTrust  *EdgeTrust  `json:"edgeTrust,omitempty"`
}

// ClientKeys is externalAuth.clientKeys.
type ClientKeys struct {
	DefaultRole        string `json:"defaultRole,omitempty"`
	TrustEndUserHeader *bool  `json:"trustEndUserHeader,omitempty"`
}

// OIDC is externalAuth.oidc.
type OIDC struct {
	Issuer       string        `json:"issuer"`
	Audience     string        `json:"audience"`
	ClaimMapping *ClaimMapping `json:"claimMapping,omitempty"`
}

// ClaimMapping maps token claims.
type ClaimMapping struct {
	Subject string `json:"subject,omitempty"`
	EndUser string `json:"endUser,omitempty"`
}

// EdgeTrust is externalAuth.edgeTrust.
type EdgeTrust struct {
	HeaderMapping     *HeaderMapping    `json:"headerMapping,omitempty"`
	ClaimsFromHeaders map[string]string `json:"claimsFromHeaders,omitempty"`
}

// HeaderMapping maps edge headers.
type HeaderMapping struct {
	Subject string `json:"subject,omitempty"`
	EndUser string `json:"endUser,omitempty"`
	Email   string `json:"email,omitempty"`
}

// Memory is the agent's memory.
type Memory struct {
	Enabled   *bool            `json:"enabled,omitempty"`
	Retrieval *MemoryRetrieval `json:"retrieval,omitempty"`
	Tools     *MemoryTools     `json:"tools,omitempty"`
}

// MemoryRetrieval is memory.retrieval; strategy is keyword, semantic or
// composite.
type MemoryRetrieval struct {
	Enabled  *bool  `json:"enabled,omitempty"`
	Strategy string `json:"strategy,omitempty"`
	Limit    *int32 `json:"limit,omitempty"`
	DenyCEL  string `json:"denyCEL,omitempty"`
}

// MemoryTools is memory.tools.
type MemoryTools struct {
	Enabled *bool `json:"enabled,omitempty"`
}

// Evals is the agent's evals.
type Evals struct {
	Enabled      *bool    `json:"enabled,omitempty"`
	InlineGroups []string `json:"inlineGroups,omitempty"`
	WorkerGroups []string `json:"workerGroups,omitempty"`
}

// Rollout is the agent's rollout.
type Rollout struct {
	Trigger *RolloutTrigger `json:"trigger,omitempty"`
	Steps   []RolloutStep   `json:"steps,omitempty"`
}

// RolloutTrigger is rollout.trigger; promptPackChannel is stable or
// prerelease.
type RolloutTrigger struct {
	PromptPackChannel string `json:"promptPackChannel"`
}

// RolloutStep is one rollout step.
type RolloutStep struct {
	SetWeight     *int32 `json:"setWeight,omitempty"`
	PauseDuration string `json:"pauseDuration,omitempty"`
}

// DeployResult is the body of 200, 207, 409 and 503.
type DeployResult struct {
	Succeeded bool             `json:"succeeded"`
	Results   []ResourceResult `json:"results"`
}

// ResourceResult is one object's outcome. URL is never set by the operator.
type ResourceResult struct {
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Action Action `json:"action"`
	Error  string `json:"error,omitempty"`
	URL    string `json:"url,omitempty"`
}

// Action is what the deploy did to one object.
type Action string

// The actions of deploy-intent.md § Reading the response.
const (
	ActionCreated   Action = "created"
	ActionUpdated   Action = "updated"
	ActionUnchanged Action = "unchanged"
	ActionFailed    Action = "failed"
)

// DeployProfile is the body of GET /api/v1/workspaces/{workspace}/deploy-profile.
// It never contains a secret.
type DeployProfile struct {
	APIEndpoint                   string            `json:"api_endpoint"`
	Workspace                     string            `json:"workspace"`
	Providers                     []ProfileProvider `json:"providers"`
	Skills                        []ProfileSkill    `json:"skills"`
	SupportedDeployIntentVersions []string          `json:"supportedDeployIntentVersions"`
}

// ProfileProvider is one of the workspace's Providers.
type ProfileProvider struct {
	Name  string `json:"name"`
	Role  string `json:"role"`
	Type  string `json:"type"`
	Model string `json:"model,omitempty"`
}

// ProfileSkill is one of the workspace's SkillSources; type is git, oci or
// configmap.
type ProfileSkill struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// PlanRequest is the body of POST /api/v1/workspaces/{workspace}/deploy/plan.
// DeployConfig wins over ArenaConfig; a JSON null DeployConfig is unset.
type PlanRequest struct {
	ArenaConfig  string          `json:"arenaConfig,omitempty"`
	DeployConfig json.RawMessage `json:"deployConfig,omitempty"`
}

// PlanResponse answers a plan (always 200 once the request parsed).
// Providers, Skills and Diagnostics are never null.
type PlanResponse struct {
	Providers    []PlanProvider   `json:"providers"`
	ToolRegistry PlanToolRegistry `json:"toolRegistry"`
	Skills       []PlanSkill      `json:"skills"`
	Diagnostics  []Diagnostic     `json:"diagnostics"`
}

// PlanProvider is one provider binding, in input order, role defaulted to llm.
type PlanProvider struct {
	Name     string `json:"name"`
	Ref      string `json:"ref"`
	Role     string `json:"role"`
	Resolved bool   `json:"resolved"`
}

// PlanToolRegistry is the kit's tool registry binding; mode is none, bind
// or create. Name is set only for bind; Tools (verbatim) only for create.
type PlanToolRegistry struct {
	Mode     string            `json:"mode"`
	Name     string            `json:"name,omitempty"`
	Resolved bool              `json:"resolved"`
	Tools    []json.RawMessage `json:"tools,omitempty"`
}

// PlanSkill is one skill binding.
type PlanSkill struct {
	Source   string `json:"source"`
	Resolved bool   `json:"resolved"`
}

// Diagnostic is one plan finding, its path relative to the deploy block.
type Diagnostic struct {
	Code        string `json:"code"`
	Path        string `json:"path"`
	Message     string `json:"message"`
	Remediation string `json:"remediation"`
}

// ErrorResponse is the body of a refusal without per-resource results: 400
// (a DecodeError, with Path; or validation findings), 401, 403, 413 and 429.
// Error is a message for a person; Path and Findings say what to fix.
type ErrorResponse struct {
	Error string `json:"error"`
	// Path is the JSON path of the key a DecodeError names.
	Path string `json:"path,omitempty"`
	// Findings are the deployintent/* rules the intent breaks.
	Findings []ErrorFinding `json:"findings,omitempty"`
}

// ErrorFinding is one validation finding: the catalog rule's ID, the
// intent's field path (agents[0].idleTimeout) and the message.
type ErrorFinding struct {
	RuleID  string `json:"ruleID"`
	Field   string `json:"field"`
	Message string `json:"message"`
}
