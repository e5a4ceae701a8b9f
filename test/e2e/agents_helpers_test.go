package e2e

// Helpers for AgentRuntime specs on the local cluster: the dependencies of
// the spec's complete example (agentruntime.md#complete-example) in a fresh
// namespace, waits on an agent's phase and conditions, the agent's
// Deployment, and the server-side Table `kubectl get agent` prints. Specs of
// later issue points (autoscaling, idle reaping, quotas) build on these.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/test/controlplane"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

// The complete example's names (agentruntime.md#complete-example).
const (
	exampleAgentName       = "production-agent"
	exampleProvider        = "claude-production"
	exampleJudgeProvider   = "claude-haiku"
	examplePackName        = "customer-service-prompts"
	examplePackVersion     = "2.1.0"
	exampleToolRegistry    = "service-tools"
	exampleRedisSecret     = "redis-credentials"
	exampleProviderSecret  = "anthropic-credentials"
	exampleProviderAPIKey  = "sk-e2e-agents-5be0c7a1"
	exampleAgentsNamespace = "agents"
)

// exampleAgentFile is the complete example as committed for the API tests,
// read rather than copied so the e2e runs exactly the spec's manifest.
const exampleAgentFile = "config/samples/agentruntime/production-agent.yaml"

// localVendor is a local HTTP server standing in for a model vendor and a
// tool endpoint: a Provider's baseURL and a ToolRegistry handler point at
// it, so no probe leaves the machine. It answers 404 to everything (still
// reachable). A plain-http baseURL gets no credential probe (the egress
// policy), which is what lets a Provider go Ready without a real vendor.
// The server is closed when the current spec ends.
func localVendor() *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNotFound)
	}))
	DeferCleanup(s.Close)
	return s
}

// exampleAgent is the complete example's AgentRuntime, moved to ns.
func exampleAgent(ns string) *v1alpha1.AgentRuntime {
	root, err := controlplane.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	data, err := os.ReadFile(filepath.Join(root, exampleAgentFile))
	Expect(err).NotTo(HaveOccurred())
	ar := &v1alpha1.AgentRuntime{}
	Expect(yaml.UnmarshalStrict(data, ar)).To(Succeed())
	Expect(ar.Namespace).To(Equal(exampleAgentsNamespace), "the example's namespace moved; update the helpers")
	ar.Namespace = ns
	return ar
}

// ExampleDeps says which of the complete example's dependencies
// createExampleDeps creates. The zero value creates them all.
type ExampleDeps struct {
	// NoProviderSecret leaves out the Providers' credential Secret: the
	// Providers then stay not Ready (SecretNotFound).
	NoProviderSecret bool
	// NoPromptPack leaves out the PromptPack and its ConfigMap.
	NoPromptPack bool
	// BaseURL is the Providers' baseURL; empty starts a localVendor.
	BaseURL string
}

// createExampleDeps creates, in ns, minimal valid objects for everything the
// complete example references: the Providers claude-production (default)
// and claude-haiku (judge) with their credential Secret, the PromptPack
// customer-service-prompts 2.1.0 with its ConfigMap pack.json, the
// ToolRegistry service-tools and the Secret redis-credentials. It waits
// until the Providers are Ready and the PromptPack is Ready, unless deps
// leaves out what that needs.
func createExampleDeps(ns string, deps ExampleDeps) {
	ctx := context.Background()
	base := deps.BaseURL
	if base == "" {
		base = localVendor().URL
	}
	if !deps.NoProviderSecret {
		createProviderSecret(ns)
	}
	Expect(suite.Client.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: exampleRedisSecret},
		StringData: map[string]string{"url": "redis://redis.invalid:6379/0"},
	})).To(Succeed())
	for name, model := range map[string]string{exampleProvider: "claude-sonnet-4-20250514", exampleJudgeProvider: "claude-haiku-4-5"} {
		Expect(suite.Client.Create(ctx, exampleProviderObject(ns, name, model, base))).To(Succeed())
	}
	Expect(suite.Client.Create(ctx, &v1alpha1.ToolRegistry{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: exampleToolRegistry},
		Spec: v1alpha1.ToolRegistrySpec{Handlers: []v1alpha1.ToolRegistryHandler{{
			Name: "lookup", Type: v1alpha1.ToolRegistryHandlerTypeHTTP,
			HTTPConfig: &v1alpha1.ToolRegistryHTTPConfig{Endpoint: base + "/lookup"},
			Tool: &v1alpha1.ToolRegistryToolDefinition{Name: "lookup", Description: "looks up an order",
				InputSchema: runtime.RawExtension{Raw: []byte(`{"type":"object"}`)}},
		}}},
	})).To(Succeed())
	if !deps.NoPromptPack {
		framework.CreateReadyPromptPack(suite.Client, ns, examplePackName, examplePackVersion)
	}
	if !deps.NoProviderSecret {
		for _, name := range []string{exampleProvider, exampleJudgeProvider} {
			framework.WaitProviderPhase(suite.Client, ns, name, v1alpha1.ProviderPhaseReady)
		}
	}
}

