package agentruntime

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/test/controlplane"
)

// The builders' output is checked against a real kube-apiserver: the API
// server validates every object (Deployment, Service, RBAC) and a second
// server-side apply of a rebuilt, unchanged workload is a no-op (no
// resourceVersion moves), which is what lets the controller apply with one
// field manager without writing on every reconcile.

var (
	k8s    client.Client
	dyn    dynamic.Interface
	scheme *runtime.Scheme
	// apiWarnings collects the API server's warnings on applies: a
	// well-built object draws none.
	apiWarnings = &warnings{}
)

type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.list
	w.list = nil
	return out
}

func TestMain(m *testing.M) {
	env, err := controlplane.Start(controlplane.Options{Kinds: []string{"AgentRuntime", "PromptPack", "Provider", "ToolRegistry", "Workspace", "RolloutAnalysis"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer func() { _ = env.Stop() }()
		scheme = runtime.NewScheme()
		if err := clientgoscheme.AddToScheme(scheme); err != nil {
			panic(err)
		}
		if err := v1alpha1.AddToScheme(scheme); err != nil {
			panic(err)
		}
		testConfig = env.Config
		if k8s, err = client.New(env.Config, client.Options{Scheme: scheme}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		cfg := rest.CopyConfig(env.Config)
		cfg.WarningHandler = apiWarnings
		dyn = dynamic.NewForConfigOrDie(cfg)
		return m.Run()
	}()
	os.Exit(code)
}

// fieldManager is the one field manager the controller applies with.
const fieldManager = "omnia-operator"

var resources = map[string]schema.GroupVersionResource{
	"Deployment":     {Group: "apps", Version: "v1", Resource: "deployments"},
	"Service":        {Version: "v1", Resource: "services"},
	"ServiceAccount": {Version: "v1", Resource: "serviceaccounts"},
	"Role":           {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"},
	"RoleBinding":    {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"},
}

// applyAll builds the agent's workload and server-side applies it; it
// returns each object's resourceVersion by kind.
func applyAll(t *testing.T, ar *v1alpha1.AgentRuntime, r workload.Resolved) map[string]string {
	t.Helper()
	d, _, err := workload.Deployment(ar, r)
	if err != nil {
		t.Fatal(err)
	}
	versions := map[string]string{}
	for _, o := range []runtime.Object{d, workload.Service(ar), workload.ServiceAccount(ar), workload.Role(ar), workload.RoleBinding(ar, r)} {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: m}
		got, err := dyn.Resource(resources[u.GetKind()]).Namespace(ar.Namespace).
			Apply(context.Background(), u.GetName(), u, metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
		if err != nil {
			t.Fatalf("apply %s %s: %v", u.GetKind(), u.GetName(), err)
		}
		versions[u.GetKind()] = got.GetResourceVersion()
	}
	return versions
}

// createAgent stores the agent in a fresh namespace and returns it as the
// API server has it (with its UID, which the owner references carry).
func createAgent(t *testing.T, ar *v1alpha1.AgentRuntime, ns string) *v1alpha1.AgentRuntime {
	t.Helper()
	ctx := context.Background()
	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	ar = ar.DeepCopy()
	ar.Namespace, ar.UID, ar.ResourceVersion = ns, "", ""
	if err := k8s.Create(ctx, ar); err != nil {
		t.Fatalf("create AgentRuntime: %v", err)
	}
	return ar
}

func TestAPIServerAcceptsWorkloadAndReapplyIsNoOp(t *testing.T) {
	example := loadExample(t, "production-agent.yaml")
	exampleResolved := resolved()
	exampleResolved.PromptPack = &workload.ResolvedPromptPack{PackName: "customer-service-prompts", Version: "2.1.0", ConfigMapName: "cs-prompts"}
	exampleResolved.Providers = map[string]workload.ResolvedProvider{
		"default": {Provider: provider("claude-production", "m"), SecretKey: "api-key"},
		"judge":   {Provider: provider("claude-haiku", "m"), SecretKey: "api-key"},
	}
	rich := richAgent()
	rich.Spec.Facades[1].ExtraEnv = rich.Spec.Facades[1].ExtraEnv[:1] // no reserved key: the CRD would take it, but keep the agent clean

	for _, tc := range []struct {
		name string
		ar   *v1alpha1.AgentRuntime
		r    workload.Resolved
		ns   string
	}{
		{"complete example", example, exampleResolved, "ar-workload-example"},
		{"rich agent", rich, richResolved(), "ar-workload-rich"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := createAgent(t, tc.ar, tc.ns)
			apiWarnings.take()
			first := applyAll(t, ar, tc.r)
			if w := apiWarnings.take(); len(w) > 0 {
				t.Errorf("the API server warned about the workload: %q", w)
			}
			second := applyAll(t, ar, tc.r)
			for kind, rv := range first {
				if second[kind] != rv {
					t.Errorf("%s: re-applying the rebuilt, unchanged object wrote it (resourceVersion %s -> %s)", kind, rv, second[kind])
				}
			}
			// A real change is written: the comparison above can fail.
			changed := tc.r
			changed.RuntimeImage += "-next"
			if third := applyAll(t, ar, changed); third["Deployment"] == second["Deployment"] {
				t.Errorf("a new runtime image did not change the Deployment (resourceVersion %s)", third["Deployment"])
			}
		})
	}
}
