package contract

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/test/controlplane"
)

// The cluster test: the operator (as `make run` runs it) builds an agent's
// Deployment on the local cluster, the controller-manager and the
// scheduler make a Pod bound to the kwok Node, and the probe runs as each
// container would, with that Pod's resolved environment, files and real
// ServiceAccount tokens, against the real API server.

var (
	cluster *controlplane.Cluster
	k8s     client.Client
	cs      kubernetes.Interface
)

// Generous bounds for a shared machine; polling ends as soon as it holds.
const (
	eventually = 90 * time.Second
	poll       = 250 * time.Millisecond
)

func TestMain(m *testing.M) {
	code := m.Run()
	stopCluster(code)
	RemoveProbe()
	os.Exit(code)
}

var (
	clusterDir  string
	operator    *controlplane.Operator
	clusterErr  error
	clusterDone bool
)

// startCluster starts the local cluster with the operator once, for the
// tests that need it (the unit tests do not).
func startCluster(t *testing.T) {
	t.Helper()
	if !clusterDone {
		clusterDone = true
		clusterErr = func() error {
			dir, err := os.MkdirTemp("", "omnia-contract-")
			if err != nil {
				return err
			}
			clusterDir = dir
			cluster, operator, err = controlplane.WithOperatorCluster(controlplane.Options{}, dir)
			if err != nil {
				return err
			}
			if k8s, err = client.New(cluster.Config, client.Options{Scheme: scheme()}); err != nil {
				return err
			}
			cs, err = kubernetes.NewForConfig(cluster.Config)
			return err
		}()
	}
	if clusterErr != nil {
		t.Fatalf("starting the local cluster with the operator: %v", clusterErr)
	}
}

func scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, rbacv1.AddToScheme, v1alpha1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}

func stopCluster(code int) {
	if cluster == nil {
		if clusterDir != "" {
			fmt.Fprintf(os.Stderr, "cluster logs kept in %s\n", clusterDir)
		}
		return
	}
	if code != 0 {
		fmt.Fprintf(os.Stderr, "cluster component and operator logs kept in %s\n%s", clusterDir, cluster.Components.LogTails(40))
	}
	if operator != nil {
		operator.Stop()
	}
	controlplane.RemoveWebhooks(cluster.Environment)
	if err := cluster.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the cluster:", err)
	}
	if code == 0 {
		_ = os.RemoveAll(clusterDir)
	}
}

// eventuallyTrue polls cond until it holds or the deadline passes; the
// last error it returned says why not.
func eventuallyTrue(t *testing.T, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), poll, eventually, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		last = err
		return ok, nil
	})
	if err != nil {
		t.Fatalf("%s: not within %s (last: %v)", what, eventually, last)
	}
}

const (
	agentName  = "support"
	packName   = "prompts"
	handlerCRM = "crm"
	handlerInv = "inventory"
	invAud     = "inventory.tools"
	crmSecret  = "crm-credentials"
	crmToken   = "crm-token-contract-1"
	crmAPIKey  = "crm-key-contract-1"
	a2aClient  = "partner"
	a2aSecret  = "partner-a2a-key"
)

