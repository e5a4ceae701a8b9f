package arenarun

import (
	"context"
	"net"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/arena/queue"
)

var t0 = metav1.NewTime(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))

func TestEvaluateThresholds(t *testing.T) {
	th := func(m v1alpha1.ArenaJobThresholdMetric, op v1alpha1.ArenaJobThresholdOperator, v string) v1alpha1.ArenaJobLoadTestThreshold {
		return v1alpha1.ArenaJobLoadTestThreshold{Metric: m, Operator: op, Value: v}
	}
	measuredAll := map[v1alpha1.ArenaJobThresholdMetric]measured{
		v1alpha1.ArenaJobMetricLatencyP95: {3200, true},
		v1alpha1.ArenaJobMetricErrorRate:  {0.015, true},
		v1alpha1.ArenaJobMetricTotalCost:  {12.5, true},
	}
	cases := []struct {
		name   string
		ths    []v1alpha1.ArenaJobLoadTestThreshold
		want   map[string]string
		failed bool
	}{
		{"duration fails", []v1alpha1.ArenaJobLoadTestThreshold{th("latency_p95", "<", "3s")},
			map[string]string{"threshold:latency_p95": "3.20s < 3s FAIL", "thresholds_passed": "0/1 passed"}, true},
		{"duration passes", []v1alpha1.ArenaJobLoadTestThreshold{th("latency_p95", "<=", "4s")},
			map[string]string{"threshold:latency_p95": "3.20s <= 4s PASS", "thresholds_passed": "1/1 passed"}, false},
		{"ratio", []v1alpha1.ArenaJobLoadTestThreshold{th("error_rate", ">=", "0.01")},
			map[string]string{"threshold:error_rate": "0.0150 >= 0.01 PASS", "thresholds_passed": "1/1 passed"}, false},
		{"cost", []v1alpha1.ArenaJobLoadTestThreshold{th("total_cost", ">", "50.00")},
			map[string]string{"threshold:total_cost": "12.5000 > 50.00 FAIL", "thresholds_passed": "0/1 passed"}, true},
		{"unavailable passes", []v1alpha1.ArenaJobLoadTestThreshold{th("arrival_lag", "<", "0.02")},
			map[string]string{"threshold:arrival_lag": "unavailable", "thresholds_passed": "1/1 passed"}, false},
		{"parse error fails", []v1alpha1.ArenaJobLoadTestThreshold{th("error_rate", "<", "50")},
			map[string]string{"threshold:error_rate": "parse error", "thresholds_passed": "0/1 passed"}, true},
		{"bad duration fails", []v1alpha1.ArenaJobLoadTestThreshold{th("latency_p95", "<", "3")},
			map[string]string{"threshold:latency_p95": "parse error", "thresholds_passed": "0/1 passed"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, failed := evaluateThresholds(c.ths, measuredAll)
			if !reflect.DeepEqual(got, c.want) || failed != c.failed {
				t.Fatalf("got %v failed %v, want %v %v", got, failed, c.want, c.failed)
			}
		})
	}
}

