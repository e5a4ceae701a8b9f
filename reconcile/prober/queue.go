package prober

// fairQueue is the keys waiting for a worker: one FIFO per owner namespace
// (Key.Namespace), served round-robin across namespaces, so a namespace
// with a long backlog delays another namespace's next job by at most one of
// its own, not by its whole backlog. Within a namespace jobs keep their
// order. Not safe for concurrent use: the Prober's lock guards it.
type fairQueue struct {
	byNS map[string][]Key
	// ring is the namespaces that have keys waiting, in the order they are
	// served; cursor is the index in ring of the one served next.
	ring   []string
	cursor int
	n      int
}

func newFairQueue() *fairQueue { return &fairQueue{byNS: map[string][]Key{}} }

// len counts the keys waiting.
func (q *fairQueue) len() int { return q.n }

// push appends k to its namespace's FIFO; a namespace that had nothing
// waiting joins the ring just before the cursor, so every namespace already
// waiting is served before it.
func (q *fairQueue) push(k Key) {
	ns := k.Namespace
	if len(q.byNS[ns]) == 0 {
		q.ring = append(q.ring, "")
		copy(q.ring[q.cursor+1:], q.ring[q.cursor:])
		q.ring[q.cursor] = ns
		if len(q.ring) > 1 {
			q.cursor++
		}
	}
	q.byNS[ns] = append(q.byNS[ns], k)
	q.n++
}

// take removes and returns the first key, visiting the namespaces
// round-robin from the cursor and each namespace's keys in order, that
// runnable accepts. The cursor moves past the namespace served. false when
// no waiting key is runnable.
func (q *fairQueue) take(runnable func(Key) bool) (Key, bool) {
	for i := range len(q.ring) {
		idx := (q.cursor + i) % len(q.ring)
		ns := q.ring[idx]
		keys := q.byNS[ns]
		for j, k := range keys {
			if !runnable(k) {
				continue
			}
			q.n--
			if len(keys) == 1 {
				delete(q.byNS, ns)
				q.ring = append(q.ring[:idx], q.ring[idx+1:]...)
				// The namespace after it now sits at idx.
				q.cursor = idx
			} else {
				q.byNS[ns] = append(keys[:j], keys[j+1:]...)
				q.cursor = idx + 1
			}
			if q.cursor >= len(q.ring) {
				q.cursor = 0
			}
			return k, true
		}
	}
	return Key{}, false
}

// filter keeps the keys for which keep holds, in order; the cursor stays on
// the namespace it pointed at, or the next one still waiting.
func (q *fairQueue) filter(keep func(Key) bool) {
	ring := q.ring[:0]
	cursor := 0
	for idx, ns := range q.ring {
		kept := q.byNS[ns][:0]
		for _, k := range q.byNS[ns] {
			if keep(k) {
				kept = append(kept, k)
			} else {
				q.n--
			}
		}
		if len(kept) == 0 {
			delete(q.byNS, ns)
			continue
		}
		q.byNS[ns] = kept
		if idx < q.cursor {
			cursor++
		}
		ring = append(ring, ns)
	}
	q.ring = ring
	q.cursor = cursor
	if q.cursor >= len(q.ring) {
		q.cursor = 0
	}
}
