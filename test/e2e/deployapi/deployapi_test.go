package deployapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/auth/authtest"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

// The published pack every spec of the ordered container shares.
const (
	packName      = "support"
	packObject    = "support-1.0.0"
	credentialKey = "LOOKUP_TOKEN"
	// credentialValue must appear in the credential Secret and nowhere else.
	credentialValue = "tok-e2e-0f9c2d7e-never-in-a-spec"
)

// The rule the catalog denies a 207's refused agent with: a facade with
// both planes off (an AgentRuntime CEL rule the intent can express, and no
// deployintent/* rule catches first).
const (
	deniedRule  = "agentruntime/data-plane-needs-management-plane"
	deniedField = "spec.facades[0].dataPlane"
)

// publishedIntent is a published pack with a tool handler, its credential,
// a tool blocklist (enterprise) and the named agents, each bound to the
// mock Provider.
func publishedIntent(toolEndpoint string, agents ...intent.Agent) intent.DeployIntent {
	return intent.DeployIntent{
		APIVersion: intent.APIVersion,
		Pack: intent.Pack{Name: packName, Version: "v1.0.0",
			Content: `{"id": "support", "version": "1.0.0"}`},
		Tools: &intent.Tools{Handlers: []intent.Handler{{
			Name: "lookup", Type: intent.HandlerHTTP,
			Tool: json.RawMessage(`{"name": "lookup", "description": "looks up an order", "inputSchema": {"type": "object"}}`),
			HTTPConfig: json.RawMessage(fmt.Sprintf(`{"endpoint": %q, "headersFromSecret": {"X-Api-Key": {"name": "preexisting", "key": %q}}}`,
				toolEndpoint, credentialKey)),
		}}},
		Credentials: &intent.Credentials{Data: map[string]string{credentialKey: credentialValue}},
		Policy:      &intent.Policy{ToolBlocklist: []string{"delete_order"}},
		Agents:      agents,
	}
}

// agent is an intent agent bound to the mock Provider.
func agent(name string) intent.Agent {
	return intent.Agent{Name: name, Providers: []intent.AgentProvider{{Name: "default", Ref: "mock"}}}
}

// decodeResult reads a 200/207/409 body.
func decodeResult(r reply) intent.DeployResult {
	GinkgoHelper()
	var res intent.DeployResult
	Expect(json.Unmarshal(r.Body, &res)).To(Succeed(), "%s", r.Body)
	return res
}

// actions is "<kind>/<name> <action>" per result, in order.
func actions(res intent.DeployResult) []string {
	out := make([]string, 0, len(res.Results))
	for _, r := range res.Results {
		out = append(out, r.Kind+"/"+r.Name+" "+string(r.Action))
	}
	return out
}

// objectState is what a deploy writes of an object: its generation (spec)
// and metadata, and for the kinds without a status its resourceVersion. The
// resourceVersion of a kind with a status also moves when its controller
// writes that status, which the operator does at any time (an agent just
// created is still being reconciled), so it is not a deploy's write.
type objectState struct{ ResourceVersion, Generation, Metadata string }

// hasStatus are the kinds whose controllers write a status subresource.
var hasStatus = map[string]bool{"PromptPack": true, "ToolRegistry": true, "ToolPolicy": true, "AgentRuntime": true}

// snapshot lists every object of the kinds a published intent writes in
// ns: "<kind>/<name>" → its objectState.
func snapshot(ns string) map[string]objectState {
	GinkgoHelper()
	ctx := context.Background()
	out := map[string]objectState{}
	lists := map[string]client.ObjectList{
		"ConfigMap": &corev1.ConfigMapList{}, "Secret": &corev1.SecretList{},
		"PromptPack": &v1alpha1.PromptPackList{}, "ToolRegistry": &v1alpha1.ToolRegistryList{},
		"ToolPolicy": &v1alpha1.ToolPolicyList{}, "AgentRuntime": &v1alpha1.AgentRuntimeList{},
	}
	for kind, l := range lists {
		Expect(suite.Client.List(ctx, l, client.InNamespace(ns))).To(Succeed())
		items, err := metaItems(l)
		Expect(err).NotTo(HaveOccurred())
		for _, o := range items {
			if kind == "ConfigMap" && o.GetName() == "kube-root-ca.crt" {
				continue // the controller-manager's
			}
			st := objectState{
				ResourceVersion: o.GetResourceVersion(),
				Generation:      fmt.Sprint(o.GetGeneration()),
				Metadata:        fmt.Sprint(o.GetLabels(), o.GetAnnotations(), o.GetOwnerReferences()),
			}
			if hasStatus[kind] {
				st.ResourceVersion = ""
			}
			out[kind+"/"+o.GetName()] = st
		}
	}
	return out
}

