package controlplane

import (
	"bytes"
	"sync"
)

// LogBuffer collects every line a test's managers and reconcilers log, safe
// for concurrent writers, so a test can search the logs (e.g. for a secret
// that must never appear).
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write implements io.Writer.
func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
