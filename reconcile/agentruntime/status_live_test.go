package agentruntime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// Status against the real API server: compositionDigest, the runtime
// capability conditions with scale-to-zero, and the printed columns. Nothing
// in this repository runs the runtime or the facade, so each test writes
// their status fields (status.runtimeCapabilities, status.invocations) itself
// as they would, and the PromptPack/Provider/ToolRegistry statuses as their
// controllers would.

const packJSON = `{"id": "prompts", "version": "1.0.0"}`

func createIn(t *testing.T, ns string, o client.Object) {
	t.Helper()
	o.SetNamespace(ns)
	if err := k8s.Create(context.Background(), o); err != nil {
		t.Fatalf("create %T %s: %v", o, o.GetName(), err)
	}
}

func writeStatus(t *testing.T, o client.Object) {
	t.Helper()
	if err := k8s.Status().Update(context.Background(), o); err != nil {
		t.Fatalf("status of %T %s: %v", o, o.GetName(), err)
	}
}

func testPack(name string) *v1alpha1.PromptPack {
	p := &v1alpha1.PromptPack{ObjectMeta: metav1.ObjectMeta{Name: name + "-1", Labels: map[string]string{rules.PromptPackLabel: name}}}
	p.Spec.PackName, p.Spec.Version = name, "1.0.0"
	p.Spec.Source.ConfigMapRef = &v1alpha1.LocalObjectReference{Name: name}
	return p
}

// publishPack writes the status the PromptPack controller writes for a
// valid pack.
func publishPack(t *testing.T, p *v1alpha1.PromptPack) {
	t.Helper()
	p.Status = v1alpha1.PromptPackStatus{Phase: v1alpha1.PromptPackPhaseReady, ObservedGeneration: p.Generation,
		ContentDigest: rules.PromptPackContentDigest([]byte(packJSON))}
	writeStatus(t, p)
}

// publishProvider writes the status the Provider controller writes once it
// has observed the Provider's generation.
func publishProvider(t *testing.T, p *v1alpha1.Provider) {
	t.Helper()
	p.Status = v1alpha1.ProviderStatus{Phase: v1alpha1.ProviderPhase("Ready"), ObservedGeneration: p.Generation}
	writeStatus(t, p)
}

func condReason(ar *v1alpha1.AgentRuntime, typ string) string {
	c := meta.FindStatusCondition(ar.Status.Conditions, typ)
	if c == nil {
		return "absent"
	}
	return string(c.Status) + "/" + c.Reason
}

// TestCompositionDigestFollowsPublishedInputs: the digest is empty while the
// PromptPack has published nothing, set once pack, registry and Provider
// have, empty again while an edited Provider's new generation is not
// observed, and a new value once it is; an unchanged reconcile writes
// nothing.
func TestCompositionDigestFollowsPublishedInputs(t *testing.T) {
	ctx := context.Background()
	ar := createAgent(t, agent(func(a *v1alpha1.AgentRuntime) {
		a.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts"}
		a.Spec.Providers = []v1alpha1.AgentRuntimeProvider{{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "llm"}}}
		a.Spec.ToolRegistryRef = &v1alpha1.NamespacedObjectReference{Name: "tools"}
	}), "ar-status-digest")
	ns, key := ar.Namespace, client.ObjectKeyFromObject(ar)

	prov := provider("llm", "claude-sonnet")
	createIn(t, ns, prov)
	publishProvider(t, prov)
	tr := &v1alpha1.ToolRegistry{ObjectMeta: metav1.ObjectMeta{Name: "tools"}, Spec: v1alpha1.ToolRegistrySpec{Handlers: []v1alpha1.ToolRegistryHandler{{
		Name: "geo", Type: "client", Tool: &v1alpha1.ToolRegistryToolDefinition{Name: "get_location", Description: "where the user is",
			InputSchema: runtime.RawExtension{Raw: []byte(`{"type":"object"}`)}}}}}}
	createIn(t, ns, tr)
	tr.Status = v1alpha1.ToolRegistryStatus{Phase: v1alpha1.ToolRegistryPhasePending, ObservedGeneration: tr.Generation, ContentDigest: "sha256:" + fmt.Sprintf("%064x", 1)}
	writeStatus(t, tr)
	pack := testPack("prompts")
	createIn(t, ns, pack)

	r, writes := newCountingReconciler(t)
	if got := reconcileAgent(t, r, key); got.Status.CompositionDigest != "" {
		t.Fatalf("compositionDigest %q while the PromptPack has published no content digest, want empty", got.Status.CompositionDigest)
	}

	publishPack(t, pack)
	first := reconcileAgent(t, r, key).Status.CompositionDigest
	if len(first) != len("sha256:")+64 || first[:7] != "sha256:" {
		t.Fatalf("compositionDigest %q once every input published, want sha256:<hex>", first)
	}
	writes.Store(0)
	if reconcileAgent(t, r, key); writes.Load() != 0 {
		t.Errorf("an unchanged reconcile made %d writes, want 0", writes.Load())
	}

	prov.Spec.Model = "claude-opus"
	if err := k8s.Update(ctx, prov); err != nil {
		t.Fatal(err)
	}
	if got := reconcileAgent(t, r, key).Status.CompositionDigest; got != "" {
		t.Errorf("compositionDigest %q while the edited Provider's generation is unobserved, want empty", got)
	}
	publishProvider(t, prov)
	second := reconcileAgent(t, r, key).Status.CompositionDigest
	if second == "" || second == first {
		t.Errorf("compositionDigest after the Provider changed = %q, want a new digest (was %q)", second, first)
	}
}

