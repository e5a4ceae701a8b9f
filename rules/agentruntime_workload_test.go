package rules

import (
	"testing"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// The exported reserved-key decision the workload builder drops keys by is
// the one the agentruntime/reserved-env-key rule refuses them by.
func TestAgentRuntimeReservedEnvKeyMatchesRule(t *testing.T) {
	for _, name := range []string{
		"OMNIA_PACK_MODE", "OMNIA_PACK_SOURCE_DIR", "OMNIA_PACK_CONFIG_FILE", "OMNIA_PACK_OUT_DIR",
		"OMNIA_SESSION_TAGS", "OMNIA_SESSION_PACK_NAME", "OMNIA_IDLE_TIMEOUT",
		"LOG_LEVEL", "OMNIA_PACK", "omnia_pack_mode", "OMNIA_RUNTIME_STREAM_INACTIVITY_TIMEOUT", "",
	} {
		ar := agentRuntimeBase()
		agentRuntimeRuntimeEnv(name, "x")(ar)
		refused := len(checkAgentRuntimeReservedEnv(Input{Object: ar})) > 0
		if got := AgentRuntimeReservedEnvKey(name); got != refused {
			t.Errorf("%q: AgentRuntimeReservedEnvKey = %v, but the rule refuses it: %v", name, got, refused)
		}
	}
	if !AgentRuntimeReservedEnvKey("OMNIA_PACK_MODE") || AgentRuntimeReservedEnvKey("LOG_LEVEL") {
		t.Error("OMNIA_PACK_MODE must be reserved and LOG_LEVEL not")
	}
}

func TestAgentRuntimePrimaryFacade(t *testing.T) {
	f := func(ts ...v1alpha1.AgentRuntimeFacadeType) []v1alpha1.AgentRuntimeFacade {
		var out []v1alpha1.AgentRuntimeFacade
		for _, t := range ts {
			out = append(out, v1alpha1.AgentRuntimeFacade{Type: t})
		}
		return out
	}
	for _, tc := range []struct {
		facades []v1alpha1.AgentRuntimeFacade
		want    int
	}{
		{f(v1alpha1.AgentRuntimeFacadeTypeA2A, ""), 1}, // unset type is websocket
		{f(v1alpha1.AgentRuntimeFacadeTypeMCP, v1alpha1.AgentRuntimeFacadeTypeREST), 1},
		{f(v1alpha1.AgentRuntimeFacadeTypeA2A), 0},
		{f(v1alpha1.AgentRuntimeFacadeTypeMCP), -1},
	} {
		if got := AgentRuntimePrimaryFacade(tc.facades); got != tc.want {
			t.Errorf("%v: primary = %d, want %d", tc.facades, got, tc.want)
		}
	}
	if got := AgentRuntimeFacadeType(&v1alpha1.AgentRuntimeFacade{}); got != v1alpha1.AgentRuntimeFacadeTypeWebSocket {
		t.Errorf("default facade type = %q", got)
	}
}
