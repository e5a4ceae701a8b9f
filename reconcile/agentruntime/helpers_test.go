package agentruntime

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// agent is a minimal valid agent: one websocket facade, no other field.
func agent(mut ...func(*v1alpha1.AgentRuntime)) *v1alpha1.AgentRuntime {
	ar := &v1alpha1.AgentRuntime{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "AgentRuntime"},
		ObjectMeta: metav1.ObjectMeta{Name: "support", Namespace: "team-a", UID: types.UID("uid-1")},
		Spec: v1alpha1.AgentRuntimeSpec{
			Facades: []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}},
		},
	}
	for _, m := range mut {
		m(ar)
	}
	return ar
}

func resolved() workload.Resolved {
	return workload.Resolved{
		RuntimeImage:      "registry.example/runtime:1",
		FacadeImage:       "registry.example/facade:1",
		PolicyBrokerImage: "registry.example/broker:1",
	}
}

// loadExample decodes one of the spec's complete examples.
func loadExample(t *testing.T, file string) *v1alpha1.AgentRuntime {
	t.Helper()
	b, err := os.ReadFile("../../config/samples/agentruntime/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var ar v1alpha1.AgentRuntime
	if err := yaml.UnmarshalStrict(b, &ar); err != nil {
		t.Fatal(err)
	}
	ar.UID = "uid-example"
	return &ar
}

// mustDeployment builds and fails the test on error.
func mustDeployment(t *testing.T, ar *v1alpha1.AgentRuntime, r workload.Resolved) (*corev1.PodSpec, []workload.DroppedEnv) {
	t.Helper()
	d, dropped, err := workload.Deployment(ar, r)
	if err != nil {
		t.Fatalf("Deployment: %v", err)
	}
	return &d.Spec.Template.Spec, dropped
}

func container(t *testing.T, pod *corev1.PodSpec, name string) *corev1.Container {
	t.Helper()
	for i := range pod.Containers {
		if pod.Containers[i].Name == name {
			return &pod.Containers[i]
		}
	}
	t.Fatalf("no container %q", name)
	return nil
}

// env returns the container's entry for name, or nil.
func env(c *corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

// literal returns the literal value of name and whether it is set as a literal.
func literal(c *corev1.Container, name string) (string, bool) {
	e := env(c, name)
	if e == nil || e.ValueFrom != nil {
		return "", false
	}
	return e.Value, true
}

// startManager runs the controller in a manager against the suite's API
// server until the test ends, with the test images unless opts names
// others, and returns the manager's context.
func startManager(t *testing.T, opts Options) context.Context {
	t.Helper()
	mgr, err := ctrl.NewManager(testConfig, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if opts.BuiltinRuntimeImage == "" {
		opts.BuiltinRuntimeImage, opts.FacadeImage, opts.PolicyBrokerImage = "r:1", "f:1", "b:1"
	}
	if err := SetupWithManager(mgr, opts); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = mgr.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return ctx
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