// exampleProviderObject is a claude Provider reading its key from the
// example's credential Secret, with baseURL pointing at a local server.
func exampleProviderObject(ns, name, model, baseURL string) *v1alpha1.Provider {
	return &v1alpha1.Provider{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.ProviderSpec{
			Type:       v1alpha1.ProviderTypeClaude,
			Model:      model,
			BaseURL:    baseURL,
			Credential: &v1alpha1.ProviderCredential{SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: exampleProviderSecret}},
		},
	}
}

// createProviderSecret creates the Providers' credential Secret in ns.
func createProviderSecret(ns string) {
	Expect(suite.Client.Create(context.Background(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: exampleProviderSecret},
		StringData: map[string]string{"ANTHROPIC_API_KEY": exampleProviderAPIKey},
	})).To(Succeed())
}

// getAgent reads the AgentRuntime ns/name.
func getAgent(g Gomega, ns, name string) *v1alpha1.AgentRuntime {
	ar := &v1alpha1.AgentRuntime{}
	g.Expect(suite.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, ar)).To(Succeed())
	return ar
}

// agentCondition returns "<status>/<reason>" of the agent's condition of
// type t, or "" when it is not set.
func agentCondition(ar *v1alpha1.AgentRuntime, t string) string {
	return framework.Condition(ar.Status.Conditions, t)
}

// waitAgent waits until check passes on the AgentRuntime ns/name, observed
// at its current generation, and returns the agent as last read.
func waitAgent(ns, name string, check func(g Gomega, ar *v1alpha1.AgentRuntime)) *v1alpha1.AgentRuntime {
	var ar *v1alpha1.AgentRuntime
	Eventually(func(g Gomega) {
		ar = getAgent(g, ns, name)
		g.Expect(ar.Status.ObservedGeneration).To(Equal(ar.Generation), "the status is for the current generation")
		check(g, ar)
	}).WithTimeout(framework.Timeout).WithPolling(framework.Poll).Should(Succeed(), "AgentRuntime %s/%s", ns, name)
	return ar
}

// waitAgentPhase waits until the AgentRuntime ns/name reports phase at its
// current generation and returns it.
func waitAgentPhase(ns, name string, phase v1alpha1.AgentRuntimePhase) *v1alpha1.AgentRuntime {
	return waitAgent(ns, name, func(g Gomega, ar *v1alpha1.AgentRuntime) {
		g.Expect(ar.Status.Phase).To(Equal(phase), "conditions: %s", conditionSummary(ar))
	})
}

// waitAgentRunning waits until the agent is Running with at least one ready
// replica (status.replicas.ready > 0).
func waitAgentRunning(ns, name string) *v1alpha1.AgentRuntime {
	return waitAgent(ns, name, func(g Gomega, ar *v1alpha1.AgentRuntime) {
		g.Expect(ar.Status.Phase).To(Equal(v1alpha1.AgentRuntimePhaseRunning), "conditions: %s", conditionSummary(ar))
		g.Expect(ar.Status.Replicas).NotTo(BeNil())
		g.Expect(ar.Status.Replicas.Ready).To(BeNumerically(">", 0))
	})
}

