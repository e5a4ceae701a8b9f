package traffic

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

const (
	eventually = 2 * time.Minute
	poll       = 100 * time.Millisecond
)

// routing reads the operator's VirtualService or DestinationRule of the agent.
func routing(ctx context.Context, gvk string, key client.ObjectKey) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	if gvk == "VirtualService" {
		u.SetGroupVersionKind(workload.VirtualServiceGVK)
	} else {
		u.SetGroupVersionKind(workload.DestinationRuleGVK)
	}
	return u, suite.Client.Get(ctx, key, u)
}

// weights maps subset to weight on the VirtualService's one route.
func weights(g Gomega, vs *unstructured.Unstructured) map[string]int64 {
	http, _, _ := unstructured.NestedSlice(vs.Object, "spec", "http")
	g.Expect(http).To(HaveLen(1))
	out := map[string]int64{}
	for _, d := range http[0].(map[string]any)["route"].([]any) {
		subset, _, _ := unstructured.NestedString(d.(map[string]any), "destination", "subset")
		w, _, _ := unstructured.NestedInt64(d.(map[string]any), "weight")
		out[subset] = w
	}
	return out
}

var _ = Describe("rollout traffic routing with Istio's CRDs served", func() {
	It("routes the step's weight through the operator's VirtualService (mode mesh) and removes it when the rollout ends", func() {
		ctx := context.Background()
		ns := framework.CreateNamespace(suite.Client, "traffic")
		framework.CreateReadyPromptPack(suite.Client, ns, "support-pack", "1.0.0")
		framework.CreateReadyPromptPack(suite.Client, ns, "support-pack", "2.0.0")

		ar := &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "support"}, Spec: v1alpha1.AgentRuntimeSpec{
			Facades:       []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}},
			PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "support-pack", Version: "1.0.0"},
			Rollout: &v1alpha1.AgentRuntimeRollout{
				Steps: []v1alpha1.AgentRuntimeRolloutStep{
					{SetWeight: ptr.To[int32](30)},
					{Pause: &v1alpha1.AgentRuntimeRolloutPause{}},
				},
				StickySession:  &v1alpha1.AgentRuntimeRolloutStickySession{HashOn: "x-user-id"},
				TrafficRouting: &v1alpha1.AgentRuntimeRolloutTrafficRouting{Mesh: &v1alpha1.AgentRuntimeRolloutMesh{Waypoint: "agents-waypoint"}},
			},
		}}
		Expect(suite.Client.Create(ctx, ar)).To(Succeed())
		key := client.ObjectKeyFromObject(ar)
		Eventually(func(g Gomega) {
			got := &v1alpha1.AgentRuntime{}
			g.Expect(suite.Client.Get(ctx, key, got)).To(Succeed())
			g.Expect(got.Status.Phase).To(Equal(v1alpha1.AgentRuntimePhaseRunning))
		}).WithTimeout(eventually).WithPolling(250 * time.Millisecond).Should(Succeed())

		By("the agent Service carries the waypoint label")
		svc := &corev1.Service{}
		Expect(suite.Client.Get(ctx, key, svc)).To(Succeed())
		Expect(svc.Labels).To(HaveKeyWithValue(workload.WaypointLabel, "agents-waypoint"))

		By("setting the candidate to 2.0.0")
		Eventually(func() error {
			got := &v1alpha1.AgentRuntime{}
			if err := suite.Client.Get(ctx, key, got); err != nil {
				return err
			}
			got.Spec.Rollout.Candidate = &v1alpha1.AgentRuntimeRolloutCandidate{
				PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "support-pack", Version: "2.0.0"}}
			return suite.Client.Update(ctx, got)
		}).WithTimeout(30 * time.Second).WithPolling(poll).Should(Succeed())

		By("the operator's VirtualService sends 30% to the canary subset; status.rollout says mesh, enforced")
		host := "support." + ns + ".svc.cluster.local"
		Eventually(func(g Gomega) {
			vs, err := routing(ctx, "VirtualService", key)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(weights(g, vs)).To(Equal(map[string]int64{"stable": 70, "canary": 30}))
			hosts, _, _ := unstructured.NestedStringSlice(vs.Object, "spec", "hosts")
			g.Expect(hosts).To(Equal([]string{host}))
			g.Expect(vs.GetLabels()).To(HaveKeyWithValue(workload.LabelManagedBy, workload.ManagedByValue))
			dr, err := routing(ctx, "DestinationRule", key)
			g.Expect(err).NotTo(HaveOccurred())
			h, _, _ := unstructured.NestedString(dr.Object, "spec", "trafficPolicy", "loadBalancer", "consistentHash", "httpHeaderName")
			g.Expect(h).To(Equal("x-user-id"))
			got := &v1alpha1.AgentRuntime{}
			g.Expect(suite.Client.Get(ctx, key, got)).To(Succeed())
			r := got.Status.Rollout
			g.Expect(r).NotTo(BeNil())
			g.Expect(r.Active).To(BeTrue())
			g.Expect(r.CurrentWeight).To(Equal(ptr.To[int32](30)))
			g.Expect(r.TrafficRoutingMode).To(Equal(agentruntime.TrafficModeMesh))
			g.Expect(r.TrafficWeightEnforced).To(Equal(ptr.To(true)))
			c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.AgentRuntimeConditionTrafficRouting)
			g.Expect(c).NotTo(BeNil())
			g.Expect(string(c.Status) + "/" + c.Reason).To(Equal("True/" + v1alpha1.AgentRuntimeReasonMeshRouting))
		}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())

		By("rolling back by hand (candidate equal to the spec): the VirtualService and DestinationRule are removed")
		Eventually(func() error {
			got := &v1alpha1.AgentRuntime{}
			if err := suite.Client.Get(ctx, key, got); err != nil {
				return err
			}
			got.Spec.Rollout.Candidate = &v1alpha1.AgentRuntimeRolloutCandidate{
				PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "support-pack", Version: "1.0.0"}}
			return suite.Client.Update(ctx, got)
		}).WithTimeout(30 * time.Second).WithPolling(poll).Should(Succeed())
		Eventually(func(g Gomega) {
			_, err := routing(ctx, "VirtualService", key)
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "VirtualService: %v", err)
			_, err = routing(ctx, "DestinationRule", key)
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "DestinationRule: %v", err)
			got := &v1alpha1.AgentRuntime{}
			g.Expect(suite.Client.Get(ctx, key, got)).To(Succeed())
			g.Expect(got.Status.Rollout.Active).To(BeFalse())
		}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())
	})
})

