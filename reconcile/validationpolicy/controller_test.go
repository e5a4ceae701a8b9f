package validationpolicy

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/policies"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/test/controlplane"
)

// The controllers run in a manager against a real kube-apiserver (no
// webhook: a policy that does not compile can be stored, as one admitted
// before an operator upgrade would be). Compilation is a stand-in until
// policies.Env compiles: a rule whose CEL is "bad" is an error, any other
// a rule finding nothing.

var (
	env    *envtest.Environment
	scheme *runtime.Scheme
	k8s    client.Client
)

func TestMain(m *testing.M) {
	var err error
	env, err = controlplane.Start(controlplane.Options{Kinds: []string{"ValidationPolicy"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer func() { _ = env.Stop() }()
		scheme = runtime.NewScheme()
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

type standInCompiler struct{}

func (standInCompiler) Compile(p *v1alpha1.ValidationPolicy) *policies.Compiled {
	c := &policies.Compiled{Name: p.Name, Generation: p.Generation}
	for i, r := range p.Spec.Rules {
		if r.CEL == "bad" {
			c.Errors = append(c.Errors, v1alpha1.ValidationPolicyRuleError{Rule: rules.PolicyRuleID(p.Name, r.ID),
				Field: fmt.Sprintf("spec.rules[%d].cel", i), Message: "undefined field 'nope'"})
			continue
		}
		c.Rules = append(c.Rules, rules.Rule{ID: rules.PolicyRuleID(p.Name, r.ID), Kinds: []string{"Provider"},
			Stage: rules.StageAdmission, Severity: rules.SeverityDeny, Doc: "stand-in",
			Check: func(rules.Input) field.ErrorList { return nil }})
	}
	if len(c.Errors) > 0 {
		c.Rules = nil
	}
	return c
}

func policy(name string, cels ...string) *v1alpha1.ValidationPolicy {
	p := &v1alpha1.ValidationPolicy{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.ValidationPolicySpec{MatchKinds: []v1alpha1.PolicyMatchKind{"Provider"}, ValidationActions: []v1alpha1.ValidationAction{v1alpha1.ValidationActionDeny}}}
	for i, c := range cels {
		p.Spec.Rules = append(p.Spec.Rules, v1alpha1.ValidationPolicyRule{ID: fmt.Sprintf("r%d", i), CEL: c})
	}
	return p
}

func eventually(t *testing.T, what string, f func() error) {
	t.Helper()
	var last error
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		last = f()
		return last == nil, nil
	}); err != nil {
		t.Fatalf("%s: not within 30s: %v", what, last)
	}
}

// readyOf returns the stored policy's Ready condition once it describes
// the policy's current generation.
func readyOf(name string) (*metav1.Condition, *v1alpha1.ValidationPolicy, error) {
	p := &v1alpha1.ValidationPolicy{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Name: name}, p); err != nil {
		return nil, nil, err
	}
	c := meta.FindStatusCondition(p.Status.Conditions, v1alpha1.ValidationPolicyConditionReady)
	if c == nil || p.Status.ObservedGeneration != p.Generation || c.ObservedGeneration != p.Generation {
		return nil, nil, fmt.Errorf("status of %s not at generation %d yet: %+v", name, p.Generation, p.Status)
	}
	return c, p, nil
}

func TestControllers(t *testing.T) {
	// A policy that exists before the operator starts: readiness waits for it.
	ctx := context.Background()
	if err := k8s.Create(ctx, policy("early", "true")); err != nil {
		t.Fatal(err)
	}

	store := policies.NewStore(rules.Default)
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	loader, err := SetupWithManager(mgr, Options{Store: store, Compiler: standInCompiler{}})
	if err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	go func() { _ = mgr.Start(mctx) }()

	inForce := func(id string) bool { _, ok := store.Catalog().Lookup(id); return ok }

	t.Run("ready once the policies that existed at start are loaded", func(t *testing.T) {
		eventually(t, "readiness", func() error { return loader.ReadyzCheck(httptest.NewRequest("GET", "/readyz", nil)) })
		if !inForce("policy/early/r0") {
			t.Error("ready, but policy/early/r0 is not in force")
		}
	})

	t.Run("a policy that compiles is put in force and is Ready", func(t *testing.T) {
		if err := k8s.Create(ctx, policy("good", "true", "true")); err != nil {
			t.Fatal(err)
		}
		eventually(t, "policy/good/r1 in force", func() error {
			if !inForce("policy/good/r1") {
				return errors.New("not in force")
			}
			return nil
		})
		var c *metav1.Condition
		eventually(t, "Ready", func() (err error) { c, _, err = readyOf("good"); return err })
		if c.Status != metav1.ConditionTrue || c.Reason != v1alpha1.ValidationPolicyReasonCompiled {
			t.Errorf("Ready %s/%s %q, want True/Compiled", c.Status, c.Reason, c.Message)
		}
	})

	t.Run("a policy that does not compile is not in force, Ready False with its errors, a Warning event", func(t *testing.T) {
		if err := k8s.Create(ctx, policy("broken", "true", "bad")); err != nil {
			t.Fatal(err)
		}
		var c *metav1.Condition
		var p *v1alpha1.ValidationPolicy
		eventually(t, "Ready", func() (err error) { c, p, err = readyOf("broken"); return err })
		if c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.ValidationPolicyReasonCompileFailed {
			t.Errorf("Ready %s/%s, want False/CompileFailed", c.Status, c.Reason)
		}
		if len(p.Status.RuleErrors) != 1 || p.Status.RuleErrors[0].Rule != "policy/broken/r1" || p.Status.RuleErrors[0].Field != "spec.rules[1].cel" {
			t.Errorf("ruleErrors %+v, want policy/broken/r1 at spec.rules[1].cel", p.Status.RuleErrors)
		}
		eventually(t, "loaded", func() error {
			if !slices.Contains(store.Policies(), "broken") {
				return errors.New("not loaded")
			}
			return nil
		})
		if inForce("policy/broken/r0") {
			t.Error("a rule of a policy that does not compile is in force")
		}
		eventually(t, "Warning event", func() error { return eventFor("broken", "Warning", v1alpha1.ValidationPolicyReasonCompileFailed) })
	})

	t.Run("fixing it puts it in force, Ready True, a Normal event", func(t *testing.T) {
		p := &v1alpha1.ValidationPolicy{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: "broken"}, p); err != nil {
			t.Fatal(err)
		}
		p.Spec.Rules[1].CEL = "true"
		if err := k8s.Update(ctx, p); err != nil {
			t.Fatal(err)
		}
		eventually(t, "policy/broken/r1 in force", func() error {
			if !inForce("policy/broken/r1") {
				return errors.New("not in force")
			}
			return nil
		})
		var c *metav1.Condition
		eventually(t, "Ready", func() (err error) {
			c, p, err = readyOf("broken")
			if err == nil && c.Status != metav1.ConditionTrue {
				err = fmt.Errorf("Ready %s", c.Status)
			}
			return err
		})
		if len(p.Status.RuleErrors) != 0 {
			t.Errorf("ruleErrors %+v after the fix", p.Status.RuleErrors)
		}
		eventually(t, "Normal event", func() error { return eventFor("broken", "Normal", v1alpha1.ValidationPolicyReasonCompiled) })
	})

	t.Run("a deleted policy is taken out of force", func(t *testing.T) {
		if err := k8s.Delete(ctx, policy("good")); err != nil {
			t.Fatal(err)
		}
		eventually(t, "policy/good/r0 out of force", func() error {
			if inForce("policy/good/r0") || slices.Contains(store.Policies(), "good") {
				return errors.New("still in force")
			}
			return nil
		})
		if !inForce("policy/early/r0") {
			t.Error("another policy was taken out too")
		}
	})
}

// eventFor finds an event of type and reason on the named policy (a
// cluster-scoped object's events are in the default namespace).
func eventFor(name, typ, reason string) error {
	list := &eventsv1.EventList{}
	if err := k8s.List(context.Background(), list, client.InNamespace(metav1.NamespaceDefault)); err != nil {
		return err
	}
	for _, e := range list.Items {
		if e.Regarding.Kind == "ValidationPolicy" && e.Regarding.Name == name && e.Type == typ && e.Reason == reason {
			return nil
		}
	}
	return fmt.Errorf("no %s %s event on %s among %d", typ, reason, name, len(list.Items))
}