// TestCapabilitiesScaleDeploymentToZero: a duplex agent runs before its
// runtime reports; a report lacking a required capability sets
// CapabilitiesSatisfied False and scales the Deployment to zero; a report
// with every capability scales it back; a spec edit clears a lacking report
// so the new generation's pods run and report.
func TestCapabilitiesScaleDeploymentToZero(t *testing.T) {
	ctx := context.Background()
	ar := createAgent(t, agent(func(a *v1alpha1.AgentRuntime) {
		a.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts"}
		a.Spec.Duplex = &v1alpha1.AgentRuntimeDuplex{Enabled: true}
		a.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](2)}
	}), "ar-status-caps")
	key := client.ObjectKeyFromObject(ar)
	pack := testPack("prompts")
	createIn(t, key.Namespace, pack)
	setPackPhase(t, pack, v1alpha1.PromptPackPhaseReady) // as the PromptPack controller would
	r, writes := newCountingReconciler(t)

	observe := func() state {
		t.Helper()
		got := reconcileAgent(t, r, key)
		d := &appsv1.Deployment{}
		if err := k8s.Get(ctx, key, d); err != nil {
			t.Fatalf("Deployment: %v", err)
		}
		s := state{Reported: condReason(got, v1alpha1.AgentRuntimeConditionRuntimeCapabilitiesReported),
			Satisfied: condReason(got, v1alpha1.AgentRuntimeConditionCapabilitiesSatisfied), Replicas: ptr.Deref(d.Spec.Replicas, -1),
			Report: got.Status.RuntimeCapabilities}
		if got.Status.Replicas != nil {
			s.Desired = got.Status.Replicas.Desired
		}
		return s
	}
	report := func(caps ...string) {
		t.Helper()
		cur := &v1alpha1.AgentRuntime{}
		if err := k8s.Get(ctx, key, cur); err != nil {
			t.Fatal(err)
		}
		base := cur.DeepCopy()
		cur.Status.RuntimeCapabilities = caps
		if err := k8s.Status().Patch(ctx, cur, client.MergeFrom(base)); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(step string, want state) {
		t.Helper()
		if got := observe(); !equalState(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", step, got, want)
		}
	}
	awaiting := "False/" + v1alpha1.AgentRuntimeReasonAwaitingRuntimeReport
	reported := "True/" + v1alpha1.AgentRuntimeReasonRuntimeCapabilitiesReported
	missing := "False/" + v1alpha1.AgentRuntimeReasonRuntimeCapabilitiesMissing

	expect("before any report", state{awaiting, "Unknown/" + v1alpha1.AgentRuntimeReasonAwaitingRuntimeReport, 2, 2, nil})

	report("streaming", "duplex_audio")
	expect("report lacks interruption", state{reported, missing, 0, 0, []string{"streaming", "duplex_audio"}})
	writes.Store(0)
	observe()
	if n := writes.Load(); n != 0 {
		t.Errorf("a second reconcile at zero made %d writes, want 0", n)
	}

	report("streaming", "duplex_audio", "interruption")
	expect("report complete", state{reported, "True/" + v1alpha1.AgentRuntimeReasonRuntimeCapabilitiesSatisfied, 2, 2, []string{"streaming", "duplex_audio", "interruption"}})

	report("streaming")
	expect("lacking again", state{reported, missing, 0, 0, []string{"streaming"}})
	cur := &v1alpha1.AgentRuntime{}
	if err := k8s.Get(ctx, key, cur); err != nil {
		t.Fatal(err)
	}
	cur.Spec.Framework = &v1alpha1.AgentRuntimeFramework{Image: "registry.local/runtime-voice:2"}
	if err := k8s.Update(ctx, cur); err != nil {
		t.Fatal(err)
	}
	expect("new generation: the old report is cleared and the pods run", state{awaiting, "Unknown/" + v1alpha1.AgentRuntimeReasonAwaitingRuntimeReport, 2, 2, nil})
}

