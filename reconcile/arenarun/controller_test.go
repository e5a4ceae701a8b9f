package arenarun

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/arena/queue"
	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source/gittest"
	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/redisacl"
	"github.com/altairalabs/omnia/test/arenaworker"
	"github.com/altairalabs/omnia/test/controlplane"
	"github.com/altairalabs/omnia/test/dnstest"
	testredis "github.com/altairalabs/omnia/test/redis"
)

var (
	testEnv *envtest.Environment
	direct  client.Client
	logs    = &controlplane.LogBuffer{}
	// defaultRedis is the operator-wide queue; groupRedis a service group's.
	defaultRedisURL, groupRedisURL string
	// licence is the controller's licence in force (enterprise unless a
	// test swaps it).
	licence = licensing.NewStore()
)

// testMaxItems is the controller's item cap in these tests.
const testMaxItems = 50

// enterprise grants every feature with no limit.
func enterprise() licensing.License {
	f := map[string]bool{}
	for _, n := range licensing.AllFeatures {
		f[n] = true
	}
	return licensing.License{Tier: licensing.TierEnterprise, Features: f, Limits: &licensing.Limits{}}
}

// resolver plays the ArenaProject controller's ref resolution: the ref
// "missing" names nothing; any other resolves to a fixed commit whose arena
// file declares three scenarios, or as many as the project's annotation
// "test/scenarios" says.
var resolver = SourceResolverFunc(func(_ context.Context, p *v1alpha1.ArenaProject, ref, _ string) (Resolved, error) {
	if ref == "missing" {
		return Resolved{}, fmt.Errorf("ref %q: %w", ref, ErrRefNotFound)
	}
	commit := strings.Repeat("ab", 20)
	shown := ref
	if shown == "" || shown == commit {
		shown = "main"
	}
	scen := []string{"scenarios/greet.yaml", "scenarios/refund.yaml", "scenarios/refund-slow.yaml"}
	if n := p.Annotations["test/scenarios"]; n != "" {
		var k int
		_, _ = fmt.Sscanf(n, "%d", &k)
		scen = nil
		for i := 0; i < k; i++ {
			scen = append(scen, fmt.Sprintf("scenarios/s%d.yaml", i))
		}
	}
	return Resolved{
		Source: v1alpha1.ArenaRunSource{Repository: "hosted", Ref: shown, Commit: commit,
			ContentPath: "arena/sources/" + p.Name + "/.arena/versions/" + commit},
		Scenarios: scen,
		Providers: []string{"file-provider"},
	}, nil
})

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	ctrl.SetLogger(zap.New(zap.WriteTo(logs), zap.UseDevMode(true)))
	t := &mainTB{}
	defer t.cleanup()
	// gittest's https servers (projectresolver_test.go) are trusted as
	// the system roots.
	if err := gittest.Trust(t.TempDir()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defaultRedisURL = testredis.Start(t).URL()
	groupRedisURL = testredis.Start(t).URL()
	tenantAdmin = testredis.Start(t)
	clusterDNS := dnstest.Start(t, serviceDNS)
	if t.failed {
		return 1
	}
	limitedAdminURL, err := limitedRedisUser(tenantAdmin.URL())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	provisioner := redisacl.NewProvisioner(func(u string) (goredis.UniversalClient, error) { return queue.Connect(u) }, 0)
	defer func() { _ = provisioner.Close() }()
	licence.Set(licensing.State{License: enterprise(), Verified: true})
	testEnv, err = controlplane.Start(controlplane.Options{Kinds: []string{"ArenaRun", "ArenaProject", "Workspace", "ArenaJob"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = testEnv.Stop() }()
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = v1alpha1.AddToScheme(scheme)
	direct, err = client.New(testEnv.Config, client.Options{Scheme: scheme})
	if err != nil {
		panic(err)
	}
	// Two controllers: the operator's default one, without a content
	// volume, reconciles every run but those labelled outputTestLabel;
	// the content one (output_envtest_test.go) only those.
	contentRoot = t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var dones []chan struct{}
	for _, c := range []struct {
		sel  string
		opts Options
	}{
		{"!" + outputTestLabel, Options{}},
		{outputTestLabel + "=content", Options{ContentRoot: contentRoot, Common: ctrlopts.Common{Clock: contentClock}}},
		// Per-namespace Redis credentials on an operator-wide queue whose
		// admin user may not (yet) run ACL (tenantcreds_test.go).
		{outputTestLabel + "=" + tenantCredsLabel, Options{DefaultRedisURL: limitedAdminURL, TenantCredentials: provisioner}},
	} {
		sel, err := labels.Parse(c.sel)
		if err != nil {
			panic(err)
		}
		mgr, err := ctrl.NewManager(testEnv.Config, ctrl.Options{Scheme: scheme,
			Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
			Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{&v1alpha1.ArenaRun{}: {Label: sel}}}})
		if err != nil {
			panic(err)
		}
		o := c.opts
		o.Resolver, o.MaxItems, o.License, o.SkipNameValidation = resolver, testMaxItems, licence, true
		if o.DefaultRedisURL == "" {
			o.DefaultRedisURL = defaultRedisURL
		}
		o.RedisResolver = clusterDNS
		o.PollInterval, o.QuotaRetry = 100*time.Millisecond, 200*time.Millisecond
		if err := SetupWithManager(mgr, o); err != nil {
			panic(err)
		}
		done := make(chan struct{})
		dones = append(dones, done)
		go func() {
			defer close(done)
			if err := mgr.Start(ctx); err != nil {
				fmt.Fprintln(os.Stderr, "manager:", err)
			}
		}()
	}
	code := m.Run()
	cancel()
	for _, done := range dones {
		<-done
	}
	if code != 0 {
		s := logs.String()
		if len(s) > 6000 {
			s = s[len(s)-6000:]
		}
		fmt.Fprintln(os.Stderr, "controller log tail:\n"+s)
	}
	return code
}

// mainTB lets TestMain start redis-servers with the test helper.
type mainTB struct {
	testing.TB
	cleanups []func()
	failed   bool
	dirs     []string
}

func (t *mainTB) Helper()          {}
func (t *mainTB) Cleanup(f func()) { t.cleanups = append(t.cleanups, f) }
func (t *mainTB) Fatalf(f string, a ...any) {
	t.failed = true
	fmt.Fprintf(os.Stderr, f+"\n", a...)
	panic("redis")
}
func (t *mainTB) TempDir() string {
	d, err := os.MkdirTemp("", "arenarun-redis-")
	if err != nil {
		panic(err)
	}
	t.dirs = append(t.dirs, d)
	return d
}
func (t *mainTB) cleanup() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
	for _, d := range t.dirs {
		_ = os.RemoveAll(d)
	}
}

