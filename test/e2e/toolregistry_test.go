package e2e

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/test/controlplane"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

// trListener is a local TCP server the operator's probes dial; closing and
// reopening it on the same port flips a tool's reachability.
type trListener struct {
	addr string
	l    net.Listener
}

func (l *trListener) open(addr string) {
	ln, err := net.Listen("tcp", addr)
	Expect(err).NotTo(HaveOccurred())
	l.l, l.addr = ln, ln.Addr().String()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
}

func (l *trListener) close() {
	if l.l != nil {
		_ = l.l.Close()
		l.l = nil
	}
}

func trTool(name string) *v1alpha1.ToolRegistryToolDefinition {
	return &v1alpha1.ToolRegistryToolDefinition{Name: name, Description: "calls " + name, InputSchema: runtime.RawExtension{Raw: []byte(`{"type":"object"}`)}}
}

func trHTTPHandler(name, endpoint string) v1alpha1.ToolRegistryHandler {
	return v1alpha1.ToolRegistryHandler{Name: name, Type: v1alpha1.ToolRegistryHandlerTypeHTTP,
		HTTPConfig: &v1alpha1.ToolRegistryHTTPConfig{Endpoint: endpoint}, Tool: trTool(strings.ReplaceAll(name, "-", "_"))}
}

var _ = Describe("ToolRegistry", func() {
	var ns string
	ctx := context.Background()

	BeforeEach(func() {
		ns = framework.CreateNamespace(suite.Client, "tr-e2e")
	})

	get := func(name string) *v1alpha1.ToolRegistry {
		tr := &v1alpha1.ToolRegistry{}
		Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, tr)).To(Succeed())
		return tr
	}
	phase := func(name string) func() v1alpha1.ToolRegistryPhase {
		return func() v1alpha1.ToolRegistryPhase { return get(name).Status.Phase }
	}
	condition := func(name, typ string) func() string {
		return func() string {
			c := meta.FindStatusCondition(get(name).Status.Conditions, typ)
			if c == nil {
				return "absent"
			}
			return string(c.Status) + "/" + c.Reason
		}
	}

	It("with probing against local listeners goes Ready, Degraded when one closes, then Ready again", func() {
		a, b := &trListener{}, &trListener{}
		a.open("127.0.0.1:0")
		b.open("127.0.0.1:0")
		DeferCleanup(a.close)
		DeferCleanup(b.close)

		on := true
		tr := &v1alpha1.ToolRegistry{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "probed"},
			Spec: v1alpha1.ToolRegistrySpec{
				Probe: &v1alpha1.ToolRegistryProbe{Enabled: &on, Interval: "5s", Timeout: "1s"}, // the CRD minimum interval
				Handlers: []v1alpha1.ToolRegistryHandler{
					trHTTPHandler("svc-a", "http://"+a.addr+"/call"),
					{Name: "svc-b", Type: v1alpha1.ToolRegistryHandlerTypeMCP,
						MCPConfig: &v1alpha1.ToolRegistryMCPConfig{Transport: v1alpha1.ToolRegistryMCPTransportSSE, Endpoint: "http://" + b.addr + "/sse"}},
					{Name: "geo", Type: v1alpha1.ToolRegistryHandlerTypeClient, Tool: trTool("get_location")},
				},
			},
		}
		Expect(suite.Client.Create(ctx, tr)).To(Succeed())

		Eventually(phase("probed"), 30*time.Second, 200*time.Millisecond).Should(Equal(v1alpha1.ToolRegistryPhaseReady))
		ready := get("probed")
		Expect(ready.Status.DiscoveredToolsCount).To(Equal(int32(3)))
		Expect(ready.Status.DiscoveredTools[2].Endpoint).To(Equal("client://browser"))
		Expect(condition("probed", v1alpha1.ToolRegistryConditionReady)()).To(Equal("True/ToolsDiscovered"))
		Expect(condition("probed", v1alpha1.ToolRegistryConditionDegraded)()).To(Equal("False/AllToolsAvailable"))

		b.close()
		Eventually(phase("probed"), 30*time.Second, 200*time.Millisecond).Should(Equal(v1alpha1.ToolRegistryPhaseDegraded))
		degraded := get("probed")
		Expect(condition("probed", v1alpha1.ToolRegistryConditionDegraded)()).To(Equal("True/SomeToolsUnavailable"))
		Expect(degraded.Status.DiscoveredTools[1].Status).To(Equal(v1alpha1.ToolRegistryToolStatusUnavailable))
		Expect(degraded.Status.DiscoveredTools[2].Status).To(Equal(v1alpha1.ToolRegistryToolStatusAvailable), "client tools are never probed")
		Expect(degraded.Status.ContentDigest).To(Equal(ready.Status.ContentDigest), "a probe flip leaves the content digest")

		b.open(b.addr)
		Eventually(phase("probed"), 30*time.Second, 200*time.Millisecond).Should(Equal(v1alpha1.ToolRegistryPhaseReady))
		Expect(condition("probed", v1alpha1.ToolRegistryConditionDegraded)()).To(Equal("False/AllToolsAvailable"))
	})

	It("reports an mcp endpoint at a cloud-metadata address under HandlersValid, and Failed", func() {
		tr := &v1alpha1.ToolRegistry{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "metadata"},
			Spec: v1alpha1.ToolRegistrySpec{Handlers: []v1alpha1.ToolRegistryHandler{{
				Name: "meta", Type: v1alpha1.ToolRegistryHandlerTypeMCP,
				MCPConfig: &v1alpha1.ToolRegistryMCPConfig{Transport: v1alpha1.ToolRegistryMCPTransportSSE, Endpoint: "http://169.254.169.254/sse"},
			}}},
		}
		// The webhook admits it with a warning; the controller refuses it.
		Expect(suite.Client.Create(ctx, tr)).To(Succeed())
		Eventually(phase("metadata"), 30*time.Second, 200*time.Millisecond).Should(Equal(v1alpha1.ToolRegistryPhaseFailed))
		Expect(condition("metadata", v1alpha1.ToolRegistryConditionHandlersValid)()).To(Equal("False/ValidationFailed"))
		Expect(condition("metadata", v1alpha1.ToolRegistryConditionReady)()).To(Equal("False/ValidationFailed"))
		hv := meta.FindStatusCondition(get("metadata").Status.Conditions, v1alpha1.ToolRegistryConditionHandlersValid)
		Expect(hv.Message).To(ContainSubstring("[toolregistry/mcp-endpoint-metadata-address] spec.handlers[0].mcpConfig.endpoint"))
	})

	It("counts the ToolPolicies selecting it, and kubectl get tr shows PHASE, TOOLS and POLICIES from live status", func() {
		tr := &v1alpha1.ToolRegistry{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "agent-tools"},
			Spec: v1alpha1.ToolRegistrySpec{Handlers: []v1alpha1.ToolRegistryHandler{
				trHTTPHandler("calculator", "https://api.example.com/calculate"),
				{Name: "catalog", Type: v1alpha1.ToolRegistryHandlerTypePlatform, Platform: &v1alpha1.ToolRegistryPlatformConfig{Service: v1alpha1.ToolRegistryPlatformServiceDiscovery}},
			}},
		}
		Expect(suite.Client.Create(ctx, tr)).To(Succeed())
		Eventually(condition("agent-tools", v1alpha1.ToolRegistryConditionPolicyBound), 30*time.Second, 200*time.Millisecond).
			Should(Equal("False/NoPolicySelectsRegistry"))
		Expect(get("agent-tools").Status.PolicyCount).To(HaveValue(Equal(int32(0))))
		Expect(get("agent-tools").Status.Phase).To(Equal(v1alpha1.ToolRegistryPhaseReady), "a registry no policy selects is still Ready")

		Expect(suite.Client.Create(ctx, &v1alpha1.ToolPolicy{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "calculator-policy"},
			Spec:       v1alpha1.ToolPolicySpec{Selector: v1alpha1.ToolPolicySelector{Registry: "agent-tools"}},
		})).To(Succeed())
		Eventually(condition("agent-tools", v1alpha1.ToolRegistryConditionPolicyBound), 30*time.Second, 200*time.Millisecond).
			Should(Equal("True/PolicySelectsRegistry"))
		bound := meta.FindStatusCondition(get("agent-tools").Status.Conditions, v1alpha1.ToolRegistryConditionPolicyBound)
		Expect(bound.Message).To(Equal("selected by 1 ToolPolicy(s): [calculator-policy]"))

		// The table the API server serves kubectl get.
		kube, err := kubernetes.NewForConfig(suite.Env.Config)
		Expect(err).NotTo(HaveOccurred())
		body, err := kube.CoreV1().RESTClient().Get().
			AbsPath("/apis/omnia.altairalabs.ai/v1alpha1/namespaces", ns, "toolregistries", "agent-tools").
			SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").
			DoRaw(ctx)
		Expect(err).NotTo(HaveOccurred(), string(body))
		table := &metav1.Table{}
		Expect(json.Unmarshal(body, table)).To(Succeed())
		cells := map[string]any{}
		for i, col := range table.ColumnDefinitions {
			cells[col.Name] = table.Rows[0].Cells[i]
		}
		Expect(cells).To(HaveKeyWithValue("PHASE", "Ready"))
		Expect(cells).To(HaveKeyWithValue("TOOLS", BeNumerically("==", 2)))
		Expect(cells).To(HaveKeyWithValue("POLICIES", BeNumerically("==", 1)))

		// And kubectl itself, where it is installed.
		kubectl, err := exec.LookPath("kubectl")
		if err != nil {
			return
		}
		kubeconfig, err := controlplane.AdminKubeconfig(suite.Env, "e2e-kubectl")
		Expect(err).NotTo(HaveOccurred())
		path := filepath.Join(suite.LogDir, "kubectl.kubeconfig")
		Expect(os.WriteFile(path, kubeconfig, 0o600)).To(Succeed())
		out, err := exec.Command(kubectl, "--kubeconfig", path, "get", "tr", "-n", ns, "agent-tools").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		Expect(lines).To(HaveLen(2), string(out))
		Expect(strings.Fields(lines[0])).To(Equal([]string{"NAME", "PHASE", "TOOLS", "POLICIES", "AGE"}))
		Expect(strings.Fields(lines[1])[:4]).To(Equal([]string{"agent-tools", "Ready", "2", "1"}))
	})
})
