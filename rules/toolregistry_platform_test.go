package rules

import (
	"testing"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// TestToolRegistryPlatformServiceServed: discovery is accepted; arena is
// reported on HandlersValid, naming the handler's field.
func TestToolRegistryPlatformServiceServed(t *testing.T) {
	platform := func(svc v1alpha1.ToolRegistryPlatformService) *v1alpha1.ToolRegistry {
		tr := toolRegistryBase()
		tr.Spec.Handlers = append(tr.Spec.Handlers, v1alpha1.ToolRegistryHandler{Name: "p", Type: v1alpha1.ToolRegistryHandlerTypePlatform,
			Platform: &v1alpha1.ToolRegistryPlatformConfig{Service: svc}})
		return tr
	}
	const id = "toolregistry/platform-service-served"
	cases := map[string]struct {
		tr        *v1alpha1.ToolRegistry
		wantField string
	}{
		"discovery is served": {platform(v1alpha1.ToolRegistryPlatformServiceDiscovery), ""},
		"arena is not":        {platform(v1alpha1.ToolRegistryPlatformServiceArena), "spec.handlers[1].platform.service"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var got []Finding
			for _, f := range Default.Evaluate("ToolRegistry", Input{Object: c.tr}, Options{}) {
				if f.RuleID == id {
					got = append(got, f)
				}
			}
			if c.wantField == "" {
				if len(got) != 0 {
					t.Errorf("findings = %+v, want none", got)
				}
				return
			}
			if len(got) != 1 || got[0].Field != c.wantField || got[0].Condition != "HandlersValid" || got[0].Reason != "ValidationFailed" ||
				got[0].Severity != SeverityWarn {
				t.Errorf("findings = %+v, want one on %s (HandlersValid, ValidationFailed, warn)", got, c.wantField)
			}
		})
	}
}