// conditionSummary lists the agent's conditions as type=status/reason, for
// failure messages.
func conditionSummary(ar *v1alpha1.AgentRuntime) string {
	parts := make([]string, 0, len(ar.Status.Conditions))
	for _, c := range ar.Status.Conditions {
		parts = append(parts, c.Type+"="+string(c.Status)+"/"+c.Reason)
	}
	return strings.Join(parts, " ")
}

// agentDeployment reads the agent's Deployment (named after the agent).
func agentDeployment(g Gomega, ns, name string) *appsv1.Deployment {
	d := &appsv1.Deployment{}
	g.Expect(suite.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, d)).To(Succeed())
	return d
}

// agentPods lists the pods of the agent's Deployment (its selector).
func agentPods(g Gomega, d *appsv1.Deployment) []corev1.Pod {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	g.Expect(err).NotTo(HaveOccurred())
	pods := &corev1.PodList{}
	g.Expect(suite.Client.List(context.Background(), pods, client.InNamespace(d.Namespace), client.MatchingLabelsSelector{Selector: sel})).To(Succeed())
	return pods.Items
}

// containerEnvNames lists the env names of the named container of a pod
// spec.
func containerEnvNames(spec *corev1.PodSpec, container string) []string {
	for _, c := range spec.Containers {
		if c.Name == container {
			names := make([]string, 0, len(c.Env))
			for _, e := range c.Env {
				names = append(names, e.Name)
			}
			return names
		}
	}
	return nil
}

// containerEnvValue returns the literal value of env name in the named
// container, and whether it is set.
func containerEnvValue(spec *corev1.PodSpec, container, name string) (string, bool) {
	for _, c := range spec.Containers {
		if c.Name != container {
			continue
		}
		for _, e := range c.Env {
			if e.Name == name {
				return e.Value, true
			}
		}
	}
	return "", false
}

// serverTable fetches the objects of a resource in ns the way `kubectl get`
// does: the API server's Table form (Accept:
// application/json;as=Table;v=v1;g=meta.k8s.io), whose columns for a custom
// resource are the CRD's printer columns. group/version is e.g.
// "omnia.altairalabs.ai/v1alpha1"; resource the plural ("agentruntimes").
func serverTable(groupVersion, resource, ns string) (*metav1.Table, error) {
	hc, err := rest.HTTPClientFor(suite.Env.Config)
	if err != nil {
		return nil, err
	}
	url := strings.TrimRight(suite.Env.Config.Host, "/") + "/apis/" + groupVersion + "/namespaces/" + ns + "/" + resource
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	table := &metav1.Table{}
	return table, json.NewDecoder(resp.Body).Decode(table)
}

// tableRows maps each row of a Table to its cells by column name, keyed by
// the row's Name cell. Cells print as kubectl prints them: a missing value
// as "<none>".
func tableRows(t *metav1.Table) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, row := range t.Rows {
		cells := map[string]string{}
		for i, col := range t.ColumnDefinitions {
			v := row.Cells[i]
			if v == nil {
				cells[col.Name] = "<none>"
				continue
			}
			cells[col.Name] = fmt.Sprint(v)
		}
		out[cells["Name"]] = cells
	}
	return out
}

// agentTable is `kubectl get agent -n ns` as rows keyed by agent name.
func agentTable(g Gomega, ns string) map[string]map[string]string {
	t, err := serverTable(v1alpha1.GroupVersion.String(), "agentruntimes", ns)
	g.Expect(err).NotTo(HaveOccurred())
	return tableRows(t)
}

// podIsReady reports the pod's Ready condition.
func podIsReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// deleteExampleDeps deletes what createExampleDeps created in ns, for specs
// that use a shared namespace (a fresh one is simply left behind).
func deleteExampleDeps(ns string) {
	ctx := context.Background()
	objs := []client.Object{
		&v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: exampleProvider}},
		&v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: exampleJudgeProvider}},
		&v1alpha1.ToolRegistry{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: exampleToolRegistry}},
		&v1alpha1.PromptPack{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: examplePackName + "-" + examplePackVersion}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: examplePackName + "-" + examplePackVersion}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: exampleProviderSecret}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: exampleRedisSecret}},
	}
	for _, o := range objs {
		Expect(client.IgnoreNotFound(suite.Client.Delete(ctx, o))).To(Succeed())
	}
}
