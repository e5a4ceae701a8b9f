package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
	"github.com/altairalabs/omnia/test/controlplane"
)

// Every test here runs against a real kube-apiserver and etcd: the API
// server validates, defaults and stores every object the apply writes, so
// "unchanged" is checked against what the server really stored. Webhooks
// are not registered: what this package decides is what it writes.

var k8s client.Client

func TestMain(m *testing.M) {
	env, err := controlplane.Start(controlplane.Options{Kinds: []string{"AgentRuntime", "PromptPack", "PromptPackSource", "ToolRegistry", "ToolPolicy"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer func() { _ = env.Stop() }()
		scheme := runtime.NewScheme()
		if err := clientgoscheme.AddToScheme(scheme); err != nil {
			panic(err)
		}
		if err := v1alpha1.AddToScheme(scheme); err != nil {
			panic(err)
		}
		if k8s, err = client.New(env.Config, client.Options{Scheme: scheme}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

// counting counts the writes made through it, by verb and kind.
type counting struct {
	client.Client
	mu     sync.Mutex
	writes []string
}

func (c *counting) note(verb string, obj client.Object) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, fmt.Sprintf("%s %T %s", verb, obj, obj.GetName()))
}

func (c *counting) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	c.note("create", obj)
	return c.Client.Create(ctx, obj, opts...)
}

func (c *counting) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	c.note("update", obj)
	return c.Client.Update(ctx, obj, opts...)
}

func (c *counting) Patch(ctx context.Context, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
	c.note("patch", obj)
	return c.Client.Patch(ctx, obj, p, opts...)
}

func (c *counting) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	c.note("delete", obj)
	return c.Client.Delete(ctx, obj, opts...)
}

var nsCount atomic.Int32

func namespace(t *testing.T) string {
	t.Helper()
	ns := fmt.Sprintf("deploy-%d", nsCount.Add(1))
	if err := k8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	return ns
}

// deploy applies in through a counting client and returns the status, the
// result and the writes made.
func deploy(t *testing.T, ns string, in *intent.DeployIntent, opts Options) (int, intent.DeployResult, []string) {
	t.Helper()
	c := &counting{Client: k8s}
	status, res := Apply(context.Background(), c, ns, in, opts)
	body, _ := json.Marshal(res)
	t.Logf("status %d: %s; writes %v", status, body, c.writes)
	return status, res, c.writes
}

const (
	tokenValue  = "ghp_THE-SECRET-token-value"
	tokenValue2 = "ghp_ROTATED-secret-value"
)

func packIntent() *intent.DeployIntent {
	return &intent.DeployIntent{
		APIVersion: intent.APIVersion,
		Pack:       intent.Pack{Name: "my-pack", Version: "v1.2.3", Content: `{"id":"my-pack","version":"1.2.3"}`},
		Labels:     map[string]string{"team": "support"},
		Agents: []intent.Agent{{
			Name:      "support-bot",
			Providers: []intent.AgentProvider{{Name: "default", Ref: "claude"}},
		}},
	}
}

func toolsIntent() *intent.DeployIntent {
	in := packIntent()
	in.Tools = &intent.Tools{Handlers: []intent.Handler{{
		Name: "github", Type: "http",
		Tool: json.RawMessage(`{"name":"get_issue","description":"Get an issue","inputSchema":{"type":"object"}}`),
		HTTPConfig: json.RawMessage(`{"endpoint":"https://api.github.com/issues","headersFromSecret":{
			"X-Github-Token":{"name":"from-the-pack","key":"GITHUB_TOKEN"},
			"X-Ops-Key":{"name":"ops-secret","key":"OPS_KEY"}}}`),
	}}}
	in.Credentials = &intent.Credentials{Data: map[string]string{"GITHUB_TOKEN": tokenValue}}
	in.Agents[0].UseTools = ptr.To(true)
	return in
}

type row struct {
	kind, name string
	action     intent.Action
}

func wantResults(t *testing.T, res intent.DeployResult, want ...row) {
	t.Helper()
	var got []row
	for _, r := range res.Results {
		got = append(got, row{r.Kind, r.Name, r.Action})
		if r.URL != "" {
			t.Errorf("%s %s: url %q set by the operator", r.Kind, r.Name, r.URL)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("results:\n got  %v\n want %v", got, want)
	}
}

func get[T client.Object](t *testing.T, ns, name string, obj T) T {
	t.Helper()
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, obj); err != nil {
		t.Fatalf("get %T %s: %v", obj, name, err)
	}
	return obj
}

