package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/policies/reports"
	"github.com/altairalabs/omnia/test/controlplane"
)

// TestRunLocal drives `make run` as a script would: start it in the
// background, wait for the kubeconfig to answer, use the cluster (a manifest
// a rule refuses is refused by the API server through the operator's
// webhook), stop it with SIGTERM, and start it again to find the data kept.
func TestRunLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the local control plane twice")
	}
	dir := t.TempDir()
	runLocal := filepath.Join(dir, "run-local")
	build(t, runLocal, "./hack/run-local")
	operator, err := controlplane.BuildOperator()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(filepath.Dir(operator))
	state := filepath.Join(dir, "state")

	// First run: create a namespace and a Provider; a refused AgentRuntime.
	c, stop := start(t, runLocal, state, operator)
	ctx := context.Background()
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "agents"}}); err != nil {
		t.Fatal(err)
	}
	prov := &v1alpha1.Provider{
		ObjectMeta: metav1.ObjectMeta{Name: "mock", Namespace: "agents"},
		Spec:       v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeMock},
	}
	if err := c.Create(ctx, prov); err != nil {
		t.Fatalf("creating a Provider: %v", err)
	}
	// The OpenReports CRDs are installed and the operator's background
	// audit (first run at start) writes its ClusterReport.
	auditReport(ctx, t, state)
	bad := &v1alpha1.AgentRuntime{
		ObjectMeta: metav1.ObjectMeta{Name: "bad", Namespace: "agents"},
		Spec: v1alpha1.AgentRuntimeSpec{
			PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "p"},
			Facades:       []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}},
			Runtime:       &v1alpha1.AgentRuntimeRuntime{ExtraEnv: []corev1.EnvVar{{Name: "OMNIA_PACK_MODE", Value: "compile"}}},
		},
	}
	if err := c.Create(ctx, bad); err == nil || !strings.Contains(err.Error(), "[agentruntime/reserved-env-key]") {
		t.Fatalf("an AgentRuntime with OMNIA_PACK_MODE: err = %v, want a refusal naming agentruntime/reserved-env-key", err)
	}
	// The development licence is in force: a custom facade (an enterprise
	// feature) is admitted, and the Secret says it is the development one.
	if err := c.Create(ctx, customFacadeAgent(), client.DryRunAll); err != nil {
		t.Errorf("a custom facade under the development licence: %v", err)
	}
	lic := &corev1.Secret{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "omnia-system", Name: "arena-license"}, lic); err != nil ||
		lic.Labels["omnia.altairalabs.ai/development-license"] != "true" || len(lic.Data["license"]) == 0 {
		t.Errorf("the development licence Secret: %v %v", err, lic.Labels)
	}
	// The Arena controllers run (--arena) and the development licence grants
	// scheduling: a scheduled ArenaJob is admitted and gets Ready=True
	// (Scheduled) with its next tick.
	aj := &v1alpha1.ArenaJob{
		ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "agents"},
		Spec: v1alpha1.ArenaJobSpec{SourceRef: v1alpha1.LocalObjectReference{Name: "project"},
			Schedule: &v1alpha1.ArenaJobSchedule{Cron: "0 2 * * *"}},
	}
	if err := c.Create(ctx, aj); err != nil {
		t.Fatalf("a scheduled ArenaJob under the development licence: %v", err)
	}
	if wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		got := &v1alpha1.ArenaJob{}
		if c.Get(ctx, client.ObjectKeyFromObject(aj), got) != nil || got.Status.NextScheduleTime == nil {
			return false, nil
		}
		for _, cond := range got.Status.Conditions {
			if cond.Type == v1alpha1.ArenaJobConditionReady {
				return cond.Status == metav1.ConditionTrue && cond.Reason == v1alpha1.ArenaJobReasonScheduled, nil
			}
		}
		return false, nil
	}) != nil {
		t.Errorf("the scheduled ArenaJob got no Ready=True Scheduled with a nextScheduleTime within a minute (log %s)", filepath.Join(state, "operator.log"))
	}
	// It is a cluster: an applied Deployment gets a ready pod on the
	// simulated Node (nothing here writes its status).
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "agents"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "registry.invalid/web:1"}}},
			},
		},
	}
	if err := c.Create(ctx, dep); err != nil {
		t.Fatal(err)
	}
	if wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		got := &appsv1.Deployment{}
		return c.Get(ctx, client.ObjectKeyFromObject(dep), got) == nil && got.Status.ReadyReplicas == 1, nil
	}) != nil {
		t.Errorf("the Deployment got no ready replica within 2 minutes (logs under %s)", filepath.Join(state, "cluster"))
	}
	stop()
	if _, err := os.Stat(filepath.Join(state, "kubeconfig")); !os.IsNotExist(err) {
		t.Fatalf("the kubeconfig outlived the control plane: %v", err)
	}

	// Second run, open-core (make run OPEN_CORE=1): the Provider is still
	// there, and the development licence is gone with its features.
	c, stop = start(t, runLocal, state, operator, "--open-core")
	defer stop()
	got := &v1alpha1.Provider{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(prov), got); err != nil {
		t.Fatalf("the Provider did not survive a restart: %v", err)
	}
	if err := c.Create(ctx, customFacadeAgent(), client.DryRunAll); err == nil || !strings.Contains(err.Error(), "[agentruntime/custom-facade-license]") {
		t.Errorf("a custom facade on open-core: err = %v, want a refusal naming agentruntime/custom-facade-license", err)
	}
}

