package promptpacksource

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/test/controlplane"
)

// The tests call Reconcile directly against a real kube-apiserver (no
// manager, no cache, no sleeps).

var k8s client.Client

func TestMain(m *testing.M) {
	env, err := controlplane.Start(controlplane.Options{Kinds: []string{"PromptPack", "PromptPackSource"}})
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

func (c *counting) Patch(ctx context.Context, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
	c.note("patch", obj)
	return c.Client.Patch(ctx, obj, p, opts...)
}

func (c *counting) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	c.note("update", obj)
	return c.Client.Update(ctx, obj, opts...)
}

func (c *counting) Status() client.SubResourceWriter { return countingStatus{c.Client.Status(), c} }

type countingStatus struct {
	client.SubResourceWriter
	c *counting
}

func (s countingStatus) Patch(ctx context.Context, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
	s.c.note("status-patch", obj)
	return s.SubResourceWriter.Patch(ctx, obj, p, opts...)
}

var nsSeq int

func namespace(t *testing.T) string {
	t.Helper()
	nsSeq++
	ns := fmt.Sprintf("pps-%d", nsSeq)
	if err := k8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	return ns
}

var devLabels = map[string]string{
	"omnia.altairalabs.ai/dev": "true", "omnia.altairalabs.ai/hidden": "true",
	"omnia.altairalabs.ai/arena-project": "my-project", "omnia.altairalabs.ai/arena-user": "u0123456789ab",
	"team": "support",
}

func source(t *testing.T, ns string) *v1alpha1.PromptPackSource {
	t.Helper()
	l := map[string]string{}
	for k, v := range devLabels {
		l[k] = v
	}
	src := &v1alpha1.PromptPackSource{
		ObjectMeta: metav1.ObjectMeta{Name: "dev-my-project-u0123456789ab", Namespace: ns, Labels: l},
		Spec: v1alpha1.PromptPackSourceSpec{Type: v1alpha1.PromptPackSourceTypeProject,
			Project:  v1alpha1.PromptPackSourceProject{ID: "my-project", User: "u0123456789ab"},
			PackName: "dev-my-project-u0123456789ab"},
	}
	if err := k8s.Create(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	return src
}

func reconcileOnce(t *testing.T, src *v1alpha1.PromptPackSource) []string {
	t.Helper()
	c := &counting{Client: k8s}
	r := NewReconciler(c, nil, Options{Clock: clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))})
	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(src)}); err != nil {
		t.Fatal(err)
	}
	return c.writes
}

func ready(t *testing.T, src *v1alpha1.PromptPackSource) *metav1.Condition {
	t.Helper()
	got := &v1alpha1.PromptPackSource{}
	if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(src), got); err != nil {
		t.Fatal(err)
	}
	return meta.FindStatusCondition(got.Status.Conditions, v1alpha1.PromptPackSourceConditionReady)
}

// The source materializes its live pack, owned by it, with the four dev
// labels and the pack label (not the source's other labels); Ready is
// True; a second reconcile writes nothing; a label change on the source
// reaches the pack.
func TestMaterializesLivePack(t *testing.T) {
	ns := namespace(t)
	src := source(t, ns)
	if w := reconcileOnce(t, src); len(w) != 2 {
		t.Errorf("first reconcile writes %v, want the pack create and the status", w)
	}
	pack := &v1alpha1.PromptPack{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: src.Spec.PackName}, pack); err != nil {
		t.Fatal(err)
	}
	if !metav1.IsControlledBy(pack, src) {
		t.Errorf("pack owners %v, want the source as controller", pack.OwnerReferences)
	}
	want := map[string]string{rules.PromptPackLabel: src.Spec.PackName}
	for _, k := range CopiedLabels {
		want[k] = devLabels[k]
	}
	if !reflect.DeepEqual(pack.Labels, want) {
		t.Errorf("pack labels %v, want %v", pack.Labels, want)
	}
	if l := pack.Spec.Source.Live; l == nil || l.ProjectRef.Name != "my-project" || pack.Spec.Version != "" || pack.Spec.PackName != src.Spec.PackName {
		t.Errorf("pack spec %+v", pack.Spec)
	}
	if c := ready(t, src); c == nil || c.Status != metav1.ConditionTrue || c.Reason != v1alpha1.PromptPackSourceReasonPackMaterialized {
		t.Errorf("Ready %+v", c)
	}
	if w := reconcileOnce(t, src); len(w) != 0 {
		t.Errorf("second reconcile writes %v, want none", w)
	}
	if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(src), src); err != nil {
		t.Fatal(err)
	}
	src.Labels["omnia.altairalabs.ai/hidden"] = "false"
	if err := k8s.Update(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	if w := reconcileOnce(t, src); len(w) != 1 {
		t.Errorf("label change writes %v, want the pack patch", w)
	}
	if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(pack), pack); err != nil {
		t.Fatal(err)
	}
	if pack.Labels["omnia.altairalabs.ai/hidden"] != "false" {
		t.Errorf("the pack's hidden label did not follow the source: %v", pack.Labels)
	}
}

// A pack of the name the source does not control is never taken over.
func TestForeignPackIsNotTakenOver(t *testing.T) {
	ns := namespace(t)
	foreign := &v1alpha1.PromptPack{ObjectMeta: metav1.ObjectMeta{Name: "dev-my-project-u0123456789ab", Namespace: ns},
		Spec: v1alpha1.PromptPackSpec{PackName: "prod", Version: "1.0.0",
			Source: v1alpha1.PromptPackContentSource{ConfigMapRef: &v1alpha1.LocalObjectReference{Name: "prod-1.0.0-content"}}}}
	if err := k8s.Create(context.Background(), foreign); err != nil {
		t.Fatal(err)
	}
	rv := foreign.ResourceVersion
	src := source(t, ns)
	if w := reconcileOnce(t, src); len(w) != 1 {
		t.Errorf("writes %v, want only the status", w)
	}
	if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(foreign), foreign); err != nil || foreign.ResourceVersion != rv {
		t.Errorf("the foreign pack was written (%v)", err)
	}
	if c := ready(t, src); c == nil || c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.PromptPackSourceReasonPackNameTaken {
		t.Errorf("Ready %+v, want False %s", c, v1alpha1.PromptPackSourceReasonPackNameTaken)
	}
}

func TestSetReadyCondition(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	for _, tt := range []struct {
		taken  bool
		status metav1.ConditionStatus
		reason string
	}{
		{false, metav1.ConditionTrue, v1alpha1.PromptPackSourceReasonPackMaterialized},
		{true, metav1.ConditionFalse, v1alpha1.PromptPackSourceReasonPackNameTaken},
	} {
		st := v1alpha1.PromptPackSourceStatus{}
		setReadyCondition(&st, "p", tt.taken, 3, now)
		c := meta.FindStatusCondition(st.Conditions, v1alpha1.PromptPackSourceConditionReady)
		if c == nil || c.Status != tt.status || c.Reason != tt.reason || c.ObservedGeneration != 3 || st.ObservedGeneration != 3 {
			t.Errorf("taken=%v: %+v", tt.taken, st)
		}
	}
}
