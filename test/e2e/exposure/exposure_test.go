package exposure

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

const (
	agentName = "support"
	packName  = "prompts"
	timeout   = 2 * time.Minute
	poll      = 250 * time.Millisecond
)

var _ = Describe("Exposure", func() {
	It("gives an exposed agent its HTTPRoutes, and the URLs once the Gateway accepts them", func() {
		ctx := context.Background()
		ns := framework.CreateNamespace(suite.Client, "exposure")
		framework.CreatePromptPack(suite.Client, ns, packName, "1.0.0")
		Expect(suite.Client.Create(ctx, &v1alpha1.AgentRuntime{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: agentName},
			Spec: v1alpha1.AgentRuntimeSpec{
				PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: packName},
				Facades: []v1alpha1.AgentRuntimeFacade{
					{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, Expose: &v1alpha1.AgentRuntimeFacadeExpose{Enabled: true}},
					{Type: v1alpha1.AgentRuntimeFacadeTypeA2A, Expose: &v1alpha1.AgentRuntimeFacadeExpose{Enabled: true}},
				},
			},
		})).To(Succeed())

		By("the operator applies one route per exposed facade, to the Gateway and the facade's Service port")
		for _, tc := range []struct {
			route, host string
			port        int32
		}{
			{"support-facade", "support." + ns + "." + baseDomain, 8080},
			{"support-a2a", "support-a2a." + ns + "." + baseDomain, 9999},
		} {
			Eventually(func(g Gomega) {
				rt := &gatewayv1.HTTPRoute{}
				g.Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: tc.route}, rt)).To(Succeed())
				g.Expect(rt.Spec.Hostnames).To(Equal([]gatewayv1.Hostname{gatewayv1.Hostname(tc.host)}))
				g.Expect(rt.Spec.ParentRefs).To(HaveLen(1))
				g.Expect(string(rt.Spec.ParentRefs[0].Name)).To(Equal(gatewayName))
				g.Expect(string(*rt.Spec.ParentRefs[0].Namespace)).To(Equal(gatewayNamespace))
				g.Expect(rt.Spec.Rules).To(HaveLen(1))
				g.Expect(rt.Spec.Rules[0].BackendRefs).To(HaveLen(1))
				g.Expect(string(rt.Spec.Rules[0].BackendRefs[0].Name)).To(Equal(agentName))
				g.Expect(*rt.Spec.Rules[0].BackendRefs[0].Port).To(Equal(tc.port))
				g.Expect(metav1.IsControlledBy(rt, getAgent(g, ns))).To(BeTrue())
			}).WithTimeout(timeout).WithPolling(poll).Should(Succeed(), "HTTPRoute %s/%s", ns, tc.route)
		}

		By("until the Gateway reports on them, the endpoints are not valid and status.a2a is in-cluster")
		Eventually(func(g Gomega) {
			ar := getAgent(g, ns)
			g.Expect(exposedCondition(ar)).To(Equal("False/" + v1alpha1.AgentRuntimeReasonRoutesPending))
			g.Expect(ar.Status.Facade).NotTo(BeNil())
			g.Expect(ar.Status.Facade.Endpoints).To(HaveLen(2))
			for _, e := range ar.Status.Facade.Endpoints {
				g.Expect(e.Valid).To(BeFalse())
				g.Expect(e.Reason).To(Equal("Pending"))
			}
			g.Expect(ar.Status.A2A).NotTo(BeNil())
			g.Expect(ar.Status.A2A.Endpoint).To(Equal("http://support." + ns + ".svc.cluster.local:9999"))
		}).WithTimeout(timeout).WithPolling(poll).Should(Succeed())

		By("the test, playing the Gateway implementation, accepts both routes")
		acceptRoute(ns, "support-facade")
		acceptRoute(ns, "support-a2a")
		Eventually(func(g Gomega) {
			ar := getAgent(g, ns)
			g.Expect(exposedCondition(ar)).To(Equal("True/" + v1alpha1.AgentRuntimeReasonRoutesAccepted))
			g.Expect(ar.Status.Facade).NotTo(BeNil())
			g.Expect(ar.Status.Facade.Endpoints).To(ConsistOf(
				v1alpha1.AgentRuntimeFacadeEndpoint{Protocol: "websocket", URL: "https://support." + ns + "." + baseDomain + "/", Scheme: "https",
					Host: "support." + ns + "." + baseDomain, Path: "/", Port: 443, RouteName: "support-facade", RouteNamespace: ns, Valid: true},
				v1alpha1.AgentRuntimeFacadeEndpoint{Protocol: "a2a", URL: "https://support-a2a." + ns + "." + baseDomain + "/", Scheme: "https",
					Host: "support-a2a." + ns + "." + baseDomain, Path: "/", Port: 443, RouteName: "support-a2a", RouteNamespace: ns, Valid: true},
			))
			g.Expect(ar.Status.A2A).NotTo(BeNil())
			g.Expect(ar.Status.A2A.Endpoint).To(Equal("https://support-a2a." + ns + "." + baseDomain))
			g.Expect(ar.Status.A2A.AgentCardURL).To(Equal("https://support-a2a." + ns + "." + baseDomain + "/.well-known/agent-card.json"))
		}).WithTimeout(timeout).WithPolling(poll).Should(Succeed())

		By("turning the a2a facade's exposure off deletes its route")
		Eventually(func(g Gomega) {
			ar := getAgent(g, ns)
			ar.Spec.Facades[1].Expose = nil
			g.Expect(suite.Client.Update(ctx, ar)).To(Succeed())
		}).WithTimeout(timeout).WithPolling(poll).Should(Succeed())
		Eventually(func() bool {
			err := suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "support-a2a"}, &gatewayv1.HTTPRoute{})
			return apierrors.IsNotFound(err)
		}).WithTimeout(timeout).WithPolling(poll).Should(BeTrue())
		Eventually(func(g Gomega) {
			ar := getAgent(g, ns)
			g.Expect(ar.Status.Facade).NotTo(BeNil())
			g.Expect(ar.Status.Facade.Endpoints).To(HaveLen(1))
			g.Expect(ar.Status.A2A.Endpoint).To(Equal("http://support." + ns + ".svc.cluster.local:9999"))
		}).WithTimeout(timeout).WithPolling(poll).Should(Succeed())
	})

	It("refuses two exposed facades on one host at admission", func() {
		ns := framework.CreateNamespace(suite.Client, "exposure-conflict")
		err := suite.Client.Create(context.Background(), &v1alpha1.AgentRuntime{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: agentName},
			Spec: v1alpha1.AgentRuntimeSpec{
				PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: packName},
				Facades: []v1alpha1.AgentRuntimeFacade{
					{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, Expose: &v1alpha1.AgentRuntimeFacadeExpose{Enabled: true, Host: "chat." + ns + "." + baseDomain}},
					{Type: v1alpha1.AgentRuntimeFacadeTypeA2A, Expose: &v1alpha1.AgentRuntimeFacadeExpose{Enabled: true, Host: "chat." + ns + "." + baseDomain}},
				},
			},
		})
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("agentruntime/expose-host-unique"))
		Expect(err.Error()).To(ContainSubstring("spec.facades[1].expose.host"))
	})

	// Hostname squatting on the shared Gateway: tenant A may not
	// claim tenant B's default host, nor a wildcard over the base domain;
	// the operator's webhook refuses both (the domain rule with the base
	// domain of its flags and the Workspaces from its cache), and admits a
	// host the platform granted A in its Workspace.
	It("refuses another namespace's host and a wildcard at admission, and admits a host the Workspace grants", func() {
		ctx := context.Background()
		tenantA, tenantB := framework.CreateNamespace(suite.Client, "exposure-tenant-a"), framework.CreateNamespace(suite.Client, "exposure-tenant-b")
		claim := func(name, host string) error {
			return suite.Client.Create(ctx, &v1alpha1.AgentRuntime{
				ObjectMeta: metav1.ObjectMeta{Namespace: tenantA, Name: name},
				Spec: v1alpha1.AgentRuntimeSpec{
					PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: packName},
					Facades: []v1alpha1.AgentRuntimeFacade{
						{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, Expose: &v1alpha1.AgentRuntimeFacadeExpose{Enabled: true, Host: host}},
					},
				},
			}, client.DryRunAll)
		}

		By("tenant B's default host")
		err := claim("squat", agentName+"."+tenantB+"."+baseDomain)
		Expect(err).To(HaveOccurred(), "tenant A was admitted on tenant B's default host")
		Expect(err.Error()).To(ContainSubstring("[agentruntime/expose-host-outside-namespace-domain] spec.facades[0].expose.host"))

		By("a wildcard over the base domain")
		err = claim("wildcard", "*."+baseDomain)
		Expect(err).To(HaveOccurred(), "tenant A was admitted on a wildcard host")
		Expect(err.Error()).To(ContainSubstring("[agentruntime/expose-host-wildcard] spec.facades[0].expose.host"))

		By("a host under tenant A's own domain")
		Expect(claim("own", "chat."+tenantA+"."+baseDomain)).To(Succeed())

		By("a host the platform grants tenant A in its Workspace")
		ws := &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: tenantA},
			Spec: v1alpha1.WorkspaceSpec{Namespace: v1alpha1.WorkspaceNamespace{Name: tenantA},
				Exposure: &v1alpha1.WorkspaceExposure{AllowedHostSuffixes: []string{"shop.example.org"}}}}
		Expect(suite.Client.Create(ctx, ws)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(suite.Client.Delete(context.Background(), ws))).To(Succeed()) })
		// The webhook's cache sees the Workspace shortly after it is created.
		Eventually(func() error { return claim("granted", "api.shop.example.org") }).WithTimeout(timeout).WithPolling(poll).Should(Succeed())
		err = claim("ungranted", "api.other.example.org")
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("[agentruntime/expose-host-outside-namespace-domain]"))
	})
})

