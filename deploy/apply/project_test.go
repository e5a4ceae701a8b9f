package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/deploy/merge"
	"github.com/altairalabs/omnia/deploy/translate"
)

const devUser = "u0123456789ab"

// devName is the derived name of the test project's dev objects.
var devName = intent.DevName("my-project", devUser)

// devIntent is the spec's dev intent; withTools adds handlers, credentials
// and a blocklist. Its own labels try to override the server's.
func devIntent(withTools bool) *intent.DeployIntent {
	in := &intent.DeployIntent{
		APIVersion: intent.APIVersion,
		Pack:       intent.Pack{Project: &intent.Project{ID: "my-project"}},
		Labels: map[string]string{
			"team":                      "support",
			translate.DevLabel:          "false",
			translate.HiddenLabel:       "false",
			translate.ArenaProjectLabel: "other-project",
			translate.ArenaUserLabel:    "someone-else",
		},
		Agents: []intent.Agent{{
			Providers:   []intent.AgentProvider{{Name: "default", Ref: "claude"}},
			Facades:     []intent.Facade{{Type: "websocket", DataPlane: ptr.To(false)}},
			IdleTimeout: "30m",
		}},
	}
	if withTools {
		t := toolsIntent()
		in.Tools, in.Credentials = t.Tools, t.Credentials
		in.Agents[0].UseTools = ptr.To(true)
		in.Policy = &intent.Policy{ToolBlocklist: []string{"delete_repo"}}
	}
	return in
}

func deployProject(t *testing.T, c client.Client, ns string, in *intent.DeployIntent) (ProjectResult, []string) {
	t.Helper()
	cc := &counting{Client: c}
	res := ApplyProject(context.Background(), cc, ns, in, devUser, Options{})
	body, _ := json.Marshal(res.Body)
	t.Logf("status %d retry-after %d: %s; writes %v", res.Status, res.RetryAfter, body, cc.writes)
	return res, cc.writes
}

