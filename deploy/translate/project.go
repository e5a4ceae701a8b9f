package translate

import (
	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/intent"
)

// The labels every object of a dev project intent carries
// (deploy-intent.md § Deploying a project to a dev agent). The server sets
// them; an intent's own labels never override them.
const (
	DevLabel          = "omnia.altairalabs.ai/dev"
	HiddenLabel       = "omnia.altairalabs.ai/hidden"
	ArenaProjectLabel = "omnia.altairalabs.ai/arena-project"
	ArenaUserLabel    = "omnia.altairalabs.ai/arena-user"
)

// KindPromptPackSource is the result kind of a project intent's source.
const KindPromptPackSource = "PromptPackSource"

// ProjectObjects is what one pack.project intent materializes, in the
// spec's order: the AgentRuntime, the PromptPackSource, then the
// ToolRegistry, the credential Secret and the ToolPolicy (Tools; its
// ConfigMap, PromptPack and Agents are not used). There is no ConfigMap
// and no PromptPack: the source materializes the live pack.
type ProjectObjects struct {
	// Name is the derived dev-<id>-<user> name of the agent, the pack and
	// the source.
	Name      string
	ProjectID string
	User      string
	// Labels are the four dev labels.
	Labels map[string]string
	Agent  Agent
	Source *v1alpha1.PromptPackSource
	// Tools holds ToolRegistry(+Name, Err), Secret and ToolPolicy, named
	// after Name as for a published pack (<name>-tools, ...), each carrying
	// the four labels over the intent's.
	Tools *Objects
}

// DevLabels are the four labels of a project's dev objects.
func DevLabels(projectID, user string) map[string]string {
	return map[string]string{
		DevLabel:          "true",
		HiddenLabel:       "true",
		ArenaProjectLabel: projectID,
		ArenaUserLabel:    user,
	}
}

// TranslateProject builds the objects of a pack.project intent in
// namespace for the user pseudonym user, every name the derived one
// (intent.DevName of the project id and user; the intent's pack.name and
// agents[0].name, validated equal or empty, are not read). The intent is
// one whose project rules passed (exactly one agent, no version).
func TranslateProject(in *intent.DeployIntent, namespace, user string) *ProjectObjects {
	id := in.Pack.Project.ID
	name := intent.DevName(id, user)
	dev := DevLabels(id, user)

	norm := *in
	norm.Pack.Name = name
	norm.Pack.Version = ""
	norm.Labels = labels(in.Labels, dev)
	norm.Agents = append([]intent.Agent(nil), in.Agents...)
	for i := range norm.Agents {
		norm.Agents[i].Name = name
		norm.Agents[i].Create = nil
	}
	tr := Translate(&norm, namespace)

	out := &ProjectObjects{
		Name: name, ProjectID: id, User: user, Labels: dev,
		Source: &v1alpha1.PromptPackSource{
			TypeMeta:   typeMeta(KindPromptPackSource),
			ObjectMeta: meta(name, namespace, labels(in.Labels, dev)),
			Spec: v1alpha1.PromptPackSourceSpec{
				Type:     v1alpha1.PromptPackSourceTypeProject,
				Project:  v1alpha1.PromptPackSourceProject{ID: id, User: user},
				PackName: name,
			},
		},
		Tools: &Objects{
			ToolRegistry:     tr.ToolRegistry,
			ToolRegistryName: tr.ToolRegistryName,
			ToolRegistryErr:  tr.ToolRegistryErr,
			Secret:           tr.Secret,
			ToolPolicy:       tr.ToolPolicy,
		},
	}
	if len(tr.Agents) > 0 {
		out.Agent = tr.Agents[0]
		if d := out.Agent.Desired; d != nil && d.Spec.PromptPackRef != nil {
			d.Spec.PromptPackRef.Version = ""
		}
	}
	return out
}
