package main

import "fmt"

// The mix of objects: in every block of ten, four Providers, three
// ToolRegistries, two AgentRuntimes and one ArenaJob.
//
// Why this mix: Providers are the most numerous object of a platform (each
// team keeps several models and credentials, and agents share them), and
// the cheapest to reconcile (one status write, an endpoint health check).
// ToolRegistries come next (a registry per tool backend a team exposes).
// AgentRuntimes are the expensive kind: each makes a ServiceAccount, Role,
// RoleBinding, Service and Deployment, whose ReplicaSet and Pod the
// controller-manager, the scheduler and kwok then run; a fifth of the
// objects keeps them the largest share of the work without making the
// benchmark only bench-agents again. ArenaJobs are evaluation runs, the
// rarest: each starts an ArenaRun that pins its project's commit, queues
// its work in Redis and makes a worker Job.
var mixPattern = [10]Kind{
	KindProvider, KindProvider, KindProvider, KindProvider,
	KindToolRegistry, KindToolRegistry, KindToolRegistry,
	KindAgentRuntime, KindAgentRuntime,
	KindArenaJob,
}

// Kind is one of the mixed kinds.
type Kind string

// The mixed kinds, as their API kinds are named.
const (
	KindProvider     Kind = "Provider"
	KindToolRegistry Kind = "ToolRegistry"
	KindAgentRuntime Kind = "AgentRuntime"
	KindArenaJob     Kind = "ArenaJob"
)

// Kinds are the mixed kinds in report order.
var Kinds = []Kind{KindProvider, KindToolRegistry, KindAgentRuntime, KindArenaJob}

// objectsPerNamespace is how many mixed objects share a namespace (a
// team's): ten blocks of the mix.
const objectsPerNamespace = 100

// probeEvery is how often a ToolRegistry probes its tools: one registry in
// probeEvery turns spec.probe on, against the harness's local listener.
const probeEvery = 10

// Item is one mixed object of the plan.
type Item struct {
	Kind      Kind
	Namespace string
	Name      string
	// Provider is an AgentRuntime's Provider: the first of its block, in
	// its namespace.
	Provider string
	// Pack is an AgentRuntime's PromptPack (its own).
	Pack string
	// Probe says a ToolRegistry probes its tool's endpoint.
	Probe bool
}

// Plan is what one size creates.
type Plan struct {
	Items      []Item
	Namespaces []string
	Count      map[Kind]int
}

// NewPlan lays out n mixed objects: item i is of kind mixPattern[i%10], in
// namespace scale-<i/objectsPerNamespace>, named <kind>-<i>.
func NewPlan(n int) Plan {
	p := Plan{Count: map[Kind]int{}}
	for i := 0; i < n; i++ {
		ns := namespaceOf(i)
		if i%objectsPerNamespace == 0 {
			p.Namespaces = append(p.Namespaces, ns)
		}
		k := mixPattern[i%len(mixPattern)]
		it := Item{Kind: k, Namespace: ns, Name: fmt.Sprintf("%s-%d", shortName[k], i)}
		switch k {
		case KindAgentRuntime:
			block := i - i%len(mixPattern)
			it.Provider = fmt.Sprintf("%s-%d", shortName[KindProvider], block)
			it.Pack = fmt.Sprintf("pack-%d", i)
		case KindToolRegistry:
			it.Probe = p.Count[k]%probeEvery == 0
		}
		p.Count[k]++
		p.Items = append(p.Items, it)
	}
	return p
}

// shortName prefixes each kind's object names.
var shortName = map[Kind]string{
	KindProvider: "provider", KindToolRegistry: "tools", KindAgentRuntime: "agent", KindArenaJob: "eval",
}

// namespaceOf is item i's namespace.
func namespaceOf(i int) string { return fmt.Sprintf("scale-%d", i/objectsPerNamespace) }