// devVersions is versions plus the PromptPackSources.
func devVersions(t *testing.T, ns string) map[string]string {
	t.Helper()
	out := versions(t, ns)
	l := &v1alpha1.PromptPackSourceList{}
	if err := k8s.List(context.Background(), l, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, o := range l.Items {
		out["PromptPackSource/"+o.Name] = fmt.Sprintf("rv=%s gen=%d", o.ResourceVersion, o.Generation)
	}
	return out
}

func wantDevLabels(t *testing.T, obj client.Object) {
	t.Helper()
	l := obj.GetLabels()
	want := map[string]string{translate.DevLabel: "true", translate.HiddenLabel: "true",
		translate.ArenaProjectLabel: "my-project", translate.ArenaUserLabel: devUser}
	for k, v := range want {
		if l[k] != v {
			t.Errorf("%T %s: label %s=%q, want %q (the server's, not the intent's)", obj, obj.GetName(), k, l[k], v)
		}
	}
	if l["team"] != "support" {
		t.Errorf("%T %s: the intent's own label team is missing: %v", obj, obj.GetName(), l)
	}
}

func wantOwner(t *testing.T, obj client.Object, kind string, uid types.UID) {
	t.Helper()
	for _, r := range obj.GetOwnerReferences() {
		if r.Kind == kind && r.UID == uid {
			return
		}
	}
	t.Errorf("%T %s: owners %v, want the %s %s", obj, obj.GetName(), obj.GetOwnerReferences(), kind, uid)
}

// The object set in its order, the four labels (not overridable), the
// owners, the pack ref and the idle timeout; then a re-apply of the same
// intent writes nothing.
func TestProjectObjectSet(t *testing.T) {
	ns := namespace(t)
	res, _ := deployProject(t, k8s, ns, devIntent(true))
	if res.Status != http.StatusOK || !res.Body.Succeeded {
		t.Fatalf("status %d", res.Status)
	}
	wantResults(t, res.Body,
		row{"AgentRuntime", devName, intent.ActionCreated},
		row{"PromptPackSource", devName, intent.ActionCreated},
		row{"ToolRegistry", devName + "-tools", intent.ActionCreated},
		row{"Secret", devName + "-tools-credentials", intent.ActionCreated},
		row{"ToolPolicy", devName + "-tools-policy", intent.ActionCreated},
	)
	noSecretIn(t, res.Body, tokenValue)

	ar := get(t, ns, devName, &v1alpha1.AgentRuntime{})
	wantDevLabels(t, ar)
	if ref := ar.Spec.PromptPackRef; ref == nil || ref.Name != devName || ref.Version != "" || ref.Track != "" {
		t.Errorf("promptPackRef %+v, want {name: %s} with no version", ref, devName)
	}
	if got := ar.Annotations[merge.IdleTimeoutAnnotation]; got != "30m" {
		t.Errorf("idle-timeout annotation %q", got)
	}
	src := get(t, ns, devName, &v1alpha1.PromptPackSource{})
	wantDevLabels(t, src)
	wantOwner(t, src, "AgentRuntime", ar.UID)
	if s := src.Spec; s.Type != v1alpha1.PromptPackSourceTypeProject || s.Project.ID != "my-project" || s.Project.User != devUser || s.PackName != devName {
		t.Errorf("source spec %+v", s)
	}
	reg := get(t, ns, devName+"-tools", &v1alpha1.ToolRegistry{})
	wantDevLabels(t, reg)
	wantOwner(t, reg, "AgentRuntime", ar.UID)
	sec := get(t, ns, devName+"-tools-credentials", &corev1.Secret{})
	wantDevLabels(t, sec)
	wantOwner(t, sec, "ToolRegistry", reg.UID)
	pol := get(t, ns, devName+"-tools-policy", &v1alpha1.ToolPolicy{})
	wantDevLabels(t, pol)
	wantOwner(t, pol, "AgentRuntime", ar.UID)
	if pol.Spec.Selector.Registry != devName+"-tools" {
		t.Errorf("policy selects %q", pol.Spec.Selector.Registry)
	}

	before := devVersions(t, ns)
	res, writes := deployProject(t, k8s, ns, devIntent(true))
	if res.Status != http.StatusOK || len(writes) != 0 {
		t.Errorf("re-apply: status %d, writes %v, want 200 and none", res.Status, writes)
	}
	for _, r := range res.Body.Results {
		if r.Action != intent.ActionUnchanged {
			t.Errorf("re-apply: %s %s %s, want unchanged", r.Kind, r.Name, r.Action)
		}
	}
	if after := devVersions(t, ns); !reflect.DeepEqual(before, after) {
		t.Errorf("a no-op re-apply moved objects:\n before %v\n after  %v", before, after)
	}
}

// Unlike a published pack's, the dev registry is updated by a re-apply, so
// an edited tool reaches the dev agent.
func TestProjectReapplyUpdatesRegistry(t *testing.T) {
	ns := namespace(t)
	if res, _ := deployProject(t, k8s, ns, devIntent(true)); res.Status != http.StatusOK {
		t.Fatalf("status %d", res.Status)
	}
	in := devIntent(true)
	in.Tools.Handlers[0].HTTPConfig = json.RawMessage(`{"endpoint":"https://api.github.com/v2/issues"}`)
	res, _ := deployProject(t, k8s, ns, in)
	if res.Status != http.StatusOK {
		t.Fatalf("status %d", res.Status)
	}
	if r := res.Body.Results[2]; r.Kind != "ToolRegistry" || r.Action != intent.ActionUpdated {
		t.Errorf("registry result %+v, want updated", r)
	}
	reg := get(t, ns, devName+"-tools", &v1alpha1.ToolRegistry{})
	if ep := reg.Spec.Handlers[0].HTTPConfig.Endpoint; ep != "https://api.github.com/v2/issues" {
		t.Errorf("endpoint %q", ep)
	}
}

// An existing object under a dev name that is not this project's and
// user's is never taken over: 409 naming it, nothing written.
func TestProjectTakeOverRefused(t *testing.T) {
	foreignLabels := func(user string) map[string]string {
		return map[string]string{translate.DevLabel: "true", translate.ArenaProjectLabel: "my-project", translate.ArenaUserLabel: user}
	}
	tests := []struct {
		name string
		obj  func(ns string) client.Object
		kind string
	}{
		{"a production agent", func(ns string) client.Object {
			return &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Name: devName, Namespace: ns},
				Spec: v1alpha1.AgentRuntimeSpec{PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "prod"},
					Providers: v1alpha1.AgentRuntimeProviders{{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "claude"}}},
					Facades:   []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, Handler: merge.FacadeHandler}}}}
		}, "AgentRuntime"},
		{"another user's source", func(ns string) client.Object {
			return &v1alpha1.PromptPackSource{ObjectMeta: metav1.ObjectMeta{Name: devName, Namespace: ns, Labels: foreignLabels("uother")},
				Spec: v1alpha1.PromptPackSourceSpec{Type: "project", Project: v1alpha1.PromptPackSourceProject{ID: "my-project", User: "uother"}, PackName: devName}}
		}, "PromptPackSource"},
		{"a labelled source serving another pack", func(ns string) client.Object {
			return &v1alpha1.PromptPackSource{ObjectMeta: metav1.ObjectMeta{Name: devName, Namespace: ns, Labels: foreignLabels(devUser)},
				Spec: v1alpha1.PromptPackSourceSpec{Type: "project", Project: v1alpha1.PromptPackSourceProject{ID: "my-project", User: devUser}, PackName: "prod-pack"}}
		}, "PromptPackSource"},
		{"an unlabelled registry", func(ns string) client.Object {
			reg := translate.Translate(toolsIntent(), ns).ToolRegistry
			reg.Name, reg.Labels = devName+"-tools", nil
			return reg
		}, "ToolRegistry"},
		{"an unlabelled secret", func(ns string) client.Object {
			return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: devName + "-tools-credentials", Namespace: ns}}
		}, "Secret"},
		{"a policy of another project", func(ns string) client.Object {
			l := foreignLabels(devUser)
			l[translate.ArenaProjectLabel] = "other"
			return &v1alpha1.ToolPolicy{ObjectMeta: metav1.ObjectMeta{Name: devName + "-tools-policy", Namespace: ns, Labels: l},
				Spec: v1alpha1.ToolPolicySpec{Selector: v1alpha1.ToolPolicySelector{Registry: "prod-tools"}}}
		}, "ToolPolicy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := namespace(t)
			obj := tt.obj(ns)
			if err := k8s.Create(context.Background(), obj); err != nil {
				t.Fatal(err)
			}
			before := devVersions(t, ns)
			res, writes := deployProject(t, k8s, ns, devIntent(true))
			if res.Status != http.StatusConflict || res.Body.Succeeded {
				t.Errorf("status %d succeeded %v, want 409", res.Status, res.Body.Succeeded)
			}
			if len(writes) != 0 {
				t.Errorf("writes %v, want none", writes)
			}
			if len(res.Body.Results) != 1 || res.Body.Results[0].Kind != tt.kind || res.Body.Results[0].Name != obj.GetName() ||
				res.Body.Results[0].Action != intent.ActionFailed || !strings.Contains(res.Body.Results[0].Error, "never takes over") {
				t.Errorf("results %+v, want the refused %s %s", res.Body.Results, tt.kind, obj.GetName())
			}
			if after := devVersions(t, ns); !reflect.DeepEqual(before, after) {
				t.Errorf("a refused deploy wrote:\n before %v\n after  %v", before, after)
			}
		})
	}
}

