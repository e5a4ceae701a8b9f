package agentruntime

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/policies"
	"github.com/altairalabs/omnia/rules"
)

// agentsPolicy is a hand-made compiled policy (as policies.Env.Compile
// makes one) on every AgentRuntime: "agents must set a rate limit" (listed
// in PolicyCompliant), a rule with a condition of its own that the agent
// passes, and a rule naming DeploymentReady, which stays the controller's.
func agentsPolicy() *policies.Compiled {
	return &policies.Compiled{Name: "agents", Generation: 1, Rules: []rules.Rule{
		{ID: "policy/agents/rate-limit", Kinds: []string{"AgentRuntime"}, Stage: rules.StageAdmission, Severity: rules.SeverityDeny,
			Doc: "agents must set a rate limit",
			Check: func(in rules.Input) field.ErrorList {
				ar := in.Object.(*v1alpha1.AgentRuntime)
				if ar.Annotations["example.com/rate-limit"] == "" {
					return field.ErrorList{field.Required(field.NewPath("metadata", "annotations").Key("example.com/rate-limit"), "agents must set a rate limit")}
				}
				return nil
			}},
		{ID: "policy/agents/has-facade", Kinds: []string{"AgentRuntime"}, Stage: rules.StageAdmission, Severity: rules.SeverityWarn,
			Doc: "an agent has a facade", Condition: "FacadeDeclared",
			Check: func(in rules.Input) field.ErrorList {
				if len(in.Object.(*v1alpha1.AgentRuntime).Spec.Facades) == 0 {
					return field.ErrorList{field.Required(field.NewPath("spec", "facades"), "declare a facade")}
				}
				return nil
			}},
		{ID: "policy/agents/never-deployed", Kinds: []string{"AgentRuntime"}, Stage: rules.StageAdmission, Severity: rules.SeverityDeny,
			Doc: "names DeploymentReady", Condition: v1alpha1.AgentRuntimeConditionDeploymentReady,
			Check: func(rules.Input) field.ErrorList {
				return field.ErrorList{field.Forbidden(field.NewPath("spec"), "never deployed")}
			}},
	}}
}

// TestPolicyConditions: against the API
// server, an agent a policy matches gets PolicyCompliant False listing the
// rule's finding as "[rule] field: message" and the condition another rule
// names (True: it complies); a rule naming one of the controller's
// conditions is listed in PolicyCompliant instead. The phase, Ready and the
// controller's conditions are exactly those of a reconcile without
// policies, a second reconcile writes nothing, and once the policy is gone
// its conditions are removed.
func TestPolicyConditions(t *testing.T) {
	ar := createAgent(t, agent(), "ar-ctrl-policy")
	key := client.ObjectKeyFromObject(ar)
	r, writes := newCountingReconciler(t)
	without := reconcileAgent(t, r, key)

	store := policies.NewStore(rules.Default)
	if err := store.Set(agentsPolicy()); err != nil {
		t.Fatal(err)
	}
	r.opts.Policies = store
	got := reconcileAgent(t, r, key)
	sameOwnStatus(t, without, got)
	for typ, want := range map[string]string{
		conditions.ConditionPolicyCompliant: "False/" + conditions.ReasonPolicyViolation,
		"FacadeDeclared":                    "True/" + conditions.ReasonPolicyCompliant,
	} {
		if c := meta.FindStatusCondition(got.Status.Conditions, typ); c == nil || string(c.Status)+"/"+c.Reason != want || c.ObservedGeneration != got.Generation {
			t.Errorf("%s = %+v, want %s at generation %d", typ, c, want, got.Generation)
		}
	}
	wantMsg := "[policy/agents/never-deployed] spec: never deployed; " +
		"[policy/agents/rate-limit] metadata.annotations[example.com/rate-limit]: agents must set a rate limit"
	if c := meta.FindStatusCondition(got.Status.Conditions, conditions.ConditionPolicyCompliant); c == nil || c.Message != wantMsg {
		t.Errorf("PolicyCompliant message %q, want %q", c.Message, wantMsg)
	}

	writes.Store(0)
	reconcileAgent(t, r, key)
	if n := writes.Load(); n != 0 {
		t.Errorf("a second reconcile with nothing changed made %d writes, want 0", n)
	}

	store.Delete("agents")
	got = reconcileAgent(t, r, key)
	sameOwnStatus(t, without, got)
	for _, typ := range []string{conditions.ConditionPolicyCompliant, "FacadeDeclared"} {
		if c := meta.FindStatusCondition(got.Status.Conditions, typ); c != nil {
			t.Errorf("%s lingers after its policy was deleted: %+v", typ, c)
		}
	}
}

// sameOwnStatus fails unless got has want's phase and every one of want's
// conditions with the same status, reason and message.
func sameOwnStatus(t *testing.T, want, got *v1alpha1.AgentRuntime) {
	t.Helper()
	if got.Status.Phase != want.Status.Phase {
		t.Errorf("phase %q, want %q as without policies", got.Status.Phase, want.Status.Phase)
	}
	for _, w := range want.Status.Conditions {
		c := meta.FindStatusCondition(got.Status.Conditions, w.Type)
		if c == nil || c.Status != w.Status || c.Reason != w.Reason || c.Message != w.Message {
			t.Errorf("%s = %+v, want %s/%s %q as without policies", w.Type, c, w.Status, w.Reason, w.Message)
		}
	}
	if w := meta.FindStatusCondition(want.Status.Conditions, v1alpha1.AgentRuntimeConditionReady); w == nil {
		t.Errorf("no Ready condition without policies: %+v", want.Status.Conditions)
	}
}
