package agentruntime

import (
	"context"
	"testing"
	"time"

	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/test/controlplane"
)

// installGatewayAPI installs the Gateway API's CRDs (from the module
// cache) unless they are served already, and leaves them for the rest of
// the package: deleting a CRD just created can leave it Terminating for
// minutes (the API server's cleanup finalizer fails with "storage is
// (re)initializing" and backs off), which made the next test's install
// fail. TestReconcileExposure, whose first subtest needs the API absent,
// runs before any other test that installs it.
func installGatewayAPI(t *testing.T) {
	t.Helper()
	if !gatewayAPIServed(t) {
		if err := controlplane.InstallGatewayAPICRDs(testConfig); err != nil {
			t.Fatal(err)
		}
	}
	if !scheme.Recognizes(httpRouteGVK) {
		if err := gatewayv1.Install(scheme); err != nil {
			t.Fatal(err)
		}
	}
}

// hostIndexCache is an AgentRuntime cache with the host index, as
// setupExposure registers it in the manager's, for a reconciler built
// without a manager; started until the test ends.
func hostIndexCache(t *testing.T, r *Reconciler, baseDomain string) cache.Cache {
	t.Helper()
	hc, err := rest.HTTPClientFor(testConfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cache.New(testConfig, cache.Options{Scheme: scheme, Mapper: r.mapper, HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := indexExposeHosts(ctx, c, baseDomain); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetInformer(ctx, &v1alpha1.AgentRuntime{}); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = c.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	if !c.WaitForCacheSync(ctx) {
		t.Fatal("the host index cache did not sync")
	}
	return c
}

// TestReconcileExposureHostClaims: hostname squatting on the shared
// Gateway, with the controller in a manager on the suite's API
// server and no webhook (every object gets in, as with the webhook off):
//
//   - two agents in two namespaces whose Workspaces both grant
//     shop.example.org claim it: the first keeps its route, the second gets
//     Exposed False ExposeHostInUse and no route; once the first is
//     deleted, the second gets the host (the watch hands it over);
//   - an agent naming another namespace's default host, or a wildcard over
//     the base domain, gets no route and the rule's reason.
func TestReconcileExposureHostClaims(t *testing.T) {
	ctx := context.Background()
	installGatewayAPI(t)
	gw := workload.GatewayRef{Namespace: "ar-hosts-edge", Name: "public"}
	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: gw.Namespace}}); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Create(ctx, &gatewayv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Name: gw.Name, Namespace: gw.Namespace},
		Spec: gatewayv1.GatewaySpec{GatewayClassName: "example", Listeners: []gatewayv1.Listener{{
			Name: "https", Port: 443, Protocol: gatewayv1.HTTPSProtocolType,
		}}},
	}); err != nil {
		t.Fatal(err)
	}
	const (
		nsA, nsB = "ar-hosts-a", "ar-hosts-b"
		shared   = "shop.example.org"
	)
	for _, ns := range []string{nsA, nsB} {
		ws := &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: ns},
			Spec: v1alpha1.WorkspaceSpec{Namespace: v1alpha1.WorkspaceNamespace{Name: ns},
				Exposure: &v1alpha1.WorkspaceExposure{AllowedHostSuffixes: []string{shared}}}}
		if err := k8s.Create(ctx, ws); err != nil {
			t.Fatal(err)
		}
	}
	startManager(t, Options{Exposure: ExposureOptions{Gateway: &gw, BaseDomain: "example.com"}})

	g := gomega.NewWithT(t)
	const wait30 = 30 * time.Second
	exposedCond := func(key client.ObjectKey) string {
		ar := &v1alpha1.AgentRuntime{}
		if err := k8s.Get(ctx, key, ar); err != nil {
			t.Fatal(err)
		}
		c := meta.FindStatusCondition(ar.Status.Conditions, v1alpha1.AgentRuntimeConditionExposed)
		if c == nil || c.ObservedGeneration != ar.Generation {
			return "absent or stale"
		}
		return string(c.Status) + " " + c.Reason
	}
	routeHosts := func(ns string) []string {
		var list gatewayv1.HTTPRouteList
		if err := k8s.List(ctx, &list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, rt := range list.Items {
			for _, h := range rt.Spec.Hostnames {
				out = append(out, rt.Name+" "+string(h))
			}
		}
		return out
	}
	claim := func(host string) func(*v1alpha1.AgentRuntime) {
		return func(a *v1alpha1.AgentRuntime) {
			a.Spec.Facades = []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, Expose: exposeOn(host)}}
		}
	}

	// First come: A claims the granted host and gets its route.
	first := runnableAgent(t, nsA, claim(shared))
	g.Eventually(func() []string { return routeHosts(nsA) }, wait30, 100*time.Millisecond).Should(gomega.Equal([]string{"support-facade " + shared}))
	g.Eventually(func() string { return exposedCond(first) }, wait30, 100*time.Millisecond).
		Should(gomega.Equal("False " + v1alpha1.AgentRuntimeReasonRoutesPending))

	// Second: B, in another namespace granted the same host, is refused it.
	second := runnableAgent(t, nsB, claim(shared))
	g.Eventually(func() string { return exposedCond(second) }, wait30, 100*time.Millisecond).
		Should(gomega.Equal("False " + v1alpha1.AgentRuntimeReasonExposeHostInUse))
	g.Expect(routeHosts(nsB)).To(gomega.BeEmpty(), "the second claimant must not get a route on the host")
	g.Expect(routeHosts(nsA)).To(gomega.Equal([]string{"support-facade " + shared}), "the first claimant keeps its route")
	if c := meta.FindStatusCondition(getAgentRuntime(t, second).Status.Conditions, v1alpha1.AgentRuntimeConditionExposed); c != nil {
		g.Expect(c.Message).NotTo(gomega.ContainSubstring(nsA), "the holder, another tenant's agent, is not named")
	}

	// Another namespace's default host, and a wildcard over the base domain:
	// refused by the host rules, no route.
	for _, tc := range []struct {
		ns, host, reason string
	}{
		{"ar-hosts-squat", "support." + nsA + ".example.com", v1alpha1.AgentRuntimeReasonExposeHostNotAllowed},
		{"ar-hosts-wild", "*.example.com", v1alpha1.AgentRuntimeReasonExposeHostWildcard},
	} {
		key := runnableAgent(t, tc.ns, claim(tc.host))
		g.Eventually(func() string { return exposedCond(key) }, wait30, 100*time.Millisecond).Should(gomega.Equal("False " + tc.reason))
		g.Expect(routeHosts(tc.ns)).To(gomega.BeEmpty(), "host %s", tc.host)
	}

	// The first claimant goes: the host is handed over to the second.
	if err := k8s.Delete(ctx, getAgentRuntime(t, first)); err != nil {
		t.Fatal(err)
	}
	g.Eventually(func() []string { return routeHosts(nsB) }, wait30, 100*time.Millisecond).Should(gomega.Equal([]string{"support-facade " + shared}))
	g.Eventually(func() string { return exposedCond(second) }, wait30, 100*time.Millisecond).
		Should(gomega.Equal("False " + v1alpha1.AgentRuntimeReasonRoutesPending))

	// A Workspace that takes its grant back takes the host with it.
	ws := &v1alpha1.Workspace{}
	if err := k8s.Get(ctx, client.ObjectKey{Name: nsB}, ws); err != nil {
		t.Fatal(err)
	}
	ws.Spec.Exposure = nil
	if err := k8s.Update(ctx, ws); err != nil {
		t.Fatal(err)
	}
	g.Eventually(func() []string { return routeHosts(nsB) }, wait30, 100*time.Millisecond).Should(gomega.BeEmpty())
	g.Eventually(func() string { return exposedCond(second) }, wait30, 100*time.Millisecond).
		Should(gomega.Equal("False " + v1alpha1.AgentRuntimeReasonExposeHostNotAllowed))
}

func getAgentRuntime(t *testing.T, key client.ObjectKey) *v1alpha1.AgentRuntime {
	t.Helper()
	ar := &v1alpha1.AgentRuntime{}
	if err := k8s.Get(context.Background(), key, ar); err != nil {
		t.Fatal(err)
	}
	return ar
}