func noSecretIn(t *testing.T, res intent.DeployResult, values ...string) {
	t.Helper()
	body, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range values {
		if strings.Contains(string(body), v) {
			t.Errorf("a credential value is in the result: %s", body)
		}
	}
}

// versions is the resourceVersion and generation of every object of ns the
// deploy may write.
func versions(t *testing.T, ns string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lists := []client.ObjectList{&corev1.ConfigMapList{}, &corev1.SecretList{}, &v1alpha1.PromptPackList{},
		&v1alpha1.ToolRegistryList{}, &v1alpha1.ToolPolicyList{}, &v1alpha1.AgentRuntimeList{}}
	for _, l := range lists {
		if err := k8s.List(context.Background(), l, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		items, _ := metaItems(l)
		for _, o := range items {
			if o.GetName() == "kube-root-ca.crt" {
				continue
			}
			out[fmt.Sprintf("%T/%s", l, o.GetName())] = fmt.Sprintf("rv=%s gen=%d", o.GetResourceVersion(), o.GetGeneration())
		}
	}
	return out
}

func metaItems(l client.ObjectList) ([]client.Object, error) {
	var out []client.Object
	v := reflect.ValueOf(l).Elem().FieldByName("Items")
	for i := 0; i < v.Len(); i++ {
		out = append(out, v.Index(i).Addr().Interface().(client.Object))
	}
	return out, nil
}

func TestPackOnly(t *testing.T) {
	ns := namespace(t)
	status, res, _ := deploy(t, ns, packIntent(), Options{})
	if status != http.StatusOK || !res.Succeeded {
		t.Fatalf("status %d succeeded %v", status, res.Succeeded)
	}
	wantResults(t, res,
		row{"ConfigMap", "my-pack-1.2.3-content", intent.ActionCreated},
		row{"PromptPack", "my-pack-1.2.3", intent.ActionCreated},
		row{"AgentRuntime", "support-bot", intent.ActionCreated})
	for _, r := range res.Results {
		if r.Error != "" {
			t.Errorf("%s: error %q on a clean deploy", r.Name, r.Error)
		}
	}
	pp := get(t, ns, "my-pack-1.2.3", &v1alpha1.PromptPack{})
	if pp.Spec.Version != "1.2.3" || pp.Spec.PackName != "my-pack" || pp.Labels[rules.PromptPackLabel] != "my-pack" {
		t.Errorf("promptpack %+v labels %v", pp.Spec, pp.Labels)
	}
	cm := get(t, ns, "my-pack-1.2.3-content", &corev1.ConfigMap{})
	if len(cm.OwnerReferences) != 1 || cm.OwnerReferences[0].UID != pp.UID || cm.OwnerReferences[0].Kind != "PromptPack" {
		t.Errorf("configmap owners %+v, want the PromptPack %s", cm.OwnerReferences, pp.UID)
	}
	if cm.Data["pack.json"] != `{"id":"my-pack","version":"1.2.3"}` {
		t.Errorf("pack.json %q", cm.Data["pack.json"])
	}
	ar := get(t, ns, "support-bot", &v1alpha1.AgentRuntime{})
	if got := *ar.Spec.PromptPackRef; got != (v1alpha1.AgentRuntimePromptPackRef{Name: "my-pack", Version: "1.2.3"}) {
		t.Errorf("promptPackRef %+v", got)
	}
	if len(ar.Spec.Facades) != 1 || ar.Spec.Facades[0].Type != "websocket" || ar.Spec.Facades[0].Handler != "runtime" {
		t.Errorf("facades %+v", ar.Spec.Facades)
	}
	if ar.Labels["team"] != "support" || ar.Spec.Providers[0].Role != "llm" {
		t.Errorf("labels %v providers %+v", ar.Labels, ar.Spec.Providers)
	}

	// A redeploy that changes nothing writes nothing.
	before := versions(t, ns)
	status, res, writes := deploy(t, ns, packIntent(), Options{})
	if status != http.StatusOK || !res.Succeeded || len(writes) != 0 {
		t.Errorf("redeploy: status %d succeeded %v writes %v", status, res.Succeeded, writes)
	}
	wantResults(t, res,
		row{"ConfigMap", "my-pack-1.2.3-content", intent.ActionUnchanged},
		row{"PromptPack", "my-pack-1.2.3", intent.ActionUnchanged},
		row{"AgentRuntime", "support-bot", intent.ActionUnchanged})
	if after := versions(t, ns); !reflect.DeepEqual(before, after) {
		t.Errorf("a no-op redeploy moved objects:\n before %v\n after  %v", before, after)
	}

	// A changed agent is updated, and only the agent is written.
	in := packIntent()
	in.Agents[0].Runtime = &intent.Runtime{Replicas: ptr.To[int32](3)}
	status, res, writes = deploy(t, ns, in, Options{})
	if status != http.StatusOK || len(writes) != 1 || res.Results[2].Action != intent.ActionUpdated {
		t.Errorf("update: status %d writes %v results %+v", status, writes, res.Results)
	}
	ar2 := get(t, ns, "support-bot", &v1alpha1.AgentRuntime{})
	if *ar2.Spec.Runtime.Replicas != 3 || ar2.Generation != ar.Generation+1 {
		t.Errorf("replicas %d generation %d (was %d)", *ar2.Spec.Runtime.Replicas, ar2.Generation, ar.Generation)
	}

	// A new version is a new PromptPack; the agent's pin moves to it.
	in.Pack.Version, in.Pack.Content = "1.3.0", `{"id":"my-pack","version":"1.3.0"}`
	_, res, _ = deploy(t, ns, in, Options{})
	wantResults(t, res,
		row{"ConfigMap", "my-pack-1.3.0-content", intent.ActionCreated},
		row{"PromptPack", "my-pack-1.3.0", intent.ActionCreated},
		row{"AgentRuntime", "support-bot", intent.ActionUpdated})
	if v := get(t, ns, "support-bot", &v1alpha1.AgentRuntime{}).Spec.PromptPackRef.Version; v != "1.3.0" {
		t.Errorf("pin %q", v)
	}
}

func TestHandlersAndCredentials(t *testing.T) {
	ns := namespace(t)
	status, res, _ := deploy(t, ns, toolsIntent(), Options{})
	if status != http.StatusOK || !res.Succeeded {
		t.Fatalf("status %d", status)
	}
	wantResults(t, res,
		row{"ConfigMap", "my-pack-1.2.3-content", intent.ActionCreated},
		row{"PromptPack", "my-pack-1.2.3", intent.ActionCreated},
		row{"ToolRegistry", "my-pack-tools", intent.ActionCreated},
		row{"Secret", "my-pack-tools-credentials", intent.ActionCreated},
		row{"AgentRuntime", "support-bot", intent.ActionCreated})
	noSecretIn(t, res, tokenValue)

	reg := get(t, ns, "my-pack-tools", &v1alpha1.ToolRegistry{})
	refs := reg.Spec.Handlers[0].HTTPConfig.HeadersFromSecret
	if refs["X-Github-Token"] != (v1alpha1.ToolRegistrySecretKeyRef{Name: "my-pack-tools-credentials", Key: "GITHUB_TOKEN"}) {
		t.Errorf("supplied key not repointed: %+v", refs["X-Github-Token"])
	}
	if refs["X-Ops-Key"] != (v1alpha1.ToolRegistrySecretKeyRef{Name: "ops-secret", Key: "OPS_KEY"}) {
		t.Errorf("a key not supplied was touched: %+v", refs["X-Ops-Key"])
	}
	regJSON, _ := json.Marshal(reg)
	if strings.Contains(string(regJSON), tokenValue) {
		t.Error("a credential value is in the ToolRegistry")
	}
	sec := get(t, ns, "my-pack-tools-credentials", &corev1.Secret{})
	if string(sec.Data["GITHUB_TOKEN"]) != tokenValue || len(sec.Data) != 1 {
		t.Errorf("secret data keys %v", keys(sec.Data))
	}
	if len(sec.OwnerReferences) != 1 || sec.OwnerReferences[0].UID != reg.UID {
		t.Errorf("secret owners %+v, want the ToolRegistry %s", sec.OwnerReferences, reg.UID)
	}
	if ref := get(t, ns, "support-bot", &v1alpha1.AgentRuntime{}).Spec.ToolRegistryRef; ref == nil || ref.Name != "my-pack-tools" {
		t.Errorf("toolRegistryRef %+v", ref)
	}

	// Redeploy: nothing written; the registry, now existing, is unchanged
	// with the caveat, and the deploy still succeeds.
	before := versions(t, ns)
	status, res, writes := deploy(t, ns, toolsIntent(), Options{})
	if status != http.StatusOK || !res.Succeeded || len(writes) != 0 {
		t.Errorf("redeploy: status %d writes %v", status, writes)
	}
	if r := res.Results[2]; r.Action != intent.ActionUnchanged || r.Error != MigrationCaveat {
		t.Errorf("registry result %+v", r)
	}
	if r := res.Results[3]; r.Action != intent.ActionUnchanged || r.Error != "" {
		t.Errorf("secret result %+v", r)
	}
	if after := versions(t, ns); !reflect.DeepEqual(before, after) {
		t.Errorf("a no-op redeploy moved objects:\n before %v\n after  %v", before, after)
	}

	// Rotation: the Secret alone is updated.
	in := toolsIntent()
	in.Credentials.Data["GITHUB_TOKEN"] = tokenValue2
	status, res, writes = deploy(t, ns, in, Options{})
	if status != http.StatusOK || len(writes) != 1 || !strings.HasPrefix(writes[0], "update *v1.Secret") {
		t.Errorf("rotation: status %d writes %v", status, writes)
	}
	if r := res.Results[3]; r.Action != intent.ActionUpdated {
		t.Errorf("secret result %+v", r)
	}
	if v := string(get(t, ns, "my-pack-tools-credentials", &corev1.Secret{}).Data["GITHUB_TOKEN"]); v != tokenValue2 {
		t.Error("the rotated value was not written")
	}
	noSecretIn(t, res, tokenValue, tokenValue2)
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestExistingToolRegistryIsLeftAlone(t *testing.T) {
	ns := namespace(t)
	old := &v1alpha1.ToolRegistry{
		ObjectMeta: metav1.ObjectMeta{Name: "my-pack-tools", Namespace: ns},
		Spec: v1alpha1.ToolRegistrySpec{Handlers: []v1alpha1.ToolRegistryHandler{{
			Name: "github", Type: "http",
			Tool: &v1alpha1.ToolRegistryToolDefinition{Name: "get_issue", Description: "d",
				InputSchema: runtime.RawExtension{Raw: []byte(`{"type":"object"}`)}},
			HTTPConfig: &v1alpha1.ToolRegistryHTTPConfig{Endpoint: "https://old",
				HeadersFromSecret: map[string]v1alpha1.ToolRegistrySecretKeyRef{"X-Github-Token": {Name: "hand-made", Key: "GITHUB_TOKEN"}}},
		}}},
	}
	if err := k8s.Create(context.Background(), old); err != nil {
		t.Fatal(err)
	}
	status, res, _ := deploy(t, ns, toolsIntent(), Options{})
	if status != http.StatusOK || !res.Succeeded {
		t.Errorf("status %d succeeded %v: the caveat is not a failure", status, res.Succeeded)
	}
	if r := res.Results[2]; r.Kind != "ToolRegistry" || r.Action != intent.ActionUnchanged || r.Error != MigrationCaveat {
		t.Errorf("registry result %+v", r)
	}
	live := get(t, ns, "my-pack-tools", &v1alpha1.ToolRegistry{})
	if live.Generation != 1 || live.Spec.Handlers[0].HTTPConfig.HeadersFromSecret["X-Github-Token"].Name != "hand-made" ||
		live.Spec.Handlers[0].HTTPConfig.Endpoint != "https://old" {
		t.Errorf("the existing registry was rewritten: %+v", live.Spec.Handlers[0].HTTPConfig)
	}
	sec := get(t, ns, "my-pack-tools-credentials", &corev1.Secret{})
	if len(sec.OwnerReferences) != 1 || sec.OwnerReferences[0].UID != live.UID {
		t.Errorf("secret owners %+v, want the existing registry", sec.OwnerReferences)
	}
}

func TestToolsRefAndPolicy(t *testing.T) {
	ns := namespace(t)
	in := packIntent()
	in.Tools = &intent.Tools{Ref: "shared-tools"}
	in.Policy = &intent.Policy{ToolBlocklist: []string{"delete_repo"}}
	in.Agents[0].UseTools = ptr.To(true)
	status, res, _ := deploy(t, ns, in, Options{})
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	wantResults(t, res,
		row{"ConfigMap", "my-pack-1.2.3-content", intent.ActionCreated},
		row{"PromptPack", "my-pack-1.2.3", intent.ActionCreated},
		row{"ToolPolicy", "my-pack-tools-policy", intent.ActionCreated},
		row{"AgentRuntime", "support-bot", intent.ActionCreated})
	pol := get(t, ns, "my-pack-tools-policy", &v1alpha1.ToolPolicy{})
	if pol.Spec.Selector.Registry != "shared-tools" || !reflect.DeepEqual(pol.Spec.ToolBlocklist, []string{"delete_repo"}) {
		t.Errorf("policy %+v %v", pol.Spec, pol.Annotations)
	}
	if ref := get(t, ns, "support-bot", &v1alpha1.AgentRuntime{}).Spec.ToolRegistryRef; ref == nil || ref.Name != "shared-tools" {
		t.Errorf("toolRegistryRef %+v", ref)
	}
	var regs v1alpha1.ToolRegistryList
	if err := k8s.List(context.Background(), &regs, client.InNamespace(ns)); err != nil || len(regs.Items) != 0 {
		t.Errorf("tools.ref created a registry: %v %v", regs.Items, err)
	}

	_, res, writes := deploy(t, ns, in, Options{})
	if len(writes) != 0 || res.Results[2].Action != intent.ActionUnchanged {
		t.Errorf("redeploy: writes %v results %+v", writes, res.Results)
	}
	in.Policy.ToolBlocklist = append(in.Policy.ToolBlocklist, "merge_pr")
	_, res, writes = deploy(t, ns, in, Options{})
	if len(writes) != 1 || res.Results[2].Action != intent.ActionUpdated {
		t.Errorf("blocklist change: writes %v results %+v", writes, res.Results)
	}
}

// An object the API server refuses is a failed result with the API error;
// the rest still apply, and the status is 207.
func TestPartialFailureIs207(t *testing.T) {
	ns := namespace(t)
	in := toolsIntent()
	// A handler block with an unknown key: the registry fails, before any write.
	in.Tools.Handlers[0].HTTPConfig = json.RawMessage(`{"endpoint":"https://x","methd":"GET"}`)
	in.Agents = append(in.Agents, intent.Agent{
		Name:      "triage-bot",
		Providers: []intent.AgentProvider{{Name: "Not_A_DNS_Label", Ref: "claude"}}, // the CRD's pattern refuses it
	}, intent.Agent{Name: "third-bot", Providers: []intent.AgentProvider{{Name: "default", Ref: "claude"}}})
	status, res, _ := deploy(t, ns, in, Options{})
	if status != http.StatusMultiStatus || res.Succeeded {
		t.Fatalf("status %d succeeded %v, want 207 and false", status, res.Succeeded)
	}
	wantResults(t, res,
		row{"ConfigMap", "my-pack-1.2.3-content", intent.ActionCreated},
		row{"PromptPack", "my-pack-1.2.3", intent.ActionCreated},
		row{"ToolRegistry", "my-pack-tools", intent.ActionFailed},
		row{"Secret", "my-pack-tools-credentials", intent.ActionCreated},
		row{"AgentRuntime", "support-bot", intent.ActionCreated},
		row{"AgentRuntime", "triage-bot", intent.ActionFailed},
		row{"AgentRuntime", "third-bot", intent.ActionCreated})
	if e := res.Results[2].Error; !strings.HasPrefix(e, "tools.handlers[0].httpConfig.methd: unknown field") {
		t.Errorf("registry error %q", e)
	}
	if e := res.Results[3].Error; !strings.Contains(e, "owner reference to ToolRegistry my-pack-tools not established") {
		t.Errorf("secret error %q", e)
	}
	if e := res.Results[5].Error; !strings.Contains(e, "is invalid") || !strings.Contains(e, "providers[0].name") {
		t.Errorf("agent error %q, want the API server's", e)
	}
	noSecretIn(t, res, tokenValue)
}

// A ConfigMap whose owner cannot be established keeps its created result
// with an error; the PromptPack the API server refused is the failure.
func TestConfigMapOwnerNotEstablished(t *testing.T) {
	ns := namespace(t)
	in := packIntent()
	in.Pack.Version = "1.0.0-" + strings.Repeat("a", 125) // longer than spec.version's 128
	status, res, _ := deploy(t, ns, in, Options{})
	if status != http.StatusMultiStatus || res.Succeeded {
		t.Fatalf("status %d", status)
	}
	cm, pp := res.Results[0], res.Results[1]
	if cm.Kind != "ConfigMap" || cm.Action != intent.ActionCreated ||
		!strings.HasPrefix(cm.Error, "owner reference to PromptPack my-pack-1.0.0-aaa") {
		t.Errorf("configmap result %+v", cm)
	}
	if pp.Kind != "PromptPack" || pp.Action != intent.ActionFailed || !strings.Contains(pp.Error, "spec.version") {
		t.Errorf("promptpack result %+v", pp)
	}
	if res.Results[2].Action != intent.ActionCreated {
		t.Errorf("the agent still applies: %+v", res.Results[2])
	}
}

// agents[].create on an existing agent answers 409 before anything is
// written, naming the agent.
func TestCreateOnExistingAgentIs409(t *testing.T) {
	ns := namespace(t)
	deploy(t, ns, packIntent(), Options{})
	before := versions(t, ns)
	in := toolsIntent()
	in.Pack.Version = "2.0.0"
	in.Agents = []intent.Agent{
		{Name: "new-bot", Create: ptr.To(true), Providers: []intent.AgentProvider{{Name: "default", Ref: "claude"}}},
		{Name: "support-bot", Create: ptr.To(true), Providers: []intent.AgentProvider{{Name: "default", Ref: "claude"}}},
	}
	status, res, writes := deploy(t, ns, in, Options{})
	if status != http.StatusConflict || res.Succeeded || len(writes) != 0 {
		t.Errorf("status %d succeeded %v writes %v, want 409, false, none", status, res.Succeeded, writes)
	}
	wantResults(t, res, row{"AgentRuntime", "support-bot", intent.ActionFailed})
	if after := versions(t, ns); !reflect.DeepEqual(before, after) {
		t.Errorf("a refused deploy wrote:\n before %v\n after  %v", before, after)
	}
	// create: true on a new agent creates it.
	in.Agents = in.Agents[:1]
	status, res, _ = deploy(t, ns, in, Options{})
	if status != http.StatusOK || res.Results[len(res.Results)-1].Action != intent.ActionCreated {
		t.Errorf("status %d results %+v", status, res.Results)
	}
}

// With the catalog check on, a deny finding fails the object with its rule
// ID and nothing is sent to the API server for it.
func TestCatalogDenyFailsTheObject(t *testing.T) {
	ns := namespace(t)
	sv, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	in := packIntent()
	in.Agents = append(in.Agents, intent.Agent{Name: "bad-bot",
		Providers: []intent.AgentProvider{{Name: "default", Ref: "claude"}},
		Facades:   []intent.Facade{{Type: "websocket", DataPlane: ptr.To(false), ManagementPlane: ptr.To(false)}}})
	status, res, writes := deploy(t, ns, in, Options{Check: Check{Schema: sv}})
	if status != http.StatusMultiStatus {
		t.Fatalf("status %d", status)
	}
	r := res.Results[3]
	if r.Name != "bad-bot" || r.Action != intent.ActionFailed || !strings.Contains(r.Error, "[agentruntime/data-plane-needs-management-plane]") {
		t.Errorf("result %+v, want the rule ID", r)
	}
	for _, w := range writes {
		if strings.HasSuffix(w, " bad-bot") {
			t.Errorf("the denied agent was sent to the API server: %v", writes)
		}
	}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "bad-bot"}, &v1alpha1.AgentRuntime{}); !apierrors.IsNotFound(err) {
		t.Errorf("bad-bot exists: %v", err)
	}
	// An update is judged over the live object (with its server metadata)
	// and a valid one passes.
	in.Agents = in.Agents[:1]
	in.Agents[0].Runtime = &intent.Runtime{Replicas: ptr.To[int32](2)}
	status, res, _ = deploy(t, ns, in, Options{Check: Check{Schema: sv}})
	if status != http.StatusOK || res.Results[2].Action != intent.ActionUpdated {
		t.Errorf("update under the check: status %d results %+v", status, res.Results)
	}
}

