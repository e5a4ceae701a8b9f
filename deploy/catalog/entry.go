package catalog

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Entry is one thing an agent can discover. The compact fields are what
// search returns (its description cut to DescriptionLimit); Detail is what
// get adds.
type Entry struct {
	ID          string
	Kind        Kind
	Name        string
	Group       string
	Description string
	Ready       bool
	// Hidden: the object (or, for a tool or skill, its group's object)
	// carries omnia.altairalabs.ai/hidden: "true". A hidden entry is left
	// out of overview and search and still answered by get.
	Hidden bool
	Detail any

	// The lower-cased name and the words of name and description, made
	// once by Build so a search does not split every entry again.
	lowerName            string
	nameWords, descWords []string
}

// Group is a tool registry or skill source an agent can narrow a search by.
type Group struct {
	ID     string
	Kind   GroupKind
	Name   string
	Ready  bool
	Hidden bool
	// Count is the group's entries (set by Build).
	Count int
}

// HiddenLabel marks an object left out of every list (agentruntime.md §
// Hidden resources).
const HiddenLabel = "omnia.altairalabs.ai/hidden"

func hidden(o metav1.Object) bool { return o.GetLabels()[HiddenLabel] == "true" }

// ready is the object's Ready condition when it has one, else whether its
// phase is one of the ready phases: Ready=True is every kind's own verdict,
// the phase a fallback for an object whose controller writes only a phase.
func ready(conds []metav1.Condition, phase string, readyPhases ...string) bool {
	if c := meta.FindStatusCondition(conds, "Ready"); c != nil {
		return c.Status == metav1.ConditionTrue
	}
	for _, p := range readyPhases {
		if phase == p {
			return true
		}
	}
	return false
}

// Details: get's full detail per kind. Only fields that describe what the
// object offers are copied — never a credential reference, header, base URL,
// endpoint or Secret.

// ToolDetail is a tool's detail.
type ToolDetail struct {
	Registry     string          `json:"registry"`
	Handler      string          `json:"handler"`
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Status is Available, Unavailable or Unknown (the registry's status).
	Status string `json:"status"`
	// Error says why the tool is not Available.
	Error string `json:"error,omitempty"`
}

// SkillDetail is a skill's detail: {source, name, description,
// allowedTools, relPath}, never the SKILL.md text.
type SkillDetail struct {
	Source       string   `json:"source"`
	Name         string   `json:"name"`
	Description  string   `json:"description,omitempty"`
	AllowedTools []string `json:"allowedTools,omitempty"`
	RelPath      string   `json:"relPath,omitempty"`
}

// ProviderDetail is a provider's detail.
type ProviderDetail struct {
	Type         string                    `json:"type"`
	Role         string                    `json:"role"`
	Model        string                    `json:"model,omitempty"`
	Capabilities []string                  `json:"capabilities,omitempty"`
	Pricing      *v1alpha1.ProviderPricing `json:"pricing,omitempty"`
	Phase        string                    `json:"phase,omitempty"`
}

// AgentDetail is an agent's detail: its facades and, with an a2a facade,
// its A2A card and where it is served.
type AgentDetail struct {
	Mode         string                             `json:"mode,omitempty"`
	Phase        string                             `json:"phase,omitempty"`
	Facades      []string                           `json:"facades,omitempty"`
	AgentCard    *v1alpha1.AgentRuntimeA2AAgentCard `json:"agentCard,omitempty"`
	AgentCardURL string                             `json:"agentCardURL,omitempty"`
}

// SkillSourceDetail is a skill source's detail.
type SkillSourceDetail struct {
	Type string `json:"type"`
	// Skills is how many skills the catalog holds for the source.
	Skills int `json:"skills"`
}

// PromptPackDetail is a prompt pack's detail.
type PromptPackDetail struct {
	PackName string                     `json:"packName"`
	Version  string                     `json:"version,omitempty"`
	Phase    string                     `json:"phase,omitempty"`
	Skills   []v1alpha1.PromptPackSkill `json:"skills,omitempty"`
}
