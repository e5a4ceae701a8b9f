package clusterfacts

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// failingReader answers every Get and List with err: a pure unit test of
// how Facts classifies a failed lookup (the reconcilers' envtests cover the
// real cache).
type failingReader struct{ err error }

func (r failingReader) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	return r.err
}

func (r failingReader) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return r.err
}

func TestLookupErrorsAreNotNotFound(t *testing.T) {
	secrets := schema.GroupResource{Resource: "secrets"}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name string
		err  error
		// recorded: Err must report it (the caller retries); otherwise the
		// lookup is a plain "not found".
		recorded bool
	}{
		{"NotFound is not found", apierrors.NewNotFound(secrets, "creds"), false},
		{"a kind the API server does not serve is not found", &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "omnia.altairalabs.ai", Kind: "Workspace"}}, false},
		{"Forbidden", apierrors.NewForbidden(secrets, "creds", errors.New("RBAC: access denied")), true},
		{"cancelled context", ctx.Err(), true},
		{"deadline", context.DeadlineExceeded, true},
		{"cache not started", &cache.ErrCacheNotStarted{}, true},
		{"informer cache not synced", fmt.Errorf("failed to wait for Secret caches to sync: %w", context.DeadlineExceeded), true},
		{"server timeout", apierrors.NewTimeoutError("etcd slow", 1), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := New(context.Background(), failingReader{c.err}, nil, nil, rules.License{})
			// Rules still see only answers: nothing is found.
			if _, ok := f.Provider("agents", "claude"); ok {
				t.Error("Provider found")
			}
			if got := f.PromptPacks("agents", "support"); got != nil {
				t.Errorf("PromptPacks = %v", got)
			}
			if _, ok := f.SecretKeys("agents", "creds"); ok {
				t.Error("SecretKeys found")
			}
			if _, ok := f.SecretValueMatches("agents", "creds", "key", func([]byte) (string, bool) { return "x", true }); ok {
				t.Error("SecretValueMatches matched")
			}
			if _, _, ok := f.ConfigMapValue("agents", "pack", "pack.json"); ok {
				t.Error("ConfigMapValue found")
			}
			if _, ok := f.Workspace("agents"); ok {
				t.Error("Workspace found")
			}
			if got := f.AgentRuntimeQuotaEntries("agents"); got != nil {
				t.Errorf("AgentRuntimeQuotaEntries = %v", got)
			}
			if _, ok := f.ToolRegistry("agents", "tools"); ok {
				t.Error("ToolRegistry found")
			}
			if _, ok := f.AgentRuntime("agents", "billing"); ok {
				t.Error("AgentRuntime found")
			}
			if f.PersistentVolumeClaimExists("agents", "media") {
				t.Error("PersistentVolumeClaim found")
			}
			if _, ok := f.Namespace("agents"); ok {
				t.Error("Namespace found")
			}
			err := f.Err()
			if !c.recorded {
				if err != nil {
					t.Fatalf("Err = %v, want nil: %v means not found", err, c.err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Err = nil: %v was taken for not found", c.err)
			}
			if !errors.Is(err, c.err) && !strings.Contains(err.Error(), c.err.Error()) {
				t.Errorf("Err = %v, does not carry %v", err, c.err)
			}
			if n := strings.Count(err.Error(), "Secret agents/creds"); n != 1 {
				t.Errorf("the Secret lookup failed twice and is reported %d times, want once: %v", n, err)
			}
			for _, what := range []string{"Provider agents/claude", "PromptPacks labelled", "Secret agents/creds", "ConfigMap agents/pack", "Workspaces",
				"AgentRuntimes in namespace agents", "ToolRegistry agents/tools", "AgentRuntime agents/billing", "PersistentVolumeClaim agents/media"} {
				if !strings.Contains(err.Error(), what) {
					t.Errorf("Err = %v, does not name the lookup %q", err, what)
				}
			}
		})
	}
}

// mapReader answers from objects held in memory, honouring a label
// selector on List, to show which list the lookup asks for.
type mapReader struct {
	packs       []v1alpha1.PromptPack
	workspaces  []v1alpha1.Workspace
	agents      []v1alpha1.AgentRuntime
	deployments []appsv1.Deployment
	secret      *corev1.Secret
	namespace   *corev1.Namespace
}

