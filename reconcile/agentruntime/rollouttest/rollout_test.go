package rollouttest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/reconcile/agentruntime"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/reconcile/prober"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/test/controlplane"
)

var (
	k8s   client.Client
	clock *clocktesting.FakeClock
	// prometheus stands in for Prometheus: every instant query answers
	// promValue (a float formatted as Prometheus does).
	prometheus *httptest.Server
	promValue  atomic.Value
)

// enterprise is a licence of the enterprise tier: the analysis step needs it.
func enterprise() licensing.License {
	f := map[string]bool{}
	for _, n := range licensing.AllFeatures {
		f[n] = true
	}
	return licensing.License{Tier: licensing.TierEnterprise, Features: f, Limits: &licensing.Limits{}}
}

// servePrometheus answers /api/v1/query with a one-sample vector of promValue.
func servePrometheus(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/v1/query" || r.URL.Query().Get("query") == "" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = fmt.Fprintf(w, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[%d,%q]}]}}`,
		time.Now().Unix(), promValue.Load().(string))
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

// run starts the local cluster and the AgentRuntime controller with a fake
// clock, runs the tests and stops both.
func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "omnia-rollouttest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }()
	promValue.Store("1")
	prometheus = httptest.NewServer(http.HandlerFunc(servePrometheus))
	defer prometheus.Close()
	cl, err := controlplane.StartCluster(controlplane.Options{Kinds: []string{"AgentRuntime", "PromptPack", "Provider", "ToolRegistry", "Workspace", "RolloutAnalysis"}}, dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = cl.Stop() }()
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = v1alpha1.AddToScheme(scheme)
	if k8s, err = client.New(cl.Config, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	mgr, err := ctrl.NewManager(cl.Config, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0", Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	clock = clocktesting.NewFakeClock(time.Now().Truncate(time.Second))
	p := prober.New(prober.Options{})
	if err := mgr.Add(p); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := agentruntime.SetupWithManager(mgr, agentruntime.Options{
		BuiltinRuntimeImage: "r:1", FacadeImage: "f:1", PolicyBrokerImage: "b:1", Common: ctrlopts.Common{Clock: clock, License: enterprise()},
		Rollout:  agentruntime.RolloutOptions{PromotionRequeue: 100 * time.Millisecond},
		Analysis: agentruntime.AnalysisOptions{Prober: p},
	}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = mgr.Start(ctx) }()
	defer func() { cancel(); <-done }()
	code := m.Run()
	if code != 0 {
		fmt.Fprintln(os.Stderr, cl.Components.LogTails(30))
	}
	return code
}

// setup makes the namespace, the PromptPack versions 1.0.0 and 2.0.0 of
// pack "pack" (Ready, as the PromptPack controller would report) and the
// agent on 1.0.0 with rollout, and waits for its stable Deployment to run.
func setup(t *testing.T, ns string, rollout *v1alpha1.AgentRuntimeRollout) *v1alpha1.AgentRuntime {
	t.Helper()
	ctx := context.Background()
	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"1.0.0", "2.0.0"} {
		p := &v1alpha1.PromptPack{ObjectMeta: metav1.ObjectMeta{Name: "pack-" + v[:1], Namespace: ns, Labels: map[string]string{rules.PromptPackLabel: "pack"}}}
		p.Spec.PackName, p.Spec.Version = "pack", v
		p.Spec.Source.ConfigMapRef = &v1alpha1.LocalObjectReference{Name: "pack-" + v[:1]}
		if err := k8s.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		p.Status.Phase = v1alpha1.PromptPackPhaseReady
		if err := k8s.Status().Update(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	ar := &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Name: "support", Namespace: ns}, Spec: v1alpha1.AgentRuntimeSpec{
		Facades:       []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}},
		PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "pack", Version: "1.0.0"},
		Rollout:       rollout,
	}}
	if err := k8s.Create(ctx, ar); err != nil {
		t.Fatal(err)
	}
	waitDeployment(t, ns, "support", "the stable Deployment to run", rolledOut)
	return ar
}

