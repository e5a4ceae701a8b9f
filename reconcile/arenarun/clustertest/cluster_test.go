package clustertest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/arena/queue"
	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/reconcile/arenarun"
	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/test/arenaworker"
	"github.com/altairalabs/omnia/test/controlplane"
	testredis "github.com/altairalabs/omnia/test/redis"
)

func enterprise() licensing.License {
	f := map[string]bool{}
	for _, n := range licensing.AllFeatures {
		f[n] = true
	}
	return licensing.License{Tier: licensing.TierEnterprise, Features: f, Limits: &licensing.Limits{}}
}

// A run on a real cluster: its worker Job is created, the Job controller
// makes its pods and kwok runs them to completion; the test worker does the
// pods' work on the real Redis, and the run ends Succeeded with its summary.
func TestRunOnLocalCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the local cluster")
	}
	redisURL := testredis.Start(t).URL()
	cl, err := controlplane.StartCluster(controlplane.Options{Kinds: []string{"ArenaRun", "ArenaProject", "Workspace"}}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cl.Stop() }()
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = v1alpha1.AddToScheme(scheme)
	c, err := client.New(cl.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(cl.Config, ctrl.Options{Scheme: scheme,
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	commit := strings.Repeat("c0", 20)
	resolver := arenarun.SourceResolverFunc(func(_ context.Context, p *v1alpha1.ArenaProject, ref, _ string) (arenarun.Resolved, error) {
		return arenarun.Resolved{Source: v1alpha1.ArenaRunSource{Repository: "hosted", Ref: "main", Commit: commit},
			Scenarios: []string{"a.yaml", "b.yaml"}}, nil
	})
	if err := arenarun.SetupWithManager(mgr, arenarun.Options{Resolver: resolver, DefaultRedisURL: redisURL,
		PollInterval: 200 * time.Millisecond, Common: ctrlopts.Common{License: enterprise(), SkipNameValidation: true}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = mgr.Start(ctx) }()
	defer func() { cancel(); wg.Wait() }()

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "arena"}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	p := &v1alpha1.ArenaProject{ObjectMeta: metav1.ObjectMeta{Namespace: "arena", Name: "proj"}}
	if err := c.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	p.Status.Phase = v1alpha1.ArenaProjectPhaseReady
	if err := c.Status().Update(ctx, p); err != nil {
		t.Fatal(err)
	}

	// The pods' work: once the controller has enqueued the run's matrix
	// (waited on through the queue's own state, not a sleep), the test
	// worker plays the Job's two workers against the real Redis.
	rdb, err := queue.Connect(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rdb.Close() }()
	q := queue.New(rdb, "arena", "nightly")

	run := &v1alpha1.ArenaRun{ObjectMeta: metav1.ObjectMeta{Namespace: "arena", Name: "nightly"},
		Spec: v1alpha1.ArenaRunSpec{JobRef: v1alpha1.LocalObjectReference{Name: "nightly"}, Template: v1alpha1.ArenaJobSpec{
			SourceRef: v1alpha1.LocalObjectReference{Name: "proj"}, Trials: ptr.To[int32](3),
			Workers: &v1alpha1.ArenaJobWorkers{Replicas: ptr.To[int32](2)},
		}}}
	if err := c.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		m, _, err := q.State(ctx)
		return err == nil && m.Enqueued, nil
	}); err != nil {
		t.Fatalf("the controller never enqueued the run's matrix: %v", err)
	}
	workCtx, stopWork := context.WithTimeout(ctx, 2*time.Minute)
	defer stopWork()
	stats, err := arenaworker.Run(workCtx, q, 2, arenaworker.Pass)
	if err != nil {
		t.Fatalf("test worker: %v", err)
	}
	if stats.Executed != 6 {
		t.Fatalf("the workers executed %d items, want 6 (2 scenarios × 1 provider × 3 trials)", stats.Executed)
	}
	got := &v1alpha1.ArenaRun{}
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		return c.Get(ctx, client.ObjectKeyFromObject(run), got) == nil && got.Status.Phase == v1alpha1.ArenaRunPhaseSucceeded, nil
	}); err != nil {
		t.Fatalf("run phase %s, conditions %+v\n%s", got.Status.Phase, got.Status.Conditions, cl.Components.LogTails(20))
	}
	if got.Status.Result.Summary["passRate"] != "100.0" || got.Status.Result.Summary["totalItems"] != "6" || got.Status.Workers != 2 {
		t.Fatalf("summary %v workers %d", got.Status.Result.Summary, got.Status.Workers)
	}
	// The Job ran on the cluster: the Job controller made its pods and kwok
	// completed them.
	job := &batchv1.Job{}
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		if c.Get(ctx, client.ObjectKey{Namespace: "arena", Name: "nightly"}, job) != nil {
			return false, nil
		}
		return job.Status.Succeeded >= 2, nil
	}); err != nil {
		t.Fatalf("the worker Job did not complete on the cluster: %+v\n%s", job.Status, cl.Components.LogTails(30))
	}
}
