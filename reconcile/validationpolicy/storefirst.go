package validationpolicy

import (
	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/policies"
)

// storeFirst answers the status controller with the loader's compile result
// for the policy's current generation, already in the Store, and compiles
// only when the Store holds another generation (the loader has not caught
// up, or the policy was refused by the Store): one compile per generation
// on the leader instead of two.
type storeFirst struct {
	store    *policies.Store
	compiler Compiler
}

func (s storeFirst) Compile(p *v1alpha1.ValidationPolicy) *policies.Compiled {
	if c, ok := s.store.Compiled(p.Name); ok && c.Generation == p.Generation {
		return c
	}
	return s.compiler.Compile(p)
}