func rollout(mode v1alpha1.AgentRuntimeRollbackMode, steps ...v1alpha1.AgentRuntimeRolloutStep) *v1alpha1.AgentRuntimeRollout {
	return &v1alpha1.AgentRuntimeRollout{Steps: steps, Rollback: &v1alpha1.AgentRuntimeRolloutRollback{Mode: mode}}
}

func setWeight(w int32) v1alpha1.AgentRuntimeRolloutStep {
	return v1alpha1.AgentRuntimeRolloutStep{SetWeight: ptr.To(w)}
}

func pause(d string) v1alpha1.AgentRuntimeRolloutStep {
	return v1alpha1.AgentRuntimeRolloutStep{Pause: &v1alpha1.AgentRuntimeRolloutPause{Duration: d}}
}

// startCandidate sets spec.rollout.candidate to pack version 2.0.0.
func startCandidate(t *testing.T, ns string) {
	t.Helper()
	update(t, ns, func(a *v1alpha1.AgentRuntime) {
		a.Spec.Rollout.Candidate = &v1alpha1.AgentRuntimeRolloutCandidate{PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "pack", Version: "2.0.0"}}
	})
}

func update(t *testing.T, ns string, mut func(*v1alpha1.AgentRuntime)) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		ar := &v1alpha1.AgentRuntime{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "support"}, ar); err != nil {
			return false, err
		}
		mut(ar)
		err := k8s.Update(ctx, ar)
		if apierrors.IsConflict(err) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		t.Fatalf("updating the agent: %v", err)
	}
}

// waitAgent polls the agent until ok, failing with what after a minute.
func waitAgent(t *testing.T, ns, what string, ok func(*v1alpha1.AgentRuntime) bool) *v1alpha1.AgentRuntime {
	t.Helper()
	ar := &v1alpha1.AgentRuntime{}
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "support"}, ar); err != nil {
			return false, err
		}
		return ok(ar), nil
	})
	if err != nil {
		cand := &appsv1.Deployment{}
		_ = k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "support-candidate"}, cand)
		t.Fatalf("waiting for %s: %v; status.rollout %+v, spec.rollout.candidate %+v, RolloutActive %+v; candidate Deployment conditions %+v",
			what, err, ar.Status.Rollout, ar.Spec.Rollout.Candidate,
			meta.FindStatusCondition(ar.Status.Conditions, v1alpha1.AgentRuntimeConditionRolloutActive), cand.Status.Conditions)
	}
	return ar
}

// waitDeployment polls Deployment name until ok.
func waitDeployment(t *testing.T, ns, name, what string, ok func(*appsv1.Deployment) bool) {
	t.Helper()
	d := &appsv1.Deployment{}
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, d); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return ok(d), nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v (status %+v)", what, err, d.Status)
	}
}

func rolledOut(d *appsv1.Deployment) bool {
	want := ptr.Deref(d.Spec.Replicas, 1)
	return d.Status.ObservedGeneration >= d.Generation && d.Status.UpdatedReplicas == want && d.Status.AvailableReplicas == want && d.Status.Replicas == want
}

// waitCandidateGone waits until the candidate Deployment is deleted.
func waitCandidateGone(t *testing.T, ns string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "support-candidate"}, &appsv1.Deployment{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	if err != nil {
		t.Fatalf("the candidate Deployment was not deleted: %v", err)
	}
}

// nudge makes the controller look at the agent again after the fake clock
// moved (its work queue waits in real time): an annotation on the candidate
// Deployment, which the controller's Owns watch maps to the agent.
func nudge(t *testing.T, ns string) {
	t.Helper()
	d := &appsv1.Deployment{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "support-candidate"}, d); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(d.DeepCopy())
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	d.Annotations["test/nudge"] = clock.Now().Format(time.RFC3339Nano)
	if err := k8s.Patch(context.Background(), d, patch); err != nil {
		t.Fatal(err)
	}
}

