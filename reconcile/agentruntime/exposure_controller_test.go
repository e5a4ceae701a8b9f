package agentruntime

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// TestReconcileExposure runs the exposure group on the suite's API server.
// Without the Gateway API's CRDs an exposed agent reports
// GatewayAPINotInstalled. With them (installed from the module cache) and
// the controller in a manager, an agent exposing its websocket and a2a
// facades gets two HTTPRoutes the API server accepts, pending until the
// Gateway reports on them. No Gateway controller runs in the local
// cluster: the test plays the third-party Gateway implementation by
// writing each route's status.parents, which is that controller's output,
// not the operator's object status. Then the endpoints turn valid,
// status.a2a moves to the external URL, a listener change on the Gateway
// changes the URLs, and turning a facade's exposure off, a host shared by
// two facades, a host the API server refuses, another namespace's host and
// dataPlane: false each remove that facade's route.
func TestReconcileExposure(t *testing.T) {
	ctx := context.Background()
	gw := workload.GatewayRef{Namespace: "ar-expose-edge", Name: "public"}
	exposure := ExposureOptions{Gateway: &gw, BaseDomain: "example.com"}
	const ns = "ar-expose"
	exposed := func(a *v1alpha1.AgentRuntime) {
		a.Spec.Facades = []v1alpha1.AgentRuntimeFacade{
			{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, Expose: exposeOn("")},
			{Type: v1alpha1.AgentRuntimeFacadeTypeA2A, Expose: exposeOn("")},
		}
	}

	if gatewayAPIServed(t) {
		t.Fatal("the Gateway API's CRDs are already installed in the suite's API server")
	}
	t.Run("without the Gateway API", func(t *testing.T) {
		key := runnableAgent(t, ns+"-none", exposed)
		r, _ := newCountingReconciler(t)
		r.opts.Exposure = exposure
		got := reconcileAgent(t, r, key)
		wantCondition(t, got, v1alpha1.AgentRuntimeConditionExposed, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonGatewayAPINotInstalled)
		if got.Status.Facade != nil {
			t.Errorf("status.facade %+v without routes", got.Status.Facade)
		}
		// No Gateway configured either: expose.enabled does nothing.
		r.opts.Exposure = ExposureOptions{}
		got = reconcileAgent(t, r, key)
		wantCondition(t, got, v1alpha1.AgentRuntimeConditionExposed, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonNoDefaultExposureGateway)
	})

	installGatewayAPI(t)

	// The platform's Gateway: one HTTPS listener for the base domain.
	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: gw.Namespace}}); err != nil {
		t.Fatal(err)
	}
	gateway := &gatewayv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Name: gw.Name, Namespace: gw.Namespace},
		Spec: gatewayv1.GatewaySpec{GatewayClassName: "example", Listeners: []gatewayv1.Listener{{
			Name: "https", Port: 443, Protocol: gatewayv1.HTTPSProtocolType, Hostname: ptr.To(gatewayv1.Hostname("*.example.com")),
		}}},
	}
	if err := k8s.Create(ctx, gateway); err != nil {
		t.Fatal(err)
	}

	t.Run("a second reconcile writes nothing", func(t *testing.T) {
		// The reconciler alone (no manager: nothing else writes), with the
		// group's cache as setupExposure builds it.
		r, writes := newCountingReconciler(t)
		hc, err := rest.HTTPClientFor(testConfig)
		if err != nil {
			t.Fatal(err)
		}
		c, err := newExposureCache(testConfig, cache.Options{Scheme: scheme, Mapper: r.mapper, HTTPClient: hc}, &gw)
		if err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); _ = c.Start(cctx) }()
		t.Cleanup(func() { cancel(); <-done })
		if !c.WaitForCacheSync(cctx) {
			t.Fatal("the exposure cache did not sync")
		}
		r.opts.Exposure = exposure
		r.opts.Exposure.routes, r.opts.Exposure.gatewayCached = c, true
		r.opts.Exposure.claims = hostIndexCache(t, r, exposure.BaseDomain)
		key := runnableAgent(t, ns+"-writes", exposed)
		got := reconcileAgent(t, r, key)
		wantCondition(t, got, v1alpha1.AgentRuntimeConditionExposed, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonRoutesPending)
		if got.Status.Facade == nil || len(got.Status.Facade.Endpoints) != 2 {
			t.Fatalf("status.facade %+v, want two endpoints", got.Status.Facade)
		}
		// Once the cache has seen both routes, nothing is written again.
		g := gomega.NewWithT(t)
		g.Eventually(func() int {
			var list gatewayv1.HTTPRouteList
			if err := c.List(ctx, &list, client.InNamespace(key.Namespace)); err != nil {
				t.Fatal(err)
			}
			return len(list.Items)
		}, 30*time.Second, 100*time.Millisecond).Should(gomega.Equal(2))
		secondReconcileWritesNothing(t, r, writes, key)
	})

	startManager(t, Options{Exposure: exposure})
	key := runnableAgent(t, ns, exposed)
	g := gomega.NewWithT(t)
	agentNow := func() *v1alpha1.AgentRuntime {
		ar := &v1alpha1.AgentRuntime{}
		if err := k8s.Get(ctx, key, ar); err != nil {
			t.Fatal(err)
		}
		return ar
	}
	exposedCond := func() string {
		c := meta.FindStatusCondition(agentNow().Status.Conditions, v1alpha1.AgentRuntimeConditionExposed)
		if c == nil {
			return "absent"
		}
		return string(c.Status) + " " + c.Reason
	}
	endpoints := func() []string {
		var out []string
		if f := agentNow().Status.Facade; f != nil {
			for _, e := range f.Endpoints {
				out = append(out, fmt.Sprintf("%s %s %s/%s valid=%v %s", e.Protocol, e.URL, e.RouteNamespace, e.RouteName, e.Valid, e.Reason))
			}
		}
		return out
	}
	routeNames := func() []string {
		var list gatewayv1.HTTPRouteList
		if err := k8s.List(ctx, &list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, rt := range list.Items {
			out = append(out, rt.Name)
		}
		slices.Sort(out)
		return out
	}
	const wait30 = 30 * time.Second

	// Two routes, as the API server has them; pending until the Gateway reports.
	g.Eventually(routeNames, wait30, 100*time.Millisecond).Should(gomega.Equal([]string{"support-a2a", "support-facade"}))
	g.Eventually(endpoints, wait30, 100*time.Millisecond).Should(gomega.Equal([]string{
		"a2a https://support-a2a.ar-expose.example.com/ ar-expose/support-a2a valid=false Pending",
		"websocket https://support.ar-expose.example.com/ ar-expose/support-facade valid=false Pending",
	}))
	g.Expect(exposedCond()).To(gomega.Equal("False " + v1alpha1.AgentRuntimeReasonRoutesPending))
	if a := agentNow().Status.A2A; a == nil || a.Endpoint != "http://support.ar-expose.svc.cluster.local:9999" ||
		a.AgentCardURL != "http://support.ar-expose.svc.cluster.local:9999/.well-known/agent-card.json" {
		t.Errorf("status.a2a %+v, want the in-cluster URLs while the route is not accepted", a)
	}
	rt := &gatewayv1.HTTPRoute{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "support-a2a"}, rt); err != nil {
		t.Fatal(err)
	}
	if p := rt.Spec.ParentRefs; len(p) != 1 || string(p[0].Name) != gw.Name || string(*p[0].Namespace) != gw.Namespace {
		t.Errorf("parentRefs %+v", p)
	}
	if b := rt.Spec.Rules[0].BackendRefs; len(b) != 1 || string(b[0].Name) != "support" || *b[0].Port != 9999 {
		t.Errorf("backendRefs %+v, want the Service's a2a port", b)
	}

	// Playing the Gateway implementation: it accepts both routes.
	acceptRoute(t, ns, "support-a2a", gw)
	g.Eventually(func() string { a := agentNow().Status.A2A; return fmt.Sprintf("%+v", a) }, wait30, 100*time.Millisecond).Should(gomega.Equal(
		fmt.Sprintf("%+v", &v1alpha1.AgentRuntimeA2AStatus{Endpoint: "https://support-a2a.ar-expose.example.com",
			AgentCardURL: "https://support-a2a.ar-expose.example.com/.well-known/agent-card.json"})))
	acceptRoute(t, ns, "support-facade", gw)
	g.Eventually(exposedCond, wait30, 100*time.Millisecond).Should(gomega.Equal("True " + v1alpha1.AgentRuntimeReasonRoutesAccepted))
	g.Expect(endpoints()).To(gomega.Equal([]string{
		"a2a https://support-a2a.ar-expose.example.com/ ar-expose/support-a2a valid=true ",
		"websocket https://support.ar-expose.example.com/ ar-expose/support-facade valid=true ",
	}))

	// The Gateway's listener changes: the URLs follow (the Gateway watch).
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(gateway), gateway); err != nil {
		t.Fatal(err)
	}
	gateway.Spec.Listeners[0] = gatewayv1.Listener{Name: "http", Port: 8080, Protocol: gatewayv1.HTTPProtocolType}
	if err := k8s.Update(ctx, gateway); err != nil { // nothing else writes the Gateway
		t.Fatal(err)
	}
	g.Eventually(endpoints, wait30, 100*time.Millisecond).Should(gomega.Equal([]string{
		"a2a http://support-a2a.ar-expose.example.com:8080/ ar-expose/support-a2a valid=true ",
		"websocket http://support.ar-expose.example.com:8080/ ar-expose/support-facade valid=true ",
	}))

	// The a2a facade's changes, each leaving only the primary's route.
	for _, tc := range []struct {
		name   string
		mutate func(*v1alpha1.AgentRuntimeFacade)
		reason string
	}{
		{"exposure off", func(f *v1alpha1.AgentRuntimeFacade) { f.Expose = nil }, v1alpha1.AgentRuntimeReasonRoutesAccepted},
		{"the primary's host", func(f *v1alpha1.AgentRuntimeFacade) { f.Expose = exposeOn("support.ar-expose.example.com") }, v1alpha1.AgentRuntimeReasonExposeHostConflict},
		{"a host the API server refuses", func(f *v1alpha1.AgentRuntimeFacade) { f.Expose = exposeOn("not_a_host.ar-expose.example.com") }, v1alpha1.AgentRuntimeReasonRouteRejected},
		{"another namespace's host", func(f *v1alpha1.AgentRuntimeFacade) { f.Expose = exposeOn("support.other.example.com") }, v1alpha1.AgentRuntimeReasonExposeHostNotAllowed},
		{"no data plane", func(f *v1alpha1.AgentRuntimeFacade) { f.Expose, f.DataPlane = exposeOn(""), ptr.To(false) }, v1alpha1.AgentRuntimeReasonRoutesAccepted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := gomega.NewWithT(t)
			exposeA2A(t, key, func(f *v1alpha1.AgentRuntimeFacade) { f.DataPlane = nil; f.Expose = exposeOn("") })
			g.Eventually(routeNames, wait30, 100*time.Millisecond).Should(gomega.Equal([]string{"support-a2a", "support-facade"}))
			exposeA2A(t, key, tc.mutate)
			g.Eventually(routeNames, wait30, 100*time.Millisecond).Should(gomega.Equal([]string{"support-facade"}))
			want := "False " + tc.reason
			if tc.reason == v1alpha1.AgentRuntimeReasonRoutesAccepted {
				want = "True " + tc.reason // the primary's route is still accepted
			}
			g.Eventually(exposedCond, wait30, 100*time.Millisecond).Should(gomega.Equal(want))
			g.Eventually(endpoints, wait30, 100*time.Millisecond).Should(gomega.Equal([]string{
				"websocket http://support.ar-expose.example.com:8080/ ar-expose/support-facade valid=true ",
			}))
			// The workload is applied whatever exposure does.
			if err := k8s.Get(ctx, key, &appsv1.Deployment{}); err != nil {
				t.Errorf("no Deployment: %v", err)
			}
		})
	}

	// Nothing exposed: no route, no endpoint, no condition.
	updateAgent(t, key, func(ar *v1alpha1.AgentRuntime) { ar.Spec.Facades[0].Expose, ar.Spec.Facades[1].Expose = nil, nil })
	g.Eventually(routeNames, wait30, 100*time.Millisecond).Should(gomega.BeEmpty())
	g.Eventually(exposedCond, wait30, 100*time.Millisecond).Should(gomega.Equal("absent"))
	g.Expect(endpoints()).To(gomega.BeEmpty())
}