// setup creates, in a fresh namespace, a Ready PromptPack, a mock
// Provider, a ToolRegistry with a bearer handler (with a header from the
// same opted-in Secret) and a serviceAccount handler, and the agent naming
// them. The handlers' endpoints are a local server (nothing leaves the
// machine).
func setup(t *testing.T, mutate ...func(*v1alpha1.AgentRuntime)) *v1alpha1.AgentRuntime {
	t.Helper()
	ctx := context.Background()
	vendor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNotFound) }))
	t.Cleanup(vendor.Close)

	nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "contract-"}}
	if err := k8s.Create(ctx, nsObj); err != nil {
		t.Fatal(err)
	}
	ns := nsObj.Name
	tool := func(name string) *v1alpha1.ToolRegistryToolDefinition {
		return &v1alpha1.ToolRegistryToolDefinition{Name: name, Description: "calls " + name, InputSchema: runtime.RawExtension{Raw: []byte(`{"type":"object"}`)}}
	}
	packCM := packName + "-1.0.0"
	objs := []client.Object{
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: packCM},
			Data: map[string]string{workload.PromptPackFile: `{"id": "prompts", "version": "1.0.0"}`}},
		&v1alpha1.PromptPack{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: packCM, Labels: map[string]string{rules.PromptPackLabel: packName}},
			Spec: v1alpha1.PromptPackSpec{PackName: packName, Version: "1.0.0",
				Source: v1alpha1.PromptPackContentSource{ConfigMapRef: &v1alpha1.LocalObjectReference{Name: packCM}}}},
		&v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "llm"}, Spec: v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeMock}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: a2aSecret}, StringData: map[string]string{"token": "a2a-token-contract-1"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: crmSecret,
			Labels: map[string]string{v1alpha1.ToolCredentialsLabel: v1alpha1.ToolCredentialsValue}},
			StringData: map[string]string{"token": crmToken, "api-key": crmAPIKey}},
		&v1alpha1.ToolRegistry{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tools"}, Spec: v1alpha1.ToolRegistrySpec{Handlers: []v1alpha1.ToolRegistryHandler{
			{Name: handlerCRM, Type: v1alpha1.ToolRegistryHandlerTypeHTTP, Tool: tool("crm_lookup"),
				HTTPConfig: &v1alpha1.ToolRegistryHTTPConfig{Endpoint: vendor.URL + "/crm",
					HeadersFromSecret: map[string]v1alpha1.ToolRegistrySecretKeyRef{"X-Api-Key": {Name: crmSecret, Key: "api-key"}}},
				Auth: &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeBearer, SecretRef: &v1alpha1.ToolRegistrySecretKeyRef{Name: crmSecret, Key: "token"}}},
			{Name: handlerInv, Type: v1alpha1.ToolRegistryHandlerTypeHTTP, Tool: tool("inventory_lookup"),
				HTTPConfig: &v1alpha1.ToolRegistryHTTPConfig{Endpoint: vendor.URL + "/inventory"},
				Auth: &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeServiceAccount,
					ServiceAccount: &v1alpha1.ToolRegistryServiceAccountAuth{Audience: invAud}}},
		}}},
	}
	for _, o := range objs {
		if err := k8s.Create(ctx, o); err != nil {
			t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
	}
	eventuallyTrue(t, "the PromptPack goes Ready and the mock Provider Ready", func(ctx context.Context) (bool, error) {
		p := &v1alpha1.PromptPack{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: packCM}, p); err != nil {
			return false, err
		}
		pr := &v1alpha1.Provider{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "llm"}, pr); err != nil {
			return false, err
		}
		return p.Status.Phase == v1alpha1.PromptPackPhaseReady && pr.Status.Phase == v1alpha1.ProviderPhaseReady,
			fmt.Errorf("pack %q, provider %q", p.Status.Phase, pr.Status.Phase)
	})
	ar := &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: agentName}, Spec: v1alpha1.AgentRuntimeSpec{
		Facades:         []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}},
		PromptPackRef:   &v1alpha1.AgentRuntimePromptPackRef{Name: packName},
		Providers:       []v1alpha1.AgentRuntimeProvider{{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "llm"}}},
		ToolRegistryRef: &v1alpha1.NamespacedObjectReference{Name: "tools"},
		A2AClients: []v1alpha1.AgentRuntimeA2AClient{{Name: a2aClient, URL: vendor.URL + "/a2a",
			Authentication: &v1alpha1.AgentRuntimeA2AClientAuthentication{SecretRef: &v1alpha1.LocalObjectReference{Name: a2aSecret}}}},
	}}
	for _, m := range mutate {
		m(ar)
	}
	if err := k8s.Create(ctx, ar); err != nil {
		t.Fatal(err)
	}
	return ar
}