func rolloutReason(ar *v1alpha1.AgentRuntime) string {
	if c := meta.FindStatusCondition(ar.Status.Conditions, v1alpha1.AgentRuntimeConditionRolloutActive); c != nil {
		return c.Reason
	}
	return ""
}

func atStep(step int32, reason string) func(*v1alpha1.AgentRuntime) bool {
	return func(ar *v1alpha1.AgentRuntime) bool {
		r := ar.Status.Rollout
		return r != nil && r.Active && r.CurrentStep != nil && *r.CurrentStep == step && rolloutReason(ar) == reason
	}
}

// A full canary: setWeight 50 runs one candidate pod beside the stable one
// (replicaWeighted), the timed pause holds until the fake clock passes it,
// setWeight 100 and the promotion follow: the spec takes version 2.0.0, the
// stable Deployment rolls to it, the candidate Deployment is deleted and
// rollout.candidate cleared.
func TestCanaryToPromotion(t *testing.T) {
	ns := "rollout-canary"
	setup(t, ns, rollout("automatic", setWeight(50), pause("1h"), setWeight(100)))
	idle := waitAgent(t, ns, "the idle rollout status", func(ar *v1alpha1.AgentRuntime) bool {
		return rolloutReason(ar) == v1alpha1.AgentRuntimeReasonRolloutIdle
	})
	if idle.Status.Rollout == nil || idle.Status.Rollout.Active || idle.Status.Rollout.StableVersion != "1.0.0" {
		t.Errorf("idle status.rollout %+v", idle.Status.Rollout)
	}
	startCandidate(t, ns)
	paused := waitAgent(t, ns, "the pause step", atStep(1, v1alpha1.AgentRuntimeReasonRolloutPaused))
	r := paused.Status.Rollout
	if *r.CurrentWeight != 50 || r.StableVersion != "1.0.0" || r.CandidateVersion != "2.0.0" || r.StartedAt == nil || r.StepStartedAt == nil ||
		r.TrafficRoutingMode != "replicaWeighted" || r.TrafficWeightEnforced == nil || *r.TrafficWeightEnforced || r.Promoting {
		t.Errorf("paused status.rollout %+v", r)
	}
	cand := &appsv1.Deployment{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "support-candidate"}, cand); err != nil {
		t.Fatal(err)
	}
	if *cand.Spec.Replicas != 1 || cand.Spec.Template.Labels[workload.LabelRolloutTrack] != workload.RolloutTrackCandidate ||
		len(cand.OwnerReferences) != 1 || cand.OwnerReferences[0].Name != "support" {
		t.Errorf("candidate Deployment replicas %d labels %v owners %v", *cand.Spec.Replicas, cand.Spec.Template.Labels, cand.OwnerReferences)
	}

	clock.Step(time.Hour + time.Second)
	nudge(t, ns)
	done := waitAgent(t, ns, "the promotion", func(ar *v1alpha1.AgentRuntime) bool {
		return rolloutReason(ar) == v1alpha1.AgentRuntimeReasonRolloutPromoted
	})
	if done.Spec.PromptPackRef.Version != "2.0.0" || done.Spec.Rollout.Candidate != nil {
		t.Errorf("after promotion: promptPackRef %+v candidate %+v", done.Spec.PromptPackRef, done.Spec.Rollout.Candidate)
	}
	if r := done.Status.Rollout; r.Active || r.Promoting || r.CurrentStep != nil || r.StableVersion != "2.0.0" {
		t.Errorf("after promotion status.rollout %+v", r)
	}
	waitCandidateGone(t, ns)
	waitDeployment(t, ns, "support", "the stable Deployment on the promoted config", rolledOut)
	waitAgent(t, ns, "activeVersion 2.0.0", func(ar *v1alpha1.AgentRuntime) bool { return ar.Status.ActiveVersion == "2.0.0" })
}

