package redis

import "testing"

func TestStartAnswersPing(t *testing.T) {
	a := Start(t)
	b := Start(t)
	if a.Addr == b.Addr {
		t.Fatalf("two servers share %s", a.Addr)
	}
	if err := ping(a.Addr); err != nil {
		t.Fatal(err)
	}
}