func metaItems(l client.ObjectList) ([]metav1.Object, error) {
	var out []metav1.Object
	switch l := l.(type) {
	case *corev1.ConfigMapList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *corev1.SecretList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *v1alpha1.PromptPackList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *v1alpha1.ToolRegistryList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *v1alpha1.ToolPolicyList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *v1alpha1.AgentRuntimeList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	default:
		return nil, fmt.Errorf("unexpected list %T", l)
	}
	return out, nil
}

// waitRunning waits until the agent is Running with a ready replica (kwok
// reports its pod Ready) at its current generation.
func waitRunning(ns, name string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		ar := &v1alpha1.AgentRuntime{}
		g.Expect(suite.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, ar)).To(Succeed())
		g.Expect(ar.Status.ObservedGeneration).To(Equal(ar.Generation))
		var conds []string
		for _, c := range ar.Status.Conditions {
			conds = append(conds, c.Type+"="+string(c.Status)+"/"+c.Reason)
		}
		g.Expect(ar.Status.Phase).To(Equal(v1alpha1.AgentRuntimePhaseRunning), "conditions: %v", conds)
		g.Expect(ar.Status.Replicas).NotTo(BeNil())
		g.Expect(ar.Status.Replicas.Ready).To(BeNumerically(">", 0))
	}).WithTimeout(90*time.Second).WithPolling(250*time.Millisecond).Should(Succeed(), "AgentRuntime %s/%s runs", ns, name)
}