func (r mapReader) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	if s, ok := obj.(*corev1.Secret); ok && r.secret != nil && key.Name == r.secret.Name {
		r.secret.DeepCopyInto(s)
		return nil
	}
	if ns, ok := obj.(*corev1.Namespace); ok && r.namespace != nil && key.Name == r.namespace.Name {
		r.namespace.DeepCopyInto(ns)
		return nil
	}
	return apierrors.NewNotFound(schema.GroupResource{}, key.Name)
}

func (r mapReader) List(_ context.Context, list client.ObjectList, opts ...client.ListOption) error {
	lo := &client.ListOptions{}
	lo.ApplyOptions(opts)
	switch l := list.(type) {
	case *v1alpha1.PromptPackList:
		for _, p := range r.packs {
			if p.Namespace == lo.Namespace && (lo.LabelSelector == nil || lo.LabelSelector.Matches(labelsOf(p.Labels))) {
				l.Items = append(l.Items, p)
			}
		}
	case *v1alpha1.WorkspaceList:
		l.Items = append(l.Items, r.workspaces...)
	case *v1alpha1.AgentRuntimeList:
		for _, a := range r.agents {
			if a.Namespace == lo.Namespace {
				l.Items = append(l.Items, a)
			}
		}
	case *appsv1.DeploymentList:
		for _, d := range r.deployments {
			if d.Namespace == lo.Namespace {
				l.Items = append(l.Items, d)
			}
		}
	}
	return nil
}

type labelsOf map[string]string

func (l labelsOf) Has(k string) bool              { _, ok := l[k]; return ok }
func (l labelsOf) Get(k string) string            { return l[k] }
func (l labelsOf) Lookup(k string) (string, bool) { v, ok := l[k]; return v, ok }

// TestPromptPacksByLabel: packs are found by the label
// omnia.altairalabs.ai/promptpack, as the spec says, not by spec.packName.
func TestPromptPacksByLabel(t *testing.T) {
	pack := func(name, label, packName string) v1alpha1.PromptPack {
		p := v1alpha1.PromptPack{ObjectMeta: metav1.ObjectMeta{Namespace: "agents", Name: name}, Spec: v1alpha1.PromptPackSpec{PackName: packName}}
		if label != "" {
			p.Labels = map[string]string{"omnia.altairalabs.ai/promptpack": label}
		}
		return p
	}
	r := mapReader{packs: []v1alpha1.PromptPack{
		pack("support-1", "support", "support"),
		pack("unlabelled", "", "support"),
		pack("old-key", "", "support"),
		pack("relabelled", "support", "legacy"),
		pack("other", "other", "other"),
	}}
	r.packs[2].Labels = map[string]string{"omnia.altairalabs.ai/pack-name": "support"}
	f := New(context.Background(), r, nil, nil, rules.License{})
	var got []string
	for _, p := range f.PromptPacks("agents", "support") {
		got = append(got, p.Name)
	}
	if want := []string{"support-1", "relabelled"}; !slices.Equal(got, want) {
		t.Errorf("PromptPacks(support) = %v, want %v", got, want)
	}
	if err := f.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestWorkspaceByNamespaceName: a Workspace is bound to the namespace named
// by spec.namespace.name.
func TestWorkspaceByNamespaceName(t *testing.T) {
	ws := func(name, ns string) v1alpha1.Workspace {
		return v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: v1alpha1.WorkspaceSpec{Namespace: v1alpha1.WorkspaceNamespace{Name: ns, Create: true}}}
	}
	f := New(context.Background(), mapReader{workspaces: []v1alpha1.Workspace{ws("team-b", "b"), ws("team-a", "agents")}}, nil, nil, rules.License{})
	if w, ok := f.Workspace("agents"); !ok || w.Name != "team-a" {
		t.Errorf("Workspace(agents) = %v, %v", w, ok)
	}
	if _, ok := f.Workspace("c"); ok {
		t.Error("Workspace(c) found")
	}
}

// TestNamespace: the Namespace a policy rule reads, with its TypeMeta as
// the API server sends it; an absent one is not found (rules.NamespaceOf
// then builds it bare), not an error.
func TestNamespace(t *testing.T) {
	f := New(context.Background(), mapReader{namespace: &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "prod", Labels: map[string]string{"env": "prod"}}}}, nil, nil, rules.License{})
	ns, ok := f.Namespace("prod")
	if !ok || ns.Labels["env"] != "prod" || ns.APIVersion != "v1" || ns.Kind != "Namespace" {
		t.Errorf("Namespace(prod) = %+v, %v", ns, ok)
	}
	if _, ok := f.Namespace("dev"); ok {
		t.Error("Namespace(dev) found")
	}
	if got := rules.NamespaceOf(f, "prod"); got.Labels["env"] != "prod" {
		t.Errorf("rules.NamespaceOf(prod) = %+v", got)
	}
	if err := f.Err(); err != nil {
		t.Errorf("Err = %v after lookups that were answered", err)
	}
}

