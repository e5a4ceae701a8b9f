package framework

import (
	"context"
	"sync"
)

// WarningLog collects the API server's warnings (admission warnings among
// them) for the specs to take: a warning is not an error, so a spec that
// expects one has to look for it.
type WarningLog struct {
	mu   sync.Mutex
	msgs []string
}

// HandleWarningHeaderWithContext records one warning (rest.WarningHandlerWithContext).
func (w *WarningLog) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, msg)
}

// Take returns the warnings seen since the last Take.
func (w *WarningLog) Take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.msgs
	w.msgs = nil
	return out
}
