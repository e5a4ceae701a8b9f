package agentruntime

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/rules"
)

// The resolution of an agent's references against the suite's API server:
// Provider readiness, PromptPack validity (with version/track selection),
// the ToolRegistry, A2A clients and mounted claims.

// setPackPhase writes a PromptPack's status.phase, as the PromptPack
// controller does.
func setPackPhase(t *testing.T, p *v1alpha1.PromptPack, phase v1alpha1.PromptPackPhase) {
	t.Helper()
	p.Status.Phase = phase
	if err := k8s.Status().Update(context.Background(), p); err != nil {
		t.Fatalf("PromptPack %s status: %v", p.Name, err)
	}
}

// setProviderPhase writes a Provider's status.phase, as the Provider
// controller does.
func setProviderPhase(t *testing.T, p *v1alpha1.Provider, phase v1alpha1.ProviderPhase) {
	t.Helper()
	p.Status.Phase = phase
	if err := k8s.Status().Update(context.Background(), p); err != nil {
		t.Fatalf("Provider %s status: %v", p.Name, err)
	}
}

// createPack creates the PromptPack <packName>-<version> labelled with its
// pack name, in phase (none when empty).
func createPack(t *testing.T, ns, packName, version string, phase v1alpha1.PromptPackPhase) *v1alpha1.PromptPack {
	t.Helper()
	p := &v1alpha1.PromptPack{ObjectMeta: metav1.ObjectMeta{Name: packName + "-" + strings.ReplaceAll(version, "+", "-"), Namespace: ns,
		Labels: map[string]string{rules.PromptPackLabel: packName}}}
	p.Spec.PackName, p.Spec.Version = packName, version
	p.Spec.Source.ConfigMapRef = &v1alpha1.LocalObjectReference{Name: packName}
	if err := k8s.Create(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if phase != "" {
		setPackPhase(t, p, phase)
	}
	return p
}

func condition(ar *v1alpha1.AgentRuntime, typ string) *metav1.Condition {
	return meta.FindStatusCondition(ar.Status.Conditions, typ)
}

// wantCondition fails unless the condition has status and reason.
func wantCondition(t *testing.T, ar *v1alpha1.AgentRuntime, typ string, status metav1.ConditionStatus, reason string) *metav1.Condition {
	t.Helper()
	c := condition(ar, typ)
	if c == nil || c.Status != status || c.Reason != reason {
		t.Errorf("%s = %+v, want %s %s", typ, c, status, reason)
	}
	return c
}

// TestProviderReadinessGatesTheAgent: with the controller in a manager, a
// Provider that exists but is not Ready holds the agent Pending
// (ProviderReady False ProviderNotReady, never Failed) with no Deployment;
// the Provider controller reporting Ready re-reconciles the agent through
// the Provider watch and its Deployment is created. The same manager shows
// the ToolRegistry, claim and A2A-target watches: creating the missing
// registry, claim and target agent turns ToolRegistryReady, Volumes and
// A2AClientsResolved True without touching the agent.
func TestProviderReadinessGatesTheAgent(t *testing.T) {
	ctx := startManager(t, Options{})

	const ns = "ar-res-provider"
	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	createPack(t, ns, "prompts", "1.0.0", v1alpha1.PromptPackPhaseReady)
	p := provider("llm", "m")
	p.Namespace = ns
	if err := k8s.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	setProviderPhase(t, p, v1alpha1.ProviderPhaseError)

	ar := agent(func(a *v1alpha1.AgentRuntime) {
		a.Name = "gated"
		a.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts"}
		a.Spec.Providers = []v1alpha1.AgentRuntimeProvider{{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "llm"}}}
		a.Spec.ToolRegistryRef = &v1alpha1.NamespacedObjectReference{Name: "tools"}
		a.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Volumes: []corev1.Volume{{Name: "data",
			VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}}
		a.Spec.A2AClients = []v1alpha1.AgentRuntimeA2AClient{{Name: "peer", AgentRuntimeRef: &v1alpha1.NamespacedObjectReference{Name: "peer"}}}
	})
	ar.Namespace, ar.UID = ns, ""
	if err := k8s.Create(ctx, ar); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(ar)
	g := gomega.NewWithT(t)
	state := func(typ string) func() string {
		return func() string {
			got := &v1alpha1.AgentRuntime{}
			if err := k8s.Get(ctx, key, got); err != nil {
				return err.Error()
			}
			c := condition(got, typ)
			if c == nil {
				return string(got.Status.Phase) + " absent"
			}
			return string(got.Status.Phase) + " " + string(c.Status) + " " + c.Reason
		}
	}
	g.Eventually(state(v1alpha1.AgentRuntimeConditionProviderReady), 30*time.Second, 100*time.Millisecond).
		Should(gomega.Equal("Pending False " + v1alpha1.AgentRuntimeReasonProviderNotReady))
	if d := deploymentOf(t, key); d != nil {
		t.Errorf("a Deployment was created while the Provider is not Ready")
	}

	setProviderPhase(t, p, v1alpha1.ProviderPhaseReady)
	g.Eventually(func() bool { return deploymentOf(t, key) != nil }, 30*time.Second, 100*time.Millisecond).Should(gomega.BeTrue(),
		"the Provider turning Ready did not re-reconcile the agent into a Deployment")
	g.Eventually(state(v1alpha1.AgentRuntimeConditionProviderReady), 30*time.Second, 100*time.Millisecond).
		Should(gomega.Equal("Pending True " + v1alpha1.AgentRuntimeReasonProvidersReady))
	g.Eventually(state(v1alpha1.AgentRuntimeConditionToolRegistryReady), 30*time.Second, 100*time.Millisecond).
		Should(gomega.Equal("Pending False " + v1alpha1.AgentRuntimeReasonToolRegistryNotFound))
	g.Eventually(state(v1alpha1.AgentRuntimeConditionVolumes), 30*time.Second, 100*time.Millisecond).
		Should(gomega.Equal("Pending False " + v1alpha1.AgentRuntimeReasonPersistentVolumeClaimNotFound))

	reg := &v1alpha1.ToolRegistry{ObjectMeta: metav1.ObjectMeta{Name: "tools", Namespace: ns}, Spec: v1alpha1.ToolRegistrySpec{
		Handlers: []v1alpha1.ToolRegistryHandler{{Name: "geo", Type: "client", Tool: &v1alpha1.ToolRegistryToolDefinition{
			Name: "get_location", Description: "does get_location", InputSchema: runtime.RawExtension{Raw: []byte(`{"type":"object"}`)}}}}}}
	if err := k8s.Create(ctx, reg); err != nil {
		t.Fatal(err)
	}
	g.Eventually(state(v1alpha1.AgentRuntimeConditionToolRegistryReady), 30*time.Second, 100*time.Millisecond).
		Should(gomega.Equal("Pending True " + v1alpha1.AgentRuntimeReasonToolRegistryFound))

	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: ns}, Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
	if err := k8s.Create(ctx, pvc); err != nil {
		t.Fatal(err)
	}
	g.Eventually(state(v1alpha1.AgentRuntimeConditionVolumes), 30*time.Second, 100*time.Millisecond).
		Should(gomega.Equal("Pending True " + v1alpha1.AgentRuntimeReasonVolumeClaimsFound))

	// The A2A target appearing re-reconciles its caller (the target's
	// own reconciles do not count: it references nothing).
	g.Eventually(state(v1alpha1.AgentRuntimeConditionA2AClientsResolved), 30*time.Second, 100*time.Millisecond).
		Should(gomega.Equal("Pending False " + v1alpha1.AgentRuntimeReasonUnresolved))
	peer := agent(func(a *v1alpha1.AgentRuntime) {
		a.Name, a.Namespace, a.UID = "peer", ns, ""
		a.Spec.Facades = []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeA2A}}
	})
	if err := k8s.Create(ctx, peer); err != nil {
		t.Fatal(err)
	}
	g.Eventually(state(v1alpha1.AgentRuntimeConditionA2AClientsResolved), 30*time.Second, 100*time.Millisecond).
		Should(gomega.Equal("Pending True " + v1alpha1.AgentRuntimeReasonA2AClientsResolved))
}

