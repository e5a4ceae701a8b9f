package translate

import (
	"encoding/json"
	"testing"

	"github.com/altairalabs/omnia/deploy/intent"
)

// TranslateProject: every name is the derived one whatever the intent
// says, the pack ref has no version, and the four labels are the server's
// over the intent's own.
func TestTranslateProject(t *testing.T) {
	in := &intent.DeployIntent{
		APIVersion: intent.APIVersion,
		Pack:       intent.Pack{Name: "ignored", Project: &intent.Project{ID: "my-project"}},
		Labels:     map[string]string{"team": "a", DevLabel: "false", ArenaUserLabel: "mallory"},
		Tools: &intent.Tools{Handlers: []intent.Handler{{Name: "h", Type: "http",
			HTTPConfig: json.RawMessage(`{"endpoint":"https://x.example"}`)}}},
		Credentials: &intent.Credentials{Data: map[string]string{"K": "v"}},
		Policy:      &intent.Policy{ToolBlocklist: []string{"rm"}},
		Agents:      []intent.Agent{{Name: "ignored-too", IdleTimeout: "30m"}},
	}
	got := TranslateProject(in, "ns", "u1")
	name := intent.DevName("my-project", "u1")
	if got.Name != name || got.Agent.Name != name || got.Source.Name != name || got.Source.Spec.PackName != name {
		t.Fatalf("names: %s %s %s %s, want %s", got.Name, got.Agent.Name, got.Source.Name, got.Source.Spec.PackName, name)
	}
	if ref := got.Agent.Desired.Spec.PromptPackRef; ref.Name != name || ref.Version != "" {
		t.Errorf("promptPackRef %+v", ref)
	}
	if got.Tools.ToolRegistryName != name+"-tools" || got.Tools.Secret.Name != name+"-tools-credentials" || got.Tools.ToolPolicy.Name != name+"-tools-policy" {
		t.Errorf("tool names %s %s %s", got.Tools.ToolRegistryName, got.Tools.Secret.Name, got.Tools.ToolPolicy.Name)
	}
	for kind, l := range map[string]map[string]string{
		"agent": got.Agent.Desired.Labels, "source": got.Source.Labels, "registry": got.Tools.ToolRegistry.Labels,
		"secret": got.Tools.Secret.Labels, "policy": got.Tools.ToolPolicy.Labels,
	} {
		if l[DevLabel] != "true" || l[HiddenLabel] != "true" || l[ArenaProjectLabel] != "my-project" || l[ArenaUserLabel] != "u1" || l["team"] != "a" {
			t.Errorf("%s labels %v", kind, l)
		}
	}
	if in.Pack.Name != "ignored" || in.Agents[0].Name != "ignored-too" || in.Labels[DevLabel] != "false" {
		t.Errorf("the intent was modified: %+v", in)
	}
}
