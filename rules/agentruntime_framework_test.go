package rules

import (
	"testing"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func TestAgentRuntimeFrameworkImage(t *testing.T) {
	const builtin = "registry.local/omnia-runtime:builtin"
	flags := map[string]string{"langchain": "registry.local/lc:1", "promptkit": "registry.local/pk:flag"}
	for _, tc := range []struct {
		name      string
		framework *v1alpha1.AgentRuntimeFramework
		flags     map[string]string
		want      string
		wantOK    bool
	}{
		{"unset: built-in promptkit", nil, nil, builtin, true},
		{"framework.image wins over the flag", &v1alpha1.AgentRuntimeFramework{Type: "langchain", Image: "mine:2"}, flags, "mine:2", true},
		{"flag entry for the type", &v1alpha1.AgentRuntimeFramework{Type: "langchain"}, flags, "registry.local/lc:1", true},
		{"flag entry wins over the built-in", nil, flags, "registry.local/pk:flag", true},
		{"custom without image or flag: unavailable, no substitute", &v1alpha1.AgentRuntimeFramework{Type: "custom"}, flags, "", false},
		{"langchain without a flag: unavailable", &v1alpha1.AgentRuntimeFramework{Type: "langchain"}, nil, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := &v1alpha1.AgentRuntime{}
			ar.Spec.Framework = tc.framework
			got, ok := AgentRuntimeFrameworkImage(ar, tc.flags, builtin)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("got (%q, %v), want (%q, %v)", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}
