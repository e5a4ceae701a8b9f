package agentruntime

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// The step machine's decisions, one table per function.

func withRollout(c *v1alpha1.AgentRuntimeRolloutCandidate, st *v1alpha1.AgentRuntimeRolloutStatus) func(*v1alpha1.AgentRuntime) {
	return func(a *v1alpha1.AgentRuntime) {
		a.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "pack", Version: "1.0.0"}
		a.Spec.Rollout = &v1alpha1.AgentRuntimeRollout{Candidate: c, Steps: []v1alpha1.AgentRuntimeRolloutStep{{SetWeight: ptr.To[int32](50)}}}
		a.Status.Rollout = st
	}
}

var candV2 = &v1alpha1.AgentRuntimeRolloutCandidate{PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "pack", Version: "2.0.0"}}
var candV1 = &v1alpha1.AgentRuntimeRolloutCandidate{PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "pack", Version: "1.0.0"}}

func TestRolloutPhaseOf(t *testing.T) {
	active := &v1alpha1.AgentRuntimeRolloutStatus{Active: true}
	promoting := &v1alpha1.AgentRuntimeRolloutStatus{Active: true, Promoting: true}
	done := &v1alpha1.AgentRuntimeRolloutStatus{Active: false}
	for _, tc := range []struct {
		name string
		ar   *v1alpha1.AgentRuntime
		want rolloutPhase
	}{
		{"no rollout, no status: none", agent(), rolloutNone},
		{"rollout without candidate: idle", agent(withRollout(nil, nil)), rolloutIdle},
		{"candidate equal to the spec: idle", agent(withRollout(candV1, nil)), rolloutIdle},
		{"candidate equal to the spec after a rollout: idle", agent(withRollout(candV1, done)), rolloutIdle},
		{"empty candidate: idle", agent(withRollout(&v1alpha1.AgentRuntimeRolloutCandidate{}, nil)), rolloutIdle},
		{"candidate differs: running", agent(withRollout(candV2, nil)), rolloutRunning},
		{"candidate differs, in progress: running", agent(withRollout(candV2, active)), rolloutRunning},
		{"candidate removed mid-rollout: ended (abort)", agent(withRollout(nil, active)), rolloutEnded},
		{"candidate reverted mid-rollout: ended", agent(withRollout(candV1, active)), rolloutEnded},
		{"promoting with candidate: promoting", agent(withRollout(candV2, promoting)), rolloutPromoting},
		{"promoting, candidate now equal to the spec: promoting", agent(withRollout(candV1, promoting)), rolloutPromoting},
		{"promoting, candidate cleared: ended", agent(withRollout(nil, promoting)), rolloutEnded},
		{"spec.rollout removed, status left: idle", agent(func(a *v1alpha1.AgentRuntime) { a.Status.Rollout = done }), rolloutIdle},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := rolloutPhaseOf(tc.ar); got != tc.want {
				t.Errorf("rolloutPhaseOf = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestCandidateMatchesSpec(t *testing.T) {
	prov := v1alpha1.AgentRuntimeProviders{{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "p1"}}}
	prov2 := v1alpha1.AgentRuntimeProviders{{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "p2"}}}
	for _, tc := range []struct {
		name string
		cand *v1alpha1.AgentRuntimeRolloutCandidate
		want bool
	}{
		{"same promptPackRef", candV1, true},
		{"other promptPackRef version", candV2, false},
		{"same providers", &v1alpha1.AgentRuntimeRolloutCandidate{ProviderRefs: prov}, true},
		{"other providers", &v1alpha1.AgentRuntimeRolloutCandidate{ProviderRefs: prov2}, false},
		{"same toolRegistryRef", &v1alpha1.AgentRuntimeRolloutCandidate{ToolRegistryRef: &v1alpha1.NamespacedObjectReference{Name: "tools"}}, true},
		{"other toolRegistryRef", &v1alpha1.AgentRuntimeRolloutCandidate{ToolRegistryRef: &v1alpha1.NamespacedObjectReference{Name: "tools-2"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := agent(withRollout(tc.cand, nil), func(a *v1alpha1.AgentRuntime) {
				a.Spec.Providers = prov
				a.Spec.ToolRegistryRef = &v1alpha1.NamespacedObjectReference{Name: "tools"}
			})
			if got := candidateMatchesSpec(ar); got != tc.want {
				t.Errorf("candidateMatchesSpec = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestWithCandidateSpecAndRevert(t *testing.T) {
	prov2 := v1alpha1.AgentRuntimeProviders{{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "p2"}}}
	ar := agent(withRollout(&v1alpha1.AgentRuntimeRolloutCandidate{PromptPackRef: candV2.PromptPackRef, ProviderRefs: prov2}, nil), func(a *v1alpha1.AgentRuntime) {
		a.Spec.Providers = v1alpha1.AgentRuntimeProviders{{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "p1"}}}
		a.Spec.ToolRegistryRef = &v1alpha1.NamespacedObjectReference{Name: "tools"}
	})
	promoted := withCandidateSpec(ar.Spec, rolloutCandidate(ar))
	if promoted.PromptPackRef.Version != "2.0.0" || promoted.Providers[0].ProviderRef.Name != "p2" || promoted.ToolRegistryRef.Name != "tools" {
		t.Errorf("promoted spec %+v %+v %+v: want pack 2.0.0, provider p2, tools unchanged", promoted.PromptPackRef, promoted.Providers, promoted.ToolRegistryRef)
	}
	if promoted.Rollout == nil || ar.Spec.PromptPackRef.Version != "1.0.0" {
		t.Errorf("withCandidateSpec dropped spec.rollout or changed its input")
	}
	cp := candidateAgent(ar)
	if cp.Spec.Rollout != nil || cp.Spec.PromptPackRef.Version != "2.0.0" || cp.Name != ar.Name || cp.UID != ar.UID {
		t.Errorf("candidateAgent: rollout %v, pack %s, name %s", cp.Spec.Rollout, cp.Spec.PromptPackRef.Version, cp.Name)
	}
	rev := revertedCandidate(ar)
	if rev.PromptPackRef.Version != "1.0.0" || rev.ProviderRefs[0].ProviderRef.Name != "p1" || rev.ToolRegistryRef != nil {
		t.Errorf("reverted candidate %+v: want the spec's pack and providers, no toolRegistryRef (the candidate set none)", rev)
	}
	ar.Spec.Rollout.Candidate = rev
	if !candidateMatchesSpec(ar) {
		t.Errorf("a reverted candidate does not match the spec")
	}
}

func TestCandidateReplicas(t *testing.T) {
	for _, tc := range []struct {
		name            string
		stable, weight  int32
		replicaWeighted bool
		want            int32
	}{
		{"weight 0: none", 3, 0, true, 0},
		{"stable at zero: none", 0, 50, true, 0},
		{"10% of 1: at least one", 1, 10, true, 1},
		{"50% of 2: equal", 2, 50, true, 2},
		{"25% of 3: one", 3, 25, true, 1},
		{"75% of 1: three", 1, 75, true, 3},
		{"90% of 1: capped at 4", 1, 90, true, 4},
		{"100% of 2: the cap", 2, 100, true, 8},
		{"mesh 10% of 3: one", 3, 10, false, 1},
		{"mesh 50% of 3: two", 3, 50, false, 2},
		{"mesh 100% of 3: three", 3, 100, false, 3},
		{"mesh 0: none", 3, 0, false, 0},
		{"weight above 100 clamps", 1, 150, true, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := candidateReplicas(tc.stable, tc.weight, tc.replicaWeighted); got != tc.want {
				t.Errorf("candidateReplicas(%d, %d, %v) = %d, want %d", tc.stable, tc.weight, tc.replicaWeighted, got, tc.want)
			}
		})
	}
}

func TestPauseDecision(t *testing.T) {
	start := metav1.NewTime(time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC))
	for _, tc := range []struct {
		name          string
		duration      string
		now           time.Time
		wantManual    bool
		wantRemaining time.Duration
	}{
		{"no duration: manual", "", start.Add(time.Hour), true, 0},
		{"5m, 2m in: 3m left", "5m", start.Add(2 * time.Minute), false, 3 * time.Minute},
		{"5m, 5m in: over", "5m", start.Add(5 * time.Minute), false, 0},
		{"5m, 6m in: over", "5m", start.Add(6 * time.Minute), false, -time.Minute},
		{"unparsable: no pause", "soon", start.Time, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			manual, remaining := pauseDecision(&v1alpha1.AgentRuntimeRolloutPause{Duration: tc.duration}, &start, tc.now)
			if manual != tc.wantManual || remaining != tc.wantRemaining {
				t.Errorf("pauseDecision = (%v, %s), want (%v, %s)", manual, remaining, tc.wantManual, tc.wantRemaining)
			}
		})
	}
}

func TestAnalysisActionOf(t *testing.T) {
	for _, tc := range []struct {
		phase     analysisPhase
		automatic bool
		want      analysisAction
	}{
		{analysisRunning, true, analysisWait},
		{analysisRunning, false, analysisWait},
		{analysisSuccessful, true, analysisAdvance},
		{analysisSuccessful, false, analysisAdvance},
		{analysisFailed, true, analysisRollback},
		{analysisFailed, false, analysisHold},
		{analysisError, true, analysisRollback},
		{analysisError, false, analysisHold},
	} {
		if got := analysisActionOf(tc.phase, tc.automatic); got != tc.want {
			t.Errorf("analysisActionOf(%s, automatic=%v) = %d, want %d", tc.phase, tc.automatic, got, tc.want)
		}
	}
}

func TestRollbackAutomatic(t *testing.T) {
	for _, tc := range []struct {
		mode v1alpha1.AgentRuntimeRollbackMode
		want bool
	}{{"automatic", true}, {"manual", false}, {"disabled", false}, {"", false}} {
		ar := agent(withRollout(candV2, nil), func(a *v1alpha1.AgentRuntime) {
			a.Spec.Rollout.Rollback = &v1alpha1.AgentRuntimeRolloutRollback{Mode: tc.mode}
		})
		if got := rollbackAutomatic(ar); got != tc.want {
			t.Errorf("mode %q: rollbackAutomatic = %v, want %v", tc.mode, got, tc.want)
		}
	}
	if rollbackAutomatic(agent(withRollout(candV2, nil))) {
		t.Errorf("no rollback block: want manual (not automatic)")
	}
}

func TestPromoteRequested(t *testing.T) {
	for v, want := range map[string]bool{"true": true, "false": false, "": false, "yes": false} {
		ar := agent(func(a *v1alpha1.AgentRuntime) {
			a.Annotations = map[string]string{v1alpha1.AgentRuntimeRolloutPromoteAnnotation: v}
		})
		if got := promoteRequested(ar); got != want {
			t.Errorf("annotation %q: promoteRequested = %v, want %v", v, got, want)
		}
	}
	a := agent(func(a *v1alpha1.AgentRuntime) {
		a.Annotations = map[string]string{v1alpha1.AgentRuntimeRolloutPromoteAnnotation: "true", "keep": "me"}
	})
	dropPromoteAnnotation(a)
	if _, ok := a.Annotations[v1alpha1.AgentRuntimeRolloutPromoteAnnotation]; ok || a.Annotations["keep"] != "me" {
		t.Errorf("dropPromoteAnnotation left %v", a.Annotations)
	}
}

func TestStepBookkeeping(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC))
	st := startRollout(t0)
	if !st.Active || *st.CurrentStep != 0 || *st.CurrentWeight != 0 || !st.StartedAt.Equal(&t0) || !st.StepStartedAt.Equal(&t0) {
		t.Fatalf("startRollout = %+v", st)
	}
	st.Analysis = &v1alpha1.AgentRuntimeRolloutAnalysisStatus{Phase: "Running"}
	t1 := metav1.NewTime(t0.Add(time.Minute))
	advanceStep(st, t1)
	if *st.CurrentStep != 1 || !st.StepStartedAt.Equal(&t1) || st.Analysis != nil || !st.StartedAt.Equal(&t0) {
		t.Errorf("advanceStep = %+v", st)
	}
	st.Promoting, st.CurrentWeight = true, ptr.To[int32](100)
	endRollout(st, "done")
	if st.Active || st.Promoting || st.CurrentStep != nil || st.StepStartedAt != nil || *st.CurrentWeight != 0 || st.Message != "done" || st.StartedAt == nil {
		t.Errorf("endRollout = %+v", st)
	}
	if got := stepLabel([]v1alpha1.AgentRuntimeRolloutStep{{SetWeight: ptr.To[int32](10)}, {Pause: &v1alpha1.AgentRuntimeRolloutPause{}}}, 1); got != "step 2/2 (pause until promoted)" {
		t.Errorf("stepLabel = %q", got)
	}
	if !analysisSettledFailed(&v1alpha1.AgentRuntimeRolloutAnalysisStatus{Phase: "Error"}) || analysisSettledFailed(&v1alpha1.AgentRuntimeRolloutAnalysisStatus{Phase: "Running"}) || analysisSettledFailed(nil) {
		t.Errorf("analysisSettledFailed")
	}
}