var _ = Describe("The deploy API's published-pack path", Ordered, func() {
	ctx := context.Background()
	var (
		ns     string
		vendor *httptest.Server
	)

	BeforeAll(func() {
		// The tool handler's endpoint: a local server (nothing leaves the
		// machine).
		vendor = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNotFound) }))
		DeferCleanup(vendor.Close)
		ns = freshNamespace("deploy")
		framework.CreateMockProvider(suite.Client, ns, "mock")
	})

	It("200: materializes the whole object set as the spec orders it, and the agents run", func() {
		in := publishedIntent(vendor.URL+"/lookup", agent("support-bot"), agent("triage-bot"))
		// The licence is installed by the suite and reloaded without a
		// restart; until then policy.toolBlocklist is a 400
		// (deployintent/policy-license) and nothing is written.
		writesBefore := intentWrites(ctx)
		var r reply
		Eventually(func(g Gomega) {
			r = deploy(ns, in)
			g.Expect(r.Status).To(Equal(http.StatusOK), "%s", r.Body)
		}).WithTimeout(time.Minute).WithPolling(500 * time.Millisecond).Should(Succeed())
		res := decodeResult(r)
		Expect(res.Succeeded).To(BeTrue())
		Expect(actions(res)).To(Equal([]string{
			"ConfigMap/support-1.0.0-content created",
			"PromptPack/support-1.0.0 created",
			"ToolRegistry/support-tools created",
			"Secret/support-tools-credentials created",
			"ToolPolicy/support-tools-policy created",
			"AgentRuntime/support-bot created",
			"AgentRuntime/triage-bot created",
		}))
		for _, rr := range res.Results {
			Expect(rr.URL).To(BeEmpty(), "the operator never sets url")
			Expect(rr.Error).To(BeEmpty(), "%s/%s", rr.Kind, rr.Name)
		}
		Expect(string(r.Body)).NotTo(ContainSubstring(credentialValue))
		// The write counter the redeploy spec reads sees these creates
		// (so its "no write" cannot pass for want of counting).
		writes := intentWrites(ctx)
		for resource, n := range map[string]float64{"configmaps": 1, "promptpacks": 1, "toolregistries": 1,
			"secrets": 1, "toolpolicies": 1, "agentruntimes": 2} {
			key := resource + " POST"
			Expect(writes[key]-writesBefore[key]).To(BeNumerically(">=", n), "%s counted during the deploy", key)
		}

		// The objects, as the spec says.
		pp := &v1alpha1.PromptPack{}
		Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: packObject}, pp)).To(Succeed())
		Expect(pp.Spec.PackName).To(Equal(packName))
		Expect(pp.Spec.Version).To(Equal("1.0.0"), "the leading v is stripped")
		Expect(pp.Labels).To(HaveKeyWithValue(rules.PromptPackLabel, packName))
		cm := &corev1.ConfigMap{}
		Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: packObject + "-content"}, cm)).To(Succeed())
		Expect(cm.Data).To(HaveKeyWithValue("pack.json", in.Pack.Content))
		Expect(ownerKinds(cm.OwnerReferences)).To(Equal([]string{"PromptPack/" + packObject}), "the ConfigMap is owned by the PromptPack")

		reg := &v1alpha1.ToolRegistry{}
		Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "support-tools"}, reg)).To(Succeed())
		Expect(reg.Spec.Handlers).To(HaveLen(1))
		Expect(reg.Spec.Handlers[0].HTTPConfig.HeadersFromSecret).To(HaveKeyWithValue("X-Api-Key",
			v1alpha1.ToolRegistrySecretKeyRef{Name: "support-tools-credentials", Key: credentialKey}),
			"a reference whose key credentials.data supplies is repointed at the credential Secret")
		sec := &corev1.Secret{}
		Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "support-tools-credentials"}, sec)).To(Succeed())
		Expect(sec.Data).To(Equal(map[string][]byte{credentialKey: []byte(credentialValue)}), "the key is kept verbatim")
		Expect(ownerKinds(sec.OwnerReferences)).To(Equal([]string{"ToolRegistry/support-tools"}))
		pol := &v1alpha1.ToolPolicy{}
		Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "support-tools-policy"}, pol)).To(Succeed())
		Expect(pol.Spec.Selector.Registry).To(Equal("support-tools"))
		for _, o := range []client.Object{pp, cm, reg, pol} {
			spec, err := json.Marshal(o)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(spec)).NotTo(ContainSubstring(credentialValue), "%T %s carries a credential value", o, o.GetName())
		}

		for _, name := range []string{"support-bot", "triage-bot"} {
			ar := &v1alpha1.AgentRuntime{}
			Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, ar)).To(Succeed())
			Expect(ar.Spec.PromptPackRef).NotTo(BeNil())
			Expect(ar.Spec.PromptPackRef.Name).To(Equal(packName))
			Expect(ar.Spec.PromptPackRef.Version).To(Equal("1.0.0"))
			Expect(ar.Spec.Providers).To(HaveLen(1))
			Expect(ar.Spec.Providers[0].ProviderRef.Name).To(Equal("mock"))
		}
		// The agents run: the operator's AgentRuntime controller makes
		// their Deployments, the controller-manager their pods, kwok reports
		// them Ready.
		for _, name := range []string{"support-bot", "triage-bot"} {
			waitRunning(ns, name)
		}
	})

	It("a redeploy that changes nothing writes nothing: every result unchanged, no object's resourceVersion or generation moves, no write reaches the API server", func() {
		in := publishedIntent(vendor.URL+"/lookup", agent("support-bot"), agent("triage-bot"))
		// The controllers settle first (status writes move resourceVersion):
		// two polls a second apart see the same objects.
		var before, prev map[string]objectState
		Eventually(func(g Gomega) {
			a := snapshot(ns)
			last := prev
			prev = a
			g.Expect(a).To(Equal(last))
			before = a
		}).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed(), "the namespace's objects settle")
		Expect(before).To(HaveLen(7), "%v", before)
		writesBefore := intentWrites(ctx)

		r := deploy(ns, in)
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r.Body)
		res := decodeResult(r)
		Expect(res.Succeeded).To(BeTrue())
		for _, a := range actions(res) {
			Expect(a).To(HaveSuffix(" unchanged"))
		}
		Expect(res.Results).To(HaveLen(7))

		Expect(intentWrites(ctx)).To(Equal(writesBefore), "writes the API server counted to the intent's kinds during the redeploy")
		Expect(snapshot(ns)).To(Equal(before), "resourceVersion and generation of every object of the intent")
	})

	It("207: an agent the catalog refuses fails with the rule ID and field; the rest still apply", func() {
		bad := agent("bad-bot")
		bad.Facades = []intent.Facade{{Type: "websocket", ManagementPlane: ptr.To(false), DataPlane: ptr.To(false)}}
		in := publishedIntent(vendor.URL+"/lookup", agent("support-bot"), bad, agent("extra-bot"))
		r := deploy(ns, in)
		Expect(r.Status).To(Equal(http.StatusMultiStatus), "%s", r.Body)
		res := decodeResult(r)
		Expect(res.Succeeded).To(BeFalse())
		Expect(actions(res)).To(Equal([]string{
			"ConfigMap/support-1.0.0-content unchanged",
			"PromptPack/support-1.0.0 unchanged",
			"ToolRegistry/support-tools unchanged",
			"Secret/support-tools-credentials unchanged",
			"ToolPolicy/support-tools-policy unchanged",
			"AgentRuntime/support-bot unchanged",
			"AgentRuntime/bad-bot failed",
			"AgentRuntime/extra-bot created",
		}))
		Expect(res.Results[6].Error).To(ContainSubstring("[" + deniedRule + "] " + deniedField + ":"))
		err := suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "bad-bot"}, &v1alpha1.AgentRuntime{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the refused agent was not written: %v", err)
		Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "extra-bot"}, &v1alpha1.AgentRuntime{})).To(Succeed())
	})

	It("409: create: true on an existing agent refuses the deploy before anything is written", func() {
		existing := agent("support-bot")
		existing.Create = ptr.To(true)
		fresh := agent("fresh-bot")
		fresh.Create = ptr.To(true)
		in := publishedIntent(vendor.URL+"/lookup", fresh, existing)
		in.Pack.Version = "2.0.0" // a new pack: the refused deploy must not publish it
		in.Pack.Content = `{"id": "support", "version": "2.0.0"}`
		before := snapshot(ns)

		r := deploy(ns, in)
		Expect(r.Status).To(Equal(http.StatusConflict), "%s", r.Body)
		res := decodeResult(r)
		Expect(res.Succeeded).To(BeFalse())
		Expect(actions(res)).To(Equal([]string{"AgentRuntime/support-bot failed"}), "results name the existing agent")
		Expect(res.Results[0].Error).To(ContainSubstring("already exists"))

		after := snapshot(ns)
		Expect(after).To(HaveLen(len(before)), "object count")
		Expect(after).To(Equal(before), "nothing written")
	})

	DescribeTable("400: a refused intent names the key or the rule, and writes nothing",
		func(body string, wantPath, wantRule, wantField string) {
			ns400 := freshNamespace("deploy-400")
			r := call(http.MethodPost, deploymentsPath(ns400), token(claimsFor(ns400, auth.RoleEditor)), []byte(body))
			Expect(r.Status).To(Equal(http.StatusBadRequest), "%s", r.Body)
			var er intent.ErrorResponse
			Expect(json.Unmarshal(r.Body, &er)).To(Succeed(), "%s", r.Body)
			Expect(er.Error).NotTo(BeEmpty())
			if wantPath != "" {
				Expect(er.Path).To(Equal(wantPath))
				Expect(er.Error).To(ContainSubstring(wantPath))
			}
			if wantRule != "" {
				Expect(er.Findings).To(ContainElement(SatisfyAll(
					HaveField("RuleID", wantRule), HaveField("Field", wantField))), "%s", r.Body)
			}
			Expect(snapshot(ns400)).To(BeEmpty(), "nothing written")
		},
		Entry("an unknown field, named by its path",
			`{"apiVersion": "deploy.omnia.altairalabs.ai/v1", "pack": {"name": "p", "content": "{}", "colour": "red"}, "agents": [{"name": "a", "providers": [{"name": "default", "ref": "mock"}]}]}`,
			"pack.colour", "", ""),
		Entry("a deployintent rule, by rule ID and field",
			`{"apiVersion": "deploy.omnia.altairalabs.ai/v1", "pack": {"name": "p", "content": "{}"}, "agents": [{"name": "a", "idleTimeout": "-5m", "providers": [{"name": "default", "ref": "mock"}]}]}`,
			"", rules.DeployIntentIdleTimeoutRuleID, "agents[0].idleTimeout"),
		Entry("an unsupported apiVersion",
			`{"apiVersion": "deploy.omnia.altairalabs.ai/v2", "pack": {"name": "p", "content": "{}"}, "agents": [{"name": "a", "providers": [{"name": "default", "ref": "mock"}]}]}`,
			"apiVersion", "", ""),
	)

	It("401: no token, an expired one, one for another audience and one signed by an unknown key are refused alike", func() {
		body := mustJSON(publishedIntent(vendor.URL+"/lookup", agent("x-bot")))
		expired := authtest.Claims("alice", ns, ns, auth.RoleEditor, time.Now().Add(-3*time.Hour))
		otherAudience := claimsFor(ns, auth.RoleEditor)
		otherAudience.Audience = jwt.ClaimStrings{"omnia-dashboard"}
		stranger, err := authtest.MustSigner("dash-e2e", "ES256").Mint(claimsFor(ns, auth.RoleEditor))
		Expect(err).NotTo(HaveOccurred())
		var bodies []string
		for what, bearer := range map[string]string{
			"no token":            "",
			"expired":             token(expired),
			"wrong audience":      token(otherAudience),
			"unknown signing key": stranger,
		} {
			r := call(http.MethodPost, deploymentsPath(ns), bearer, body)
			Expect(r.Status).To(Equal(http.StatusUnauthorized), "%s: %s", what, r.Body)
			Expect(r.Header.Get("WWW-Authenticate")).To(HavePrefix("Bearer"), what)
			bodies = append(bodies, string(r.Body))
		}
		for _, b := range bodies {
			Expect(b).To(Equal(bodies[0]), "a 401 does not say which check failed")
		}
		err = suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "x-bot"}, &v1alpha1.AgentRuntime{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%v", err)
	})

	It("403: a viewer deploying, and an editor of another workspace, are refused", func() {
		body := mustJSON(publishedIntent(vendor.URL+"/lookup", agent("x-bot")))
		viewer := call(http.MethodPost, deploymentsPath(ns), token(claimsFor(ns, auth.RoleViewer)), body)
		Expect(viewer.Status).To(Equal(http.StatusForbidden), "%s", viewer.Body)
		other := call(http.MethodPost, "/api/v1/workspaces/globex/deployments", token(claimsFor(ns, auth.RoleEditor)), body)
		Expect(other.Status).To(Equal(http.StatusForbidden), "%s", other.Body)
		// The viewer may read the profile: the 403 was the role.
		profile := call(http.MethodGet, "/api/v1/workspaces/"+ns+"/deploy-profile", token(claimsFor(ns, auth.RoleViewer)), nil)
		Expect(profile.Status).To(Equal(http.StatusOK), "%s", profile.Body)
		err := suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "x-bot"}, &v1alpha1.AgentRuntime{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%v", err)
	})

	It("403: a token of workspace A claiming workspace B's namespace writes nothing to B; 404: a workspace no Workspace names", func() {
		nsB := freshNamespace("deploy-victim")
		framework.CreateMockProvider(suite.Client, nsB, "mock")
		before, beforeA := snapshot(nsB), snapshot(ns)
		body := mustJSON(publishedIntent(vendor.URL+"/lookup", agent("squat-bot")))
		// An owner of workspace ns (A) whose token claims B's namespace.
		forged := claimsFor(ns, auth.RoleOwner)
		forged.Namespace = nsB
		r := call(http.MethodPost, deploymentsPath(ns), token(forged), body)
		Expect(r.Status).To(Equal(http.StatusForbidden), "%s", r.Body)
		plan := call(http.MethodPost, "/api/v1/workspaces/"+ns+"/deploy/plan", token(forged), []byte(`{"deployConfig":{"providers":[{"name":"default","ref":"mock"}]}}`))
		Expect(plan.Status).To(Equal(http.StatusForbidden), "%s", plan.Body)
		// A workspace with no Workspace, its token claiming B's namespace.
		ghost := authtest.Claims("alice", "no-such-workspace", nsB, auth.RoleOwner, time.Now())
		missing := call(http.MethodPost, deploymentsPath("no-such-workspace"), token(ghost), body)
		Expect(missing.Status).To(Equal(http.StatusNotFound), "%s", missing.Body)
		Expect(snapshot(nsB)).To(Equal(before), "nothing written to B")
		Expect(snapshot(ns)).To(Equal(beforeA), "nor to A")
	})

	It("413: a body over --deploy-api-max-body-bytes is refused with the limit", func() {
		in := publishedIntent(vendor.URL+"/lookup", agent("big-bot"))
		in.Pack.Content = `{"id": "support", "pad": "` + strings.Repeat("x", maxBody) + `"}`
		r := deploy(ns, in)
		Expect(r.Status).To(Equal(http.StatusRequestEntityTooLarge), "%.200s", r.Body)
		Expect(string(r.Body)).To(ContainSubstring(fmt.Sprint(maxBody)))
		err := suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "big-bot"}, &v1alpha1.AgentRuntime{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%v", err)
	})

	// 503 (deploy/apply's answer when the create: true existence check
	// cannot read the agent) is not reachable here: the operator reads it
	// through its APIReader with its own RBAC, which grants get on
	// agentruntimes; making that read fail would mean breaking the API
	// server mid-request. deploy/apply's unit tests cover it with a reader
	// that fails.
})

// ownerKinds lists owner references as "<kind>/<name>".
func ownerKinds(refs []metav1.OwnerReference) []string {
	out := make([]string, 0, len(refs))
	for _, r := range refs {
		out = append(out, r.Kind+"/"+r.Name)
	}
	return out
}