// TestPromptPackValidity: the pack the ref selects decides. Not validated
// yet holds the agent Pending with no Deployment; Invalid fails it
// (PromptPackInvalid); the stable track picks the highest release by
// semver (1.10.0 over 1.9.0), and pinning the valid version runs it.
func TestPromptPackValidity(t *testing.T) {
	ctx := context.Background()
	ar := createAgent(t, agent(func(a *v1alpha1.AgentRuntime) {
		a.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts"}
	}), "ar-res-pack")
	key := client.ObjectKeyFromObject(ar)
	r, _ := newCountingReconciler(t)

	createPack(t, key.Namespace, "prompts", "1.9.0", v1alpha1.PromptPackPhaseReady)
	newest := createPack(t, key.Namespace, "prompts", "1.10.0", "")
	got := reconcileAgent(t, r, key)
	if got.Status.Phase != v1alpha1.AgentRuntimePhasePending {
		t.Errorf("phase %q with the selected pack not validated, want Pending", got.Status.Phase)
	}
	wantCondition(t, got, v1alpha1.AgentRuntimeConditionPromptPackReady, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonPromptPackNotValidated)
	if deploymentOf(t, key) != nil {
		t.Errorf("a Deployment was created for a pack not validated yet")
	}

	setPackPhase(t, newest, v1alpha1.PromptPackPhaseInvalid)
	got = reconcileAgent(t, r, key)
	if got.Status.Phase != v1alpha1.AgentRuntimePhaseFailed {
		t.Errorf("phase %q with an Invalid pack, want Failed", got.Status.Phase)
	}
	if c := wantCondition(t, got, v1alpha1.AgentRuntimeConditionPromptPackReady, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonPromptPackInvalid); c != nil &&
		!strings.Contains(c.Message, "agentruntime/promptpack-valid") {
		t.Errorf("PromptPackReady message %q does not name the rule", c.Message)
	}
	if deploymentOf(t, key) != nil {
		t.Errorf("a Deployment was created for an Invalid pack")
	}

	got.Spec.PromptPackRef.Version = "1.9.0"
	if err := k8s.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	got = reconcileAgent(t, r, key)
	wantCondition(t, got, v1alpha1.AgentRuntimeConditionPromptPackReady, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonPromptPackResolved)
	if got.Status.ActiveVersion != "1.9.0" || deploymentOf(t, key) == nil {
		t.Errorf("pinned to the valid 1.9.0: activeVersion %q, Deployment created %v", got.Status.ActiveVersion, deploymentOf(t, key) != nil)
	}
}