// state is what TestCapabilitiesScaleDeploymentToZero observes after a
// reconcile.
type state struct {
	Reported, Satisfied string
	Replicas            int32 // the Deployment's spec.replicas
	Desired             int32 // status.replicas.desired
	Report              []string
}

func equalState(a, b state) bool {
	return a.Reported == b.Reported && a.Satisfied == b.Satisfied && a.Replicas == b.Replicas && a.Desired == b.Desired &&
		slices.Equal(a.Report, b.Report)
}

// table is the API server's Table rendering of one AgentRuntime (as
// `kubectl get agentruntime` asks for it): column name -> cell.
func table(t *testing.T, key client.ObjectKey) map[string]any {
	t.Helper()
	hc, err := rest.HTTPClientFor(testConfig)
	if err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("%s/apis/%s/namespaces/%s/agentruntimes/%s", strings.TrimSuffix(testConfig.Host, "/"), v1alpha1.GroupVersion.String(), key.Namespace, key.Name)
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET table %s: %s: %s", url, resp.Status, body)
	}
	var tbl metav1.Table
	if err := json.Unmarshal(body, &tbl); err != nil {
		t.Fatalf("decoding the table: %v", err)
	}
	if tbl.Kind != "Table" || len(tbl.Rows) != 1 {
		t.Fatalf("got kind %q with %d rows, want one Table row", tbl.Kind, len(tbl.Rows))
	}
	cells := map[string]any{}
	var names []string
	for i, c := range tbl.ColumnDefinitions {
		names = append(names, c.Name)
		cells[c.Name] = tbl.Rows[0].Cells[i]
	}
	if want := []string{"Name", "PHASE", "READY", "VERSION", "INVOCATIONS", "LAST-SUCCESS", "AGE"}; !slices.Equal(names, want) {
		t.Errorf("columns %v, want %v (agentruntime.md#printed-columns)", names, want)
	}
	return cells
}

// TestPrinterColumnsShowLiveValues: the table's READY, VERSION and PHASE
// are empty before the controller writes the status and show what it wrote
// after; INVOCATIONS and LAST-SUCCESS show the facade's counters.
//
// This package's API server runs no Deployment controller, so the test
// writes the Deployment's status (2 replicas, 2 ready, 1 available) as that
// controller would; with real pods it is test/e2e's to show.
func TestPrinterColumnsShowLiveValues(t *testing.T) {
	ctx := context.Background()
	ar := createAgent(t, agent(func(a *v1alpha1.AgentRuntime) {
		a.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts"}
		a.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](2)}
	}), "ar-status-columns")
	key := client.ObjectKeyFromObject(ar)
	pack := testPack("prompts")
	createIn(t, key.Namespace, pack)
	setPackPhase(t, pack, v1alpha1.PromptPackPhaseReady) // as the PromptPack controller would

	before := table(t, key)
	for _, col := range []string{"PHASE", "READY", "VERSION", "INVOCATIONS", "LAST-SUCCESS"} {
		if before[col] != nil {
			t.Errorf("%s = %v before any status, want empty", col, before[col])
		}
	}

	r, _ := newCountingReconciler(t)
	reconcileAgent(t, r, key)
	d := &appsv1.Deployment{}
	if err := k8s.Get(ctx, key, d); err != nil {
		t.Fatal(err)
	}
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 1}
	writeStatus(t, d)

	cur := &v1alpha1.AgentRuntime{}
	if err := k8s.Get(ctx, key, cur); err != nil {
		t.Fatal(err)
	}
	base := cur.DeepCopy()
	success := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	cur.Status.Invocations = &v1alpha1.AgentRuntimeInvocationStatus{Total: 42, Succeeded: 40, LastSuccessTime: &success}
	if err := k8s.Status().Patch(ctx, cur, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	got := reconcileAgent(t, r, key)
	if got.Status.Replicas == nil || got.Status.Replicas.Ready != 2 || got.Status.Invocations == nil || got.Status.Invocations.Total != 42 {
		t.Fatalf("status replicas %+v invocations %+v: the controller did not write the ready count or dropped the facade's counters",
			got.Status.Replicas, got.Status.Invocations)
	}

	after := table(t, key)
	want := map[string]any{"Name": key.Name, "PHASE": string(v1alpha1.AgentRuntimePhaseRunning), "READY": float64(2), "VERSION": "1.0.0", "INVOCATIONS": float64(42)}
	for col, w := range want {
		if after[col] != w {
			t.Errorf("%s = %#v, want %#v", col, after[col], w)
		}
	}
	if s, ok := after["LAST-SUCCESS"].(string); !ok || s == "" || s == "<none>" {
		t.Errorf("LAST-SUCCESS = %#v, want the age of invocations.lastSuccessTime", after["LAST-SUCCESS"])
	}
}