func TestDeploymentRolledOut(t *testing.T) {
	d := func(gen, observed int64, replicas, updated, available, total int32) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Generation: gen}, Spec: appsv1.DeploymentSpec{Replicas: ptr.To(replicas)},
			Status: appsv1.DeploymentStatus{ObservedGeneration: observed, UpdatedReplicas: updated, AvailableReplicas: available, Replicas: total}}
	}
	for _, tc := range []struct {
		name string
		d    *appsv1.Deployment
		want bool
	}{
		{"nil", nil, false},
		{"all updated and available", d(2, 2, 2, 2, 2, 2), true},
		{"generation not observed yet", d(3, 2, 2, 2, 2, 2), false},
		{"one not updated", d(2, 2, 2, 1, 2, 2), false},
		{"one not available", d(2, 2, 2, 2, 1, 2), false},
		{"an old replica left", d(2, 2, 2, 2, 2, 3), false},
		{"zero replicas", d(1, 1, 0, 0, 0, 0), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := deploymentRolledOut(tc.d); got != tc.want {
				t.Errorf("deploymentRolledOut = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestProgressDeadlineExceeded(t *testing.T) {
	with := func(status corev1.ConditionStatus, reason string) *appsv1.Deployment {
		return &appsv1.Deployment{Status: appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse},
			{Type: appsv1.DeploymentProgressing, Status: status, Reason: reason},
		}}}
	}
	for _, tc := range []struct {
		name string
		d    *appsv1.Deployment
		want bool
	}{
		{"nil", nil, false},
		{"no conditions", &appsv1.Deployment{}, false},
		{"Progressing False ProgressDeadlineExceeded", with(corev1.ConditionFalse, "ProgressDeadlineExceeded"), true},
		{"Progressing True NewReplicaSetAvailable", with(corev1.ConditionTrue, "NewReplicaSetAvailable"), false},
		{"Progressing True ReplicaSetUpdated", with(corev1.ConditionTrue, "ReplicaSetUpdated"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := progressDeadlineExceeded(tc.d); got != tc.want {
				t.Errorf("progressDeadlineExceeded = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCandidateDeployment(t *testing.T) {
	ar := agent(withRollout(candV2, nil), func(a *v1alpha1.AgentRuntime) {
		a.Spec.Rollout.Rollback = &v1alpha1.AgentRuntimeRolloutRollback{ProgressDeadlineSeconds: ptr.To[int32](30)}
	})
	stable, _, err := workload.Deployment(ar, resolved())
	if err != nil {
		t.Fatal(err)
	}
	if stable.Spec.Template.Labels[workload.LabelRolloutTrack] != workload.RolloutTrackStable {
		t.Errorf("stable pod track label %q, want %q", stable.Spec.Template.Labels[workload.LabelRolloutTrack], workload.RolloutTrackStable)
	}
	if _, ok := stable.Spec.Selector.MatchLabels[workload.LabelRolloutTrack]; ok {
		t.Errorf("the stable selector has the track label (it is immutable)")
	}
	built, _, _ := workload.Deployment(candidateAgent(ar), resolved())
	c := workload.CandidateDeployment(ar, built, 3)
	if c.Name != "support-candidate" || *c.Spec.Replicas != 3 || *c.Spec.ProgressDeadlineSeconds != 30 {
		t.Errorf("candidate name %s replicas %d deadline %v", c.Name, *c.Spec.Replicas, c.Spec.ProgressDeadlineSeconds)
	}
	if c.Spec.Selector.MatchLabels[workload.LabelRolloutTrack] != workload.RolloutTrackCandidate || c.Spec.Template.Labels[workload.LabelRolloutTrack] != workload.RolloutTrackCandidate {
		t.Errorf("candidate selector %v pod labels %v: want the candidate track in both", c.Spec.Selector.MatchLabels, c.Spec.Template.Labels)
	}
	for k, v := range c.Spec.Selector.MatchLabels {
		if c.Spec.Template.Labels[k] != v {
			t.Errorf("candidate pods miss selector label %s=%s", k, v)
		}
	}
	for k, v := range workload.SelectorLabels(ar) {
		if c.Spec.Template.Labels[k] != v {
			t.Errorf("candidate pods miss the Service's selector label %s=%s", k, v)
		}
	}
	if refs := c.OwnerReferences; len(refs) != 1 || refs[0].UID != ar.UID || c.Labels[workload.LabelManagedBy] != workload.ManagedByValue {
		t.Errorf("candidate owner %v labels %v", refs, c.Labels)
	}
	if built.Spec.Template.Labels[workload.LabelRolloutTrack] != workload.RolloutTrackStable {
		t.Errorf("CandidateDeployment changed its input")
	}
	ar.Spec.Rollout.Rollback = nil
	if c := workload.CandidateDeployment(ar, built, 1); c.Spec.ProgressDeadlineSeconds != nil {
		t.Errorf("no progressDeadlineSeconds: want unset (Kubernetes' 600 s), got %d", *c.Spec.ProgressDeadlineSeconds)
	}
}

func TestStepDeadline(t *testing.T) {
	start := metav1.NewTime(time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC))
	with := func(secs *int32) *v1alpha1.AgentRuntime {
		return agent(withRollout(candV2, nil), func(a *v1alpha1.AgentRuntime) {
			a.Spec.Rollout.Rollback = &v1alpha1.AgentRuntimeRolloutRollback{ProgressDeadlineSeconds: secs}
		})
	}
	for _, tc := range []struct {
		name          string
		ar            *v1alpha1.AgentRuntime
		started       *metav1.Time
		now           time.Time
		wantExceeded  bool
		wantRemaining time.Duration
	}{
		{"30s deadline, 10s in", with(ptr.To[int32](30)), &start, start.Add(10 * time.Second), false, 20 * time.Second},
		{"30s deadline, 30s in", with(ptr.To[int32](30)), &start, start.Add(30 * time.Second), true, 0},
		{"unset: Kubernetes' 600s, 5m in", with(nil), &start, start.Add(5 * time.Minute), false, 5 * time.Minute},
		{"unset: Kubernetes' 600s, 11m in", with(nil), &start, start.Add(11 * time.Minute), true, -time.Minute},
		{"no step start", with(nil), nil, start.Time, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exceeded, remaining := stepDeadline(tc.ar, tc.started, tc.now)
			if exceeded != tc.wantExceeded || remaining != tc.wantRemaining {
				t.Errorf("stepDeadline = (%v, %s), want (%v, %s)", exceeded, remaining, tc.wantExceeded, tc.wantRemaining)
			}
		})
	}
}