// TestProviderNotReadyIsPendingNotFailed: a Provider in phase Error (a
// reference not usable yet) holds the agent Pending; a missing one beside it
// fails the agent, whatever the order of the findings.
func TestProviderNotReadyIsPendingNotFailed(t *testing.T) {
	ctx := context.Background()
	ar := createAgent(t, agent(func(a *v1alpha1.AgentRuntime) {
		a.Spec.Providers = []v1alpha1.AgentRuntimeProvider{{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "llm"}}}
	}), "ar-res-notready")
	key := client.ObjectKeyFromObject(ar)
	p := provider("llm", "m")
	p.Namespace = key.Namespace
	if err := k8s.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	setProviderPhase(t, p, v1alpha1.ProviderPhaseUnavailable)
	r, _ := newCountingReconciler(t)
	got := reconcileAgent(t, r, key)
	if got.Status.Phase != v1alpha1.AgentRuntimePhasePending {
		t.Errorf("phase %q with an Unavailable Provider, want Pending", got.Status.Phase)
	}
	wantCondition(t, got, v1alpha1.AgentRuntimeConditionProviderReady, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonProviderNotReady)

	got.Spec.Providers = append(got.Spec.Providers, v1alpha1.AgentRuntimeProvider{Name: "judge", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "missing"}})
	if err := k8s.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	got = reconcileAgent(t, r, key)
	if got.Status.Phase != v1alpha1.AgentRuntimePhaseFailed {
		t.Errorf("phase %q with one Provider missing and one not Ready, want Failed", got.Status.Phase)
	}
	wantCondition(t, got, v1alpha1.AgentRuntimeConditionProviderReady, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonProviderNotFound)
}

