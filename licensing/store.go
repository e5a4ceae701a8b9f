package licensing

import (
	"sync/atomic"
	"time"
)

// State is the licence in force and why.
type State struct {
	License License
	// Verified is false when the open-core licence applies because there is
	// no licence or it was refused.
	Verified bool
	// InGrace: verified, past expiry, within the grace period.
	InGrace bool
	// Reason says why the open-core licence applies (empty when Verified,
	// or when no licence is installed). Never holds the token.
	Reason string
	// Since is when this state was stored.
	Since time.Time
}

// Store holds the licence in force and swaps it atomically: readers (the
// webhook, every reconcile) never see a half-updated licence and never
// block the watcher. The zero Store answers the open-core licence.
type Store struct {
	p atomic.Pointer[State]
}

var _ Source = (*Store)(nil)

// NewStore returns a store holding the open-core licence.
func NewStore() *Store { return &Store{} }

// Current implements Source.
func (s *Store) Current() License { return s.State().License }

// State returns the state in force.
func (s *Store) State() State {
	if st := s.p.Load(); st != nil {
		return *st
	}
	return State{License: OpenCore()}
}

// Set stores st as the state in force.
func (s *Store) Set(st State) { s.p.Store(&st) }

// StateOf is the state a licence token puts in force: the verified licence,
// or the open-core licence with the reason it was refused. An empty token
// (no Secret, no key) is the open-core licence with reason notInstalled.
func (v *Verifier) StateOf(token string, notInstalled string) State {
	now := v.now()
	if token == "" {
		return State{License: OpenCore(), Reason: notInstalled, Since: now}
	}
	ver, err := v.Verify(token)
	if err != nil {
		return State{License: OpenCore(), Reason: err.Error(), Since: now}
	}
	return State{License: ver.License, Verified: true, InGrace: ver.InGrace, Since: now}
}
