package main

import (
	"slices"
	"strings"
	"testing"
)

// TestCheckReferencesUseTheOtherDocuments: offline, a ToolRegistry, a
// PersistentVolumeClaim and an A2A target are facts when their documents
// are given; missing, the reconcile-stage rules report them. A Provider or
// PromptPack manifest carries no status, so readiness is not judged offline.
func TestCheckReferencesUseTheOtherDocuments(t *testing.T) {
	agent := strings.Replace(agentOK, "  facades: [{type: websocket}]\n", `  facades: [{type: websocket}]
  toolRegistryRef: {name: tools}
  a2aClients: [{name: billing, agentRuntimeRef: {name: billing}}]
  runtime:
    volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
    volumeMounts: [{name: data, mountPath: /data}]
`, 1)
	registry := `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: ToolRegistry
metadata: {name: tools, namespace: agents}
spec:
  handlers:
    - name: geo
      type: client
      tool: {name: get_location, description: does get_location, inputSchema: {type: object}}
`
	claim := `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: agents}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`
	billing := `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: AgentRuntime
metadata: {name: billing, namespace: agents}
spec:
  promptPackRef: {name: support}
  providers: [{name: default, providerRef: {name: claude}}]
  facades: [{type: a2a}]
`
	base := []string{agent, providerClaude, secretCreds, packSupport, packSupportConfigMap}
	for _, tc := range []struct {
		name  string
		extra []string
		want  []string
	}{
		{"all given", []string{registry, claim, billing}, nil},
		{"none given", nil, []string{
			"support agentruntime/a2a-client-resolves spec.a2aClients[0].agentRuntimeRef.name",
			"support agentruntime/tool-registry-exists spec.toolRegistryRef.name",
			"support agentruntime/volume-claims-exist spec.runtime.volumes[0].persistentVolumeClaim.claimName",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := writeFile(t, t.TempDir(), "a.yaml", docs(append(slices.Clone(base), tc.extra...)...))
			code, out, errOut := omniactl(t, "", "check", "-f", file, "-o", "json")
			if code != exitOK {
				t.Fatalf("exit %d, want 0 (warnings only); stderr: %s", code, errOut)
			}
			if got := keyed(findingsJSON(t, out)); !slices.Equal(got, tc.want) {
				t.Errorf("findings %v, want %v", got, tc.want)
			}
		})
	}
}
