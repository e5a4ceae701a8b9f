package catalog

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Objects the tests index: a ready registry "billing" with three tools, a
// hidden registry "internal" with one, two providers (one hidden), an
// agent with an A2A card, a skill source and a prompt pack.
func fixture() Objects {
	readyCond := []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue}}
	tool := func(name, desc string, st v1alpha1.ToolRegistryToolStatus) v1alpha1.ToolRegistryDiscoveredTool {
		return v1alpha1.ToolRegistryDiscoveredTool{Name: name, HandlerName: "h-" + name, Description: desc, Status: st,
			Endpoint: "https://user:pw@api.example.com/x", InputSchema: &runtime.RawExtension{Raw: []byte(`{"type":"object"}`)}}
	}
	hiddenLabel := map[string]string{HiddenLabel: "true"}
	return Objects{
		ToolRegistries: []v1alpha1.ToolRegistry{
			{ObjectMeta: metav1.ObjectMeta{Name: "billing"}, Status: v1alpha1.ToolRegistryStatus{Conditions: readyCond,
				DiscoveredTools: []v1alpha1.ToolRegistryDiscoveredTool{
					tool("get_invoice", "Fetch one invoice by its number", v1alpha1.ToolRegistryToolStatusAvailable),
					tool("invoice", "The invoice tool", v1alpha1.ToolRegistryToolStatusAvailable),
					tool("refund", "Refund an invoice to the customer", v1alpha1.ToolRegistryToolStatusUnknown),
				}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "internal", Labels: hiddenLabel}, Status: v1alpha1.ToolRegistryStatus{
				DiscoveredTools: []v1alpha1.ToolRegistryDiscoveredTool{tool("wipe", "Wipe an invoice", v1alpha1.ToolRegistryToolStatusAvailable)}}},
		},
		SkillSources: []v1alpha1.SkillSource{{ObjectMeta: metav1.ObjectMeta{Name: "house-skills"}, Spec: v1alpha1.SkillSourceSpec{Type: v1alpha1.SkillSourceTypeGit}}},
		Providers: []v1alpha1.Provider{
			{ObjectMeta: metav1.ObjectMeta{Name: "claude"}, Spec: v1alpha1.ProviderSpec{Type: "claude", Model: "sonnet",
				Pricing: &v1alpha1.ProviderPricing{InputCostPer1K: "0.003"}}, Status: v1alpha1.ProviderStatus{Phase: v1alpha1.ProviderPhaseReady}},
			{ObjectMeta: metav1.ObjectMeta{Name: "secret-llm", Labels: hiddenLabel}, Spec: v1alpha1.ProviderSpec{Type: "openai"}},
		},
		Agents: []v1alpha1.AgentRuntime{{ObjectMeta: metav1.ObjectMeta{Name: "support"},
			Spec: v1alpha1.AgentRuntimeSpec{Facades: []v1alpha1.AgentRuntimeFacade{{Type: "a2a",
				A2A: &v1alpha1.AgentRuntimeFacadeA2A{AgentCard: &v1alpha1.AgentRuntimeA2AAgentCard{Name: "Support", Description: "Answers invoice questions"}}}}},
			Status: v1alpha1.AgentRuntimeStatus{Phase: v1alpha1.AgentRuntimePhaseRunning}}},
		PromptPacks: []v1alpha1.PromptPack{{ObjectMeta: metav1.ObjectMeta{Name: "support-1.0.0"},
			Spec: v1alpha1.PromptPackSpec{PackName: "support", Version: "1.0.0"}}},
	}
}

// manyTools is a registry per 100 tools, n tools in all.
func manyTools(n int) Objects {
	var o Objects
	for r := 0; r*100 < n; r++ {
		tr := v1alpha1.ToolRegistry{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("reg-%03d", r)}}
		for i := r * 100; i < min(n, (r+1)*100); i++ {
			tr.Status.DiscoveredTools = append(tr.Status.DiscoveredTools, v1alpha1.ToolRegistryDiscoveredTool{
				Name: fmt.Sprintf("tool_%05d_%s", i, []string{"invoice", "order", "customer", "ticket"}[i%4]), HandlerName: "h",
				Description: fmt.Sprintf("Tool %d works on %s records and their history", i, []string{"billing", "shipping", "crm", "support"}[i%4]),
				Status:      v1alpha1.ToolRegistryToolStatusAvailable})
		}
		o.ToolRegistries = append(o.ToolRegistries, tr)
	}
	return o
}