var _ = Describe("RolloutAnalysis admission", func() {
	It("refuses a successCondition that does not compile and a query naming an undeclared argument, and admits a valid template", func() {
		ctx := context.Background()
		ns := framework.CreateNamespace(suite.Client, "analysis")
		tmpl := func(name, cond, query string) *v1alpha1.RolloutAnalysis {
			return &v1alpha1.RolloutAnalysis{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.RolloutAnalysisSpec{
				Args: []v1alpha1.RolloutAnalysisArg{{Name: "agent", Value: ptr.To("support")}},
				Metrics: []v1alpha1.RolloutAnalysisMetric{{Name: "ok", SuccessCondition: cond,
					Provider: v1alpha1.RolloutAnalysisProvider{Prometheus: &v1alpha1.RolloutAnalysisPrometheus{
						Address: "http://prometheus.monitoring.svc:9090", Query: query}}}},
			}}
		}
		err := suite.Client.Create(ctx, tmpl("bad-cond", "result[0] >", `up{agent="{{args.agent}}"}`))
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("[rolloutanalysis/success-condition-compiles] spec.metrics[0].successCondition"))
		err = suite.Client.Create(ctx, tmpl("bad-arg", "result[0] > 0.0", `up{zone="{{args.zone}}"}`))
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("[rolloutanalysis/query-args-declared]"))
		Expect(suite.Client.Create(ctx, tmpl("good", "result.size() > 0 && result[0] > 0.0", `up{agent="{{args.agent}}"}`))).To(Succeed())
	})
})