func getAgent(g Gomega, ns string) *v1alpha1.AgentRuntime {
	ar := &v1alpha1.AgentRuntime{}
	g.Expect(suite.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: agentName}, ar)).To(Succeed())
	return ar
}

// exposedCondition is the agent's Exposed condition as status/reason.
func exposedCondition(ar *v1alpha1.AgentRuntime) string {
	return framework.Condition(ar.Status.Conditions, v1alpha1.AgentRuntimeConditionExposed)
}

// acceptRoute writes the route's status.parents as the Gateway
// implementation would on accepting it: Accepted and ResolvedRefs True for
// the default-exposure Gateway at the route's generation. This simulates
// the third-party controller; the operator never writes a route's status.
func acceptRoute(ns, name string) {
	Eventually(func(g Gomega) {
		ctx := context.Background()
		rt := &gatewayv1.HTTPRoute{}
		g.Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, rt)).To(Succeed())
		now := metav1.Now()
		cond := func(t gatewayv1.RouteConditionType, r gatewayv1.RouteConditionReason) metav1.Condition {
			return metav1.Condition{Type: string(t), Status: metav1.ConditionTrue, Reason: string(r), Message: "simulated Gateway controller",
				ObservedGeneration: rt.Generation, LastTransitionTime: now}
		}
		rt.Status.Parents = []gatewayv1.RouteParentStatus{{
			ParentRef:      gatewayv1.ParentReference{Namespace: ptr.To(gatewayv1.Namespace(gatewayNamespace)), Name: gatewayName},
			ControllerName: "example.com/simulated-gateway",
			Conditions:     []metav1.Condition{cond(gatewayv1.RouteConditionAccepted, gatewayv1.RouteReasonAccepted), cond(gatewayv1.RouteConditionResolvedRefs, gatewayv1.RouteReasonResolvedRefs)},
		}}
		g.Expect(suite.Client.Status().Update(ctx, rt)).To(Succeed())
	}).WithTimeout(timeout).WithPolling(poll).Should(Succeed(), "status.parents of %s/%s", ns, name)
}
