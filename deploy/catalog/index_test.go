package catalog

import (
	"encoding/json"
	"strings"
	"testing"
)

func ids(es []Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func TestBuildIDsAndGroups(t *testing.T) {
	ix := Build(fixture())
	want := []string{
		"agent:support",
		"promptPack:support-1.0.0",
		"provider:claude", "provider:secret-llm",
		"skillSource:house-skills",
		"tool:billing/get_invoice", "tool:billing/invoice", "tool:billing/refund", "tool:internal/wipe",
	}
	if got := ids(ix.Entries); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("ids = %v, want %v", got, want)
	}
	wipe, _ := ix.Lookup("tool:internal/wipe")
	if !wipe.Hidden || wipe.Group != "toolRegistry:internal" {
		t.Errorf("a hidden registry's tool = %+v, want hidden in group toolRegistry:internal", wipe)
	}
	refund, _ := ix.Lookup("tool:billing/refund")
	if refund.Ready {
		t.Error("a tool whose status is Unknown is not ready")
	}
}

// TestOverview: every kind counted (0 when none, hidden left out), groups
// with count and readiness, the hidden registry's group left out.
func TestOverview(t *testing.T) {
	o := Build(fixture()).Overview()
	want := map[Kind]int{KindTool: 3, KindSkill: 0, KindProvider: 1, KindAgent: 1, KindSkillSource: 1, KindPromptPack: 1,
		KindConnection: 0, KindSandboxClass: 0, KindMemorySchema: 0}
	if len(o.Kinds) != len(want) {
		t.Errorf("kinds = %v, want every one of %v", o.Kinds, want)
	}
	for k, n := range want {
		if got, ok := o.Kinds[k]; !ok || got != n {
			t.Errorf("kinds[%s] = %d (present %v), want %d", k, got, ok, n)
		}
	}
	wantGroups := []GroupSummary{
		{ID: "skillSource:house-skills", Kind: GroupSkillSource, Name: "house-skills", Count: 0, Ready: false},
		{ID: "toolRegistry:billing", Kind: GroupToolRegistry, Name: "billing", Count: 3, Ready: true},
	}
	if len(o.Groups) != len(wantGroups) {
		t.Fatalf("groups = %+v, want %+v", o.Groups, wantGroups)
	}
	for i := range wantGroups {
		if o.Groups[i] != wantGroups[i] {
			t.Errorf("group %d = %+v, want %+v", i, o.Groups[i], wantGroups[i])
		}
	}
	if o.Truncated {
		t.Error("a small workspace is not truncated")
	}
}

// TestBuildBounded: past MaxEntries the index keeps the first by id and
// says it is truncated.
func TestBuildBounded(t *testing.T) {
	ix := Build(manyTools(MaxEntries + 5))
	if len(ix.Entries) != MaxEntries || !ix.Truncated || !ix.Overview().Truncated {
		t.Errorf("entries = %d, truncated %v; want %d, true", len(ix.Entries), ix.Truncated, MaxEntries)
	}
	if ok := Build(manyTools(MaxEntries)); ok.Truncated {
		t.Error("exactly MaxEntries is not truncated")
	}
}

// TestGet: found (hidden too), unknown, malformed, repeated; details never
// carry an endpoint.
func TestGet(t *testing.T) {
	r := Build(fixture()).Get([]string{"tool:billing/invoice", "tool:internal/wipe", "provider:claude", "tool:billing/invoice",
		"provider:nope", "bogus", "tool:billing", "widget:x", "agent:a/b"})
	if got := []string{r.Items[0].ID, r.Items[1].ID, r.Items[2].ID}; len(r.Items) != 3 ||
		strings.Join(got, " ") != "tool:billing/invoice tool:internal/wipe provider:claude" {
		t.Errorf("items = %+v", r.Items)
	}
	wantMissing := map[string]string{
		"provider:nope": ReasonNotFound,
		"bogus":         "malformed id: want <kind>:<name>",
		"tool:billing":  "malformed id: tool ids are tool:<toolRegistry>/<name>",
		"widget:x":      `malformed id: unknown kind "widget"`,
		"agent:a/b":     "malformed id: agent ids are agent:<name>",
	}
	if len(r.Missing) != len(wantMissing) {
		t.Errorf("missing = %+v", r.Missing)
	}
	for _, m := range r.Missing {
		if w, ok := wantMissing[m.ID]; !ok || !strings.HasPrefix(m.Reason, w) {
			t.Errorf("missing %s: %q, want a reason starting %q", m.ID, m.Reason, w)
		}
	}
	data, _ := json.Marshal(r)
	for _, leak := range []string{"api.example.com", "pw@"} {
		if strings.Contains(string(data), leak) {
			t.Errorf("get's answer carries %q: %s", leak, data)
		}
	}
	p := r.Items[2].Detail.(ProviderDetail)
	if p.Pricing == nil || p.Pricing.InputCostPer1K != "0.003" || p.Role != "llm" {
		t.Errorf("provider detail = %+v", p)
	}
}