// A dev agent being deleted (held by a finalizer) answers 503 with
// Retry-After, nothing written; once it is gone the retry recreates it.
func TestProjectDeletingAgentIs503(t *testing.T) {
	ns := namespace(t)
	if res, _ := deployProject(t, k8s, ns, devIntent(false)); res.Status != http.StatusOK {
		t.Fatalf("status %d", res.Status)
	}
	ctx := context.Background()
	ar := get(t, ns, devName, &v1alpha1.AgentRuntime{})
	ar.Finalizers = append(ar.Finalizers, "test.omnia.altairalabs.ai/hold")
	if err := k8s.Update(ctx, ar); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Delete(ctx, ar); err != nil {
		t.Fatal(err)
	}
	before := devVersions(t, ns)
	res, writes := deployProject(t, k8s, ns, devIntent(false))
	if res.Status != http.StatusServiceUnavailable || res.RetryAfter != RetryAfterSeconds || res.Body.Succeeded {
		t.Errorf("status %d retry-after %d, want 503 with %d", res.Status, res.RetryAfter, RetryAfterSeconds)
	}
	if len(writes) != 0 {
		t.Errorf("writes %v, want none", writes)
	}
	if len(res.Body.Results) != 1 || res.Body.Results[0].Kind != "AgentRuntime" || res.Body.Results[0].Name != devName {
		t.Errorf("results %+v", res.Body.Results)
	}
	if after := devVersions(t, ns); !reflect.DeepEqual(before, after) {
		t.Errorf("a 503 wrote:\n before %v\n after  %v", before, after)
	}
	ar = get(t, ns, devName, &v1alpha1.AgentRuntime{})
	ar.Finalizers = nil
	if err := k8s.Update(ctx, ar); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(ar), ar); !apierrors.IsNotFound(err) {
		t.Fatalf("agent still there: %v", err)
	}
	// envtest runs no garbage collector: the source is removed by hand, as
	// the collector would remove it with its owner.
	if err := k8s.Delete(ctx, &v1alpha1.PromptPackSource{ObjectMeta: metav1.ObjectMeta{Name: devName, Namespace: ns}}); err != nil {
		t.Fatal(err)
	}
	if res, _ := deployProject(t, k8s, ns, devIntent(false)); res.Status != http.StatusOK || res.Body.Results[0].Action != intent.ActionCreated {
		t.Errorf("retry after deletion: status %d %+v", res.Status, res.Body.Results)
	}
}