// agentPod waits for the agent's Deployment and a Pod of it bound to the
// kwok Node, and returns the Pod.
func agentPod(t *testing.T, ar *v1alpha1.AgentRuntime) *corev1.Pod {
	t.Helper()
	dep := &appsv1.Deployment{}
	eventuallyTrue(t, "the operator creates the agent's Deployment", func(ctx context.Context) (bool, error) {
		err := k8s.Get(ctx, client.ObjectKey{Namespace: ar.Namespace, Name: workload.DeploymentName(ar)}, dep)
		if err != nil {
			live := &v1alpha1.AgentRuntime{}
			if gerr := k8s.Get(ctx, client.ObjectKeyFromObject(ar), live); gerr == nil {
				err = fmt.Errorf("%w; agent phase %q conditions %s", err, live.Status.Phase, conditions(live))
			}
		}
		return err == nil, err
	})
	sel, err := metav1.LabelSelectorAsSelector(dep.Spec.Selector)
	if err != nil {
		t.Fatal(err)
	}
	var pod *corev1.Pod
	eventuallyTrue(t, "a Pod of the Deployment is bound to the kwok Node", func(ctx context.Context) (bool, error) {
		pods := &corev1.PodList{}
		if err := k8s.List(ctx, pods, client.InNamespace(ar.Namespace), client.MatchingLabelsSelector{Selector: sel}); err != nil {
			return false, err
		}
		for i := range pods.Items {
			p := &pods.Items[i]
			if p.DeletionTimestamp == nil && p.Spec.NodeName == controlplane.NodeName {
				pod = p
				return true, nil
			}
		}
		return false, fmt.Errorf("%d pods, none bound to %s", len(pods.Items), controlplane.NodeName)
	})
	return pod
}

func conditions(ar *v1alpha1.AgentRuntime) string {
	var out []string
	for _, c := range ar.Status.Conditions {
		if c.Status != metav1.ConditionTrue {
			out = append(out, c.Type+"="+string(c.Status)+"/"+c.Reason)
		}
	}
	return "[" + strings.Join(out, " ") + "]"
}

// resolveAndRun resolves container of pod into a fresh root and runs the
// probe as role.
func resolveAndRun(t *testing.T, probe string, pod *corev1.Pod, container, role string) (*Resolved, *Report, error) {
	t.Helper()
	root := filepath.Join(t.TempDir(), container)
	t.Cleanup(func() { _ = RemoveRoot(root) })
	r, err := Resolve(context.Background(), cs, APIServerOf(cluster.Config), pod, container, root)
	if err != nil {
		t.Fatalf("resolving container %s: %v", container, err)
	}
	stdout, stderr, runErr := Run(context.Background(), probe, r, "-role", role)
	var exit *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exit) {
		t.Fatalf("running the probe (%s): %v\nstderr: %s", role, runErr, stderr)
	}
	rep, err := ParseReport(stdout)
	if err != nil {
		t.Fatalf("%v\nstderr: %s", err, stderr)
	}
	if rep.Role != role {
		t.Fatalf("report role %q, want %q", rep.Role, role)
	}
	// The report never holds a value, only paths and names.
	t.Logf("%s probe (exit %v): %s", role, runErr, stdout)
	return r, rep, runErr
}

func hasRead(rep *Report, kind, path, handler string) bool {
	return slices.ContainsFunc(rep.Read, func(r Read) bool {
		return r.Kind == kind && (path == "" || r.Path == path) && (handler == "" || r.Handler == handler)
	})
}

