package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/auth/authtest"
	"github.com/altairalabs/omnia/deploy/catalog"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

const (
	eventually = 2 * time.Minute
	poll       = 250 * time.Millisecond
	// billingTools is how many tools the registry billing declares.
	billingTools = 12
)

// longDescription is over 200 characters: search cuts it, get does not.
var longDescription = "Refund an invoice: " + strings.Repeat("the amount goes back to the customer's card ", 6)

var hiddenLabels = map[string]string{catalog.HiddenLabel: "true"}

// httpTool is an http handler declaring one tool.
func httpTool(name, desc, endpoint string) v1alpha1.ToolRegistryHandler {
	return v1alpha1.ToolRegistryHandler{
		Name: strings.ReplaceAll(name, "_", "-"), Type: v1alpha1.ToolRegistryHandlerTypeHTTP,
		HTTPConfig: &v1alpha1.ToolRegistryHTTPConfig{Endpoint: endpoint},
		Tool: &v1alpha1.ToolRegistryToolDefinition{Name: name, Description: desc,
			InputSchema: runtime.RawExtension{Raw: []byte(`{"type":"object","properties":{"number":{"type":"string"}}}`)}},
	}
}

// platformHandler is a platform handler exposing svc.
func platformHandler(svc v1alpha1.ToolRegistryPlatformService) v1alpha1.ToolRegistryHandler {
	return v1alpha1.ToolRegistryHandler{Name: "catalog", Type: v1alpha1.ToolRegistryHandlerTypePlatform,
		Platform: &v1alpha1.ToolRegistryPlatformConfig{Service: svc}}
}

// catalogPath is .../workspaces/<ws>/catalog/<route>?<query>.
func catalogPath(ws, route string, q url.Values) string {
	p := "/api/v1/workspaces/" + ws + "/catalog/" + route
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	return p
}

func decode[T any](r reply) T {
	GinkgoHelper()
	var v T
	Expect(json.Unmarshal(r.Body, &v)).To(Succeed(), "%s", r.Body)
	return v
}

// errorOf is a 400/401/404 body's message (the deploy API's shape).
func errorOf(r reply) string {
	GinkgoHelper()
	var b map[string]any
	Expect(json.Unmarshal(r.Body, &b)).To(Succeed(), "%s", r.Body)
	Expect(b).To(HaveLen(1), "the error body is {\"error\": ...} only: %s", r.Body)
	msg, ok := b["error"].(string)
	Expect(ok).To(BeTrue(), "%s", r.Body)
	return msg
}