func TestLoadTestMetrics(t *testing.T) {
	res := []queue.Result{
		{Passed: true, LatencyMs: 100}, {Passed: true, LatencyMs: 200}, {Passed: false, DurationMs: 300, Error: "HTTP 429 from vendor"},
		{Passed: false, LatencyMs: 400, Error: "Too Many Requests"}, {Passed: false, LatencyMs: 500, Error: "timeout after 4290ms"},
	}
	seq := loadTestMetrics(&v1alpha1.ArenaJobLoadTest{}, res, queue.Counters{})
	if _, ok := seq[v1alpha1.ArenaJobMetricLatencyP95]; ok {
		t.Fatal("a sequential load test has no distribution: percentiles must be unavailable")
	}
	if got := seq[v1alpha1.ArenaJobMetricRateLimitRate].value; got != 0.4 {
		t.Fatalf("rate_limit_rate %v, want 0.4 (a standalone 429 and too many requests, not 4290ms)", got)
	}
	if got := seq[v1alpha1.ArenaJobMetricLatencyAvg].value; got != 300 {
		t.Fatalf("latency_avg %v", got)
	}
	conc := loadTestMetrics(&v1alpha1.ArenaJobLoadTest{Concurrency: ptr.To[int32](4)}, res, queue.Counters{})
	if got := conc[v1alpha1.ArenaJobMetricLatencyP95].value; got != 500 {
		t.Fatalf("p95 %v", got)
	}
	if got := conc[v1alpha1.ArenaJobMetricLatencyP50].value; got != 300 {
		t.Fatalf("p50 %v", got)
	}
	rate := loadTestMetrics(&v1alpha1.ArenaJobLoadTest{Rate: ptr.To[int32](5), Duration: "1m"}, res, queue.Counters{ArrivalsOffered: 100, ArrivalsMissed: 3})
	if got := rate[v1alpha1.ArenaJobMetricArrivalLag].value; got != 0.03 {
		t.Fatalf("arrival_lag %v", got)
	}
}

func TestSetQueueRedisDrifted(t *testing.T) {
	cases := []struct {
		name    string
		queue   *v1alpha1.ArenaRunQueue
		current string
		status  metav1.ConditionStatus
		reason  string
	}{
		{"default queue has none", &v1alpha1.ArenaRunQueue{Source: v1alpha1.ArenaRunQueueDefault}, "x", "", ""},
		{"same hash", &v1alpha1.ArenaRunQueue{Source: v1alpha1.ArenaRunQueueServiceGroup, ConfigHash: "h1"}, "h1", metav1.ConditionFalse, v1alpha1.ArenaRunReasonPinned},
		{"changed", &v1alpha1.ArenaRunQueue{Source: v1alpha1.ArenaRunQueueServiceGroup, ConfigHash: "h1"}, "h2", metav1.ConditionTrue, v1alpha1.ArenaRunReasonServiceGroupRedisChanged},
		{"redis removed", &v1alpha1.ArenaRunQueue{Source: v1alpha1.ArenaRunQueueServiceGroup, ConfigHash: "h1"}, "", metav1.ConditionTrue, v1alpha1.ArenaRunReasonServiceGroupRedisChanged},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := &v1alpha1.ArenaRunStatus{Queue: c.queue}
			setQueueRedisDrifted(st, c.current, 1, t0)
			got := meta.FindStatusCondition(st.Conditions, v1alpha1.ArenaRunConditionQueueRedisDrifted)
			if c.status == "" {
				if got != nil {
					t.Fatalf("unexpected %+v", got)
				}
				return
			}
			if got == nil || got.Status != c.status || got.Reason != c.reason {
				t.Fatalf("got %+v", got)
			}
		})
	}
}

func TestSetReadyFollowsPhase(t *testing.T) {
	cases := []struct {
		phase v1alpha1.ArenaRunPhase
		want  metav1.ConditionStatus
	}{
		{v1alpha1.ArenaRunPhasePending, metav1.ConditionFalse},
		{v1alpha1.ArenaRunPhaseRunning, metav1.ConditionTrue},
		{v1alpha1.ArenaRunPhaseSucceeded, metav1.ConditionTrue},
		{v1alpha1.ArenaRunPhaseFailed, metav1.ConditionFalse},
		{v1alpha1.ArenaRunPhaseCancelled, metav1.ConditionFalse},
	}
	for _, c := range cases {
		st := &v1alpha1.ArenaRunStatus{Phase: c.phase}
		setReady(st, "R", "m", 1, t0)
		if got := meta.FindStatusCondition(st.Conditions, "Ready"); got.Status != c.want || got.Reason != "R" {
			t.Errorf("%s: %+v", c.phase, got)
		}
	}
}