// gate holds every create of an AgentRuntime until n of them are waiting,
// so the concurrent applies really race on the create (each has passed its
// check and found no agent). It never waits longer than a bound.
type gate struct {
	client.Client
	open  chan struct{}
	once  sync.Once
	n     int
	mu    sync.Mutex
	count int
}

func newGate(c client.Client, n int) *gate {
	return &gate{Client: c, open: make(chan struct{}), n: n}
}

func (g *gate) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if _, ok := obj.(*v1alpha1.AgentRuntime); ok {
		g.mu.Lock()
		g.count++
		if g.count == g.n {
			g.once.Do(func() { close(g.open) })
		}
		g.mu.Unlock()
		select {
		case <-g.open:
		case <-time.After(10 * time.Second):
		}
	}
	return g.Client.Create(ctx, obj, opts...)
}

// Two concurrent applies (real goroutines, both past the check before
// either creates) both succeed: one creates the dev agent and the other
// re-checks it and merges onto it. With the same intent the merge changes
// nothing, so the loser writes nothing to it (unchanged); with a different
// idle timeout the loser updates it.
func TestProjectConcurrentApplies(t *testing.T) {
	tests := []struct {
		name       string
		idle       [2]string
		loserAgent intent.Action
	}{
		{"the same intent", [2]string{"30m", "30m"}, intent.ActionUnchanged},
		{"the same project, another idle timeout", [2]string{"30m", "45m"}, intent.ActionUpdated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := namespace(t)
			g := newGate(k8s, 2)
			var wg sync.WaitGroup
			out := make([]ProjectResult, 2)
			for i := 0; i < 2; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					in := devIntent(true)
					in.Agents[0].IdleTimeout = tt.idle[i]
					out[i] = ApplyProject(context.Background(), g, ns, in, devUser, Options{})
				}(i)
			}
			wg.Wait()
			actions := map[intent.Action]int{}
			created := map[string]int{}
			for i, r := range out {
				body, _ := json.Marshal(r.Body)
				t.Logf("apply %d: %d %s", i, r.Status, body)
				if r.Status != http.StatusOK || !r.Body.Succeeded {
					t.Errorf("apply %d: status %d", i, r.Status)
				}
				actions[r.Body.Results[0].Action]++
				for _, res := range r.Body.Results {
					if res.Action == intent.ActionCreated {
						created[res.Kind]++
					}
				}
			}
			if actions[intent.ActionCreated] != 1 || actions[tt.loserAgent] != 1 {
				t.Errorf("agent actions %v, want one created and one %s", actions, tt.loserAgent)
			}
			for k, c := range created {
				if c != 1 {
					t.Errorf("%s created %d times", k, c)
				}
			}
			if len(created) != 5 {
				t.Errorf("created %v, want each of the 5 objects once", created)
			}
		})
	}
}

// foreignRace creates a production agent of the dev name just before the
// apply's own create, as a concurrent writer would.
type foreignRace struct{ client.Client }

func (f foreignRace) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if ar, ok := obj.(*v1alpha1.AgentRuntime); ok {
		foreign := ar.DeepCopy()
		foreign.ResourceVersion, foreign.UID = "", ""
		foreign.Labels = map[string]string{"team": "prod"}
		if err := f.Client.Create(ctx, foreign); err != nil {
			return err
		}
	}
	return f.Client.Create(ctx, obj, opts...)
}

// The create that loses to an agent that is not this project's dev agent
// answers 409 and writes nothing else.
func TestProjectLostRaceToForeignAgentIs409(t *testing.T) {
	ns := namespace(t)
	res, writes := deployProject(t, foreignRace{k8s}, ns, devIntent(true))
	if res.Status != http.StatusConflict {
		t.Errorf("status %d, want 409", res.Status)
	}
	if len(writes) != 1 || !strings.HasPrefix(writes[0], "create *v1alpha1.AgentRuntime") {
		t.Errorf("writes %v, want only the lost agent create", writes)
	}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: devName}, &v1alpha1.PromptPackSource{}); !apierrors.IsNotFound(err) {
		t.Errorf("a source was written: %v", err)
	}
}

// No user: nothing is written.
func TestProjectWithoutUser(t *testing.T) {
	ns := namespace(t)
	cc := &counting{Client: k8s}
	res := ApplyProject(context.Background(), cc, ns, devIntent(false), "", Options{})
	if res.Status == http.StatusOK || len(cc.writes) != 0 {
		t.Errorf("status %d writes %v", res.Status, cc.writes)
	}
}
