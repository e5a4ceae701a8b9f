package rules

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// toolRegistryDigestEntry is what the content digest covers of one tool: its
// identity (handler and name), description, schemas and endpoint. Status,
// lastChecked and error are left out, so a probe flipping a tool's health
// does not change the digest.
type toolRegistryDigestEntry struct {
	HandlerName  string          `json:"handlerName"`
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Endpoint     string          `json:"endpoint"`
}

// ToolRegistryContentDigest is status.contentDigest: "sha256:<hex>" over the
// resolved tool set — each tool's handler name, name, description, input and
// output schemas (canonical JSON: object keys sorted, insignificant space
// dropped, numbers kept as written) and endpoint. It does not depend on the
// order of the tools or of a schema's keys, nor on a tool's status,
// lastChecked or error.
func ToolRegistryContentDigest(tools []v1alpha1.ToolRegistryDiscoveredTool) string {
	entries := make([][]byte, 0, len(tools))
	for i := range tools {
		t := &tools[i]
		e := toolRegistryDigestEntry{
			HandlerName:  t.HandlerName,
			Name:         t.Name,
			Description:  t.Description,
			InputSchema:  toolRegistryCanonicalJSON(t.InputSchema),
			OutputSchema: toolRegistryCanonicalJSON(t.OutputSchema),
			Endpoint:     t.Endpoint,
		}
		b, err := json.Marshal(e)
		if err != nil {
			// Unreachable: every field is a string or canonical JSON.
			b = []byte(`"` + t.HandlerName + "/" + t.Name + `"`)
		}
		entries = append(entries, b)
	}
	slices.SortFunc(entries, bytes.Compare)
	h := sha256.New()
	h.Write([]byte{'['})
	for i, e := range entries {
		if i > 0 {
			h.Write([]byte{','})
		}
		h.Write(e)
	}
	h.Write([]byte{']'})
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// toolRegistryCanonicalJSON re-encodes a schema with sorted object keys. An
// absent schema is null; bytes that are not JSON are hashed as a JSON string
// of themselves.
func toolRegistryCanonicalJSON(re *runtime.RawExtension) json.RawMessage {
	if re == nil {
		return json.RawMessage("null")
	}
	raw := re.Raw
	if len(raw) == 0 && re.Object != nil {
		b, err := json.Marshal(re.Object)
		if err != nil {
			return json.RawMessage("null")
		}
		raw = b
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage("null")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		s, _ := json.Marshal(string(raw))
		return s
	}
	out, err := json.Marshal(v) // map keys are sorted
	if err != nil {
		s, _ := json.Marshal(string(raw))
		return s
	}
	return out
}
