package rules

import "sync"

// Scratch holds what the checks of one evaluation share: a value computed
// once per object and evaluation (a policy's JSON view of the object), or a
// budget all of one policy's rules draw from (policies' Rego time budget).
// It lives exactly as long as the Catalog.Evaluate call, so nothing in it
// can leak from one object, request or tenant to the next. Keys are chosen
// by the package that stores them (an unexported key type, as with
// context.Context values) so two packages never collide.
type Scratch struct {
	mu     sync.Mutex
	values map[any]any
}

// LoadOrStore returns the value stored under key, storing newValue's result
// first when there is none; newValue runs under the lock, which is
// uncontended (one evaluation runs its checks in turn). On a nil Scratch (a
// check called outside Evaluate) it returns newValue's result and stores
// nothing.
func (s *Scratch) LoadOrStore(key any, newValue func() any) any {
	if s == nil {
		return newValue()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.values[key]; ok {
		return v
	}
	if s.values == nil {
		s.values = map[any]any{}
	}
	v := newValue()
	s.values[key] = v
	return v
}
