package policies

import (
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

var (
	testEnvOnce sync.Once
	testEnv     *Env
	testEnvErr  error
)

// env returns the shared test Env (building one compiles six CRD schemas).
func env(t testing.TB) *Env {
	t.Helper()
	testEnvOnce.Do(func() { testEnv, testEnvErr = NewEnv(Options{}) })
	if testEnvErr != nil {
		t.Fatal(testEnvErr)
	}
	return testEnv
}

// policy builds a ValidationPolicy named p on kinds with rules.
func policy(kinds []v1alpha1.PolicyMatchKind, rs ...v1alpha1.ValidationPolicyRule) *v1alpha1.ValidationPolicy {
	return &v1alpha1.ValidationPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Generation: 3},
		Spec:       v1alpha1.ValidationPolicySpec{MatchKinds: kinds, Rules: rs},
	}
}

func kinds(k ...v1alpha1.PolicyMatchKind) []v1alpha1.PolicyMatchKind { return k }

func provider(name, ns string, labels map[string]string) *v1alpha1.Provider {
	return &v1alpha1.Provider{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
		Spec:       v1alpha1.ProviderSpec{Type: "claude", Model: "claude-sonnet"},
	}
}

// nsFacts answers Namespace lookups from a fixed set.
type nsFacts struct {
	rules.NoFacts
	ns map[string]*corev1.Namespace
}

func (f nsFacts) Namespace(name string) (*corev1.Namespace, bool) {
	n, ok := f.ns[name]
	return n, ok
}

func namespaces(ns ...*corev1.Namespace) nsFacts {
	f := nsFacts{ns: map[string]*corev1.Namespace{}}
	for _, n := range ns {
		f.ns[n.Name] = n
	}
	return f
}

func namespace(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// compiled compiles p and fails the test on any compile error.
func compiled(t testing.TB, e *Env, p *v1alpha1.ValidationPolicy) *Compiled {
	t.Helper()
	c := e.Compile(p)
	if len(c.Errors) > 0 {
		t.Fatalf("compile errors: %+v", c.Errors)
	}
	return c
}

// evaluate runs c's rules (joined to the built-in catalog) on obj and
// returns the policy rules' findings.
func evaluate(t testing.TB, c *Compiled, kind string, in rules.Input) []rules.Finding {
	t.Helper()
	cat, err := rules.NewCatalog().With(c.Rules)
	if err != nil {
		t.Fatal(err)
	}
	return cat.Evaluate(kind, in, rules.Options{})
}

func ruleIDs(fs []rules.Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.RuleID)
	}
	return out
}

var _ runtime.Object = &v1alpha1.Provider{}