// A pause without a duration waits for a person: a day on the clock does
// not move it; the promote annotation promotes and is removed.
func TestPauseWaitsForManualPromotion(t *testing.T) {
	ns := "rollout-manual"
	setup(t, ns, rollout("manual", setWeight(20), pause("")))
	startCandidate(t, ns)
	waitAgent(t, ns, "the manual pause", atStep(1, v1alpha1.AgentRuntimeReasonRolloutPaused))

	clock.Step(24 * time.Hour)
	nudge(t, ns)
	// The nudge's reconcile leaves the rollout where it was: the
	// candidate Deployment keeps existing and the step stays.
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 2*time.Second, true, func(ctx context.Context) (bool, error) {
		ar := &v1alpha1.AgentRuntime{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "support"}, ar); err != nil {
			return false, err
		}
		return !atStep(1, v1alpha1.AgentRuntimeReasonRolloutPaused)(ar), nil
	})
	if err == nil {
		t.Fatalf("the pause without a duration moved on without a promotion")
	}

	update(t, ns, func(a *v1alpha1.AgentRuntime) {
		a.Annotations = map[string]string{v1alpha1.AgentRuntimeRolloutPromoteAnnotation: "true"}
	})
	done := waitAgent(t, ns, "the manual promotion", func(ar *v1alpha1.AgentRuntime) bool {
		return rolloutReason(ar) == v1alpha1.AgentRuntimeReasonRolloutPromoted
	})
	if _, ok := done.Annotations[v1alpha1.AgentRuntimeRolloutPromoteAnnotation]; ok {
		t.Errorf("the promote annotation was left on the agent")
	}
	if done.Spec.PromptPackRef.Version != "2.0.0" || done.Spec.Rollout.Candidate != nil {
		t.Errorf("after promotion: promptPackRef %+v candidate %+v", done.Spec.PromptPackRef, done.Spec.Rollout.Candidate)
	}
	waitCandidateGone(t, ns)
}

// Removing the candidate mid-rollout aborts it: the candidate Deployment
// goes, the spec keeps its version.
func TestManualAbort(t *testing.T) {
	ns := "rollout-abort"
	setup(t, ns, rollout("manual", setWeight(20), pause("")))
	startCandidate(t, ns)
	waitAgent(t, ns, "the manual pause", atStep(1, v1alpha1.AgentRuntimeReasonRolloutPaused))
	update(t, ns, func(a *v1alpha1.AgentRuntime) { a.Spec.Rollout.Candidate = nil })
	done := waitAgent(t, ns, "the abort", func(ar *v1alpha1.AgentRuntime) bool {
		return rolloutReason(ar) == v1alpha1.AgentRuntimeReasonRolloutAborted
	})
	if done.Spec.PromptPackRef.Version != "1.0.0" || done.Status.Rollout.Active {
		t.Errorf("after abort: promptPackRef %+v status.rollout %+v", done.Spec.PromptPackRef, done.Status.Rollout)
	}
	waitCandidateGone(t, ns)
}

// A candidate whose pods never run (the Node cordoned) exceeds its
// progressDeadlineSeconds (the first step is a setWeight, so the candidate
// Deployment is created at its replicas and Kubernetes judges the deadline): kube-controller-manager sets Progressing False
// ProgressDeadlineExceeded and the automatic rollback sets the candidate
// back to the spec and deletes the candidate Deployment.
func TestAutomaticRollbackOnProgressDeadline(t *testing.T) {
	ns := "rollout-deadline"
	ro := rollout("automatic", setWeight(50), pause(""))
	ro.Rollback.ProgressDeadlineSeconds = ptr.To[int32](10)
	setup(t, ns, ro)
	cordon(t, true)
	t.Cleanup(func() { cordon(t, false) })
	startCandidate(t, ns)
	waitDeployment(t, ns, "support-candidate", "the candidate Deployment with progressDeadlineSeconds 10", func(d *appsv1.Deployment) bool {
		return ptr.Deref(d.Spec.ProgressDeadlineSeconds, 0) == 10
	})
	done := waitAgent(t, ns, "the rollback", func(ar *v1alpha1.AgentRuntime) bool {
		return rolloutReason(ar) == v1alpha1.AgentRuntimeReasonRolloutRolledBack
	})
	if c := done.Spec.Rollout.Candidate; c == nil || c.PromptPackRef == nil || c.PromptPackRef.Version != "1.0.0" || done.Spec.PromptPackRef.Version != "1.0.0" {
		t.Errorf("after rollback: candidate %+v promptPackRef %+v, want both on 1.0.0", c, done.Spec.PromptPackRef)
	}
	if done.Status.Rollout.Active {
		t.Errorf("after rollback status.rollout %+v", done.Status.Rollout)
	}
	waitCandidateGone(t, ns)
}