// --- fixtures ---

func namespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "arun-"}}
	if err := direct.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

func readyProject(t *testing.T, ns, name string, ann map[string]string) {
	t.Helper()
	ctx := context.Background()
	p := &v1alpha1.ArenaProject{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: ann}}
	if err := direct.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	p.Status.Phase = v1alpha1.ArenaProjectPhaseReady
	if err := direct.Status().Update(ctx, p); err != nil {
		t.Fatal(err)
	}
}

func workspace(t *testing.T, ns string, spec v1alpha1.WorkspaceSpec) *v1alpha1.Workspace {
	t.Helper()
	spec.Namespace = v1alpha1.WorkspaceNamespace{Name: ns}
	ws := &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: "ws-" + ns}, Spec: spec}
	if err := direct.Create(context.Background(), ws); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = direct.Delete(context.Background(), ws) })
	return ws
}

func providers(names ...string) map[string]v1alpha1.ArenaJobProviderGroup {
	var es []v1alpha1.ArenaJobProviderEntry
	for _, n := range names {
		es = append(es, v1alpha1.ArenaJobProviderEntry{ProviderRef: &v1alpha1.NamespacedObjectReference{Name: n}})
	}
	return map[string]v1alpha1.ArenaJobProviderGroup{"default": {Entries: es}}
}

func newRun(t *testing.T, ns, name string, tmpl v1alpha1.ArenaJobSpec) *v1alpha1.ArenaRun {
	t.Helper()
	if tmpl.SourceRef.Name == "" {
		tmpl.SourceRef.Name = "proj"
	}
	run := &v1alpha1.ArenaRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.ArenaRunSpec{JobRef: v1alpha1.LocalObjectReference{Name: "job"}, Template: tmpl}}
	if err := direct.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	return run
}

func get(t *testing.T, ns, name string) *v1alpha1.ArenaRun {
	t.Helper()
	run := &v1alpha1.ArenaRun{}
	if err := direct.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, run); err != nil {
		t.Fatal(err)
	}
	return run
}

// waitFor polls the run until ok holds (at most 30s).
func waitFor(t *testing.T, ns, name, what string, ok func(*v1alpha1.ArenaRun) bool) *v1alpha1.ArenaRun {
	t.Helper()
	var last *v1alpha1.ArenaRun
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		last = &v1alpha1.ArenaRun{}
		if err := direct.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, last); err != nil {
			return false, nil
		}
		return ok(last), nil
	})
	if err != nil {
		b, _ := json.MarshalIndent(last.Status, "", "  ")
		t.Fatalf("run %s/%s never %s; status:\n%s", ns, name, what, b)
	}
	return last
}