// TestMissingToolRegistryAndClaim: a missing ToolRegistry sets
// ToolRegistryReady False and the agent runs without tools (no
// OMNIA_TOOLREGISTRY_NAME); a missing mounted claim sets Volumes False
// naming it, and the Deployment is still applied (its pods wait for the
// claim, as Kubernetes keeps them). Creating both and reconciling again
// wires the registry in and turns both conditions True.
func TestMissingToolRegistryAndClaim(t *testing.T) {
	ctx := context.Background()
	ar := createAgent(t, agent(func(a *v1alpha1.AgentRuntime) {
		a.Spec.ToolRegistryRef = &v1alpha1.NamespacedObjectReference{Name: "tools"}
		a.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Volumes: []corev1.Volume{{Name: "data",
			VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "agent-data"}}}}}
	}), "ar-res-tools")
	key := client.ObjectKeyFromObject(ar)
	r, _ := newCountingReconciler(t)
	got := reconcileAgent(t, r, key)
	wantCondition(t, got, v1alpha1.AgentRuntimeConditionToolRegistryReady, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonToolRegistryNotFound)
	if c := wantCondition(t, got, v1alpha1.AgentRuntimeConditionVolumes, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonPersistentVolumeClaimNotFound); c != nil &&
		!strings.Contains(c.Message, "agent-data") {
		t.Errorf("Volumes message %q does not name the missing claim", c.Message)
	}
	d := deploymentOf(t, key)
	if d == nil {
		t.Fatal("no Deployment: neither a missing ToolRegistry nor a missing claim holds the workload")
	}
	rt := container(t, &d.Spec.Template.Spec, workload.ContainerRuntime)
	if e := env(rt, workload.EnvToolRegistryName); e != nil {
		t.Errorf("the runtime has %s=%q for a ToolRegistry that does not exist", e.Name, e.Value)
	}

	reg := &v1alpha1.ToolRegistry{ObjectMeta: metav1.ObjectMeta{Name: "tools", Namespace: key.Namespace}, Spec: v1alpha1.ToolRegistrySpec{
		Handlers: []v1alpha1.ToolRegistryHandler{{Name: "geo", Type: "client", Tool: &v1alpha1.ToolRegistryToolDefinition{
			Name: "get_location", Description: "does get_location", InputSchema: runtime.RawExtension{Raw: []byte(`{"type":"object"}`)}}}}}}
	if err := k8s.Create(ctx, reg); err != nil {
		t.Fatal(err)
	}
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "agent-data", Namespace: key.Namespace}, Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
	if err := k8s.Create(ctx, pvc); err != nil {
		t.Fatal(err)
	}
	got = reconcileAgent(t, r, key)
	wantCondition(t, got, v1alpha1.AgentRuntimeConditionToolRegistryReady, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonToolRegistryFound)
	wantCondition(t, got, v1alpha1.AgentRuntimeConditionVolumes, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonVolumeClaimsFound)
	d = deploymentOf(t, key)
	if e := env(container(t, &d.Spec.Template.Spec, workload.ContainerRuntime), workload.EnvToolRegistryName); e == nil || e.Value != "tools" {
		t.Errorf("the runtime's %s = %+v once the ToolRegistry exists, want tools", workload.EnvToolRegistryName, e)
	}
}

// TestA2AClientResolution: an agentRuntimeRef resolves to the target's
// in-cluster A2A URL, a url as given; a missing target and a target without
// an a2a facade are unresolved, reported per client in status.a2a.clients
// and by A2AClientsResolved False Unresolved. Without clients the condition
// and the client list are absent.
func TestA2AClientResolution(t *testing.T) {
	ctx := context.Background()
	ar := createAgent(t, agent(func(a *v1alpha1.AgentRuntime) {
		a.Spec.A2AClients = []v1alpha1.AgentRuntimeA2AClient{
			{Name: "billing", AgentRuntimeRef: &v1alpha1.NamespacedObjectReference{Name: "billing"}},
			{Name: "ws", AgentRuntimeRef: &v1alpha1.NamespacedObjectReference{Name: "ws-only"}},
			{Name: "gone", AgentRuntimeRef: &v1alpha1.NamespacedObjectReference{Name: "nobody"}},
			{Name: "ext", URL: "https://agents.example.com"},
		}
	}), "ar-res-a2a")
	key := client.ObjectKeyFromObject(ar)
	for name, facades := range map[string][]v1alpha1.AgentRuntimeFacade{
		"billing": {{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}, {Type: v1alpha1.AgentRuntimeFacadeTypeA2A}},
		"ws-only": {{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}},
	} {
		target := agent(func(a *v1alpha1.AgentRuntime) {
			a.Name, a.Namespace, a.UID, a.Spec.Facades = name, key.Namespace, "", facades
		})
		if err := k8s.Create(ctx, target); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := newCountingReconciler(t)
	got := reconcileAgent(t, r, key)
	if c := wantCondition(t, got, v1alpha1.AgentRuntimeConditionA2AClientsResolved, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonUnresolved); c != nil &&
		(!strings.Contains(c.Message, "ws") || !strings.Contains(c.Message, "gone")) {
		t.Errorf("A2AClientsResolved message %q does not name the unresolved clients", c.Message)
	}
	if got.Status.A2A == nil {
		t.Fatal("no status.a2a on an agent with clients")
	}
	type row struct {
		url   string
		ready bool
	}
	want := map[string]row{
		"billing": {"http://billing." + key.Namespace + ".svc.cluster.local:9999", true},
		"ws":      {"", false},
		"gone":    {"", false},
		"ext":     {"https://agents.example.com", true},
	}
	if len(got.Status.A2A.Clients) != len(want) {
		t.Errorf("status.a2a.clients = %+v, want %d entries", got.Status.A2A.Clients, len(want))
	}
	for _, c := range got.Status.A2A.Clients {
		w := want[c.Name]
		if c.ResolvedURL != w.url || c.Ready != w.ready || (c.Error == "") != w.ready {
			t.Errorf("client %s = %+v, want url %q ready %v (and an error exactly when not ready)", c.Name, c, w.url, w.ready)
		}
	}
	// The URL is the one the target's Service serves its a2a facade on.
	billing := &v1alpha1.AgentRuntime{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: key.Namespace, Name: "billing"}, billing); err != nil {
		t.Fatal(err)
	}
	for _, p := range workload.FacadePorts(billing) {
		if p.Type == v1alpha1.AgentRuntimeFacadeTypeA2A && !p.Management && "http://"+workload.ServiceHost(billing)+":"+strconv.Itoa(int(p.Port)) != want["billing"].url {
			t.Errorf("the a2a facade listens on %s:%d, the client resolved to %s", workload.ServiceHost(billing), p.Port, want["billing"].url)
		}
	}

	got.Spec.A2AClients = nil
	if err := k8s.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	got = reconcileAgent(t, r, key)
	if c := condition(got, v1alpha1.AgentRuntimeConditionA2AClientsResolved); c != nil || got.Status.A2A != nil {
		t.Errorf("without clients: A2AClientsResolved %+v, status.a2a %+v; want both absent", c, got.Status.A2A)
	}
}

