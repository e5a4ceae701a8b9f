package rules

import "sync"

// memo remembers the verdict of a pure, costly check by key (compiling a
// JSON Schema, loading a time zone), so the webhook does not redo it for
// every update of the same object. It is bounded: when full it starts over,
// which keeps memory flat whatever keys arrive. The answer never depends on
// the cache — only the time does.
type memo[K comparable, V any] struct {
	mu    sync.Mutex
	max   int
	items map[K]V
}

func newMemo[K comparable, V any](max int) *memo[K, V] {
	return &memo[K, V]{max: max, items: make(map[K]V, max)}
}

// get returns the remembered value for k, computing and remembering it with
// compute on a miss.
func (m *memo[K, V]) get(k K, compute func() V) V {
	m.mu.Lock()
	v, ok := m.items[k]
	m.mu.Unlock()
	if ok {
		return v
	}
	v = compute()
	m.mu.Lock()
	if len(m.items) >= m.max {
		clear(m.items)
	}
	m.items[k] = v
	m.mu.Unlock()
	return v
}
