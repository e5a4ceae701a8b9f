package main

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func TestProviderConverged(t *testing.T) {
	p := &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Generation: 2}}
	for _, c := range []struct {
		phase v1alpha1.ProviderPhase
		gen   int64
		want  bool
	}{
		{v1alpha1.ProviderPhaseReady, 2, true},
		{v1alpha1.ProviderPhaseReady, 1, false}, // Ready for an older spec
		{v1alpha1.ProviderPhaseError, 2, false},
		{"", 0, false},
	} {
		p.Status.Phase, p.Status.ObservedGeneration = c.phase, c.gen
		if got := providerConverged(p); got != c.want {
			t.Errorf("phase %q observed %d: %v, want %v", c.phase, c.gen, got, c.want)
		}
	}
}

func TestToolRegistryConverged(t *testing.T) {
	tr := &v1alpha1.ToolRegistry{ObjectMeta: metav1.ObjectMeta{Generation: 1}}
	tr.Status.ObservedGeneration = 1
	for phase, want := range map[v1alpha1.ToolRegistryPhase]bool{
		v1alpha1.ToolRegistryPhaseReady: true, v1alpha1.ToolRegistryPhasePending: false,
		v1alpha1.ToolRegistryPhaseDegraded: false, v1alpha1.ToolRegistryPhaseFailed: false,
	} {
		tr.Status.Phase = phase
		if got := toolRegistryConverged(tr); got != want {
			t.Errorf("%s: %v, want %v", phase, got, want)
		}
	}
	tr.Status.Phase, tr.Generation = v1alpha1.ToolRegistryPhaseReady, 2
	if toolRegistryConverged(tr) {
		t.Error("Ready for generation 1 of 2 counted as converged")
	}
}

func TestAgentRuntimeConverged(t *testing.T) {
	ar := &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Generation: 1}}
	ar.Status.ObservedGeneration = 1
	for phase, want := range map[v1alpha1.AgentRuntimePhase]bool{
		v1alpha1.AgentRuntimePhaseRunning: true, v1alpha1.AgentRuntimePhasePending: false, v1alpha1.AgentRuntimePhaseFailed: false,
	} {
		ar.Status.Phase = phase
		if got := agentRuntimeConverged(ar); got != want {
			t.Errorf("%s: %v, want %v", phase, got, want)
		}
	}
}

func TestArenaJobConverged(t *testing.T) {
	ready := func(status metav1.ConditionStatus, gen int64) []metav1.Condition {
		return []metav1.Condition{{Type: v1alpha1.ArenaJobConditionReady, Status: status, ObservedGeneration: gen, Reason: "Scheduled"}}
	}
	runs := map[string]v1alpha1.ArenaRunPhase{"eval-9-manual": v1alpha1.ArenaRunPhaseSucceeded, "eval-19-manual": v1alpha1.ArenaRunPhaseRunning,
		"eval-29-manual": v1alpha1.ArenaRunPhaseFailed}
	phase := func(name string) v1alpha1.ArenaRunPhase { return runs[name] }
	job := func(status metav1.ConditionStatus, condGen int64, run string) *v1alpha1.ArenaJob {
		j := &v1alpha1.ArenaJob{ObjectMeta: metav1.ObjectMeta{Generation: 1}}
		j.Status.ObservedGeneration = 1
		j.Status.Conditions = ready(status, condGen)
		if run != "" {
			j.Status.LastRunRef = &v1alpha1.LocalObjectReference{Name: run}
		}
		return j
	}
	for _, c := range []struct {
		name string
		job  *v1alpha1.ArenaJob
		want bool
	}{
		{"ready, run succeeded", job(metav1.ConditionTrue, 1, "eval-9-manual"), true},
		{"ready, run failed: settled too", job(metav1.ConditionTrue, 1, "eval-29-manual"), true},
		{"ready, run still running", job(metav1.ConditionTrue, 1, "eval-19-manual"), false},
		{"ready, run not seen yet", job(metav1.ConditionTrue, 1, "eval-39-manual"), false},
		{"ready, no run started", job(metav1.ConditionTrue, 1, ""), false},
		{"not ready", job(metav1.ConditionFalse, 1, "eval-9-manual"), false},
		{"ready for an older generation", job(metav1.ConditionTrue, 0, "eval-9-manual"), false},
	} {
		if got := arenaJobConverged(c.job, phase); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// The tracker counts what the predicates say, an ArenaJob through the
// phase of its run, and hands each Running run to the workers once.
func TestTrackerProgress(t *testing.T) {
	var dispatched []string
	tr := &tracker{converged: map[Kind]map[string]bool{}, jobs: map[string]*v1alpha1.ArenaJob{}, runs: map[string]v1alpha1.ArenaRunPhase{},
		changed: make(chan struct{}, 1), dispatched: map[string]bool{},
		onRunRunning: func(ns, name string) { dispatched = append(dispatched, ns+"/"+name) }}
	for _, k := range Kinds {
		tr.converged[k] = map[string]bool{}
	}
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: "scale-0", Name: name, Generation: 1}
	}
	p := &v1alpha1.Provider{ObjectMeta: meta("provider-0")}
	p.Status.ObservedGeneration, p.Status.Phase = 1, v1alpha1.ProviderPhaseReady
	tr.observe(p, false)
	tr.observe(&v1alpha1.Provider{ObjectMeta: meta("provider-1")}, false)
	job := &v1alpha1.ArenaJob{ObjectMeta: meta("eval-9")}
	job.Status.ObservedGeneration = 1
	job.Status.Conditions = []metav1.Condition{{Type: v1alpha1.ArenaJobConditionReady, Status: metav1.ConditionTrue, ObservedGeneration: 1}}
	job.Status.LastRunRef = &v1alpha1.LocalObjectReference{Name: "eval-9-manual"}
	tr.observe(job, false)
	run := &v1alpha1.ArenaRun{ObjectMeta: meta("eval-9-manual")}
	run.Status.Phase = v1alpha1.ArenaRunPhaseRunning
	tr.observe(run, false)
	tr.observe(run, false) // an update while still Running

	got := tr.progress()
	if got.Seen[KindProvider] != 2 || got.Converged[KindProvider] != 1 {
		t.Errorf("providers: %s", got)
	}
	if got.Seen[KindArenaJob] != 1 || got.Converged[KindArenaJob] != 0 {
		t.Errorf("the job converged before its run finished: %s", got)
	}
	if len(dispatched) != 1 || dispatched[0] != "scale-0/eval-9-manual" {
		t.Errorf("dispatched %v, want the run once", dispatched)
	}
	run = run.DeepCopy()
	run.Status.Phase = v1alpha1.ArenaRunPhaseSucceeded
	tr.observe(run, false)
	got = tr.progress()
	if got.Converged[KindArenaJob] != 1 || got.Runs[v1alpha1.ArenaRunPhaseSucceeded] != 1 {
		t.Errorf("after the run succeeded: %s", got)
	}
	if got.done(map[Kind]int{KindProvider: 2, KindArenaJob: 1}) {
		t.Error("done with a Provider not Ready")
	}
	tr.observe(&v1alpha1.Provider{ObjectMeta: meta("provider-1")}, true)
	if got := tr.progress(); !got.done(map[Kind]int{KindProvider: 1, KindArenaJob: 1}) {
		t.Errorf("not done once the unready Provider is deleted: %s", got)
	}
}
