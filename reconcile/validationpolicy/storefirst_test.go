package validationpolicy

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/policies"
	"github.com/altairalabs/omnia/rules"
)

// countingCompiler counts its compiles and answers a fixed error, so a
// result it made is told from the Store's.
type countingCompiler struct{ calls int }

func (c *countingCompiler) Compile(p *v1alpha1.ValidationPolicy) *policies.Compiled {
	c.calls++
	return &policies.Compiled{Name: p.Name, Generation: p.Generation,
		Errors: []v1alpha1.ValidationPolicyRuleError{{Rule: "policy/" + p.Name + "/r", Field: "spec", Message: "compiled here"}}}
}

func TestStoreFirst(t *testing.T) {
	store := policies.NewStore(rules.Default)
	if err := store.Set(&policies.Compiled{Name: "p", Generation: 2}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		policy      string
		generation  int64
		wantCompile bool
	}{
		{name: "the Store holds this generation: no second compile", policy: "p", generation: 2},
		{name: "the Store holds another generation: compiled", policy: "p", generation: 3, wantCompile: true},
		{name: "the Store does not hold the policy: compiled", policy: "q", generation: 1, wantCompile: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cc := &countingCompiler{}
			got := storeFirst{store: store, compiler: cc}.Compile(&v1alpha1.ValidationPolicy{ObjectMeta: metav1.ObjectMeta{Name: tc.policy, Generation: tc.generation}})
			if (cc.calls == 1) != tc.wantCompile || got.Generation != tc.generation || (len(got.Errors) > 0) != tc.wantCompile {
				t.Errorf("compiles %d, result %+v; want compiled=%v at generation %d", cc.calls, got, tc.wantCompile, tc.generation)
			}
		})
	}
}