func TestWorkerJob(t *testing.T) {
	run := &v1alpha1.ArenaRun{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns", UID: "u"},
		Spec: v1alpha1.ArenaRunSpec{JobRef: v1alpha1.LocalObjectReference{Name: "j"}}}
	run.Status.Queue = &v1alpha1.ArenaRunQueue{Source: v1alpha1.ArenaRunQueueServiceGroup, ServiceGroup: "g",
		SecretRef: &v1alpha1.ArenaRunQueueSecretRef{Name: "r-queue-redis", Key: "url"}}
	run.Status.Source = &v1alpha1.ArenaRunSource{Repository: "hosted", Ref: "main", Commit: "c", ContentPath: "arena/sources/p/.arena/versions/c"}
	pvc := &v1alpha1.ArenaJobOutput{Type: "pvc", PVC: &v1alpha1.ArenaJobOutputPVC{ClaimName: "c", SubPath: "s/"}}
	claim := ContentClaimName("ns")
	onContent := ContentVolume{Claim: claim, Output: true}
	// Mounts are written "volume:mountPath:subPath:ro|rw"; volumes "name=claim".
	src := "workspace-content:/arena-source:arena/sources/p/.arena/versions/c:ro"
	cases := []struct {
		name    string
		tmpl    v1alpha1.ArenaJobSpec
		cv      ContentVolume
		ttl     int32
		env     map[string]string
		absent  []string
		volumes []string
		mounts  []string
	}{
		{name: "defaults: no content volume, the output on scratch", ttl: 3600,
			env:    map[string]string{"ARENA_OUTPUT_TYPE": "scratch", "ARENA_OUTPUT_DIR": ScratchOutputDir, "ARENA_QUEUE_SOURCE": "ServiceGroup"},
			absent: []string{"LOG_LEVEL", "ARENA_VERBOSE", "ARENA_SOURCE_DIR"}},
		{name: "verbose and ttl", tmpl: v1alpha1.ArenaJobSpec{Verbose: true, TTLSecondsAfterFinished: ptr.To[int32](60)}, ttl: 60,
			env: map[string]string{"LOG_LEVEL": "debug", "ARENA_VERBOSE": "true"}},
		{name: "pvc output: the claim at /arena-output with its subPath", tmpl: v1alpha1.ArenaJobSpec{Output: pvc}, ttl: 3600,
			env:     map[string]string{"ARENA_OUTPUT_TYPE": "pvc", "ARENA_OUTPUT_PVC_CLAIM": "c", "ARENA_OUTPUT_PVC_SUBPATH": "s/", "ARENA_OUTPUT_DIR": "/arena-output"},
			volumes: []string{"arena-output=c"}, mounts: []string{"arena-output:/arena-output:s/:rw"}},
		{name: "default output on the content volume: the run's directory read-write, the snapshot read-only", cv: onContent, ttl: 3600,
			env:     map[string]string{"ARENA_OUTPUT_TYPE": "default", "ARENA_OUTPUT_DIR": "/arena-output", "ARENA_SOURCE_DIR": "/arena-source"},
			volumes: []string{"workspace-content=" + claim},
			mounts:  []string{src, "workspace-content:/arena-output:arena/runs/r:rw"}},
		{name: "content claim but the run not marked: snapshot mounted, output on scratch", cv: ContentVolume{Claim: claim}, ttl: 3600,
			env:     map[string]string{"ARENA_OUTPUT_TYPE": "scratch", "ARENA_OUTPUT_DIR": ScratchOutputDir, "ARENA_SOURCE_DIR": "/arena-source"},
			volumes: []string{"workspace-content=" + claim}, mounts: []string{src}},
		{name: "pvc output with the content claim: the pvc is the output, the snapshot read-only", tmpl: v1alpha1.ArenaJobSpec{Output: pvc}, cv: onContent, ttl: 3600,
			env:     map[string]string{"ARENA_OUTPUT_TYPE": "pvc", "ARENA_OUTPUT_DIR": "/arena-output"},
			volumes: []string{"arena-output=c", "workspace-content=" + claim},
			mounts:  []string{"arena-output:/arena-output:s/:rw", src}},
		{name: "s3 output with the content claim: no output mount", cv: onContent, ttl: 3600,
			tmpl: v1alpha1.ArenaJobSpec{Output: &v1alpha1.ArenaJobOutput{Type: "s3", S3: &v1alpha1.ArenaJobOutputS3{Bucket: "b"}}},
			env:  map[string]string{"ARENA_OUTPUT_TYPE": "s3", "ARENA_OUTPUT_S3_BUCKET": "b"}, absent: []string{"ARENA_OUTPUT_DIR"},
			volumes: []string{"workspace-content=" + claim}, mounts: []string{src}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := run.DeepCopy()
			r.Spec.Template = c.tmpl
			job, err := WorkerJob(r, "img", 3, c.cv)
			if err != nil {
				t.Fatal(err)
			}
			if *job.Spec.Parallelism != 3 || *job.Spec.Completions != 3 || *job.Spec.TTLSecondsAfterFinished != c.ttl {
				t.Fatalf("spec %+v", job.Spec)
			}
			env := map[string]string{}
			for _, e := range job.Spec.Template.Spec.Containers[0].Env {
				env[e.Name] = e.Value
				if e.Name == "ARENA_QUEUE_REDIS_URL" && (e.Value != "" || e.ValueFrom.SecretKeyRef.Name != "r-queue-redis") {
					t.Fatalf("queue URL env %+v", e)
				}
			}
			for k, v := range c.env {
				if env[k] != v {
					t.Errorf("env %s = %q, want %q", k, env[k], v)
				}
			}
			for _, k := range c.absent {
				if _, ok := env[k]; ok {
					t.Errorf("env %s set", k)
				}
			}
			var volumes, mounts []string
			for _, v := range job.Spec.Template.Spec.Volumes {
				if v.Name == WorkerTmpVolume {
					continue // every case has it; TestWorkerJobHardened checks it
				}
				volumes = append(volumes, v.Name+"="+v.PersistentVolumeClaim.ClaimName)
				if v.PersistentVolumeClaim.ReadOnly {
					t.Errorf("volume %s is read-only: the mounts say", v.Name)
				}
			}
			for _, m := range job.Spec.Template.Spec.Containers[0].VolumeMounts {
				if m.Name == WorkerTmpVolume {
					continue
				}
				mode := "rw"
				if m.ReadOnly {
					mode = "ro"
				}
				mounts = append(mounts, m.Name+":"+m.MountPath+":"+m.SubPath+":"+mode)
			}
			if !slices.Equal(volumes, c.volumes) || !slices.Equal(mounts, c.mounts) {
				t.Errorf("volumes %v mounts %v, want %v %v", volumes, mounts, c.volumes, c.mounts)
			}
		})
	}
}