var _ = Describe("a rollout's analysis step", func() {
	It("measures a local Prometheus every interval with the step's arguments, passes, and the rollout promotes", func() {
		ctx := context.Background()
		var mu sync.Mutex
		var queries []string
		prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			queries = append(queries, r.URL.Query().Get("query"))
			mu.Unlock()
			_ = json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{
				"resultType": "vector", "result": []any{map[string]any{"metric": map[string]any{}, "value": []any{1700000000, "0.99"}}}}})
		}))
		defer prom.Close()

		ns := framework.CreateNamespace(suite.Client, "analysis-run")
		framework.CreateReadyPromptPack(suite.Client, ns, "support-pack", "1.0.0")
		framework.CreateReadyPromptPack(suite.Client, ns, "support-pack", "2.0.0")
		Expect(suite.Client.Create(ctx, &v1alpha1.RolloutAnalysis{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "quality"}, Spec: v1alpha1.RolloutAnalysisSpec{
			Args: []v1alpha1.RolloutAnalysisArg{{Name: "agent"}},
			Metrics: []v1alpha1.RolloutAnalysisMetric{{Name: "success-rate", Interval: "1s", Count: ptr.To[int32](2),
				SuccessCondition: "result.size() > 0 && result[0] >= 0.95",
				Provider: v1alpha1.RolloutAnalysisProvider{Prometheus: &v1alpha1.RolloutAnalysisPrometheus{
					Address: prom.URL, Query: `ok{agent="{{args.agent}}"}`}}}},
		}})).To(Succeed())

		ar := &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "support"}, Spec: v1alpha1.AgentRuntimeSpec{
			Facades:       []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}},
			PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "support-pack", Version: "1.0.0"},
			Rollout: &v1alpha1.AgentRuntimeRollout{
				Steps: []v1alpha1.AgentRuntimeRolloutStep{
					{SetWeight: ptr.To[int32](20)},
					{Analysis: &v1alpha1.AgentRuntimeRolloutAnalysis{TemplateName: "quality",
						Args: []v1alpha1.AgentRuntimeRolloutAnalysisArg{{Name: "agent", Value: "support"}}}},
					{SetWeight: ptr.To[int32](100)},
				},
				Rollback: &v1alpha1.AgentRuntimeRolloutRollback{Mode: "automatic"},
			},
		}}
		// The licence is reloaded by the operator: the webhook admits the
		// analysis step once it has it.
		Eventually(func() error { return suite.Client.Create(ctx, ar) }).WithTimeout(eventually).WithPolling(250 * time.Millisecond).Should(Succeed())
		key := client.ObjectKeyFromObject(ar)
		Eventually(func(g Gomega) {
			got := &v1alpha1.AgentRuntime{}
			g.Expect(suite.Client.Get(ctx, key, got)).To(Succeed())
			g.Expect(got.Status.Phase).To(Equal(v1alpha1.AgentRuntimePhaseRunning))
		}).WithTimeout(eventually).WithPolling(250 * time.Millisecond).Should(Succeed())
		// The step lasts about two intervals: a watch, not a poll, sees
		// every status the operator writes during it.
		sawAnalysis := watchFor(ctx, ns, key.Name, func(got *v1alpha1.AgentRuntime) bool {
			a := got.Status.Rollout
			return a != nil && a.Analysis != nil && a.Analysis.TemplateName == "quality"
		})
		Eventually(func() error {
			got := &v1alpha1.AgentRuntime{}
			if err := suite.Client.Get(ctx, key, got); err != nil {
				return err
			}
			got.Spec.Rollout.Candidate = &v1alpha1.AgentRuntimeRolloutCandidate{
				PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "support-pack", Version: "2.0.0"}}
			return suite.Client.Update(ctx, got)
		}).WithTimeout(30 * time.Second).WithPolling(poll).Should(Succeed())

		By("the analysis runs, then the rollout promotes 2.0.0")
		Eventually(func(g Gomega) {
			got := &v1alpha1.AgentRuntime{}
			g.Expect(suite.Client.Get(ctx, key, got)).To(Succeed())
			dump, _ := json.Marshal(got.Status)
			g.Expect(got.Spec.PromptPackRef.Version).To(Equal("2.0.0"), "status %s", dump)
			g.Expect(got.Spec.Rollout.Candidate).To(BeNil())
		}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())
		Expect(sawAnalysis.Load()).To(BeTrue(), "status.rollout.analysis was reported during the step")
		mu.Lock()
		defer mu.Unlock()
		Expect(queries).To(HaveLen(2), "count 2: two measurements")
		Expect(queries).To(HaveEach(`ok{agent="support"}`))
	})
})

// watchFor watches the AgentRuntime ns/name until the spec ends and reports
// whether any version of it the API server sent satisfied seen.
func watchFor(ctx context.Context, ns, name string, seen func(*v1alpha1.AgentRuntime) bool) *atomic.Bool {
	GinkgoHelper()
	wc, err := client.NewWithWatch(suite.Env.Config, client.Options{Scheme: suite.Client.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithCancel(ctx)
	DeferCleanup(cancel)
	w, err := wc.Watch(ctx, &v1alpha1.AgentRuntimeList{}, client.InNamespace(ns),
		client.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("metadata.name", name)})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(w.Stop)
	found := &atomic.Bool{}
	go func() {
		for ev := range w.ResultChan() {
			if ar, ok := ev.Object.(*v1alpha1.AgentRuntime); ok && seen(ar) {
				found.Store(true)
			}
		}
	}()
	return found
}