// Fields another party set on a live agent survive a redeploy (the merge's
// Preserved tier), read fresh from the API server.
func TestRedeployKeepsPreservedFields(t *testing.T) {
	ns := namespace(t)
	deploy(t, ns, packIntent(), Options{})
	ar := get(t, ns, "support-bot", &v1alpha1.AgentRuntime{})
	ar.Spec.ServiceGroup = "gold"
	ar.Spec.Facades[0].Port = ptr.To[int32](9000)
	if err := k8s.Update(context.Background(), ar); err != nil {
		t.Fatal(err)
	}
	_, res, writes := deploy(t, ns, packIntent(), Options{})
	if len(writes) != 0 || res.Results[2].Action != intent.ActionUnchanged {
		t.Errorf("writes %v results %+v", writes, res.Results)
	}
	in := packIntent()
	in.Agents[0].IdleTimeout = "30m"
	_, res, _ = deploy(t, ns, in, Options{})
	live := get(t, ns, "support-bot", &v1alpha1.AgentRuntime{})
	if res.Results[2].Action != intent.ActionUpdated || live.Spec.ServiceGroup != "gold" || *live.Spec.Facades[0].Port != 9000 ||
		live.Annotations[rules.AgentRuntimeIdleTimeoutAnnotation] != "30m" {
		t.Errorf("result %+v serviceGroup %q port %d annotations %v", res.Results[2], live.Spec.ServiceGroup,
			*live.Spec.Facades[0].Port, live.Annotations)
	}
}

