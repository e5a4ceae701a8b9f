package prober

import (
	"slices"
	"testing"
)

// drain takes every key runnable accepts, in the order the queue serves them.
func drain(q *fairQueue, runnable func(Key) bool) []string {
	var out []string
	for {
		k, ok := q.take(runnable)
		if !ok {
			return out
		}
		out = append(out, k.Namespace+"/"+k.Name)
	}
}

func all(Key) bool { return true }

// TestFairQueue: namespaces are served in turn, each in its own order; a
// namespace that starts waiting is served after those already waiting; a
// key that may not run yet keeps its place.
func TestFairQueue(t *testing.T) {
	for _, tc := range []struct {
		name     string
		push     []Key
		runnable func(Key) bool
		want     []string
		left     int
	}{
		{"one namespace: FIFO", []Key{key("a", "1", "e"), key("a", "2", "e"), key("a", "3", "e")}, all,
			[]string{"a/1", "a/2", "a/3"}, 0},
		{"round-robin", []Key{key("a", "1", "e"), key("a", "2", "e"), key("a", "3", "e"), key("b", "1", "e"), key("c", "1", "e"), key("b", "2", "e")}, all,
			[]string{"a/1", "b/1", "c/1", "a/2", "b/2", "a/3"}, 0},
		{"a namespace held back keeps its keys", []Key{key("a", "1", "e"), key("b", "1", "e"), key("a", "2", "e")},
			func(k Key) bool { return k.Namespace != "a" }, []string{"b/1"}, 2},
		{"a key held back lets the next of its namespace go", []Key{key("a", "1", "e"), key("a", "2", "e")},
			func(k Key) bool { return k.Name != "1" }, []string{"a/2"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := newFairQueue()
			for _, k := range tc.push {
				q.push(k)
			}
			if got := drain(q, tc.runnable); !slices.Equal(got, tc.want) {
				t.Errorf("served %v, want %v", got, tc.want)
			}
			if q.len() != tc.left {
				t.Errorf("%d left, want %d", q.len(), tc.left)
			}
		})
	}
}

// TestFairQueueLateNamespace: a namespace that starts waiting mid-round is
// served once every namespace already waiting has had its turn.
func TestFairQueueLateNamespace(t *testing.T) {
	q := newFairQueue()
	for _, k := range []Key{key("a", "1", "e"), key("a", "2", "e"), key("b", "1", "e"), key("b", "2", "e")} {
		q.push(k)
	}
	first, _ := q.take(all) // a/1; b is next
	if first.Namespace != "a" {
		t.Fatalf("first %v", first)
	}
	q.push(key("c", "1", "e"))
	if got, want := drain(q, all), []string{"b/1", "a/2", "c/1", "b/2"}; !slices.Equal(got, want) {
		t.Errorf("served %v, want %v", got, want)
	}
}

// TestFairQueueFilter: filter drops keys and empty namespaces and keeps the
// turn on the namespace that had it (or the next one left).
func TestFairQueueFilter(t *testing.T) {
	q := newFairQueue()
	for _, k := range []Key{key("a", "1", "e"), key("a", "2", "e"), key("b", "1", "e"), key("c", "1", "e"), key("c", "2", "e")} {
		q.push(k)
	}
	q.take(all) // a/1: b has the turn
	q.filter(func(k Key) bool { return k.Namespace != "b" && k.Name != "2" || k.Namespace == "c" })
	if q.len() != 2 {
		t.Fatalf("%d left, want 2", q.len())
	}
	if got, want := drain(q, all), []string{"c/1", "c/2"}; !slices.Equal(got, want) {
		t.Errorf("served %v, want %v (b filtered out, its turn passes to c)", got, want)
	}
	q.filter(func(Key) bool { return false })
	if q.len() != 0 || len(q.ring) != 0 || len(q.byNS) != 0 {
		t.Errorf("an emptied queue keeps %d keys, ring %v", q.len(), q.ring)
	}
}
