package main

import (
	"context"
	"sync"

	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/hack/perf/clusterbench"
)

// phaseTracker follows every AgentRuntime's status.phase through one watch
// (an informer), so the benchmark's own observation costs the API server
// one encoded event per status change. Listing the 1,000 agents every
// quarter second, as it first did, was about an eighth of the API server's
// CPU during the ramp: the harness was loading what it measured.
type phaseTracker struct {
	mu      sync.Mutex
	phases  map[string]v1alpha1.AgentRuntimePhase
	changed chan struct{}
}

// trackPhases starts the informer and returns once it has synced.
func trackPhases(ctx context.Context, cfg *rest.Config) (*phaseTracker, error) {
	t := &phaseTracker{phases: map[string]v1alpha1.AgentRuntimePhase{}, changed: make(chan struct{}, 1)}
	set := func(obj any) {
		if ar, ok := obj.(*v1alpha1.AgentRuntime); ok {
			t.mu.Lock()
			t.phases[ar.Namespace+"/"+ar.Name] = ar.Status.Phase
			t.mu.Unlock()
			select {
			case t.changed <- struct{}{}:
			default:
			}
		}
	}
	if err := clusterbench.Watch(ctx, cfg, toolscache.ResourceEventHandlerFuncs{
		AddFunc:    set,
		UpdateFunc: func(_, cur any) { set(cur) },
		DeleteFunc: func(obj any) {
			if ar, ok := obj.(*v1alpha1.AgentRuntime); ok {
				t.mu.Lock()
				delete(t.phases, ar.Namespace+"/"+ar.Name)
				t.mu.Unlock()
			}
		},
	}, &v1alpha1.AgentRuntime{}); err != nil {
		return nil, err
	}
	return t, nil
}

// counts returns how many agents are in each phase ("" before the first
// status).
func (t *phaseTracker) counts() map[v1alpha1.AgentRuntimePhase]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[v1alpha1.AgentRuntimePhase]int{}
	for _, p := range t.phases {
		out[p]++
	}
	return out
}