func phaseIs(p v1alpha1.ArenaRunPhase) func(*v1alpha1.ArenaRun) bool {
	return func(r *v1alpha1.ArenaRun) bool { return r.Status.Phase == p }
}

func condOf(r *v1alpha1.ArenaRun, typ string) *metav1.Condition {
	return meta.FindStatusCondition(r.Status.Conditions, typ)
}

// runQueue opens the run's queue on url, as a worker pod would.
func runQueue(t *testing.T, url, ns, name string) *queue.Queue {
	t.Helper()
	c, err := queue.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return queue.New(c, ns, name)
}

// --- tests ---

// A manual evaluation run: source pinned, matrix enqueued (scenarios
// filtered × the template's providers × trials), the worker Job created
// with the spec's defaults, the test worker plays the pods, the run ends
// Succeeded with the summary.
func TestEvaluationRunSucceedsWithSummary(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	readyProject(t, ns, "proj", nil)
	newRun(t, ns, "eval", v1alpha1.ArenaJobSpec{
		Type: v1alpha1.ArenaJobTypeEvaluation, Trials: ptr.To[int32](2), Verbose: true,
		Scenarios: &v1alpha1.ArenaJobScenarios{Exclude: []string{"*-slow.yaml"}},
		Providers: providers("gpt", "claude"),
	})
	run := waitFor(t, ns, "eval", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
	if run.Status.Source == nil || run.Status.Source.Commit != strings.Repeat("ab", 20) || run.Status.Source.Ref != "main" {
		t.Fatalf("source %+v", run.Status.Source)
	}
	if q := run.Status.Queue; q == nil || q.Source != v1alpha1.ArenaRunQueueDefault || q.SecretRef != nil {
		t.Fatalf("queue %+v, want Default without secretRef", q)
	}
	if p := run.Status.Progress; p == nil || p.Total != 8 {
		t.Fatalf("progress %+v, want total 8 (2 scenarios × 2 providers × 2 trials)", p)
	}
	if run.Status.Workers != 1 || run.Status.StartTime == nil {
		t.Fatalf("workers %d startTime %v", run.Status.Workers, run.Status.StartTime)
	}
	for _, c := range []string{v1alpha1.ArenaRunConditionSourceValid, v1alpha1.ArenaRunConditionJobCreated, v1alpha1.ArenaRunConditionProgressing, v1alpha1.ArenaRunConditionReady} {
		if cc := condOf(run, c); cc == nil || cc.Status != metav1.ConditionTrue {
			t.Errorf("condition %s = %+v, want True", c, cc)
		}
	}
	job := &batchv1.Job{}
	if err := direct.Get(ctx, client.ObjectKey{Namespace: ns, Name: "eval"}, job); err != nil {
		t.Fatal(err)
	}
	if *job.Spec.Parallelism != 1 || *job.Spec.TTLSecondsAfterFinished != 3600 || job.OwnerReferences[0].Name != "eval" {
		t.Fatalf("job spec %+v", job.Spec)
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range job.Spec.Template.Spec.Containers[0].Env {
		env[e.Name] = e
	}
	if env["LOG_LEVEL"].Value != "debug" || env["ARENA_VERBOSE"].Value != "true" || env["ARENA_SOURCE_COMMIT"].Value != strings.Repeat("ab", 20) {
		t.Fatalf("env %v", env)
	}
	if ref := env["ARENA_QUEUE_REDIS_URL"].ValueFrom; ref == nil || ref.SecretKeyRef.Name != "eval-queue-redis" || env["ARENA_QUEUE_REDIS_URL"].Value != "" {
		t.Fatalf("queue URL env %+v: want a secretKeyRef, never a value", env["ARENA_QUEUE_REDIS_URL"])
	}
	// The URL lives in the run-owned Secret only.
	sec := &corev1.Secret{}
	if err := direct.Get(ctx, client.ObjectKey{Namespace: ns, Name: "eval-queue-redis"}, sec); err != nil {
		t.Fatal(err)
	}
	if string(sec.Data["url"]) != defaultRedisURL || sec.OwnerReferences[0].Name != "eval" {
		t.Fatalf("queue Secret %v owners %v", sec.Data, sec.OwnerReferences)
	}

	// The workers: one item (refund on claude, trial 1) fails.
	q := runQueue(t, defaultRedisURL, ns, "eval")
	st, err := arenaworker.Run(ctx, q, 2, func(it queue.Item) queue.Result {
		ok := !(strings.Contains(it.Scenario, "refund") && it.Provider == "provider:claude" && it.Trial == 1)
		r := queue.Result{Passed: ok, DurationMs: 200, Tokens: 50, Cost: 0.0015, Assertions: map[string]bool{"tone": ok}}
		if !ok {
			r.Error = "assertion tone failed"
		}
		return r
	})
	if err != nil || st.Executed != 8 {
		t.Fatalf("workers executed %d: %v", st.Executed, err)
	}
	run = waitFor(t, ns, "eval", "Succeeded", phaseIs(v1alpha1.ArenaRunPhaseSucceeded))
	want := map[string]string{"passRate": "87.5", "totalItems": "8", "passedItems": "7", "failedItems": "1",
		"avgDurationMs": "200", "totalTokens": "400", "totalCost": "0.0120"}
	for k, v := range want {
		if got := run.Status.Result.Summary[k]; got != v {
			t.Errorf("summary[%s] = %q, want %q", k, got, v)
		}
	}
	if !strings.Contains(run.Status.Result.Summary["details"], `"cells"`) {
		t.Errorf("details %s", run.Status.Result.Summary["details"])
	}
	if p := run.Status.Progress; p.Completed != 7 || p.Failed != 1 || p.Pending != 0 {
		t.Errorf("progress %+v", p)
	}
	if run.Status.CompletionTime == nil || condOf(run, v1alpha1.ArenaRunConditionProgressing).Status != metav1.ConditionFalse {
		t.Errorf("completion %v progressing %+v", run.Status.CompletionTime, condOf(run, v1alpha1.ArenaRunConditionProgressing))
	}
	b, _ := json.Marshal(run.Status)
	if strings.Contains(string(b), strings.TrimPrefix(defaultRedisURL, "redis://")) {
		t.Fatal("the Redis URL is in the status")
	}
	// Events on the transitions.
	assertEvent(t, ns, "eval", "Started")
	assertEvent(t, ns, "eval", v1alpha1.ArenaRunReasonSucceeded)
	if strings.Contains(logs.String(), strings.TrimPrefix(defaultRedisURL, "redis://")) {
		t.Fatal("the Redis URL is in the controller's log")
	}
}

func assertEvent(t *testing.T, ns, name, reason string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		list := &eventsv1.EventList{}
		if err := direct.List(ctx, list, client.InNamespace(ns)); err != nil {
			return false, nil
		}
		for _, e := range list.Items {
			if e.Regarding.Name == name && e.Reason == reason {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Errorf("no event %s on %s", reason, name)
	}
}

// spec.cancelled deletes the Job, drains what is still queued and ends the
// run Cancelled.
func TestCancelDeletesJobAndDrainsQueue(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	readyProject(t, ns, "proj", nil)
	newRun(t, ns, "cancel", v1alpha1.ArenaJobSpec{Trials: ptr.To[int32](4), Providers: providers("gpt")})
	waitFor(t, ns, "cancel", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
	q := runQueue(t, defaultRedisURL, ns, "cancel")
	if n, err := arenaworker.RunN(ctx, q, 3, arenaworker.Pass); err != nil || n != 3 {
		t.Fatalf("ran %d: %v", n, err)
	}
	run := get(t, ns, "cancel")
	patch := client.MergeFrom(run.DeepCopy())
	run.Spec.Cancelled = true
	if err := direct.Patch(ctx, run, patch); err != nil {
		t.Fatal(err)
	}
	run = waitFor(t, ns, "cancel", "Cancelled", phaseIs(v1alpha1.ArenaRunPhaseCancelled))
	if p := run.Status.Progress; p.Total != 12 || p.Completed != 3 || p.Pending != 0 {
		t.Fatalf("progress %+v, want 12 total, 3 completed, 0 pending", p)
	}
	if c := condOf(run, v1alpha1.ArenaRunConditionReady); c.Reason != v1alpha1.ArenaRunReasonCancelled || !strings.Contains(c.Message, "9 queued items drained") {
		t.Fatalf("ready %+v", c)
	}
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		job := &batchv1.Job{}
		err := direct.Get(ctx, client.ObjectKey{Namespace: ns, Name: "cancel"}, job)
		return apierrors.IsNotFound(err) || (err == nil && !job.DeletionTimestamp.IsZero()), nil
	})
	if err != nil {
		t.Fatal("the worker Job was not deleted")
	}
	if _, ok, _ := q.Pop(ctx); ok {
		t.Fatal("a worker still got an item after the cancel")
	}
}

// A failed threshold fails a load test with TestsFailed and records each
// verdict in the summary.
func TestLoadTestThresholdFailsRun(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	readyProject(t, ns, "proj", nil)
	newRun(t, ns, "lt", v1alpha1.ArenaJobSpec{Type: v1alpha1.ArenaJobTypeLoadTest, Providers: providers("gpt"),
		Scenarios: &v1alpha1.ArenaJobScenarios{Include: []string{"greet.yaml"}}, Trials: ptr.To[int32](4),
		LoadTest: &v1alpha1.ArenaJobLoadTest{Concurrency: ptr.To[int32](2), Thresholds: []v1alpha1.ArenaJobLoadTestThreshold{
			{Metric: v1alpha1.ArenaJobMetricLatencyP95, Operator: "<", Value: "3s"},
			{Metric: v1alpha1.ArenaJobMetricErrorRate, Operator: "<=", Value: "0.01"},
			{Metric: v1alpha1.ArenaJobMetricArrivalLag, Operator: "<", Value: "0.02"},
		}}})
	waitFor(t, ns, "lt", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
	n := 0
	if _, err := arenaworker.Run(ctx, runQueue(t, defaultRedisURL, ns, "lt"), 1, func(queue.Item) queue.Result {
		n++
		return queue.Result{Passed: n != 2, LatencyMs: 3200, DurationMs: 3300}
	}); err != nil {
		t.Fatal(err)
	}
	run := waitFor(t, ns, "lt", "Failed", phaseIs(v1alpha1.ArenaRunPhaseFailed))
	s := run.Status.Result.Summary
	if c := condOf(run, v1alpha1.ArenaRunConditionReady); c.Reason != v1alpha1.ArenaRunReasonTestsFailed {
		t.Fatalf("ready %+v", c)
	}
	want := map[string]string{
		"threshold:latency_p95": "3.20s < 3s FAIL",
		"threshold:error_rate":  "0.2500 <= 0.01 FAIL",
		"threshold:arrival_lag": "unavailable",
		"thresholds_passed":     "1/3 passed",
	}
	for k, v := range want {
		if s[k] != v {
			t.Errorf("summary[%s] = %q, want %q", k, s[k], v)
		}
	}
}

// budgetLimit: the report crossing the cap stops the run, discards the
// queue, and the run fails with BudgetExceeded.
func TestBudgetLimitStopsRun(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	readyProject(t, ns, "proj", nil)
	newRun(t, ns, "budget", v1alpha1.ArenaJobSpec{BudgetLimit: "0.25", BudgetCurrency: "USD",
		Providers: providers("gpt"), Trials: ptr.To[int32](5)})
	waitFor(t, ns, "budget", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
	st, err := arenaworker.Run(ctx, runQueue(t, defaultRedisURL, ns, "budget"), 1, func(queue.Item) queue.Result {
		return queue.Result{Passed: true, DurationMs: 10, Cost: 0.1}
	})
	if err != nil || st.Executed != 3 {
		t.Fatalf("executed %d (want 3: the third report crosses 0.25): %v", st.Executed, err)
	}
	run := waitFor(t, ns, "budget", "Failed", phaseIs(v1alpha1.ArenaRunPhaseFailed))
	if c := condOf(run, v1alpha1.ArenaRunConditionReady); c.Reason != v1alpha1.ArenaRunReasonBudgetExceeded {
		t.Fatalf("ready %+v", c)
	}
	s := run.Status.Result.Summary
	if s["budgetBreached"] != "true" || s["totalCost"] != "0.3000" || s["drainedItems"] != "12" {
		t.Fatalf("summary %v", s)
	}
	assertEvent(t, ns, "budget", v1alpha1.ArenaRunReasonBudgetExceeded)
}

// The source and the service group decide where a run goes.
func TestPendingAndFailures(t *testing.T) {
	ns := namespace(t)
	// No project yet: Pending with SourceValid=False.
	newRun(t, ns, "waits", v1alpha1.ArenaJobSpec{SourceRef: v1alpha1.LocalObjectReference{Name: "later"}})
	run := waitFor(t, ns, "waits", "waiting for its project", func(r *v1alpha1.ArenaRun) bool {
		c := condOf(r, v1alpha1.ArenaRunConditionSourceValid)
		return c != nil && c.Reason == v1alpha1.ArenaRunReasonProjectNotFound
	})
	if run.Status.Phase != v1alpha1.ArenaRunPhasePending || run.Status.Source != nil {
		t.Fatalf("phase %s source %+v", run.Status.Phase, run.Status.Source)
	}
	// The project turns Ready: the run starts.
	readyProject(t, ns, "later", nil)
	waitFor(t, ns, "waits", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))

	readyProject(t, ns, "proj", nil)
	cases := []struct {
		name   string
		tmpl   v1alpha1.ArenaJobSpec
		reason string
	}{
		{"ref-missing", v1alpha1.ArenaJobSpec{Ref: "missing"}, v1alpha1.ArenaRunReasonRefNotFound},
		{"bad-entry", v1alpha1.ArenaJobSpec{Providers: map[string]v1alpha1.ArenaJobProviderGroup{"default": {Entries: []v1alpha1.ArenaJobProviderEntry{{}}}}},
			v1alpha1.ArenaRunReasonInvalidProviderEntry},
		{"too-large", v1alpha1.ArenaJobSpec{Providers: providers("a", "b"), Trials: ptr.To[int32](10)}, v1alpha1.ArenaRunReasonWorkMatrixTooLarge},
		{"s3", v1alpha1.ArenaJobSpec{Output: &v1alpha1.ArenaJobOutput{Type: v1alpha1.ArenaJobOutputTypeS3, S3: &v1alpha1.ArenaJobOutputS3{Bucket: "b"}}}, v1alpha1.ArenaRunReasonOutputNotSupported},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			newRun(t, ns, c.name, c.tmpl)
			run := waitFor(t, ns, c.name, "Failed", phaseIs(v1alpha1.ArenaRunPhaseFailed))
			if r := condOf(run, v1alpha1.ArenaRunConditionReady); r.Reason != c.reason {
				t.Fatalf("reason %s, want %s (%s)", r.Reason, c.reason, r.Message)
			}
			if run.Status.CompletionTime == nil {
				t.Fatal("no completionTime")
			}
		})
	}
}

// Service groups: several are ambiguous; one with a redis pins the queue
// to it (secretRef, configHash), and a later change of that redis sets
// QueueRedisDrifted without moving the run.
func TestServiceGroupQueue(t *testing.T) {
	ctx := context.Background()
	t.Run("ambiguous", func(t *testing.T) {
		ns := namespace(t)
		readyProject(t, ns, "proj", nil)
		workspace(t, ns, v1alpha1.WorkspaceSpec{Services: []v1alpha1.WorkspaceServiceGroup{
			{Name: "a", Redis: &v1alpha1.WorkspaceRedis{URL: groupRedisURL}}, {Name: "b"}}})
		newRun(t, ns, "amb", v1alpha1.ArenaJobSpec{})
		run := waitFor(t, ns, "amb", "Failed", phaseIs(v1alpha1.ArenaRunPhaseFailed))
		if r := condOf(run, v1alpha1.ArenaRunConditionReady); r.Reason != v1alpha1.ArenaRunReasonServiceGroupAmbiguous {
			t.Fatalf("ready %+v", r)
		}
	})
	t.Run("not-found", func(t *testing.T) {
		ns := namespace(t)
		readyProject(t, ns, "proj", nil)
		workspace(t, ns, v1alpha1.WorkspaceSpec{Services: []v1alpha1.WorkspaceServiceGroup{
			{Name: "a", Redis: &v1alpha1.WorkspaceRedis{URL: groupRedisURL}}}})
		newRun(t, ns, "nf", v1alpha1.ArenaJobSpec{ServiceGroup: "zzz"})
		run := waitFor(t, ns, "nf", "Failed", phaseIs(v1alpha1.ArenaRunPhaseFailed))
		if r := condOf(run, v1alpha1.ArenaRunConditionReady); r.Reason != v1alpha1.ArenaRunReasonServiceGroupNotFound {
			t.Fatalf("ready %+v", r)
		}
	})
	t.Run("no-session-api", func(t *testing.T) {
		ns := namespace(t)
		readyProject(t, ns, "proj", nil)
		workspace(t, ns, v1alpha1.WorkspaceSpec{Services: []v1alpha1.WorkspaceServiceGroup{{Name: "a"}}})
		newRun(t, ns, "nosess", v1alpha1.ArenaJobSpec{SessionRecording: true})
		run := waitFor(t, ns, "nosess", "held back", func(r *v1alpha1.ArenaRun) bool {
			c := condOf(r, v1alpha1.ArenaRunConditionJobCreated)
			return c != nil && c.Reason == v1alpha1.ArenaRunReasonJobCreationFailed
		})
		if run.Status.Phase != v1alpha1.ArenaRunPhasePending {
			t.Fatalf("phase %s", run.Status.Phase)
		}
	})
	t.Run("pinned-and-drift", func(t *testing.T) {
		ns := namespace(t)
		readyProject(t, ns, "proj", nil)
		ws := workspace(t, ns, v1alpha1.WorkspaceSpec{Services: []v1alpha1.WorkspaceServiceGroup{
			{Name: "grp", Redis: &v1alpha1.WorkspaceRedis{URL: groupRedisURL}}}})
		newRun(t, ns, "grp", v1alpha1.ArenaJobSpec{Providers: providers("gpt")})
		run := waitFor(t, ns, "grp", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
		q := run.Status.Queue
		if q.Source != v1alpha1.ArenaRunQueueServiceGroup || q.ServiceGroup != "grp" || q.SecretRef == nil ||
			q.SecretRef.Name != "grp-queue-redis" || q.SecretRef.Key != "url" || q.ConfigHash == "" {
			t.Fatalf("queue %+v", q)
		}
		if c := condOf(run, v1alpha1.ArenaRunConditionQueueRedisDrifted); c == nil || c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.ArenaRunReasonPinned {
			t.Fatalf("drift %+v", c)
		}
		// The items are on the group's Redis, not the default one.
		if _, ok, _ := runQueue(t, defaultRedisURL, ns, "grp").Pop(ctx); ok {
			t.Fatal("the run's items are on the default Redis")
		}
		patch := client.MergeFrom(ws.DeepCopy())
		ws.Spec.Services[0].Redis.URL = defaultRedisURL
		if err := direct.Patch(ctx, ws, patch); err != nil {
			t.Fatal(err)
		}
		run = waitFor(t, ns, "grp", "drifted", func(r *v1alpha1.ArenaRun) bool {
			c := condOf(r, v1alpha1.ArenaRunConditionQueueRedisDrifted)
			return c != nil && c.Status == metav1.ConditionTrue && c.Reason == v1alpha1.ArenaRunReasonServiceGroupRedisChanged
		})
		if run.Status.Queue.ConfigHash != q.ConfigHash {
			t.Fatal("the pinned queue moved")
		}
		if _, err := arenaworker.Run(ctx, runQueue(t, groupRedisURL, ns, "grp"), 1, arenaworker.Pass); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ns, "grp", "Succeeded", phaseIs(v1alpha1.ArenaRunPhaseSucceeded))
	})
}

// maxWorkersPerJob caps the Job's parallelism and status.workers, and the
// quota condition says so.
func TestWorkersClampedByWorkspace(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	readyProject(t, ns, "proj", nil)
	workspace(t, ns, v1alpha1.WorkspaceSpec{Quotas: &v1alpha1.WorkspaceQuotas{Arena: &v1alpha1.WorkspaceArenaQuota{MaxWorkersPerJob: ptr.To[int32](2)}}})
	newRun(t, ns, "clamp", v1alpha1.ArenaJobSpec{Providers: providers("gpt"),
		Workers: &v1alpha1.ArenaJobWorkers{Replicas: ptr.To[int32](5)}})
	run := waitFor(t, ns, "clamp", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
	if run.Status.Workers != 2 {
		t.Fatalf("workers %d, want 2", run.Status.Workers)
	}
	if c := condOf(run, v1alpha1.ArenaRunConditionWithinWorkspaceQuota); c == nil || c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.ArenaRunReasonWorkersClamped {
		t.Fatalf("quota condition %+v", c)
	}
	job := &batchv1.Job{}
	if err := direct.Get(ctx, client.ObjectKey{Namespace: ns, Name: "clamp"}, job); err != nil {
		t.Fatal(err)
	}
	if *job.Spec.Parallelism != 2 {
		t.Fatalf("parallelism %d", *job.Spec.Parallelism)
	}
}

// A run the licence does not cover fails with LicenseViolation: a load test
// on open-core, and more workers than the licence's maxWorkerReplicas.
func TestLicenceViolationFailsRun(t *testing.T) {
	ns := namespace(t)
	readyProject(t, ns, "proj", nil)
	readyProject(t, ns, "big", map[string]string{"test/scenarios": "12"})
	limited := enterprise()
	limited.Limits = &licensing.Limits{MaxWorkerReplicas: 2, MaxScenarios: 10}
	cases := []struct {
		name string
		lic  licensing.License
		tmpl v1alpha1.ArenaJobSpec
		rule string
	}{
		{"loadtest-open-core", licensing.OpenCore(), v1alpha1.ArenaJobSpec{Type: v1alpha1.ArenaJobTypeLoadTest}, "arenajob/license-load-testing"},
		{"too-many-scenarios", limited, v1alpha1.ArenaJobSpec{SourceRef: v1alpha1.LocalObjectReference{Name: "big"}}, "arenajob/license-max-scenarios"},
		{"too-many-workers", limited, v1alpha1.ArenaJobSpec{Workers: &v1alpha1.ArenaJobWorkers{Replicas: ptr.To[int32](3)}}, "arenajob/license-max-worker-replicas"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			licence.Set(licensing.State{License: c.lic, Verified: true})
			defer licence.Set(licensing.State{License: enterprise(), Verified: true})
			newRun(t, ns, c.name, c.tmpl)
			run := waitFor(t, ns, c.name, "Failed", phaseIs(v1alpha1.ArenaRunPhaseFailed))
			r := condOf(run, v1alpha1.ArenaRunConditionReady)
			if r.Reason != "LicenseViolation" || !strings.Contains(r.Message, "["+c.rule+"]") {
				t.Fatalf("ready %+v, want LicenseViolation from %s", r, c.rule)
			}
		})
	}
	// A licensed load test runs.
	newRun(t, ns, "licensed", v1alpha1.ArenaJobSpec{Type: v1alpha1.ArenaJobTypeLoadTest, Providers: providers("gpt")})
	waitFor(t, ns, "licensed", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
}

// completeJob plays the Job controller (none runs in envtest): every pod of
// the run's worker Job succeeded.
func completeJob(t *testing.T, ns, name string) {
	t.Helper()
	ctx := context.Background()
	job := &batchv1.Job{}
	if err := direct.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, job); err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	job.Status.StartTime = &now
	job.Status.CompletionTime = &now
	job.Status.Succeeded = ptr.Deref(job.Spec.Completions, 1)
	job.Status.Conditions = []batchv1.JobCondition{
		{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastTransitionTime: now},
		{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: now},
	}
	if err := direct.Status().Update(ctx, job); err != nil {
		t.Fatal(err)
	}
}

// A duration load test: no matrix, the worker generates items until its
// clock runs out (here: eight items on a fake clock, then a result from a
// worker older than endedAtMs), the Job completes, and the run ends
// Succeeded with the per-second timeSeries of what the worker reported.
func TestDurationLoadTestTimeSeries(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	readyProject(t, ns, "proj", nil)
	newRun(t, ns, "soak", v1alpha1.ArenaJobSpec{Type: v1alpha1.ArenaJobTypeLoadTest, Providers: providers("gpt"),
		LoadTest: &v1alpha1.ArenaJobLoadTest{Duration: "1m", Thresholds: []v1alpha1.ArenaJobLoadTestThreshold{
			{Metric: v1alpha1.ArenaJobMetricErrorRate, Operator: "<", Value: "0.5"},
		}}})
	run := waitFor(t, ns, "soak", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
	if p := run.Status.Progress; p == nil || p.Total != 0 {
		t.Fatalf("progress %+v: a duration load test queues no matrix", p)
	}
	q := runQueue(t, defaultRedisURL, ns, "soak")
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakePassiveClock(start)
	// Three items end in second 0, none in second 1, five in second 2
	// (the fourth overall fails).
	ends := []time.Duration{100 * time.Millisecond, 400 * time.Millisecond, 900 * time.Millisecond,
		2100 * time.Millisecond, 2200 * time.Millisecond, 2500 * time.Millisecond, 2600 * time.Millisecond, 2999 * time.Millisecond}
	n := 0
	pool := []queue.Item{{Scenario: "scenarios/greet.yaml", Provider: "provider:gpt"}, {Scenario: "scenarios/refund.yaml", Provider: "provider:gpt"}}
	st, err := arenaworker.Generate(ctx, q, pool, len(ends), clk, func(queue.Item) queue.Result {
		clk.SetTime(start.Add(ends[n]))
		n++
		return queue.Result{Passed: n != 4, LatencyMs: float64(n * 100), DurationMs: float64(n*100 + 5)}
	})
	if err != nil || st.Executed != len(ends) {
		t.Fatalf("generated %d: %v", st.Executed, err)
	}
	// A worker older than endedAtMs: counted, left out of the series.
	if _, err := q.ReportGenerated(ctx, queue.Result{ItemID: "old", Scenario: "scenarios/greet.yaml", Provider: "provider:gpt", Passed: true, LatencyMs: 50}); err != nil {
		t.Fatal(err)
	}
	completeJob(t, ns, "soak")
	run = waitFor(t, ns, "soak", "Succeeded", phaseIs(v1alpha1.ArenaRunPhaseSucceeded))
	s := run.Status.Result.Summary
	want := map[string]string{
		"timeSeries": `[{"t":0,"rps":3,"errorRate":0,"p50":200,"p95":300,"p99":300},` +
			`{"t":1,"rps":0},` +
			`{"t":2,"rps":5,"errorRate":0.2,"p50":600,"p95":800,"p99":800}]`,
		"timeSeriesStart":        "2026-03-01T12:00:00Z",
		"timeSeriesStepSeconds":  "1",
		"timeSeriesUntimedItems": "1",
		"totalItems":             "9",
		"failedItems":            "1",
		"threshold:error_rate":   "0.1111 < 0.5 PASS",
	}
	for k, v := range want {
		if s[k] != v {
			t.Errorf("summary[%s] = %q, want %q", k, s[k], v)
		}
	}
	if p := run.Status.Progress; p.Total != 9 || p.Completed != 8 || p.Failed != 1 {
		t.Errorf("progress %+v", p)
	}
}
