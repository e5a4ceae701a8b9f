// Package manifestgen writes large multi-document manifests for measuring
// omniactl check: a mix of AgentRuntimes shaped like the spec's complete
// production example and the Providers they reference.
package manifestgen

import (
	"bufio"
	"fmt"
	"io"
)

// provider is shaped like the spec's claude-production example.
const provider = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: Provider
metadata:
  name: claude-%[1]d
  namespace: team-%[2]d
  labels:
    app.kubernetes.io/part-of: agents-%[2]d
spec:
  type: claude
  model: claude-sonnet-4-20250514
  credential:
    secretRef:
      name: anthropic-credentials
  capabilities:
    - text
    - streaming
    - vision
    - tools
    - json
  defaults:
    temperature: "0.7"
    maxTokens: 4096
    contextWindow: 200000
    truncationStrategy: sliding
  pricing:
    inputCostPer1K: "0.003"
    outputCostPer1K: "0.015"
`

// agent is shaped like the spec's production-agent example; extraEnv holds
// the reserved key OMNIA_PACK_MODE in every 100th agent, so the file has
// denials to report.
const agent = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: AgentRuntime
metadata:
  name: agent-%[1]d
  namespace: team-%[2]d
  labels:
    app.kubernetes.io/part-of: agents-%[2]d
spec:
  promptPackRef:
    name: customer-service-prompts
    version: "2.1.0"
  providers:
    - name: default
      providerRef:
        name: claude-%[3]d
  toolRegistryRef:
    name: service-tools
  facades:
    - type: websocket
      port: 8080
      handler: runtime
  context:
    type: redis
    ttl: 24h
    storeRef:
      name: redis-credentials
  evals:
    enabled: true
  runtime:
    replicas: 3
    extraEnv:
      - name: %[4]s
        value: "1"
    resources:
      requests:
        cpu: "500m"
        memory: "256Mi"
      limits:
        cpu: "1000m"
        memory: "512Mi"
    autoscaling:
      enabled: true
      type: keda
      minReplicas: 1
      maxReplicas: 20
      keda:
        pollingInterval: 15
        cooldownPeriod: 120
        triggers:
          - type: prometheus
            metadata:
              serverAddress: "http://omnia-prometheus-server.omnia-system.svc.cluster.local/prometheus"
              query: 'sum(omnia_agent_connections_active{agent="agent-%[1]d",namespace="team-%[2]d"}) or vector(0)'
              threshold: "10"
`

// Write writes n documents: Providers and AgentRuntimes alternating, each
// agent referencing the Provider written just before it, in 50 namespaces.
func Write(w io.Writer, n int) error {
	bw := bufio.NewWriter(w)
	for i := 0; i < n; i++ {
		ns := (i / 2) % 50
		if i > 0 {
			if _, err := bw.WriteString("---\n"); err != nil {
				return err
			}
		}
		var err error
		if i%2 == 0 {
			_, err = fmt.Fprintf(bw, provider, i, ns)
		} else {
			env := "LOG_LEVEL"
			if i%200 == 1 {
				env = "OMNIA_PACK_MODE"
			}
			_, err = fmt.Fprintf(bw, agent, i, ns, i-1, env)
		}
		if err != nil {
			return err
		}
	}
	return bw.Flush()
}
