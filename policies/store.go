package policies

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/altairalabs/omnia/rules"
)

// Store holds the policies in force and the catalog they make with the
// built-in rules. Readers (every admission, reconcile and audit) take the
// current catalog with one atomic load; writers (the policy controller) are
// serialised and rebuild it on each change.
type Store struct {
	base *rules.Catalog

	mu       sync.Mutex
	policies map[string]*Compiled
	changed  chan struct{}

	current atomic.Pointer[rules.Catalog]
}

// NewStore returns a store whose catalog is base until policies are set.
func NewStore(base *rules.Catalog) *Store {
	s := &Store{base: base, policies: map[string]*Compiled{}, changed: make(chan struct{})}
	s.current.Store(base)
	return s
}

// Catalog returns the catalog in force: the built-in rules and the rules of
// every policy that compiled.
func (s *Store) Catalog() *rules.Catalog { return s.current.Load() }

// Set puts c in force, replacing the policy of the same name. A policy with
// compile errors takes the old version's rules out of force: a policy whose
// current generation is broken does not silently keep enforcing an older
// one. It returns an error, keeping the previous catalog, when c's rules
// cannot join the catalog.
func (s *Store) Set(c *Compiled) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := make(map[string]*Compiled, len(s.policies)+1)
	for name, p := range s.policies {
		next[name] = p
	}
	next[c.Name] = c
	return s.rebuild(next)
}

// Delete takes the named policy out of force.
func (s *Store) Delete(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.policies[name]; !ok {
		return
	}
	next := make(map[string]*Compiled, len(s.policies))
	for n, p := range s.policies {
		if n != name {
			next[n] = p
		}
	}
	// Removing rules cannot make a catalog invalid.
	_ = s.rebuild(next)
}

// Policies returns the names of the policies set, sorted.
func (s *Store) Policies() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.policies))
	for n := range s.policies {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Changes returns a channel closed at the next change of the catalog.
func (s *Store) Changes() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// rebuild makes the catalog of policies and, when it is valid, puts both in
// force and wakes whoever waits on Changes. Called with mu held.
func (s *Store) rebuild(policies map[string]*Compiled) error {
	names := make([]string, 0, len(policies))
	for n := range policies {
		names = append(names, n)
	}
	sort.Strings(names)
	var extra []rules.Rule
	for _, n := range names {
		if len(policies[n].Errors) == 0 {
			extra = append(extra, policies[n].Rules...)
		}
	}
	cat, err := s.base.With(extra)
	if err != nil {
		return err
	}
	s.policies = policies
	s.current.Store(cat)
	close(s.changed)
	s.changed = make(chan struct{})
	return nil
}

// Compiled returns the policy of that name as last set, if any, so a
// reader that needs its compile result (the status controller) does not
// compile it a second time.
func (s *Store) Compiled(name string) (*Compiled, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.policies[name]
	return c, ok
}
