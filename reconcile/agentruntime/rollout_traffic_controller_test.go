package agentruntime

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/test/controlplane"
)

// TestRouteTrafficOnTheAPIServer drives routeTraffic and releaseTraffic
// against the suite's API server: first without Istio's CRDs (a requested
// mesh degrades to replicaWeighted and TrafficRouting says so; an unset
// mode is replicaWeighted), then with them, installed from istio.io/api's
// module (the API server validates every VirtualService and
// DestinationRule written): mode mesh applies the operator's own objects
// with the step's weight and a re-route to the same weight writes nothing;
// mode external patches only the managed route of a user's VirtualService
// and adds the subsets to its DestinationRule; a missing external object
// degrades. The CRDs are removed again at the end.
func TestRouteTrafficOnTheAPIServer(t *testing.T) {
	ctx := context.Background()
	meshAgent := createAgent(t, agent(withRouting(&v1alpha1.AgentRuntimeRolloutTrafficRouting{Mode: TrafficModeMesh})), "ar-traffic-mesh")
	unsetAgent := createAgent(t, agent(withRouting(nil)), "ar-traffic-unset")
	extAgent := createAgent(t, agent(withRouting(&v1alpha1.AgentRuntimeRolloutTrafficRouting{Istio: externalIstio}), func(a *v1alpha1.AgentRuntime) {
		a.Spec.Rollout.StickySession = &v1alpha1.AgentRuntimeRolloutStickySession{HashOn: "x-user-id"}
	}), "ar-traffic-external")

	t.Run("without Istio's CRDs", func(t *testing.T) {
		if istioServed(t) {
			t.Fatal("Istio's CRDs are already served on the suite's API server")
		}
		r, writes := newCountingReconciler(t)
		for _, tc := range []struct {
			ar     *v1alpha1.AgentRuntime
			status metav1.ConditionStatus
			reason string
		}{
			{meshAgent, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonMeshNotInstalled},
			{extAgent, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonMeshNotInstalled},
			{unsetAgent, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonReplicaWeighted},
		} {
			out, err := r.routeTraffic(ctx, tc.ar, 30, &statusInput{})
			if err != nil {
				t.Fatal(err)
			}
			st := v1alpha1.AgentRuntimeStatus{Rollout: &v1alpha1.AgentRuntimeRolloutStatus{Active: true}}
			setTrafficRoutingStatus(&st, tc.ar, &out, metav1.Now())
			c := st.Conditions[0]
			if out.Mode != TrafficModeReplicaWeighted || c.Status != tc.status || c.Reason != tc.reason || *st.Rollout.TrafficWeightEnforced {
				t.Errorf("%s: outcome %+v condition %+v", tc.ar.Namespace, out, c)
			}
			if err := r.releaseTraffic(ctx, tc.ar, &statusInput{}); err != nil {
				t.Error(err)
			}
		}
		if n := writes.Load(); n != 0 {
			t.Errorf("%d API writes without Istio", n)
		}
	})

	t.Run("a reconcile reports the degraded mode", func(t *testing.T) {
		key := runnableAgent(t, "ar-traffic-reconcile", withRouting(&v1alpha1.AgentRuntimeRolloutTrafficRouting{Mode: TrafficModeMesh}), func(a *v1alpha1.AgentRuntime) {
			a.Spec.PromptPackRef.Version = "1.0.0"
			a.Spec.Rollout.Candidate = &v1alpha1.AgentRuntimeRolloutCandidate{PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts", Version: "2.0.0"}}
		})
		createPack(t, key.Namespace, "prompts", "2.0.0", v1alpha1.PromptPackPhaseReady)
		r, _ := newCountingReconciler(t)
		got := reconcileAgent(t, r, key)
		c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.AgentRuntimeConditionTrafficRouting)
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.AgentRuntimeReasonMeshNotInstalled || c.ObservedGeneration != got.Generation {
			t.Fatalf("TrafficRouting %+v, want False %s", c, v1alpha1.AgentRuntimeReasonMeshNotInstalled)
		}
		if ro := got.Status.Rollout; ro == nil || ro.TrafficRoutingMode != TrafficModeReplicaWeighted || ro.TrafficWeightEnforced == nil || *ro.TrafficWeightEnforced {
			t.Errorf("status.rollout %+v, want replicaWeighted, not enforced", ro)
		}
	})

	file, err := controlplane.IstioCRDFile()
	if err != nil {
		t.Fatal(err)
	}
	if err := controlplane.InstallIstioCRDs(testConfig); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { uninstallIstio(t, file) })

	t.Run("mesh", func(t *testing.T) {
		r, writes := newCountingReconciler(t)
		for _, ar := range []*v1alpha1.AgentRuntime{meshAgent, unsetAgent} {
			for _, weight := range []int32{30, 60} {
				out, err := r.routeTraffic(ctx, ar, weight, &statusInput{})
				if err != nil {
					t.Fatal(err)
				}
				if out.Mode != TrafficModeMesh || !out.Enforced || out.Degraded != "" || out.Weight != weight {
					t.Errorf("%s: outcome %+v", ar.Namespace, out)
				}
				vs := getRouting(t, workload.NewVirtualService(), ar.Namespace, "support")
				if !metav1.IsControlledBy(vs, ar) {
					t.Errorf("VirtualService not controlled by the agent: %v", vs.GetOwnerReferences())
				}
				if got := routeWeights(t, vs, workload.MeshRouteName); got["stable"] != int64(100-weight) || got["canary"] != int64(weight) {
					t.Errorf("%s weights %v, want stable %d canary %d", ar.Namespace, got, 100-weight, weight)
				}
				subsets, _, _ := unstructured.NestedSlice(getRouting(t, workload.NewDestinationRule(), ar.Namespace, "support").Object, "spec", "subsets")
				if len(subsets) != 2 {
					t.Errorf("DestinationRule subsets %v", subsets)
				}
			}
		}
		before := writes.Load()
		if _, err := r.routeTraffic(ctx, meshAgent, 60, &statusInput{}); err != nil {
			t.Fatal(err)
		}
		if n := writes.Load() - before; n != 0 {
			t.Errorf("routing again to the same weight wrote %d times", n)
		}
		if err := r.releaseTraffic(ctx, meshAgent, &statusInput{}); err != nil {
			t.Fatal(err)
		}
		for _, o := range []*unstructured.Unstructured{workload.NewVirtualService(), workload.NewDestinationRule()} {
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: meshAgent.Namespace, Name: "support"}, o); !apierrors.IsNotFound(err) {
				t.Errorf("%s after release: %v", o.GetKind(), err)
			}
		}
	})

	t.Run("external", func(t *testing.T) {
		r, _ := newCountingReconciler(t)
		out, err := r.routeTraffic(ctx, extAgent, 25, &statusInput{})
		if err != nil {
			t.Fatal(err)
		}
		if out.Mode != TrafficModeReplicaWeighted || out.Reason != v1alpha1.AgentRuntimeReasonExternalObjectNotFound {
			t.Errorf("without the user's objects: %+v", out)
		}
		vs := userVirtualService()
		vs.SetNamespace(extAgent.Namespace)
		dr := workload.NewDestinationRule()
		dr.SetName("dr")
		dr.SetNamespace(extAgent.Namespace)
		dr.Object["spec"] = map[string]any{"host": "support.ar-traffic-external.svc.cluster.local",
			"subsets": []any{map[string]any{"name": "old", "labels": map[string]any{"version": "v0"}}}}
		for _, o := range []*unstructured.Unstructured{vs, dr} {
			if err := k8s.Create(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
		adminBefore := getRouting(t, workload.NewVirtualService(), extAgent.Namespace, "vs").Object["spec"].(map[string]any)["http"].([]any)[0]

		out, err = r.routeTraffic(ctx, extAgent, 25, &statusInput{})
		if err != nil {
			t.Fatal(err)
		}
		if out.Mode != TrafficModeExternal || !out.Enforced || out.Reason != v1alpha1.AgentRuntimeReasonExternalRouting {
			t.Errorf("outcome %+v", out)
		}
		live := getRouting(t, workload.NewVirtualService(), extAgent.Namespace, "vs")
		if got := routeWeights(t, live, "primary"); got["stable"] != 75 || got["canary"] != 25 {
			t.Errorf("primary weights %v", got)
		}
		sameJSON(t, "unmanaged route", live.Object["spec"].(map[string]any)["http"].([]any)[0], adminBefore)
		if metav1.GetControllerOf(live) != nil {
			t.Errorf("the user's VirtualService got a controller: %v", live.GetOwnerReferences())
		}
		subsets, _, _ := unstructured.NestedSlice(getRouting(t, workload.NewDestinationRule(), extAgent.Namespace, "dr").Object, "spec", "subsets")
		sameJSON(t, "subsets", subsets, []any{
			map[string]any{"name": "old", "labels": map[string]any{"version": "v0"}},
			map[string]any{"name": "stable", "labels": map[string]any{workload.LabelRolloutTrack: "stable"}, "trafficPolicy": consistentHash("x-user-id")},
			map[string]any{"name": "canary", "labels": map[string]any{workload.LabelRolloutTrack: "candidate"}, "trafficPolicy": consistentHash("x-user-id")},
		})

		// Someone else edits the VirtualService meanwhile: their change
		// stays, the managed route follows the new weight.
		live.Object["spec"].(map[string]any)["hosts"] = []any{"support.example.com", "support.example.org"}
		if err := k8s.Update(ctx, live); err != nil {
			t.Fatal(err)
		}
		if _, err := r.routeTraffic(ctx, extAgent, 50, &statusInput{}); err != nil {
			t.Fatal(err)
		}
		live = getRouting(t, workload.NewVirtualService(), extAgent.Namespace, "vs")
		if got := routeWeights(t, live, "primary"); got["stable"] != 50 || got["canary"] != 50 {
			t.Errorf("primary weights %v", got)
		}
		sameJSON(t, "hosts", live.Object["spec"].(map[string]any)["hosts"], []any{"support.example.com", "support.example.org"})

		if err := r.releaseTraffic(ctx, extAgent, &statusInput{}); err != nil {
			t.Fatal(err)
		}
		live = getRouting(t, workload.NewVirtualService(), extAgent.Namespace, "vs")
		if got := routeWeights(t, live, "primary"); got["stable"] != 100 || len(got) != 1 {
			t.Errorf("primary weights after release %v, want stable alone at 100", got)
		}
	})
}

func getRouting(t *testing.T, obj *unstructured.Unstructured, ns, name string) *unstructured.Unstructured {
	t.Helper()
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, obj); err != nil {
		t.Fatalf("reading %s %s/%s: %v", obj.GetKind(), ns, name, err)
	}
	return obj
}

