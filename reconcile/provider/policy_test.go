package provider

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/policies"
	"github.com/altairalabs/omnia/reconcile/prober"
	"github.com/altairalabs/omnia/rules"
)

// prodPolicy is a hand-made compiled policy (as policies.Env.Compile makes
// one) selecting Providers labelled tier=prod: a rule listed in
// PolicyCompliant, a rule with a condition of its own, and a rule naming
// Ready, which a policy may not overwrite.
func prodPolicy() *policies.Compiled {
	prod := func(in rules.Input) bool {
		o, err := meta.Accessor(in.Object)
		return err == nil && o.GetLabels()["tier"] == "prod"
	}
	return &policies.Compiled{Name: "prod", Generation: 1, Rules: []rules.Rule{
		{ID: "policy/prod/model-pinned", Kinds: []string{"Provider"}, Stage: rules.StageAdmission, Severity: rules.SeverityDeny,
			Doc: "a prod Provider pins its model", Match: prod,
			Check: func(in rules.Input) field.ErrorList {
				if in.Object.(*v1alpha1.Provider).Spec.Model == "" {
					return field.ErrorList{field.Required(field.NewPath("spec", "model"), "pin a model in prod")}
				}
				return nil
			}},
		{ID: "policy/prod/workload-identity", Kinds: []string{"Provider"}, Stage: rules.StageAdmission, Severity: rules.SeverityDeny,
			Doc: "a prod Provider uses workload identity", Condition: "WorkloadIdentity", Match: prod,
			Check: func(in rules.Input) field.ErrorList {
				if a := in.Object.(*v1alpha1.Provider).Spec.Auth; a == nil || a.Type != v1alpha1.ProviderAuthTypeWorkloadIdentity {
					return field.ErrorList{field.Invalid(field.NewPath("spec", "auth"), nil, "use workload identity in prod")}
				}
				return nil
			}},
		{ID: "policy/prod/not-ready", Kinds: []string{"Provider"}, Stage: rules.StageAdmission, Severity: rules.SeverityDeny,
			Doc: "names Ready, which stays the controller's", Condition: v1alpha1.ProviderConditionReady, Match: prod,
			Check: func(rules.Input) field.ErrorList {
				return field.ErrorList{field.Forbidden(field.NewPath("spec"), "never ready")}
			}},
	}}
}

// TestPolicyConditions: a Provider a policy
// selects gets PolicyCompliant False listing the finding of the rule
// without a condition, and the condition the other rule names, False with
// its finding; a rule naming Ready is listed in PolicyCompliant and Ready
// and the phase stay the controller's. A second reconcile writes nothing.
// Deleting the policy (a change of the policies.Store) re-reconciles the
// Provider, and its policy conditions are removed.
func TestPolicyConditions(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	store := policies.NewStore(rules.Default)
	if err := store.Set(prodPolicy()); err != nil {
		t.Fatal(err)
	}
	isolatedManager(t, Options{Policies: store, HTTPClient: managerOpts.HTTPClient, DefaultEndpoints: managerOpts.DefaultEndpoints})

	p := &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "mock",
		Labels: map[string]string{isolatedLabel: "true", "tier": "prod"}},
		Spec: v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeMock}}
	if err := direct.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: ns, Name: "mock"}
	compliance := "[policy/prod/model-pinned] spec.model: pin a model in prod"
	storedMatches(t, key, want{phase: v1alpha1.ProviderPhaseReady, conds: map[string]string{
		v1alpha1.ProviderConditionReady:     "True/ProviderReady",
		conditions.ConditionPolicyCompliant: "False/" + conditions.ReasonPolicyViolation,
		"WorkloadIdentity":                  "False/" + conditions.ReasonPolicyViolation,
	}, msg: map[string]string{
		conditions.ConditionPolicyCompliant: compliance,
		"WorkloadIdentity":                  "[policy/prod/workload-identity] spec.auth: use workload identity in prod",
	}})
	stored := &v1alpha1.Provider{}
	if err := direct.Get(ctx, key, stored); err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(stored.Status.Conditions, conditions.ConditionPolicyCompliant); !strings.Contains(c.Message, "[policy/prod/not-ready] spec: never ready") {
		t.Errorf("the rule naming Ready is not listed in PolicyCompliant: %q", c.Message)
	}

	// Steady state: a reconciler reading the API server directly, with the
	// same policies, finds nothing to write.
	cc := &countingClient{Client: direct}
	opts := managerOpts
	opts.Prober = startProber(t, prober.Options{Clock: fakeClock})
	opts.Policies = store
	r, err := NewReconciler(cc, testMgr.GetRESTMapper(), nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: key}); err != nil {
		t.Fatal(err)
	}
	if n := cc.count(); n != 0 {
		t.Errorf("a reconcile with nothing changed made %d status writes, want 0", n)
	}

	store.Delete("prod")
	storedMatches(t, key, want{phase: v1alpha1.ProviderPhaseReady, conds: map[string]string{
		v1alpha1.ProviderConditionReady:     "True/ProviderReady",
		conditions.ConditionPolicyCompliant: "",
		"WorkloadIdentity":                  "",
	}})
}

// storedMatches waits until the Provider as the API server has it matches w.
func storedMatches(t *testing.T, key types.NamespacedName, w want) {
	t.Helper()
	eventually(t, "provider "+key.String(), func() error {
		p := &v1alpha1.Provider{}
		if err := direct.Get(context.Background(), key, p); err != nil {
			return err
		}
		return w.check(p)
	})
}