func TestRedact(t *testing.T) {
	a := &applier{secrets: []string{tokenValue}}
	_, res := a.finish(http.StatusOK, []intent.ResourceResult{{Kind: "Secret", Name: "s", Action: intent.ActionFailed,
		Error: "Secret \"s\" is invalid: data[GITHUB_TOKEN]: Invalid value: \"" + tokenValue + "\"", URL: "https://x"}})
	noSecretIn(t, res, tokenValue)
	if res.Succeeded || res.Results[0].URL != "" || !strings.Contains(res.Results[0].Error, "[redacted]") {
		t.Errorf("%+v", res)
	}
}

// Every intent-expressible agent field set: the second deploy of the same
// intent still writes nothing, so what the translation builds compares
// equal to what the API server stored with its defaults.
func TestRichAgentRedeployWritesNothing(t *testing.T) {
	ns := namespace(t)
	in := toolsIntent()
	in.Policy = &intent.Policy{ToolBlocklist: []string{"delete_repo"}}
	a := &in.Agents[0]
	a.IdleTimeout = "2h"
	a.Runtime = &intent.Runtime{Replicas: ptr.To[int32](2), CPU: "0.5", Memory: "1Gi"}
	a.Providers = append(a.Providers, intent.AgentProvider{Name: "embed", Ref: "embedder", Role: "embedding"})
	a.Facades = []intent.Facade{{Type: "websocket", DataPlane: ptr.To(false)}, {Type: "a2a"}}
	a.ExternalAuth = &intent.ExternalAuth{
		ClientKeys: &intent.ClientKeys{},
		OIDC:       &intent.OIDC{Issuer: "https://idp.example.com", Audience: "agents"},
		EdgeTrust:  &intent.EdgeTrust{ClaimsFromHeaders: map[string]string{"x-tenant": "tenant"}},
	}
	a.Memory = &intent.Memory{Enabled: ptr.To(true), Retrieval: &intent.MemoryRetrieval{Strategy: "semantic", DenyCEL: "false"},
		Tools: &intent.MemoryTools{}}
	a.Evals = &intent.Evals{Enabled: ptr.To(true), InlineGroups: []string{"fast-running"}}
	a.Rollout = &intent.Rollout{Trigger: &intent.RolloutTrigger{PromptPackChannel: "stable"},
		Steps: []intent.RolloutStep{{SetWeight: ptr.To[int32](20)}, {PauseDuration: "10m"}, {SetWeight: ptr.To[int32](100)}}}
	status, res, _ := deploy(t, ns, in, Options{})
	if status != http.StatusOK {
		t.Fatalf("status %d: %+v", status, res.Results)
	}
	before := versions(t, ns)
	status, res, writes := deploy(t, ns, in, Options{})
	if status != http.StatusOK || len(writes) != 0 {
		t.Errorf("redeploy: status %d writes %v", status, writes)
	}
	for _, r := range res.Results {
		if r.Action != intent.ActionUnchanged {
			t.Errorf("%s %s: %s, want unchanged", r.Kind, r.Name, r.Action)
		}
	}
	if after := versions(t, ns); !reflect.DeepEqual(before, after) {
		t.Errorf("a no-op redeploy moved objects:\n before %v\n after  %v", before, after)
	}
	ar := get(t, ns, "support-bot", &v1alpha1.AgentRuntime{})
	if r := ar.Spec.Runtime.Resources; r.Requests.Cpu().String() != "500m" || r.Limits.Memory().String() != "1Gi" || r.Limits.Cpu().String() != "0" {
		t.Errorf("resources %+v", r)
	}
}