// exposeA2A changes the agent's a2a facade (facades[1]).
func exposeA2A(t *testing.T, key client.ObjectKey, mutate func(*v1alpha1.AgentRuntimeFacade)) {
	t.Helper()
	updateAgent(t, key, func(ar *v1alpha1.AgentRuntime) { mutate(&ar.Spec.Facades[1]) })
}

// updateAgent changes the agent's spec, again on a conflict with the
// controller's status writes.
func updateAgent(t *testing.T, key client.ObjectKey, mutate func(*v1alpha1.AgentRuntime)) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ar := &v1alpha1.AgentRuntime{}
		if err := k8s.Get(context.Background(), key, ar); err != nil {
			return err
		}
		mutate(ar)
		return k8s.Update(context.Background(), ar)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// acceptRoute writes the route's status.parents as a Gateway
// implementation that accepted it would: Accepted and ResolvedRefs True
// for the Gateway, at the route's generation. It simulates the
// third-party controller; the operator never writes a route's status.
func acceptRoute(t *testing.T, ns, name string, gw workload.GatewayRef) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		rt := &gatewayv1.HTTPRoute{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, rt); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		now := metav1.Now()
		cond := func(typ gatewayv1.RouteConditionType, reason gatewayv1.RouteConditionReason) metav1.Condition {
			return metav1.Condition{Type: string(typ), Status: metav1.ConditionTrue, Reason: string(reason), Message: "simulated Gateway controller",
				ObservedGeneration: rt.Generation, LastTransitionTime: now}
		}
		rt.Status.Parents = []gatewayv1.RouteParentStatus{{
			ParentRef:      gatewayv1.ParentReference{Namespace: ptr.To(gatewayv1.Namespace(gw.Namespace)), Name: gatewayv1.ObjectName(gw.Name)},
			ControllerName: "example.com/simulated-gateway",
			Conditions:     []metav1.Condition{cond(gatewayv1.RouteConditionAccepted, gatewayv1.RouteReasonAccepted), cond(gatewayv1.RouteConditionResolvedRefs, gatewayv1.RouteReasonResolvedRefs)},
		}}
		if err := k8s.Status().Update(ctx, rt); err != nil {
			return false, client.IgnoreNotFound(ignoreConflict(err))
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("writing %s's status.parents: %v", name, err)
	}
}

func ignoreConflict(err error) error {
	if apierrors.IsConflict(err) {
		return nil
	}
	return err
}

// gatewayAPIServed asks discovery whether gateway.networking.k8s.io/v1
// serves httproutes.
func gatewayAPIServed(t *testing.T) bool {
	t.Helper()
	dc := discovery.NewDiscoveryClientForConfigOrDie(testConfig)
	list, err := dc.ServerResourcesForGroupVersion(gatewayv1.GroupVersion.String())
	if apierrors.IsNotFound(err) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list.APIResources {
		if r.Name == "httproutes" {
			return true
		}
	}
	return false
}
