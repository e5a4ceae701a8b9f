package auth

import "testing"

func TestInFlightBoundsEachCaller(t *testing.T) {
	l := NewInFlight(2)
	r1, ok1 := l.Acquire("alice")
	_, ok2 := l.Acquire("alice")
	if !ok1 || !ok2 {
		t.Fatal("the first two of alice's requests are refused")
	}
	if _, ok := l.Acquire("alice"); ok {
		t.Fatal("alice's third request in progress is admitted, want refused")
	}
	if _, ok := l.Acquire("bob"); !ok {
		t.Fatal("bob is refused because of alice's requests")
	}
	r1()
	if _, ok := l.Acquire("alice"); !ok {
		t.Fatal("alice is refused after one of her requests ended")
	}
}
