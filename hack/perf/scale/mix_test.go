package main

import (
	"fmt"
	"testing"

	"github.com/altairalabs/omnia/hack/perf/clusterbench"
)

func TestPlanMixAndLayout(t *testing.T) {
	p := NewPlan(1000)
	want := map[Kind]int{KindProvider: 400, KindToolRegistry: 300, KindAgentRuntime: 200, KindArenaJob: 100}
	for k, n := range want {
		if p.Count[k] != n {
			t.Errorf("%s: %d, want %d", k, p.Count[k], n)
		}
	}
	if len(p.Items) != 1000 || len(p.Namespaces) != 10 {
		t.Fatalf("%d items in %d namespaces, want 1000 in 10", len(p.Items), len(p.Namespaces))
	}
	names := map[string]bool{}
	perNamespace := map[string]int{}
	for _, it := range p.Items {
		key := it.Namespace + "/" + it.Name
		if names[key] {
			t.Fatalf("%s planned twice", key)
		}
		names[key] = true
		perNamespace[it.Namespace]++
	}
	for ns, n := range perNamespace {
		if n != objectsPerNamespace {
			t.Errorf("namespace %s holds %d objects, want %d", ns, n, objectsPerNamespace)
		}
	}
	if got := probing(p); got != 30 {
		t.Errorf("%d probing ToolRegistries, want one in %d of 300", got, probeEvery)
	}
}

// An agent's Provider is planned, in the agent's namespace, as a Provider.
func TestPlanAgentsUsePlannedProviders(t *testing.T) {
	for _, n := range []int{8, 10, 95, 1000} {
		p := NewPlan(n)
		kinds := map[string]Kind{}
		for _, it := range p.Items {
			kinds[it.Namespace+"/"+it.Name] = it.Kind
		}
		for _, it := range p.Items {
			if it.Kind != KindAgentRuntime {
				continue
			}
			if k := kinds[it.Namespace+"/"+it.Provider]; k != KindProvider {
				t.Errorf("n=%d: agent %s/%s uses %q, which is a %q, not a planned Provider", n, it.Namespace, it.Name, it.Provider, k)
			}
			if it.Pack == "" {
				t.Errorf("n=%d: agent %s has no pack", n, it.Name)
			}
		}
	}
}

func TestPlanSmallSizes(t *testing.T) {
	p := NewPlan(7)
	if p.Count[KindProvider] != 4 || p.Count[KindToolRegistry] != 3 || p.Count[KindAgentRuntime] != 0 {
		t.Errorf("7 objects: %v", p.Count)
	}
	if len(p.Namespaces) != 1 {
		t.Errorf("namespaces %v", p.Namespaces)
	}
}

// Every planned object is a valid object of its kind: the objects the
// harness creates pass the API server's schema (checked here as far as
// the Go types carry it: names set, the kinds' required references).
func TestObjectsOfEachKind(t *testing.T) {
	v := vendors{providerURL: "http://127.0.0.1:1", toolEndpoint: "http://127.0.0.1:1/lookup"}
	p := NewPlan(10)
	counts := map[string]int{}
	for _, it := range p.Items {
		objs := objectsOf(it, v)
		if len(objs) == 0 {
			t.Fatalf("%s %s: no objects", it.Kind, it.Name)
		}
		for _, o := range objs {
			if o.GetNamespace() != it.Namespace || o.GetName() == "" {
				t.Errorf("%T %s/%s outside its item's namespace %s", o, o.GetNamespace(), o.GetName(), it.Namespace)
			}
			counts[typeName(o)]++
		}
	}
	want := map[string]int{"*v1alpha1.Provider": 4, "*v1alpha1.ToolRegistry": 3, "*v1alpha1.AgentRuntime": 2,
		"*v1alpha1.PromptPack": 2, "*v1.ConfigMap": 2, "*v1alpha1.ArenaJob": 1}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%s: %d, want %d (all: %v)", k, counts[k], n, counts)
		}
	}
	// The agent's pack comes before the agent (GitOps order).
	for _, it := range p.Items {
		if it.Kind == KindAgentRuntime {
			objs := objectsOf(it, v)
			if typeName(objs[len(objs)-1]) != "*v1alpha1.AgentRuntime" {
				t.Errorf("agent %s is not created last", it.Name)
			}
		}
	}
	on := toolRegistrySpec(true, v.toolEndpoint)
	off := toolRegistrySpec(false, v.toolEndpoint)
	if on.Probe == nil || on.Probe.Enabled == nil || !*on.Probe.Enabled || off.Probe != nil {
		t.Errorf("probe: %+v / %+v", on.Probe, off.Probe)
	}
	if off.Handlers[0].HTTPConfig.Endpoint != v.toolEndpoint {
		t.Errorf("endpoint %q", off.Handlers[0].HTTPConfig.Endpoint)
	}
	if clusterbench.ProviderSpec(v.providerURL).BaseURL != v.providerURL {
		t.Error("the Provider does not point at the local vendor")
	}
}

func typeName(o any) string { return fmt.Sprintf("%T", o) }