// TestAgentPodContract: the agent's real Pod gives the runtime its pack,
// tools file, the bearer handler's credential and header and the
// serviceAccount handler's audience-bound token, and no Kubernetes token;
// the facade's mounted token gets its own agent and nothing else, and a
// Role granting it the Secrets is reported. Then the credential's source
// is deleted: once the operator has removed the
// key, the same Pod re-resolved leaves the runtime without the credential
// and the probe reports credential-missing for the handler.
func TestAgentPodContract(t *testing.T) {
	startCluster(t)
	probe := BuildProbe(t)
	ar := setup(t)
	pod := agentPod(t, ar)

	rt, rep, err := resolveAndRun(t, probe, pod, workload.ContainerRuntime, "runtime")
	if err != nil {
		t.Fatalf("runtime probe failed: %v\nreport: %+v", err, rep)
	}
	toolsFile := workload.ToolsMountPath + "/" + workload.ToolsConfigFile
	credFile := workload.ToolSecretsMountPath + "/" + handlerCRM + ".auth"
	tokenFile := workload.ToolTokensMountPath + "/" + handlerInv + ".token"
	for _, want := range []Read{
		{Kind: "pack", Path: workload.PromptPackMountPath + "/" + workload.PromptPackFile},
		{Kind: "tools-file", Path: toolsFile},
		{Kind: "credential-file", Path: credFile, Handler: handlerCRM},
		{Kind: "header-file", Handler: handlerCRM},
		{Kind: "tool-token", Path: tokenFile, Handler: handlerInv},
		{Kind: "provider-env", Handler: "default"},
		{Kind: "a2a-token", Path: workload.A2ATokensMountPath + "/0.token", Handler: a2aClient},
	} {
		if !hasRead(rep, want.Kind, want.Path, want.Handler) {
			t.Errorf("the runtime probe did not read %+v; it read %+v", want, rep.Read)
		}
	}
	// The token is a real TokenRequest with the handler's audience, bound
	// to this Pod, for the Pod's ServiceAccount.
	if ti, ok := rt.Tokens[tokenFile]; !ok || !slices.Equal(ti.Audiences, []string{invAud}) || ti.BoundPod != pod.Name || ti.ServiceAccount != pod.Spec.ServiceAccountName {
		t.Errorf("tool token request = %+v (present %v), want audience %s bound to pod %s as %s", ti, ok, invAud, pod.Name, pod.Spec.ServiceAccountName)
	}
	if rt.TokenPath != "" {
		t.Errorf("the runtime container has a ServiceAccount token at %s", rt.TokenPath)
	}

	fc, frep, err := resolveAndRun(t, probe, pod, workload.ContainerFacade, "facade")
	if err != nil {
		t.Fatalf("facade probe failed: %v\nreport: %+v", err, frep)
	}
	if fc.TokenPath == "" || !hasRead(frep, "sa-token", "", "") || !hasRead(frep, "ca", "", "") {
		t.Errorf("the facade did not use its mounted token and CA: token %q, read %+v", fc.TokenPath, frep.Read)
	}
	saToken := ServiceAccountMountPath + "/token"
	if ti, ok := fc.Tokens[saToken]; !ok || len(ti.Audiences) != 0 || ti.BoundPod != pod.Name || ti.ServiceAccount != pod.Spec.ServiceAccountName {
		t.Errorf("facade token request = %+v (present %v), want the API server's audience, bound to pod %s as %s", ti, ok, pod.Name, pod.Spec.ServiceAccountName)
	}
	for _, f := range fc.Files {
		if strings.HasPrefix(f, "/etc/omnia/tool") || strings.HasPrefix(f, workload.ToolTokensMountPath) {
			t.Errorf("the facade container gets the runtime's tool file %s", f)
		}
	}
	if n := len(slices.DeleteFunc(slices.Clone(frep.Read), func(r Read) bool { return r.Kind != "api-get" })); n != 3 {
		t.Errorf("the facade made %d API calls, want 3: %+v", n, frep.Read)
	}

	// Rejected (facade): a Role granting the pod's ServiceAccount the
	// namespace's Secrets is what the probe reports as allowed.
	ctx := context.Background()
	grantSecrets(t, ar.Namespace, pod.Spec.ServiceAccountName)
	eventuallyTrue(t, "the facade probe reports the granted Secrets as allowed", func(ctx context.Context) (bool, error) {
		r, err := Resolve(ctx, cs, APIServerOf(cluster.Config), pod, workload.ContainerFacade, filepath.Join(t.TempDir(), "facade"))
		if err != nil {
			return false, err
		}
		defer func() { _ = r.Remove() }()
		stdout, _, runErr := Run(ctx, probe, r, "-role", "facade")
		rep, err := ParseReport(stdout)
		if err != nil {
			return false, err
		}
		allowed := slices.ContainsFunc(rep.Problems, func(p Problem) bool {
			return p.Kind == "allowed" && p.Path == "/api/v1/namespaces/"+ar.Namespace+"/secrets"
		})
		return allowed && runErr != nil, fmt.Errorf("exit %v, problems %+v", runErr, rep.Problems)
	})

	// Rejected (runtime): the credential's source goes away.
	if err := k8s.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ar.Namespace, Name: crmSecret}}); err != nil {
		t.Fatal(err)
	}
	eventuallyTrue(t, "the operator removes crm.auth from the agent's tool-secrets", func(ctx context.Context) (bool, error) {
		s := &corev1.Secret{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ar.Namespace, Name: workload.ToolSecretsName(ar)}, s); err != nil {
			return false, err
		}
		_, has := s.Data[handlerCRM+".auth"]
		return !has, fmt.Errorf("keys %v", keys(s.Data))
	})
	_, rep, err = resolveAndRun(t, probe, pod, workload.ContainerRuntime, "runtime")
	if err == nil {
		t.Fatalf("the runtime probe passed without the credential: %+v", rep)
	}
	if !slices.ContainsFunc(rep.Problems, func(p Problem) bool {
		return p.Kind == "credential-missing" && p.Handler == handlerCRM && p.Path == credFile
	}) {
		t.Errorf("problems = %+v, want credential-missing for handler %s at %s", rep.Problems, handlerCRM, credFile)
	}
	for _, p := range rep.Problems {
		if strings.Contains(p.Detail, crmToken) || strings.Contains(p.Detail, crmAPIKey) {
			t.Errorf("a problem names a credential value: %+v", p)
		}
	}
}