// Concurrent applies of the same intent all succeed: a create that loses
// the race reads the winner (create-only objects are then unchanged, upserts
// and agents compare or update).
func TestConcurrentApplies(t *testing.T) {
	ns := namespace(t)
	const n = 4
	var wg sync.WaitGroup
	statuses := make([]int, n)
	results := make([]intent.DeployResult, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			in := toolsIntent()
			in.Policy = &intent.Policy{ToolBlocklist: []string{"delete_repo"}}
			statuses[i], results[i] = Apply(context.Background(), k8s, ns, in, Options{})
		}(i)
	}
	wg.Wait()
	created := map[string]int{}
	for i := range statuses {
		if statuses[i] != http.StatusOK || !results[i].Succeeded {
			t.Errorf("apply %d: status %d results %+v", i, statuses[i], results[i].Results)
		}
		for _, r := range results[i].Results {
			if r.Action == intent.ActionCreated {
				created[r.Kind+"/"+r.Name]++
			}
		}
	}
	for k, c := range created {
		if c != 1 {
			t.Errorf("%s reported created %d times", k, c)
		}
	}
	if len(created) != 6 {
		t.Errorf("created %v, want each of the 6 objects once", created)
	}
}

// A ConfigMap of the content's name that this pack did not make is left
// unowned: unchanged, with the error saying why.
func TestForeignConfigMapIsNotAdopted(t *testing.T) {
	ns := namespace(t)
	foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "my-pack-1.2.3-content", Namespace: ns},
		Data: map[string]string{"pack.json": "{}"}}
	if err := k8s.Create(context.Background(), foreign); err != nil {
		t.Fatal(err)
	}
	status, res, _ := deploy(t, ns, packIntent(), Options{})
	if status != http.StatusOK || !res.Succeeded {
		t.Errorf("status %d: an unestablished owner is not a failure", status)
	}
	if r := res.Results[0]; r.Action != intent.ActionUnchanged || !strings.Contains(r.Error, "not adopted") {
		t.Errorf("configmap result %+v", r)
	}
	if cm := get(t, ns, "my-pack-1.2.3-content", &corev1.ConfigMap{}); len(cm.OwnerReferences) != 0 || cm.Data["pack.json"] != "{}" {
		t.Errorf("the foreign ConfigMap was changed: %+v %v", cm.OwnerReferences, cm.Data)
	}
	// This pack's own ConfigMap left unowned (an owner patch that failed)
	// is adopted on the next deploy.
	ns2 := namespace(t)
	deploy(t, ns2, packIntent(), Options{})
	cm := get(t, ns2, "my-pack-1.2.3-content", &corev1.ConfigMap{})
	cm.OwnerReferences = nil
	if err := k8s.Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	_, res, writes := deploy(t, ns2, packIntent(), Options{})
	if r := res.Results[0]; r.Error != "" || len(writes) != 1 {
		t.Errorf("result %+v writes %v", r, writes)
	}
	if cm := get(t, ns2, "my-pack-1.2.3-content", &corev1.ConfigMap{}); len(cm.OwnerReferences) != 1 {
		t.Errorf("owners %+v", cm.OwnerReferences)
	}
}