// auditReport waits for the background audit's ClusterReport, read with
// the kubeconfig make run wrote.
func auditReport(ctx context.Context, t *testing.T, state string) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(state, "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := openreportsv1alpha1.Install(scheme); err != nil {
		t.Fatal(err)
	}
	rc, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	if wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		cr := &openreportsv1alpha1.ClusterReport{}
		return rc.Get(ctx, client.ObjectKey{Name: reports.Name}, cr) == nil && cr.Labels[reports.ManagedByLabel] == reports.ManagedBy, nil
	}) != nil {
		t.Errorf("no ClusterReport %s from the background audit within a minute (log %s)", reports.Name, filepath.Join(state, "operator.log"))
	}
}

func customFacadeAgent() *v1alpha1.AgentRuntime {
	return &v1alpha1.AgentRuntime{
		ObjectMeta: metav1.ObjectMeta{Name: "custom", Namespace: "agents"},
		Spec: v1alpha1.AgentRuntimeSpec{
			PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "p"},
			Facades:       []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeCustom, Image: "registry.example/facade:1"}},
		},
	}
}

func build(t *testing.T, out, pkg string) {
	t.Helper()
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, msg)
	}
}

// start runs run-local in the background, waits for its ready line and
// returns a client on the kubeconfig it wrote, and a func that stops it
// with SIGTERM and checks that it exits cleanly.
func start(t *testing.T, runLocal, state, operator string, args ...string) (client.Client, func()) {
	t.Helper()
	cmd := exec.Command(runLocal, append([]string{"--state-dir", state, "--operator", operator}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &controlplane.LogBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, "control plane ready:") {
				ready <- line
			}
		}
		exited <- cmd.Wait()
	}()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("run-local exited with %v after SIGTERM:\n%s", err, stderr)
			}
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			t.Errorf("run-local did not stop within a minute of SIGTERM:\n%s", stderr)
		}
	}
	select {
	case line := <-ready:
		if !strings.HasSuffix(line, "kubeconfig get agents") {
			t.Errorf("ready line %q does not show how to use the kubeconfig", line)
		}
	case err := <-exited:
		t.Fatalf("run-local exited before it was ready: %v\n%s", err, stderr)
	case <-time.After(3 * time.Minute):
		stop()
		t.Fatalf("run-local was not ready within 3 minutes:\n%s", stderr)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(state, "kubeconfig"))
	if err != nil {
		stop()
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = v1alpha1.AddToScheme(scheme)
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		stop()
		t.Fatal(err)
	}
	return c, stop
}