// grantSecrets binds a Role allowing list on the namespace's Secrets to
// the ServiceAccount sa: more than the operator grants the facade.
func grantSecrets(t *testing.T, ns, sa string) {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "contract-too-much"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"list"}}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "contract-too-much"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: sa}}}
	for _, o := range []client.Object{role, binding} {
		if err := k8s.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
}

func keys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestFacadeReadsClientKeys: with externalAuth.clientKeys, the facade's own
// token lists the agent's client key Secrets by the selector its
// OMNIA_EXTERNAL_AUTH names and sees a key `omniactl client-key mint`
// created; the
// runtime still holds no token at all.
func TestFacadeReadsClientKeys(t *testing.T) {
	startCluster(t)
	probe := BuildProbe(t)
	ar := setup(t, func(a *v1alpha1.AgentRuntime) {
		a.Spec.ExternalAuth = &v1alpha1.AgentRuntimeExternalAuth{ClientKeys: &v1alpha1.AgentRuntimeClientKeys{}}
	})
	// The key is minted by omniactl itself, as a platform team would.
	keyName := "agent-" + ar.Name + "-clientkey-probe"
	omniactl := filepath.Join(t.TempDir(), "omniactl")
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", omniactl, "./cmd/omniactl")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building omniactl: %v\n%s", err, out)
	}
	mint := exec.Command(omniactl, "client-key", "mint", "--agent", ar.Name, "-n", ar.Namespace, "--id", "probe", "--create",
		"--kubeconfig", filepath.Join(cluster.Components.Dir, "components.kubeconfig"), "--token-file", filepath.Join(t.TempDir(), "token"))
	if out, err := mint.CombinedOutput(); err != nil {
		t.Fatalf("omniactl client-key mint: %v\n%s", err, out)
	}
	pod := agentPod(t, ar)

	_, frep, err := resolveAndRun(t, probe, pod, workload.ContainerFacade, "facade")
	if err != nil {
		t.Fatalf("facade probe failed: %v\nreport: %+v", err, frep)
	}
	if !hasRead(frep, "client-key", keyName, "") {
		t.Errorf("the facade's token did not list the minted client key %s: read %+v", keyName, frep.Read)
	}
	if hasRead(frep, "client-key", crmSecret, "") {
		t.Errorf("the facade's client-key list returned the tool credential Secret %s", crmSecret)
	}
	rt, rrep, err := resolveAndRun(t, probe, pod, workload.ContainerRuntime, "runtime")
	if err != nil {
		t.Fatalf("runtime probe failed: %v\nreport: %+v", err, rrep)
	}
	if rt.TokenPath != "" {
		t.Errorf("the runtime container has a ServiceAccount token at %s", rt.TokenPath)
	}
}