// TestStatusWatchesReconcileAgent: with the controller in a manager, a
// runtime report (a status write, no new generation) re-reconciles the agent
// through the runtimeCapabilities predicate and scales it to zero, and a
// ToolRegistry publishing a new content digest moves the agent's
// compositionDigest through the ToolRegistry watch.
func TestStatusWatchesReconcileAgent(t *testing.T) {
	ctx := context.Background()
	mgr, err := ctrl.NewManager(testConfig, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := SetupWithManager(mgr, Options{BuiltinRuntimeImage: "r:1", FacadeImage: "f:1", PolicyBrokerImage: "b:1"}); err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = mgr.Start(mctx) }()
	t.Cleanup(func() { cancel(); <-done })

	ar := createAgent(t, agent(func(a *v1alpha1.AgentRuntime) {
		a.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts"}
		a.Spec.Duplex = &v1alpha1.AgentRuntimeDuplex{Enabled: true}
		a.Spec.ToolRegistryRef = &v1alpha1.NamespacedObjectReference{Name: "tools"}
	}), "ar-status-watch")
	key := client.ObjectKeyFromObject(ar)
	pack := testPack("prompts")
	createIn(t, key.Namespace, pack)
	publishPack(t, pack)
	tr := &v1alpha1.ToolRegistry{ObjectMeta: metav1.ObjectMeta{Name: "tools"}, Spec: v1alpha1.ToolRegistrySpec{Handlers: []v1alpha1.ToolRegistryHandler{{
		Name: "geo", Type: "client", Tool: &v1alpha1.ToolRegistryToolDefinition{Name: "get_location", Description: "where the user is",
			InputSchema: runtime.RawExtension{Raw: []byte(`{"type":"object"}`)}}}}}}
	createIn(t, key.Namespace, tr)
	tr.Status = v1alpha1.ToolRegistryStatus{Phase: v1alpha1.ToolRegistryPhasePending, ObservedGeneration: tr.Generation, ContentDigest: "sha256:" + fmt.Sprintf("%064x", 1)}
	writeStatus(t, tr)

	g := gomega.NewWithT(t)
	replicas := func() int32 {
		d := &appsv1.Deployment{}
		if err := k8s.Get(ctx, key, d); err != nil {
			return -1
		}
		return ptr.Deref(d.Spec.Replicas, -2)
	}
	digest := func() string {
		got := &v1alpha1.AgentRuntime{}
		if err := k8s.Get(ctx, key, got); err != nil {
			return err.Error()
		}
		return got.Status.CompositionDigest
	}
	g.Eventually(replicas, 30*time.Second, 100*time.Millisecond).Should(gomega.Equal(int32(1)))
	g.Eventually(digest, 30*time.Second, 100*time.Millisecond).Should(gomega.HavePrefix("sha256:"))
	first := digest()

	cur := &v1alpha1.AgentRuntime{}
	if err := k8s.Get(ctx, key, cur); err != nil {
		t.Fatal(err)
	}
	base := cur.DeepCopy()
	cur.Status.RuntimeCapabilities = []string{"streaming"}
	if err := k8s.Status().Patch(ctx, cur, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	g.Eventually(replicas, 30*time.Second, 100*time.Millisecond).Should(gomega.Equal(int32(0)))

	if err := k8s.Get(ctx, client.ObjectKeyFromObject(tr), tr); err != nil {
		t.Fatal(err)
	}
	tr.Status.ContentDigest = "sha256:" + fmt.Sprintf("%064x", 2)
	writeStatus(t, tr)
	g.Eventually(digest, 30*time.Second, 100*time.Millisecond).ShouldNot(gomega.Equal(first))
	g.Expect(digest()).To(gomega.HavePrefix("sha256:"))
}
