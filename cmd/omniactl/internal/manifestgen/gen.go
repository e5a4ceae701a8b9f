// Package manifestgen writes large multi-document manifests for measuring
// omniactl check: a mix of AgentRuntimes shaped like the spec's complete
// production example (agent mode) and function-mode agents, the Providers
// they reference (some hosted on a platform) and Workspaces. At known indices
// (see Violations) a document breaks exactly one of the six rules that gator
// and the Kyverno CLI can also express, so the offline-check comparison
// (hack/perf/offline) knows which documents every tool must flag without
// asking any tool.
package manifestgen

import (
	"bufio"
	"fmt"
	"io"
)

// The six rules the comparison checks, by catalog ID: four carry their ID in
// the CRD's CEL message or in the Go catalog; the two plain OpenAPI
// constraints take the derived <kind>/schema:<field>:<constraint> ID.
const (
	// RuleReservedEnvKey: an extraEnv list names a reserved OMNIA_* key.
	RuleReservedEnvKey = "agentruntime/reserved-env-key"
	// RuleFunctionNeedsRest: mode function without exactly one rest facade.
	RuleFunctionNeedsRest = "agentruntime/function-needs-rest"
	// RuleFacadeTypeForMode: a websocket (agent-mode) facade in mode function.
	RuleFacadeTypeForMode = "agentruntime/facade-type-for-mode"
	// RulePlatformRequiresAuth: a Provider with spec.platform and no spec.auth.
	RulePlatformRequiresAuth = "provider/platform-requires-auth"
	// RuleSecretRefKeyFormat: a secret reference's key that is not a valid
	// Secret data key (the Workspace redis existingSecret.key pattern).
	RuleSecretRefKeyFormat = "workspace/schema:spec.services[].redis.existingSecret.key:pattern"
	// RuleAsyncMaxWorkers: facades[].async.workers above its maximum of 64.
	RuleAsyncMaxWorkers = "agentruntime/schema:spec.facades[].async.workers:maximum"
)

// Rules lists the six rule IDs in a stable order.
var Rules = []string{
	RuleReservedEnvKey, RuleFunctionNeedsRest, RuleFacadeTypeForMode,
	RulePlatformRequiresAuth, RuleSecretRefKeyFormat, RuleAsyncMaxWorkers,
}

// Where the variants fall. Documents alternate Provider (even index) and
// AgentRuntime (odd index); a few slots of each take another shape. Each
// violation recurs every violationPeriod documents at its own offset, so a
// 500-document file has two of each and a 5,000-document file twenty.
const (
	violationPeriod = 250

	platformProviderEvery  = 10 // i%10 == 4: a Provider hosted on bedrock
	platformProviderOffset = 4
	functionAgentEvery     = 10 // i%10 == 3: a function-mode AgentRuntime
	functionAgentOffset    = 3
	workspaceEvery         = 50 // i%50 == 25: a Workspace instead of an agent
	workspaceOffset        = 25

	reservedEnvOffset      = 1   // agent-mode agent
	functionNoRestOffset   = 53  // function agent (53%10 == 3)
	websocketInFnOffset    = 103 // function agent
	asyncWorkersOffset     = 153 // function agent
	platformNoAuthOffset   = 204 // platform provider (204%10 == 4)
	secretKeyFormatOffset  = 25  // workspace (25%50 == 25)
	namespaces             = 50
	maxAsyncWorkers        = 64
	validAsyncWorkers      = 8
	reservedEnvKey         = "OMNIA_PACK_MODE"
	ordinaryEnvKey         = "LOG_LEVEL"
	validSecretKey         = "url"
	invalidSecretKeyFormat = "redis url" // a space is not a Secret data key character
)

// providerHead is every Provider's identity and type: %[1]d is the
// document's index, %[2]d its namespace's.
const providerHead = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: Provider
metadata:
  name: claude-%[1]d
  namespace: team-%[2]d
  labels:
    app.kubernetes.io/part-of: agents-%[2]d
spec:
  type: claude
`

// provider is shaped like the spec's claude-production example.
const provider = providerHead + `  model: claude-sonnet-4-20250514
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

// platformProvider is Claude hosted on AWS Bedrock; %[3]s is its auth stanza
// (empty in the documents that break provider/platform-requires-auth).
const platformProvider = providerHead + `  model: anthropic.claude-sonnet-4-20250514-v1:0
  platform:
    type: bedrock
    region: us-east-1
%[3]s  capabilities:
    - text
    - streaming
    - tools
`

const platformAuth = `  auth:
    type: workloadIdentity
`

// agentHead is every AgentRuntime's identity: %[1]d is the document's
// index, %[2]d its namespace's.
const agentHead = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: AgentRuntime
metadata:
  name: agent-%[1]d
  namespace: team-%[2]d
  labels:
    app.kubernetes.io/part-of: agents-%[2]d
spec:
`

// agent is shaped like the spec's production-agent example; %[4]s is the
// runtime.extraEnv key (reserved in the documents that break
// agentruntime/reserved-env-key).
const agent = agentHead + `  promptPackRef:
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

// functionAgent is a one-shot function behind a rest facade with async
// invocation; %[4]s is its facades list.
const functionAgent = agentHead + `  mode: function
  promptPackRef:
    name: classify-ticket
    version: "1.0.0"
  providers:
    - name: default
      providerRef:
        name: claude-%[3]d
  inputSchema:
    type: object
    required: [ticket]
    properties:
      ticket:
        type: string
  outputSchema:
    type: object
    required: [category]
    properties:
      category:
        type: string
  facades:
%[4]s  runtime:
    replicas: 2
`