func TestMatrixAxes(t *testing.T) {
	all := []string{"scenarios/a.yaml", "scenarios/b-slow.yaml", "other/c.yaml"}
	cases := []struct {
		f    *v1alpha1.ArenaJobScenarios
		want []string
	}{
		{nil, all},
		{&v1alpha1.ArenaJobScenarios{Include: []string{"scenarios/*.yaml"}}, []string{"scenarios/a.yaml", "scenarios/b-slow.yaml"}},
		{&v1alpha1.ArenaJobScenarios{Include: []string{"scenarios/*.yaml"}, Exclude: []string{"*-slow.yaml"}}, []string{"scenarios/a.yaml"}},
		{&v1alpha1.ArenaJobScenarios{Exclude: []string{"c.yaml"}}, []string{"scenarios/a.yaml", "scenarios/b-slow.yaml"}},
	}
	for _, c := range cases {
		if got := selectScenarios(all, c.f); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: got %v want %v", c.f, got, c.want)
		}
	}
	tmpl := &v1alpha1.ArenaJobSpec{Providers: map[string]v1alpha1.ArenaJobProviderGroup{
		"default": {Entries: []v1alpha1.ArenaJobProviderEntry{{ProviderRef: &v1alpha1.NamespacedObjectReference{Name: "gpt"}}, {AgentRef: &v1alpha1.LocalObjectReference{Name: "bot"}}}},
		"judge":   {ByProviderID: map[string]v1alpha1.ArenaJobProviderEntry{"j": {ProviderRef: &v1alpha1.NamespacedObjectReference{Name: "opus"}}}},
	}}
	if got := matrixProviders(tmpl, []string{"file"}); !reflect.DeepEqual(got, []string{"provider:gpt", "agent:bot"}) {
		t.Errorf("providers %v (map-mode groups add nothing)", got)
	}
	if got := matrixProviders(&v1alpha1.ArenaJobSpec{}, []string{"file"}); !reflect.DeepEqual(got, []string{"file"}) {
		t.Errorf("providers %v", got)
	}
}

