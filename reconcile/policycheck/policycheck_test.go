package policycheck

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/policies"
	"github.com/altairalabs/omnia/rules"
)

// The operator hands its policies.Store to the reconcilers as Policies.
var _ Policies = (*policies.Store)(nil)

// prodOnly is a policy's objectSelector tier=prod, as a Match closure.
func prodOnly(in rules.Input) bool {
	o, err := meta.Accessor(in.Object)
	return err == nil && o.GetLabels()["tier"] == "prod"
}

// testRules are a hand-made policy's rules on Providers: one listed in
// PolicyCompliant, one with a condition of its own, one that reports what
// it was shown of the object.
func testRules() []rules.Rule {
	return []rules.Rule{
		{ID: "policy/prod/model-pinned", Kinds: []string{"Provider"}, Stage: rules.StageAdmission, Severity: rules.SeverityDeny,
			Doc: "a prod Provider pins its model", Match: prodOnly,
			Check: func(in rules.Input) field.ErrorList {
				if in.Object.(*v1alpha1.Provider).Spec.Model == "" {
					return field.ErrorList{field.Required(field.NewPath("spec", "model"), "pin a model")}
				}
				return nil
			}},
		{ID: "policy/prod/workload-identity", Kinds: []string{"Provider"}, Stage: rules.StageAdmission, Severity: rules.SeverityWarn,
			Doc: "a prod Provider uses workload identity", Condition: "WorkloadIdentity", Match: prodOnly,
			Check: func(in rules.Input) field.ErrorList {
				p := in.Object.(*v1alpha1.Provider)
				if p.Spec.Auth == nil || p.Spec.Auth.Type != v1alpha1.ProviderAuthTypeWorkloadIdentity {
					return field.ErrorList{field.Invalid(field.NewPath("spec", "auth"), nil, "use workload identity")}
				}
				return nil
			}},
		{ID: "policy/prod/sees-manifest", Kinds: []string{"Provider"}, Stage: rules.StageAdmission, Severity: rules.SeverityWarn,
			Doc: "reports what a policy rule is shown", Condition: "SeesManifest",
			Check: func(in rules.Input) field.ErrorList {
				p := in.Object.(*v1alpha1.Provider)
				var out field.ErrorList
				if p.Kind != "Provider" || p.APIVersion != v1alpha1.GroupVersion.String() {
					out = append(out, field.Invalid(field.NewPath("kind"), p.Kind, "a policy sees apiVersion and kind"))
				}
				if p.Status.Phase != "" || len(p.Status.Conditions) > 0 {
					out = append(out, field.Forbidden(field.NewPath("status"), "a policy does not see status"))
				}
				return out
			}},
	}
}

func withRules(t *testing.T, extra []rules.Rule) *rules.Catalog {
	t.Helper()
	cat, err := rules.Default.With(extra)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func TestEvaluate(t *testing.T) {
	cat := withRules(t, testRules())
	prod := func(mut func(*v1alpha1.Provider)) *v1alpha1.Provider {
		// As read from the cache: no TypeMeta, a status.
		p := &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Labels: map[string]string{"tier": "prod"}},
			Spec:   v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeMock},
			Status: v1alpha1.ProviderStatus{Phase: v1alpha1.ProviderPhaseReady}}
		if mut != nil {
			mut(p)
		}
		return p
	}
	tests := []struct {
		name         string
		cat          *rules.Catalog
		obj          *v1alpha1.Provider
		wantRules    []string
		wantFindings map[string]string // rule ID → field
	}{
		{name: "no policies: nothing applies", cat: rules.Default, obj: prod(nil)},
		{name: "a prod Provider: every rule applies, two find", cat: cat, obj: prod(nil),
			wantRules:    []string{"policy/prod/model-pinned", "policy/prod/sees-manifest", "policy/prod/workload-identity"},
			wantFindings: map[string]string{"policy/prod/model-pinned": "spec.model", "policy/prod/workload-identity": "spec.auth"}},
		{name: "a compliant prod Provider: every rule applies, none finds", cat: cat,
			obj: prod(func(p *v1alpha1.Provider) {
				p.Spec.Model = "m"
				p.Spec.Auth = &v1alpha1.ProviderAuth{Type: v1alpha1.ProviderAuthTypeWorkloadIdentity}
			}),
			wantRules: []string{"policy/prod/model-pinned", "policy/prod/sees-manifest", "policy/prod/workload-identity"}},
		{name: "a Provider the selector leaves out: only the unselective rule applies", cat: cat,
			obj:       prod(func(p *v1alpha1.Provider) { p.Labels = nil }),
			wantRules: []string{"policy/prod/sees-manifest"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Evaluate(tt.cat, "Provider", tt.obj, rules.NoFacts{})
			if err != nil {
				t.Fatal(err)
			}
			if got := v.Rules(); !slices.Equal(got, tt.wantRules) && (len(got) > 0 || len(tt.wantRules) > 0) {
				t.Errorf("applying rules %v, want %v", got, tt.wantRules)
			}
			got := map[string]string{}
			for _, f := range v.Findings() {
				got[f.RuleID] = f.Field
				if f.Source != rules.SourcePolicy {
					t.Errorf("finding %s has source %q", f, f.Source)
				}
			}
			if len(got) != len(tt.wantFindings) {
				t.Errorf("findings %v, want %v", v.Findings(), tt.wantFindings)
			}
			for id, fld := range tt.wantFindings {
				if got[id] != fld {
					t.Errorf("rule %s: field %q, want %q (findings %v)", id, got[id], fld, v.Findings())
				}
			}
			if tt.obj.Status.Phase != v1alpha1.ProviderPhaseReady || tt.obj.Kind != "" {
				t.Errorf("Evaluate changed the object it was given: %+v", tt.obj.TypeMeta)
			}
		})
	}
}

