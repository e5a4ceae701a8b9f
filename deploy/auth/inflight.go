package auth

import "sync"

// InFlight bounds how many requests one caller (a verified token's
// subject) has in progress on a listener: the deploy API and the catalog
// each hold one, so a caller cannot take every handler goroutine. The zero
// value is not usable; NewInFlight sets the bound.
type InFlight struct {
	max int
	mu  sync.Mutex
	n   map[string]int
}

// NewInFlight returns a limiter allowing max requests in progress per caller.
func NewInFlight(max int) *InFlight {
	return &InFlight{max: max, n: map[string]int{}}
}

// Acquire takes one of subject's slots; ok is false when all are taken.
// release gives the slot back and must be called exactly once.
func (l *InFlight) Acquire(subject string) (release func(), ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n[subject] >= l.max {
		return nil, false
	}
	l.n[subject]++
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.n[subject]--; l.n[subject] == 0 {
			delete(l.n, subject)
		}
	}, true
}