// routeWeights maps subset to weight on the VirtualService's route name.
func routeWeights(t *testing.T, vs *unstructured.Unstructured, name string) map[string]int64 {
	t.Helper()
	http, _, _ := unstructured.NestedSlice(vs.Object, "spec", "http")
	for _, raw := range http {
		route := raw.(map[string]any)
		if route["name"] != name {
			continue
		}
		out := map[string]int64{}
		for _, d := range route["route"].([]any) {
			dm := d.(map[string]any)
			subset, _, _ := unstructured.NestedString(dm, "destination", "subset")
			w, _, _ := unstructured.NestedInt64(dm, "weight")
			out[subset] = w
		}
		return out
	}
	t.Fatalf("VirtualService %s has no route %s", vs.GetName(), name)
	return nil
}

// istioServed asks the API server's discovery whether
// networking.istio.io/v1 serves virtualservices.
func istioServed(t *testing.T) bool {
	t.Helper()
	dc := discovery.NewDiscoveryClientForConfigOrDie(testConfig)
	list, err := dc.ServerResourcesForGroupVersion("networking.istio.io/v1")
	if apierrors.IsNotFound(err) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list.APIResources {
		if r.Name == "virtualservices" {
			return true
		}
	}
	return false
}

// uninstallIstio removes Istio's CRDs and waits until they are no longer
// served, leaving the suite's API server as it found it.
func uninstallIstio(t *testing.T, file string) {
	if err := envtest.UninstallCRDs(testConfig, envtest.CRDInstallOptions{Paths: []string{file}}); err != nil {
		t.Errorf("uninstalling Istio's CRDs: %v", err)
		return
	}
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 2*time.Minute, true,
		func(context.Context) (bool, error) { return !istioServed(t), nil })
	if err != nil {
		t.Errorf("Istio's CRDs still served: %v", err)
	}
}