// TestClaimListMatchesThePod: the claims the rule checks are exactly the
// claims the Deployment's pod mounts.
func TestClaimListMatchesThePod(t *testing.T) {
	ar := richAgent()
	ar.Spec.Media = &v1alpha1.AgentRuntimeMedia{Storage: &v1alpha1.AgentRuntimeMediaStorage{Type: "local",
		Local: &v1alpha1.AgentRuntimeMediaLocal{BasePath: "/media", VolumeClaim: "media-claim"}}}
	ar.Spec.Runtime.Volumes = append(ar.Spec.Runtime.Volumes, corev1.Volume{Name: "x",
		VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "runtime-claim"}}})
	ar.Spec.PodOverrides.ExtraVolumes = append(ar.Spec.PodOverrides.ExtraVolumes,
		runtime.RawExtension{Raw: []byte(`{"name":"y","persistentVolumeClaim":{"claimName":"extra-claim"}}`)})
	pod, _ := mustDeployment(t, ar, richResolved())
	got := rules.AgentRuntimePersistentVolumeClaims(ar)
	want := workload.ClaimNames(pod)
	if len(want) < 3 {
		t.Fatalf("the pod mounts claims %v; the test needs all three sources", want)
	}
	gs := append([]string(nil), got...)
	slices.Sort(gs)
	if strings.Join(gs, ",") != strings.Join(want, ",") {
		t.Errorf("rule claims %v, pod claims %v", got, want)
	}
}

// TestFailedReasonWinsThePhase: the condition takes the reason that fails
// the agent even when a Pending reason's rule sorts first (a required
// capability missing on one Provider, another Provider missing).
func TestFailedReasonWinsThePhase(t *testing.T) {
	ar := agent()
	in := statusInput{frameworkImageOK: true, findings: []rules.Finding{
		{RuleID: "agentruntime/provider-capabilities", Condition: v1alpha1.AgentRuntimeConditionProviderReady, Reason: v1alpha1.AgentRuntimeReasonCapabilityMismatch, Message: "m"},
		{RuleID: "agentruntime/provider-exists", Condition: v1alpha1.AgentRuntimeConditionProviderReady, Reason: v1alpha1.AgentRuntimeReasonProviderNotFound, Message: "m"},
	}}
	st := computeStatus(ar, in)
	if st.Phase != v1alpha1.AgentRuntimePhaseFailed {
		t.Errorf("phase %q, want Failed", st.Phase)
	}
	if c := meta.FindStatusCondition(st.Conditions, v1alpha1.AgentRuntimeConditionProviderReady); c == nil || c.Reason != v1alpha1.AgentRuntimeReasonProviderNotFound {
		t.Errorf("ProviderReady %+v, want reason %s", c, v1alpha1.AgentRuntimeReasonProviderNotFound)
	}
}