func TestOutcome(t *testing.T) {
	pass := queue.Result{Passed: true, DurationMs: 10}
	failR := queue.Result{Passed: false, DurationMs: 10}
	cases := []struct {
		name   string
		tmpl   v1alpha1.ArenaJobSpec
		meta   queue.Meta
		res    []queue.Result
		phase  v1alpha1.ArenaRunPhase
		reason string
	}{
		{"evaluation with a failed item succeeds", v1alpha1.ArenaJobSpec{}, queue.Meta{Enqueued: true, Total: 2}, []queue.Result{pass, failR}, v1alpha1.ArenaRunPhaseSucceeded, v1alpha1.ArenaRunReasonSucceeded},
		{"enumerated load test with a failed item fails", v1alpha1.ArenaJobSpec{Type: "loadtest"}, queue.Meta{Enqueued: true, Total: 2}, []queue.Result{pass, failR}, v1alpha1.ArenaRunPhaseFailed, v1alpha1.ArenaRunReasonTestsFailed},
		{"duration load test fails only on thresholds", v1alpha1.ArenaJobSpec{Type: "loadtest", LoadTest: &v1alpha1.ArenaJobLoadTest{Duration: "1m"}}, queue.Meta{Enqueued: true}, []queue.Result{pass, failR}, v1alpha1.ArenaRunPhaseSucceeded, v1alpha1.ArenaRunReasonSucceeded},
		{"budget stop", v1alpha1.ArenaJobSpec{BudgetLimit: "1"}, queue.Meta{Enqueued: true, Total: 5, Stopped: true, StopReason: queue.StopBudgetExceeded, Drained: 3}, []queue.Result{pass, pass}, v1alpha1.ArenaRunPhaseFailed, v1alpha1.ArenaRunReasonBudgetExceeded},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			phase, reason, _, summary := outcome(&c.tmpl, c.meta, queue.Counters{}, c.res)
			if phase != c.phase || reason != c.reason {
				t.Fatalf("got %s %s, want %s %s", phase, reason, c.phase, c.reason)
			}
			if reason == v1alpha1.ArenaRunReasonBudgetExceeded && (summary["budgetBreached"] != "true" || summary["drainedItems"] != "3") {
				t.Fatalf("summary %v", summary)
			}
		})
	}
}