// restFacade is the function's rest facade; %[1]d is async.workers.
const restFacade = `    - type: rest
      port: 8080
      async:
        enabled: true
        workers: %[1]d
`

const mcpFacade = `    - type: mcp
      port: 9998
`

const websocketFacade = `    - type: websocket
      port: 8081
`

// workspace owns its own namespace and keeps its Redis URL in a Secret;
// %[2]s is the Secret's key.
const workspace = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: Workspace
metadata:
  name: workspace-%[1]d
spec:
  namespace:
    name: workspace-%[1]d
    create: true
  services:
    - name: default
      redis:
        existingSecret:
          name: redis-url
          key: %[2]s
`

// Document identifies one generated document and the one rule it breaks.
type Document struct {
	// Index is the document's 0-based position in the file.
	Index int `json:"index"`
	// Kind, Namespace and Name identify it (Namespace is empty for a
	// cluster-scoped Workspace); names are unique across the file.
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// Violation is a document that breaks one of the six Rules.
type Violation struct {
	Document
	Rule string `json:"rule"`
}

// Write writes n documents: Providers and AgentRuntimes alternating, each
// agent referencing the Provider written just before it, in 50 namespaces,
// with Workspaces, platform Providers and function agents in between and
// the Violations at their indices.
func Write(w io.Writer, n int) error {
	bw := bufio.NewWriter(w)
	for i := 0; i < n; i++ {
		if i > 0 {
			if _, err := bw.WriteString("---\n"); err != nil {
				return err
			}
		}
		if _, err := bw.WriteString(document(i)); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// document renders document i.
func document(i int) string {
	ns := (i / 2) % namespaces
	switch shapeOf(i) {
	case shapeProvider:
		return fmt.Sprintf(provider, i, ns)
	case shapePlatformProvider:
		auth := platformAuth
		if i%violationPeriod == platformNoAuthOffset {
			auth = ""
		}
		return fmt.Sprintf(platformProvider, i, ns, auth)
	case shapeWorkspace:
		key := validSecretKey
		if i%violationPeriod == secretKeyFormatOffset {
			key = fmt.Sprintf("%q", invalidSecretKeyFormat)
		}
		return fmt.Sprintf(workspace, i, key)
	case shapeFunctionAgent:
		facades := fmt.Sprintf(restFacade, validAsyncWorkers)
		switch i % violationPeriod {
		case functionNoRestOffset:
			facades = mcpFacade
		case websocketInFnOffset:
			facades += websocketFacade
		case asyncWorkersOffset:
			facades = fmt.Sprintf(restFacade, maxAsyncWorkers+1)
		}
		return fmt.Sprintf(functionAgent, i, ns, i-1, facades)
	default:
		env := ordinaryEnvKey
		if i%violationPeriod == reservedEnvOffset {
			env = reservedEnvKey
		}
		return fmt.Sprintf(agent, i, ns, i-1, env)
	}
}

type shape int

const (
	shapeProvider shape = iota
	shapePlatformProvider
	shapeAgent
	shapeFunctionAgent
	shapeWorkspace
)

func shapeOf(i int) shape {
	switch {
	case i%2 == 0 && i%platformProviderEvery == platformProviderOffset:
		return shapePlatformProvider
	case i%2 == 0:
		return shapeProvider
	case i%workspaceEvery == workspaceOffset:
		return shapeWorkspace
	case i%functionAgentEvery == functionAgentOffset:
		return shapeFunctionAgent
	}
	return shapeAgent
}

// Describe identifies document i of a generated file.
func Describe(i int) Document {
	ns := fmt.Sprintf("team-%d", (i/2)%namespaces)
	switch shapeOf(i) {
	case shapeProvider, shapePlatformProvider:
		return Document{Index: i, Kind: "Provider", Namespace: ns, Name: fmt.Sprintf("claude-%d", i)}
	case shapeWorkspace:
		return Document{Index: i, Kind: "Workspace", Name: fmt.Sprintf("workspace-%d", i)}
	}
	return Document{Index: i, Kind: "AgentRuntime", Namespace: ns, Name: fmt.Sprintf("agent-%d", i)}
}

// Namespaces lists the namespaces the first n documents live in (the
// namespaced ones), which must exist before they can be created.
func Namespaces(n int) []string {
	count := min(namespaces, (n+1)/2)
	out := make([]string, 0, count)
	for ns := 0; ns < count; ns++ {
		out = append(out, fmt.Sprintf("team-%d", ns))
	}
	return out
}

// Violations lists, in file order, the documents among the first n that
// break one of the six Rules, and which: the generator's own account, not any
// tool's answer.
func Violations(n int) []Violation {
	var out []Violation
	for i := 0; i < n; i++ {
		if rule := violationOf(i); rule != "" {
			out = append(out, Violation{Document: Describe(i), Rule: rule})
		}
	}
	return out
}

func violationOf(i int) string {
	off := i % violationPeriod
	switch shapeOf(i) {
	case shapeAgent:
		if off == reservedEnvOffset {
			return RuleReservedEnvKey
		}
	case shapeFunctionAgent:
		switch off {
		case functionNoRestOffset:
			return RuleFunctionNeedsRest
		case websocketInFnOffset:
			return RuleFacadeTypeForMode
		case asyncWorkersOffset:
			return RuleAsyncMaxWorkers
		}
	case shapePlatformProvider:
		if off == platformNoAuthOffset {
			return RulePlatformRequiresAuth
		}
	case shapeWorkspace:
		if off == secretKeyFormatOffset {
			return RuleSecretRefKeyFormat
		}
	}
	return ""
}