// analysisTemplate creates RolloutAnalysis "quality" in ns: one measurement
// of the local Prometheus, passing when the value is at least 0.9.
func analysisTemplate(t *testing.T, ns string) {
	t.Helper()
	tmpl := &v1alpha1.RolloutAnalysis{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "quality"}, Spec: v1alpha1.RolloutAnalysisSpec{
		Metrics: []v1alpha1.RolloutAnalysisMetric{{Name: "success-rate", SuccessCondition: "result[0] >= 0.9",
			Provider: v1alpha1.RolloutAnalysisProvider{Prometheus: &v1alpha1.RolloutAnalysisPrometheus{
				Address: prometheus.URL, Query: `sum(rate(requests{track="candidate",code="ok"}[1m]))`}}}},
	}}
	if err := k8s.Create(context.Background(), tmpl); err != nil {
		t.Fatal(err)
	}
}

func analysisStep() v1alpha1.AgentRuntimeRolloutStep {
	return v1alpha1.AgentRuntimeRolloutStep{Analysis: &v1alpha1.AgentRuntimeRolloutAnalysis{TemplateName: "quality"}}
}

// A failed analysis under automatic rollback rolls back: the local
// Prometheus answers 0.5 where the template wants at least 0.9.
func TestAutomaticRollbackOnFailedAnalysis(t *testing.T) {
	ns := "rollout-analysis"
	promValue.Store("0.5")
	t.Cleanup(func() { promValue.Store("1") })
	setup(t, ns, rollout("automatic", setWeight(50), analysisStep(), setWeight(100)))
	analysisTemplate(t, ns)
	startCandidate(t, ns)
	done := waitAgent(t, ns, "the rollback", func(ar *v1alpha1.AgentRuntime) bool {
		return rolloutReason(ar) == v1alpha1.AgentRuntimeReasonRolloutRolledBack
	})
	if c := done.Spec.Rollout.Candidate; c == nil || c.PromptPackRef.Version != "1.0.0" {
		t.Errorf("after rollback: candidate %+v, want 1.0.0", c)
	}
	if a := done.Status.Rollout.Analysis; a == nil || a.Phase != "Failed" || a.TemplateName != "quality" {
		t.Errorf("status.rollout.analysis %+v, want Failed", a)
	}
	waitCandidateGone(t, ns)
}

// A passing analysis lets the canary go on to promotion.
func TestPassingAnalysisPromotes(t *testing.T) {
	ns := "rollout-analysis-pass"
	promValue.Store("0.99")
	t.Cleanup(func() { promValue.Store("1") })
	setup(t, ns, rollout("automatic", setWeight(50), analysisStep(), setWeight(100)))
	analysisTemplate(t, ns)
	startCandidate(t, ns)
	done := waitAgent(t, ns, "the promotion", func(ar *v1alpha1.AgentRuntime) bool {
		return rolloutReason(ar) == v1alpha1.AgentRuntimeReasonRolloutPromoted
	})
	if done.Spec.PromptPackRef.Version != "2.0.0" || done.Spec.Rollout.Candidate != nil {
		t.Errorf("after promotion: promptPackRef %+v candidate %+v", done.Spec.PromptPackRef, done.Spec.Rollout.Candidate)
	}
	waitCandidateGone(t, ns)
}