var _ = Describe("The workspace catalog API", Ordered, func() {
	var (
		ws, other string // workspace names
		ns        string
	)

	BeforeAll(func() {
		ctx := context.Background()
		ns = framework.CreateNamespace(suite.Client, "catalog")
		otherNS := framework.CreateNamespace(suite.Client, "catalog-other")
		suffix := rand.String(5)
		ws, other = "acme-"+suffix, "globex-"+suffix
		for name, n := range map[string]string{ws: ns, other: otherNS} {
			Expect(suite.Client.Create(ctx, &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec: v1alpha1.WorkspaceSpec{Namespace: v1alpha1.WorkspaceNamespace{Name: n}}})).To(Succeed())
		}
		// Tool endpoints are never dialled (no probe is configured): an
		// address that is never listened on is enough.
		base := "http://127.0.0.1:9/"
		var handlers []v1alpha1.ToolRegistryHandler
		handlers = append(handlers, httpTool("get_invoice", "Fetch one invoice by its number", base+"get"),
			httpTool("refund", longDescription, base+"refund"))
		for i := len(handlers); i < billingTools; i++ {
			handlers = append(handlers, httpTool(fmt.Sprintf("report_%02d", i), "A monthly sales report", base+"report"))
		}
		for _, o := range []*v1alpha1.ToolRegistry{
			{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "billing"}, Spec: v1alpha1.ToolRegistrySpec{Handlers: handlers}},
			{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "internal", Labels: hiddenLabels},
				Spec: v1alpha1.ToolRegistrySpec{Handlers: []v1alpha1.ToolRegistryHandler{httpTool("wipe", "Wipe an invoice", base+"wipe")}}},
			// The agent's registry: a discovery handler (hidden, so the
			// counts above stay the billing registry's).
			{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "discovery", Labels: hiddenLabels},
				Spec: v1alpha1.ToolRegistrySpec{Handlers: []v1alpha1.ToolRegistryHandler{platformHandler(v1alpha1.ToolRegistryPlatformServiceDiscovery)}}},
			{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "arena", Labels: hiddenLabels},
				Spec: v1alpha1.ToolRegistrySpec{Handlers: []v1alpha1.ToolRegistryHandler{platformHandler(v1alpha1.ToolRegistryPlatformServiceArena)}}},
		} {
			Expect(suite.Client.Create(ctx, o)).To(Succeed())
		}
		for _, p := range []*v1alpha1.Provider{
			{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "mock-a"}, Spec: v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeMock, Model: "mock-large",
				Pricing: &v1alpha1.ProviderPricing{InputCostPer1K: "0.001", OutputCostPer1K: "0.002"}}},
			{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "mock-hidden", Labels: hiddenLabels}, Spec: v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeMock}},
			{ObjectMeta: metav1.ObjectMeta{Namespace: otherNS, Name: "other-provider"}, Spec: v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeMock}},
		} {
			Expect(suite.Client.Create(ctx, p)).To(Succeed())
		}
		Expect(suite.Client.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "support-1.0.0"},
			Data: map[string]string{"pack.json": `{"id": "support", "version": "1.0.0"}`}})).To(Succeed())
		Expect(suite.Client.Create(ctx, &v1alpha1.PromptPack{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "support-1.0.0", Labels: map[string]string{rules.PromptPackLabel: "support"}},
			Spec: v1alpha1.PromptPackSpec{PackName: "support", Version: "1.0.0",
				Source: v1alpha1.PromptPackContentSource{ConfigMapRef: &v1alpha1.LocalObjectReference{Name: "support-1.0.0"}}},
		})).To(Succeed())
		Expect(suite.Client.Create(ctx, &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "support"},
			Spec: v1alpha1.AgentRuntimeSpec{
				PromptPackRef:   &v1alpha1.AgentRuntimePromptPackRef{Name: "support", Version: "1.0.0"},
				Providers:       v1alpha1.AgentRuntimeProviders{{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "mock-a"}}},
				ToolRegistryRef: &v1alpha1.NamespacedObjectReference{Name: "discovery"},
				Facades:         []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}},
			}})).To(Succeed())

		// The registries' controller writes the discovered tools; the
		// catalog reads them from the operator's cache.
		Eventually(func(g Gomega) {
			r := get(catalogPath(ws, "overview", nil), delegation(ws))
			g.Expect(r.Status).To(Equal(http.StatusOK), "%s", r.Body)
			o := decode[catalog.OverviewResult](r)
			g.Expect(o.Kinds[catalog.KindTool]).To(Equal(billingTools))
			g.Expect(o.Kinds[catalog.KindAgent]).To(Equal(1))
			g.Expect(o.Kinds[catalog.KindPromptPack]).To(Equal(1))
		}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())
	})

	It("overview counts every kind and lists the groups with count and readiness, hidden objects left out", func() {
		Eventually(func(g Gomega) {
			o := decode[catalog.OverviewResult](get(catalogPath(ws, "overview", nil), delegation(ws)))
			g.Expect(o.Kinds).To(Equal(map[catalog.Kind]int{
				"tool": billingTools, "skill": 0, "provider": 1, "agent": 1, "skillSource": 0, "promptPack": 1,
				"connection": 0, "sandboxClass": 0, "memorySchema": 0,
			}))
			g.Expect(o.Groups).To(Equal([]catalog.GroupSummary{
				{ID: "toolRegistry:billing", Kind: catalog.GroupToolRegistry, Name: "billing", Count: billingTools, Ready: true},
			}))
			g.Expect(o.Truncated).To(BeFalse())
		}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())
	})

	It("search without a query pages every listed entry in id order with cursors to the end", func() {
		q := url.Values{"limit": {"5"}}
		var got []string
		pages := 0
		for {
			r := get(catalogPath(ws, "search", q), delegation(ws))
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r.Body)
			res := decode[catalog.SearchResult](r)
			pages++
			for _, c := range res.Results {
				got = append(got, c.ID)
			}
			if res.NextCursor == "" {
				break
			}
			Expect(res.Results).To(HaveLen(5))
			q.Set("cursor", res.NextCursor)
		}
		want := []string{"agent:support", "promptPack:support-1.0.0", "provider:mock-a", "tool:billing/get_invoice", "tool:billing/refund"}
		for i := 2; i < billingTools; i++ {
			want = append(want, fmt.Sprintf("tool:billing/report_%02d", i))
		}
		Expect(got).To(Equal(want), "every listed entry once, in id order; nothing hidden")
		Expect(pages).To(Equal(3))
	})

	It("search ranks by name, then description, and cuts descriptions to 200 characters", func() {
		r := get(catalogPath(ws, "search", url.Values{"query": {"invoice"}, "kinds": {"tool,skill"}}), delegation(ws))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r.Body)
		res := decode[catalog.SearchResult](r)
		Expect(res.Results).To(HaveLen(2), "the hidden registry's wipe is not found: %s", r.Body)
		Expect(res.Results[0]).To(Equal(catalog.Compact{ID: "tool:billing/get_invoice", Kind: "tool", Name: "get_invoice",
			Group: "toolRegistry:billing", Description: "Fetch one invoice by its number", Ready: true}))
		refund := res.Results[1]
		Expect(refund.ID).To(Equal("tool:billing/refund"))
		Expect(utf8.RuneCountInString(refund.Description)).To(Equal(200))
		Expect(longDescription).To(HavePrefix(refund.Description))

		byGroup := decode[catalog.SearchResult](get(catalogPath(ws, "search",
			url.Values{"group": {"toolRegistry:billing"}, "readyOnly": {"true"}, "query": {"report"}, "limit": {"50"}}), delegation(ws)))
		Expect(byGroup.Total).To(Equal(billingTools - 2))
	})

	It("get returns full detail, hidden objects included, and reports unknown and malformed ids in missing", func() {
		r := get(catalogPath(ws, "get", url.Values{"ids": {"tool:billing/refund,tool:internal/wipe,provider:mock-hidden,provider:mock-a,tool:billing/nope,nonsense,agent:a/b"}}), delegation(ws))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r.Body)
		var res struct {
			Items []struct {
				ID          string         `json:"id"`
				Description string         `json:"description"`
				Detail      map[string]any `json:"detail"`
			} `json:"items"`
			Missing []catalog.Missing `json:"missing"`
		}
		Expect(json.Unmarshal(r.Body, &res)).To(Succeed())
		Expect(res.Items).To(HaveLen(4))
		Expect(res.Items[0].ID).To(Equal("tool:billing/refund"))
		Expect(res.Items[0].Description).To(Equal(longDescription))
		Expect(res.Items[0].Detail).To(HaveKeyWithValue("inputSchema", HaveKey("properties")))
		Expect(res.Items[1].ID).To(Equal("tool:internal/wipe"))
		Expect(res.Items[2].ID).To(Equal("provider:mock-hidden"))
		Expect(res.Items[3].Detail).To(HaveKeyWithValue("pricing", map[string]any{"inputCostPer1K": "0.001", "outputCostPer1K": "0.002"}))
		Expect(res.Missing).To(HaveLen(3))
		Expect(res.Missing[0]).To(Equal(catalog.Missing{ID: "tool:billing/nope", Reason: catalog.ReasonNotFound}))
		Expect(res.Missing[1].ID).To(Equal("nonsense"))
		Expect(res.Missing[1].Reason).To(HavePrefix("malformed id"))
		Expect(res.Missing[2].Reason).To(HavePrefix("malformed id: agent ids are agent:<name>"))
		Expect(string(r.Body)).NotTo(ContainSubstring("127.0.0.1"), "no endpoint in the detail")
	})

	It("answers 400 with the deploy API's error body for each refused argument", func() {
		first := decode[catalog.SearchResult](get(catalogPath(ws, "search", url.Values{"limit": {"2"}}), delegation(ws)))
		Expect(first.NextCursor).NotTo(BeEmpty())
		var ids []string
		for i := 0; i < 21; i++ {
			ids = append(ids, fmt.Sprintf("tool:billing/t%d", i))
		}
		cases := map[string]struct {
			route string
			q     url.Values
		}{
			`kinds: unknown kind "widget"; valid kinds: agent, connection, memorySchema, promptPack, provider, sandboxClass, skill, skillSource, tool`: {"search", url.Values{"kinds": {"tool,widget"}}},
			`group: "billing" is not a group id: want toolRegistry:<name> or skillSource:<name>`:                                                       {"search", url.Values{"group": {"billing"}}},
			"cursor: it belongs to another search":                {"search", url.Values{"limit": {"2"}, "query": {"report"}, "cursor": {first.NextCursor}}},
			"cursor: it belongs to another search ":               {"search", url.Values{"limit": {"2"}, "readyOnly": {"true"}, "cursor": {first.NextCursor}}},
			"cursor: malformed":                                   {"search", url.Values{"cursor": {"garbage!"}}},
			"ids: 21 ids; at most 20 per call":                    {"get", url.Values{"ids": {strings.Join(ids, ",")}}},
			"ids: required":                                       {"get", nil},
			`readyOnly: "yes"; want the string "true" or "false"`: {"search", url.Values{"readyOnly": {"yes"}}},
			`limit: "51"; want a whole number from 1 to 50`:       {"search", url.Values{"limit": {"51"}}},
		}
		for want, c := range cases {
			r := get(catalogPath(ws, c.route, c.q), delegation(ws))
			Expect(r.Status).To(Equal(http.StatusBadRequest), "%s: %s", want, r.Body)
			Expect(errorOf(r)).To(HavePrefix(strings.TrimSpace(want)))
		}
		// Twenty ids are fine.
		Expect(get(catalogPath(ws, "get", url.Values{"ids": {strings.Join(ids[:20], ",")}}), delegation(ws)).Status).To(Equal(http.StatusOK))
	})

	It("refuses a token for another workspace, another audience, an expired one and none (401); serves each workspace its own catalog", func() {
		expired := authtest.DelegationClaims("alice", "agents/support", ws, time.Now().Add(-time.Hour))
		expired.ExpiresAt = jwt.NewNumericDate(time.Now().Add(-10 * time.Minute))
		for name, tok := range map[string]string{
			"another workspace's token":                         delegation(other),
			"a deploy API token":                                mintWith(deploySigner, authtest.Claims("alice", ws, ns, auth.RoleOwner, time.Now())),
			"a delegation token signed by the deploy API's key": mintWith(deploySigner, authtest.DelegationClaims("alice", "agents/support", ws, time.Now())),
			"an expired token":                                  mint(expired),
			"no token":                                          "",
		} {
			r := get(catalogPath(ws, "overview", nil), tok)
			Expect(r.Status).To(Equal(http.StatusUnauthorized), "%s: %s", name, r.Body)
			Expect(r.Header.Get("WWW-Authenticate")).To(HavePrefix("Bearer"))
			Expect(errorOf(r)).To(Equal("a valid delegation token with audience workspace:" + ws + " is required"))
		}
		// The deploy API: its own key's token serves the profile; deploy
		// claims signed by the delegation key are 401.
		profile := "/api/v1/workspaces/" + ws + "/deploy-profile"
		Expect(call(http.MethodGet, profile, mintWith(deploySigner, authtest.Claims("alice", ws, ns, auth.RoleViewer, time.Now()))).Status).To(Equal(http.StatusOK))
		forged := call(http.MethodGet, profile, mint(authtest.Claims("alice", ws, ns, auth.RoleViewer, time.Now())))
		Expect(forged.Status).To(Equal(http.StatusUnauthorized), "deploy claims signed by the delegation key: %s", forged.Body)
		// The other workspace's token works on its own workspace, which
		// holds only its own Provider.
		Eventually(func(g Gomega) {
			r := get(catalogPath(other, "search", nil), delegation(other))
			g.Expect(r.Status).To(Equal(http.StatusOK), "%s", r.Body)
			res := decode[catalog.SearchResult](r)
			g.Expect(res.Results).To(HaveLen(1))
			g.Expect(res.Results[0].ID).To(Equal("provider:other-provider"))
		}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())
		// A workspace that does not exist is 404 (with a token for it).
		r := get(catalogPath("nowhere-"+ws, "overview", nil), delegation("nowhere-"+ws))
		Expect(r.Status).To(Equal(http.StatusNotFound), "%s", r.Body)
		Expect(errorOf(r)).To(ContainSubstring("not found"))
	})

	It("answers an unknown route 404 and another method 405, in the error body", func() {
		r := get("/api/v1/workspaces/"+ws+"/catalog/list", delegation(ws))
		Expect(r.Status).To(Equal(http.StatusNotFound))
		Expect(errorOf(r)).To(HavePrefix("no such catalog route"))
		r = call(http.MethodPost, catalogPath(ws, "search", nil), delegation(ws))
		Expect(r.Status).To(Equal(http.StatusMethodNotAllowed))
		Expect(errorOf(r)).To(Equal("the catalog's routes take GET only"))
	})

	It("renders a discovery handler's three tools into the agent's runtime, with the workspace's catalog URLs", func() {
		ctx := context.Background()
		Eventually(func(g Gomega) {
			d := &appsv1.Deployment{}
			g.Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "support"}, d)).To(Succeed())
			var tools []workload.PlatformTool
			for _, c := range d.Spec.Template.Spec.Containers {
				if c.Name != workload.ContainerRuntime {
					continue
				}
				for _, e := range c.Env {
					if e.Name == workload.EnvPlatformTools {
						g.Expect(json.Unmarshal([]byte(e.Value), &tools)).To(Succeed())
					}
				}
			}
			g.Expect(tools).To(HaveLen(3))
			for i, name := range []string{"catalog_overview", "catalog_search", "catalog_get"} {
				route := strings.TrimPrefix(name, "catalog_")
				g.Expect(tools[i].Name).To(Equal(name))
				g.Expect(tools[i].Method).To(Equal(http.MethodGet))
				g.Expect(tools[i].URL).To(Equal(platformURL + "/api/v1/workspaces/" + ws + "/catalog/" + route))
				g.Expect(tools[i].DelegationAudience).To(Equal(auth.WorkspaceAudience(ws)))
			}
		}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())
	})

	It("reports a registry declaring the arena service on HandlersValid", func() {
		Eventually(func(g Gomega) {
			tr := &v1alpha1.ToolRegistry{}
			g.Expect(suite.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "arena"}, tr)).To(Succeed())
			c := meta.FindStatusCondition(tr.Status.Conditions, v1alpha1.ToolRegistryConditionHandlersValid)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Reason).To(Equal(v1alpha1.ToolRegistryReasonValidationFailed))
			g.Expect(c.Message).To(ContainSubstring("[toolregistry/platform-service-served] spec.handlers[0].platform.service"))
		}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())
	})
})
