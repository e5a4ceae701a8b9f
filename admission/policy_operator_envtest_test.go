package admission_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/altairalabs/omnia/test/controlplane"
)

// testPoliciesOnOperator: ValidationPolicies through the operator binary
// (policies.Env compiling, the policy webhook, the loader and status
// controllers, the Store the AgentRuntime webhook asks): a policy whose CEL
// does not type-check against the AgentRuntime schema is refused by the API
// server with its rule ID and field; a good one becomes Ready and its rule
// refuses the next AgentRuntime; its evaluations are on /metrics; deleting
// it lifts the refusal. It runs last in TestWebhooksWithAPIServer: its
// policy must not judge the other subtests' objects.
func testPoliciesOnOperator(t *testing.T, env *envtest.Environment, op *controlplane.Operator, dyn dynamic.Interface) {
	ctx := context.Background()
	policies := dyn.Resource(validationPolicies)
	policy := func(name, id, cel string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": omniaGroup + "/v1alpha1",
			"kind":       "ValidationPolicy",
			"metadata":   map[string]any{"name": name},
			"spec": map[string]any{
				"matchKinds":        []any{"AgentRuntime"},
				"validationActions": []any{"Deny"},
				"rules": []any{map[string]any{
					"id": id, "cel": cel, "fieldPath": "spec.promptPackRef.name",
					"message": "the retired pack may not be used: name your team's pack",
				}},
			},
		}}
	}

	t.Run("a policy whose CEL does not type-check is refused with its rule ID and field", func(t *testing.T) {
		_, err := policies.Create(ctx, policy("bad-cel", "no-nope", "object.spec.nope == 1"), metav1.CreateOptions{})
		st := assertRefusedBy(t, err, "vvalidationpolicy.omnia.altairalabs.ai", "policy/bad-cel/no-nope", "spec.rules[0].cel")
		if st != nil && (st.Details.Kind != "ValidationPolicy" || st.Details.Name != "bad-cel") {
			t.Errorf("details %+v do not name the ValidationPolicy bad-cel", st.Details)
		}
		if _, err := policies.Get(ctx, "bad-cel", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("the refused policy was stored (get: %v)", err)
		}
	})

	const rule = "policy/retired-pack/no-retired-pack"
	retired := func(name string) *unstructured.Unstructured {
		return agentOnPackNamed(t, "agents", name, "retired")
	}
	t.Run("a good policy becomes Ready and its rule refuses the next AgentRuntime", func(t *testing.T) {
		good := policy("retired-pack", "no-retired-pack", "!has(object.spec.promptPackRef) || object.spec.promptPackRef.name != 'retired'")
		if _, err := policies.Create(ctx, good, metav1.CreateOptions{}); err != nil {
			t.Fatalf("a policy that compiles was refused: %v", err)
		}
		eventually(t, 30*time.Second, func() error {
			u, err := policies.Get(ctx, "retired-pack", metav1.GetOptions{})
			if err != nil {
				return err
			}
			conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			for _, c := range conds {
				m, _ := c.(map[string]any)
				if m["type"] == "Ready" {
					if m["status"] != "True" || m["reason"] != "Compiled" {
						return fmt.Errorf("Ready %v/%v: %v", m["status"], m["reason"], m["message"])
					}
					return nil
				}
			}
			return errors.New("no Ready condition yet")
		})
		// Every replica loads the policy within moments of the event.
		eventually(t, 20*time.Second, func() error {
			if err := dryRunCreateAgent(ctx, dyn, retired("retired")); err == nil {
				return errors.New("still admitted")
			}
			return nil
		})
		assertRefused(t, dryRunCreateAgent(ctx, dyn, retired("retired")), rule, "spec.promptPackRef.name")
		if err := dryRunCreateAgent(ctx, dyn, agentOnPackNamed(t, "agents", "current", "support")); err != nil {
			t.Errorf("an agent on another pack was refused: %v", err)
		}
	})

	t.Run("its evaluations are on /metrics by policy and language", func(t *testing.T) {
		evals := scrapeCounter(t, env, op, "omnia_policy_evaluations_total")
		key := `language="cel",policy="retired-pack",result="ok"`
		if evals[key] < 2 {
			t.Errorf("omnia_policy_evaluations_total{%s} = %v, want >= 2 (all series: %v)", key, evals[key], evals)
		}
	})

	t.Run("deleting the policy lifts the refusal", func(t *testing.T) {
		if err := policies.Delete(ctx, "retired-pack", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		eventually(t, 20*time.Second, func() error { return dryRunCreateAgent(ctx, dyn, retired("retired")) })
	})
}

// agentOnPackNamed is the clean agent in ns on the named pack.
func agentOnPackNamed(t *testing.T, ns, name, pack string) *unstructured.Unstructured {
	t.Helper()
	u := agentOnPack(t, ns, name, "")
	if err := unstructured.SetNestedField(u.Object, pack, "spec", "promptPackRef", "name"); err != nil {
		t.Fatal(err)
	}
	return u
}
