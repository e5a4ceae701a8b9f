package main

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/hack/perf/clusterbench"
)

// tracker follows every mixed object's status through watches (one
// informer per kind, and one on ArenaRuns), never by listing: the harness's
// own observation costs the API server one encoded event per status change,
// at 10,000 objects as at 1,000.
type tracker struct {
	mu sync.Mutex
	// converged holds, per kind, whether each object (namespace/name) has
	// converged; ArenaJobs are judged when counted, from jobs and runs.
	converged map[Kind]map[string]bool
	jobs      map[string]*v1alpha1.ArenaJob
	runs      map[string]v1alpha1.ArenaRunPhase
	// changed is signalled (without blocking) on every event.
	changed chan struct{}
	// onRunRunning is called once per run, when it is first seen Running.
	onRunRunning func(namespace, name string)
	dispatched   map[string]bool
}

// startTracker starts the informers and returns once they have synced.
func startTracker(ctx context.Context, cfg *rest.Config, onRunRunning func(namespace, name string)) (*tracker, error) {
	t := &tracker{
		converged:    map[Kind]map[string]bool{},
		jobs:         map[string]*v1alpha1.ArenaJob{},
		runs:         map[string]v1alpha1.ArenaRunPhase{},
		changed:      make(chan struct{}, 1),
		onRunRunning: onRunRunning,
		dispatched:   map[string]bool{},
	}
	for _, k := range Kinds {
		t.converged[k] = map[string]bool{}
	}
	err := clusterbench.Watch(ctx, cfg, toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { t.observe(o, false) },
		UpdateFunc: func(_, o any) { t.observe(o, false) },
		DeleteFunc: func(o any) { t.observe(o, true) },
	}, &v1alpha1.Provider{}, &v1alpha1.ToolRegistry{}, &v1alpha1.AgentRuntime{}, &v1alpha1.ArenaJob{}, &v1alpha1.ArenaRun{})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// observe records one object's latest state.
func (t *tracker) observe(o any, deleted bool) {
	if d, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
		o, deleted = d.Obj, true
	}
	obj, ok := o.(client.Object)
	if !ok {
		return
	}
	key := obj.GetNamespace() + "/" + obj.GetName()
	var runRunning bool
	t.mu.Lock()
	switch v := o.(type) {
	case *v1alpha1.Provider:
		t.set(KindProvider, key, providerConverged(v), deleted)
	case *v1alpha1.ToolRegistry:
		t.set(KindToolRegistry, key, toolRegistryConverged(v), deleted)
	case *v1alpha1.AgentRuntime:
		t.set(KindAgentRuntime, key, agentRuntimeConverged(v), deleted)
	case *v1alpha1.ArenaJob:
		if deleted {
			delete(t.jobs, key)
		} else {
			t.jobs[key] = v
		}
	case *v1alpha1.ArenaRun:
		if deleted {
			delete(t.runs, key)
		} else {
			t.runs[key] = v.Status.Phase
			if v.Status.Phase == v1alpha1.ArenaRunPhaseRunning && !t.dispatched[key] {
				t.dispatched[key] = true
				runRunning = true
			}
		}
	}
	t.mu.Unlock()
	if runRunning && t.onRunRunning != nil {
		t.onRunRunning(obj.GetNamespace(), obj.GetName())
	}
	select {
	case t.changed <- struct{}{}:
	default:
	}
}

// set records whether an object of kind k has converged. Call with mu held.
func (t *tracker) set(k Kind, key string, converged, deleted bool) {
	if deleted {
		delete(t.converged[k], key)
		return
	}
	t.converged[k][key] = converged
}

// progress is how many objects of each kind exist and have converged.
type progress struct {
	Seen, Converged map[Kind]int
	// Runs counts the ArenaRuns by phase ("" before their first status).
	Runs map[v1alpha1.ArenaRunPhase]int
}

// done reports whether every planned object has converged.
func (p progress) done(want map[Kind]int) bool {
	for _, k := range Kinds {
		if p.Converged[k] != want[k] {
			return false
		}
	}
	return true
}

// String is the progress line: converged/seen per kind.
func (p progress) String() string {
	s := ""
	for _, k := range Kinds {
		s += fmt.Sprintf("%s %d/%d  ", k, p.Converged[k], p.Seen[k])
	}
	return s + fmt.Sprintf("runs %v", p.Runs)
}

// progress counts the objects now.
func (t *tracker) progress() progress {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := progress{Seen: map[Kind]int{}, Converged: map[Kind]int{}, Runs: map[v1alpha1.ArenaRunPhase]int{}}
	for k, objs := range t.converged {
		for _, ok := range objs {
			p.Seen[k]++
			if ok {
				p.Converged[k]++
			}
		}
	}
	for _, ph := range t.runs {
		p.Runs[ph]++
	}
	for _, job := range t.jobs {
		p.Seen[KindArenaJob]++
		ns := job.Namespace
		if arenaJobConverged(job, func(name string) v1alpha1.ArenaRunPhase { return t.runs[ns+"/"+name] }) {
			p.Converged[KindArenaJob]++
		}
	}
	return p
}