// A Redis that does not answer is reported without its address.
func TestQueueErrHidesAddress(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	c, err := queue.Connect("redis://" + addr + "/0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	_, _, err = queue.New(c, "ns", "r").State(context.Background())
	if err == nil {
		t.Fatal("no error from a closed port")
	}
	if got := queueErr("reading", err).Error(); strings.Contains(got, addr) || !strings.Contains(got, "does not answer") {
		t.Fatalf("queueErr = %q (raw %v)", got, err)
	}
}

// TestWorkerJobHardened: whatever podOverrides say, the worker pod runs
// non-root with seccomp RuntimeDefault, a read-only root filesystem (an
// emptyDir at /tmp, where the scratch output goes) and no capabilities.
func TestWorkerJobHardened(t *testing.T) {
	run := &v1alpha1.ArenaRun{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns", UID: "u"},
		Spec: v1alpha1.ArenaRunSpec{JobRef: v1alpha1.LocalObjectReference{Name: "j"}}}
	run.Spec.Template.Workers = &v1alpha1.ArenaJobWorkers{PodOverrides: &v1alpha1.PodOverrides{ServiceAccountName: "sa"}}
	job, err := WorkerJob(run, "img", 1, ContentVolume{})
	if err != nil {
		t.Fatal(err)
	}
	ps := job.Spec.Template.Spec
	if ps.SecurityContext == nil || ps.SecurityContext.SeccompProfile == nil ||
		ps.SecurityContext.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault || !ptr.Deref(ps.SecurityContext.RunAsNonRoot, false) {
		t.Errorf("pod security context %+v", ps.SecurityContext)
	}
	c := ps.Containers[0]
	sc := c.SecurityContext
	if !ptr.Deref(sc.ReadOnlyRootFilesystem, false) || ptr.Deref(sc.AllowPrivilegeEscalation, true) || !ptr.Deref(sc.RunAsNonRoot, false) ||
		sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("container security context %+v", sc)
	}
	var tmpVol, tmpMount bool
	for _, v := range ps.Volumes {
		tmpVol = tmpVol || (v.Name == WorkerTmpVolume && v.EmptyDir != nil)
	}
	for _, m := range c.VolumeMounts {
		tmpMount = tmpMount || (m.Name == WorkerTmpVolume && m.MountPath == "/tmp" && !m.ReadOnly)
	}
	if !tmpVol || !tmpMount || !strings.HasPrefix(ScratchOutputDir, "/tmp/") {
		t.Errorf("no writable /tmp emptyDir for the scratch output %s: volumes %+v mounts %+v", ScratchOutputDir, ps.Volumes, c.VolumeMounts)
	}
}

// TestWorkerJobExtraVolumes: workers.podOverrides.extraVolumes reach the pod
// beside their mounts (they used to be dropped while the mounts were kept,
// an invalid pod); one that is not a Volume holds the Job with an error
// naming its field.
func TestWorkerJobExtraVolumes(t *testing.T) {
	csi := `{"name":"secrets-store","csi":{"driver":"secrets-store.csi.k8s.io","readOnly":true,"volumeAttributes":{"secretProviderClass":"arena"}}}`
	cases := []struct {
		name    string
		raw     string
		wantErr string
	}{
		{name: "a CSI secret-store volume is added with its mount", raw: csi},
		{name: "not a Volume: refused with its field", raw: `{"name":"x","emptyDir":"nope"}`, wantErr: "spec.template.workers.podOverrides.extraVolumes[0]"},
		{name: "a Volume without a name: refused", raw: `{"emptyDir":{}}`, wantErr: "spec.template.workers.podOverrides.extraVolumes[0].name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run := &v1alpha1.ArenaRun{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns", UID: "u"},
				Spec: v1alpha1.ArenaRunSpec{JobRef: v1alpha1.LocalObjectReference{Name: "j"}}}
			run.Spec.Template.Workers = &v1alpha1.ArenaJobWorkers{PodOverrides: &v1alpha1.PodOverrides{
				ExtraVolumes:      []runtime.RawExtension{{Raw: []byte(c.raw)}},
				ExtraVolumeMounts: []corev1.VolumeMount{{Name: "secrets-store", MountPath: "/mnt/secrets", ReadOnly: true}},
			}}
			job, err := WorkerJob(run, "img", 1, ContentVolume{})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one naming %s", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			vols := map[string]corev1.Volume{}
			for _, v := range job.Spec.Template.Spec.Volumes {
				vols[v.Name] = v
			}
			for _, m := range job.Spec.Template.Spec.Containers[0].VolumeMounts {
				if _, ok := vols[m.Name]; !ok {
					t.Errorf("mount %s has no volume", m.Name)
				}
			}
			if v, ok := vols["secrets-store"]; !ok || v.CSI == nil || v.CSI.Driver != "secrets-store.csi.k8s.io" {
				t.Errorf("extra volume missing or changed: %+v", v)
			}
		})
	}
}