// TestVerdictSet: the verdict's conditions on a status, and none from a
// kind no policy judges.
func TestVerdictSet(t *testing.T) {
	cat := withRules(t, testRules())
	p := &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Labels: map[string]string{"tier": "prod"}, Generation: 2},
		Spec: v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeMock}}
	v, err := Evaluate(cat, "Provider", p, rules.NoFacts{})
	if err != nil {
		t.Fatal(err)
	}
	conds := []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "ProviderReady", LastTransitionTime: metav1.Now()}}
	if !v.Set(&conds, nil, p.Generation, metav1.Now()) {
		t.Fatal("Set reported no change")
	}
	for typ, want := range map[string]string{
		"Ready":                             "True/ProviderReady",
		conditions.ConditionPolicyCompliant: "False/" + conditions.ReasonPolicyViolation,
		"WorkloadIdentity":                  "False/" + conditions.ReasonPolicyViolation,
		"SeesManifest":                      "True/" + conditions.ReasonPolicyCompliant,
	} {
		c := meta.FindStatusCondition(conds, typ)
		if c == nil || string(c.Status)+"/"+c.Reason != want {
			t.Errorf("%s = %+v, want %s", typ, c, want)
		}
	}
	if c := meta.FindStatusCondition(conds, conditions.ConditionPolicyCompliant); c == nil || c.Message != "[policy/prod/model-pinned] spec.model: pin a model" {
		t.Errorf("PolicyCompliant message: %+v", c)
	}

	none, err := Evaluate(cat, "AgentRuntime", &v1alpha1.AgentRuntime{}, rules.NoFacts{})
	if err != nil || len(none.Rules()) != 0 {
		t.Fatalf("AgentRuntime: %v rules, err %v", none.Rules(), err)
	}
	if !none.Set(&conds, nil, 2, metav1.Now()) || len(conds) != 1 {
		t.Errorf("an empty verdict left policy conditions: %+v", conds)
	}
}

func TestJudges(t *testing.T) {
	cat := withRules(t, testRules())
	if !Judges(cat, "Provider") || Judges(cat, "AgentRuntime") || Judges(rules.Default, "Provider") {
		t.Error("Judges: want Provider judged by the policy catalog only")
	}
}

// TestOnChange: a policy change for the kind enqueues every object the list
// returns; a nil Policies never fires.
func TestOnChange(t *testing.T) {
	store := policies.NewStore(rules.Default)
	var lists atomic.Int32
	key := types.NamespacedName{Namespace: "ns", Name: "p"}
	src := OnChange(store, "Provider", func(context.Context) []reconcile.Request {
		lists.Add(1)
		return []reconcile.Request{{NamespacedName: key}}
	})
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := src.Start(ctx, q); err != nil {
		t.Fatal(err)
	}
	if err := store.Set(&policies.Compiled{Name: "prod", Generation: 1, Rules: testRules()}); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return q.Len() == 1, nil
	}); err != nil {
		t.Fatalf("no request after a policy change (lists %d)", lists.Load())
	}
	if got, _ := q.Get(); got.NamespacedName != key {
		t.Errorf("enqueued %v, want %v", got, key)
	}

	if err := OnChange(nil, "Provider", nil).Start(ctx, q); err != nil {
		t.Errorf("a nil Policies source: %v", err)
	}
}

// TestRelabelled: an object's or its Namespace's label change re-reconciles
// only while a policy judges the kind (a selector may now match or not).
func TestRelabelled(t *testing.T) {
	store := policies.NewStore(rules.Default)
	if err := store.Set(&policies.Compiled{Name: "prod", Generation: 1, Rules: testRules()}); err != nil {
		t.Fatal(err)
	}
	obj := func(labels map[string]string) *v1alpha1.Provider {
		return &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Labels: labels}}
	}
	ns := func(labels map[string]string) *corev1.Namespace {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns", Labels: labels}}
	}
	key := types.NamespacedName{Namespace: "ns", Name: "p"}
	tests := []struct {
		name     string
		p        Policies
		kind     string
		old, new map[string]string
		want     bool
	}{
		{"labels changed, kind judged", store, "Provider", nil, map[string]string{"tier": "prod"}, true},
		{"labels unchanged", store, "Provider", map[string]string{"tier": "prod"}, map[string]string{"tier": "prod"}, false},
		{"kind no policy judges", store, "AgentRuntime", nil, map[string]string{"tier": "prod"}, false},
		{"no policies", nil, "Provider", nil, map[string]string{"tier": "prod"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Relabelled(tt.p, tt.kind).Update(event.UpdateEvent{ObjectOld: obj(tt.old), ObjectNew: obj(tt.new)}); got != tt.want {
				t.Errorf("object: %v, want %v", got, tt.want)
			}
			q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
			defer q.ShutDown()
			var listedIn string
			h := NamespaceRelabelled(tt.p, tt.kind, func(_ context.Context, namespace string) []reconcile.Request {
				listedIn = namespace
				return []reconcile.Request{{NamespacedName: key}}
			})
			h.Update(context.Background(), event.UpdateEvent{ObjectOld: ns(tt.old), ObjectNew: ns(tt.new)}, q)
			if got := q.Len() == 1; got != tt.want || (tt.want && listedIn != "ns") {
				t.Errorf("namespace: enqueued %d (listed in %q), want %v", q.Len(), listedIn, tt.want)
			}
		})
	}
}
