package workload

import (
	"encoding/json"
)

// EnvPlatformTools is the runtime variable holding the rendered platform
// tools, a JSON array of PlatformTool; absent when there are none.
const EnvPlatformTools = "OMNIA_PLATFORM_TOOLS"

// PlatformTool is one rendered platform tool: an HTTP GET whose arguments
// are sent as query parameters (every argument a string or a number), with
// a delegation token whose audience is DelegationAudience.
type PlatformTool struct {
	Name               string          `json:"name"`
	Description        string          `json:"description"`
	InputSchema        json.RawMessage `json:"inputSchema"`
	Handler            string          `json:"handler"`
	Method             string          `json:"method"`
	URL                string          `json:"url"`
	DelegationAudience string          `json:"delegationAudience"`
}

// platformToolsEnv sets OMNIA_PLATFORM_TOOLS when there are tools.
func platformToolsEnv(e envSet, r *Resolved) {
	if len(r.PlatformTools) == 0 {
		return
	}
	if data, err := json.Marshal(r.PlatformTools); err == nil { // plain strings and valid JSON always marshal
		e.lit(EnvPlatformTools, string(data))
	}
}