// An analysis that cannot run (its RolloutAnalysis is missing: Error)
// counts as failed: automatic rollback.
func TestAutomaticRollbackOnAnalysisError(t *testing.T) {
	ns := "rollout-analysis-error"
	setup(t, ns, rollout("automatic", setWeight(50), analysisStep()))
	startCandidate(t, ns)
	done := waitAgent(t, ns, "the rollback", func(ar *v1alpha1.AgentRuntime) bool {
		return rolloutReason(ar) == v1alpha1.AgentRuntimeReasonRolloutRolledBack
	})
	if a := done.Status.Rollout.Analysis; a == nil || a.Phase != "Error" {
		t.Errorf("status.rollout.analysis %+v, want Error", a)
	}
	waitCandidateGone(t, ns)
}

// Under manual rollback a failed analysis holds the rollout (no rollback).
func TestManualHoldOnFailedAnalysis(t *testing.T) {
	ns := "rollout-analysis-manual"
	promValue.Store("0.5")
	t.Cleanup(func() { promValue.Store("1") })
	setup(t, ns, rollout("manual", setWeight(50), analysisStep()))
	analysisTemplate(t, ns)
	startCandidate(t, ns)
	held := waitAgent(t, ns, "the hold", atStep(1, v1alpha1.AgentRuntimeReasonRolloutAnalysisFailed))
	if a := held.Status.Rollout.Analysis; a == nil || a.TemplateName != "quality" || a.Phase != "Failed" {
		t.Errorf("status.rollout.analysis %+v", a)
	}
	if held.Spec.Rollout.Candidate.PromptPackRef.Version != "2.0.0" {
		t.Errorf("manual mode rolled back on its own")
	}
}

// cordon marks the simulated Node (un)schedulable.
func cordon(t *testing.T, on bool) {
	t.Helper()
	n := &corev1.Node{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Name: controlplane.NodeName}, n); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(n.DeepCopy())
	n.Spec.Unschedulable = on
	if err := k8s.Patch(context.Background(), n, patch); err != nil {
		t.Fatal(err)
	}
}

// A candidate whose PromptPack version does not exist is held: no
// candidate Deployment, RolloutActive True RolloutCandidateHeld, the stable
// agent untouched; removing the candidate aborts.
func TestCandidateHeld(t *testing.T) {
	ns := "rollout-held"
	setup(t, ns, rollout("automatic", setWeight(50)))
	update(t, ns, func(a *v1alpha1.AgentRuntime) {
		a.Spec.Rollout.Candidate = &v1alpha1.AgentRuntimeRolloutCandidate{PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "pack", Version: "9.9.9"}}
	})
	held := waitAgent(t, ns, "the held candidate", func(ar *v1alpha1.AgentRuntime) bool {
		return rolloutReason(ar) == v1alpha1.AgentRuntimeReasonRolloutCandidateHeld
	})
	if !held.Status.Rollout.Active || held.Status.ActiveVersion != "1.0.0" || held.Status.Phase != v1alpha1.AgentRuntimePhaseRunning {
		t.Errorf("held: status.rollout %+v activeVersion %s phase %s", held.Status.Rollout, held.Status.ActiveVersion, held.Status.Phase)
	}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "support-candidate"}, &appsv1.Deployment{}); !apierrors.IsNotFound(err) {
		t.Errorf("a held candidate has a Deployment (err %v)", err)
	}
	update(t, ns, func(a *v1alpha1.AgentRuntime) { a.Spec.Rollout.Candidate = nil })
	waitAgent(t, ns, "the abort", func(ar *v1alpha1.AgentRuntime) bool {
		return rolloutReason(ar) == v1alpha1.AgentRuntimeReasonRolloutAborted
	})
}