// TestAgentRuntimeQuotaEntries: an agent has its Deployment when a
// Deployment of its namespace is controlled by it (by UID): a Deployment of
// the same name it does not control, or one in another namespace, does not
// count.
func TestAgentRuntimeQuotaEntries(t *testing.T) {
	created := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	agent := func(ns, name string) v1alpha1.AgentRuntime {
		return v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(ns + "-" + name), CreationTimestamp: created}}
	}
	deployment := func(ns, name string, owner types.UID, controller bool) appsv1.Deployment {
		return appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, OwnerReferences: []metav1.OwnerReference{
			{APIVersion: v1alpha1.GroupVersion.String(), Kind: "AgentRuntime", Name: name, UID: owner, Controller: &controller}}}}
	}
	r := mapReader{
		agents: []v1alpha1.AgentRuntime{agent("agents", "running"), agent("agents", "waiting"), agent("agents", "same-name"), agent("other", "elsewhere")},
		deployments: []appsv1.Deployment{
			deployment("agents", "running", "agents-running", true),
			deployment("agents", "same-name", "someone-else", true),
			deployment("agents", "waiting", "agents-waiting", false),
			deployment("other", "waiting", "agents-waiting", true),
		},
	}
	f := New(context.Background(), r, nil, nil, rules.License{})
	got := map[string]bool{}
	for _, e := range f.AgentRuntimeQuotaEntries("agents") {
		if !e.CreationTimestamp.Equal(&created) {
			t.Errorf("%s: creationTimestamp %v", e.Name, e.CreationTimestamp)
		}
		got[e.Name] = e.HasDeployment
	}
	if want := map[string]bool{"running": true, "waiting": false, "same-name": false}; !maps.Equal(got, want) {
		t.Errorf("AgentRuntimeQuotaEntries(agents) = %v, want %v", got, want)
	}
	if err := f.Err(); err != nil {
		t.Fatal(err)
	}
}

// configMapReader holds one ConfigMap and counts the reads.
type configMapReader struct {
	cm    *corev1.ConfigMap
	reads *int
}

func (r configMapReader) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	*r.reads++
	if cm, ok := obj.(*corev1.ConfigMap); ok && key.Namespace == r.cm.Namespace && key.Name == r.cm.Name {
		r.cm.DeepCopyInto(cm)
		return nil
	}
	return apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, key.Name)
}

func (r configMapReader) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return nil
}

// TestConfigMapValue: data, then binaryData; a missing key or ConfigMap; the
// ConfigMap is read once per evaluation, through the uncached reader.
func TestConfigMapValue(t *testing.T) {
	reads := 0
	cached := configMapReader{cm: &corev1.ConfigMap{}, reads: new(int)}
	uncached := configMapReader{reads: &reads, cm: &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "agents", Name: "pack"},
		Data:       map[string]string{"pack.json": `{"id":"support"}`},
		BinaryData: map[string][]byte{"logo.png": {0x89, 0x50}},
	}}
	f := New(context.Background(), cached, uncached, nil, rules.License{})
	cases := []struct {
		name, cm, key  string
		value          string
		hasKey, exists bool
	}{
		{"data key", "pack", "pack.json", `{"id":"support"}`, true, true},
		{"binaryData key", "pack", "logo.png", "\x89\x50", true, true},
		{"missing key", "pack", "other.json", "", false, true},
		{"missing ConfigMap", "gone", "pack.json", "", false, false},
	}
	for _, c := range cases {
		v, hasKey, exists := f.ConfigMapValue("agents", c.cm, c.key)
		if string(v) != c.value || hasKey != c.hasKey || exists != c.exists {
			t.Errorf("%s: ConfigMapValue = %q, %v, %v; want %q, %v, %v", c.name, v, hasKey, exists, c.value, c.hasKey, c.exists)
		}
	}
	if reads != 2 || *cached.reads != 0 {
		t.Errorf("%d uncached and %d cached reads, want 2 (one per ConfigMap) and 0", reads, *cached.reads)
	}
	if err := f.Err(); err != nil {
		t.Fatal(err)
	}
}
