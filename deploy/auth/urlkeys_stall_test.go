package auth_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/auth/authtest"
)

// stallingJWKS answers its first request at once with docs[0]; each later
// request n is announced on entered and held until the test sends on
// release, then answered with docs[n-1] (the last one beyond the list).
type stallingJWKS struct {
	srv      *httptest.Server
	entered  chan int32
	release  chan struct{}
	requests atomic.Int32
}

func newStallingJWKS(t *testing.T, docs ...[]byte) *stallingJWKS {
	t.Helper()
	s := &stallingJWKS{entered: make(chan int32, 8), release: make(chan struct{})}
	s.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.requests.Add(1)
		if n > 1 {
			s.entered <- n
			select {
			case <-s.release:
			case <-r.Context().Done():
				return
			}
		}
		_, _ = w.Write(docs[min(int(n), len(docs))-1])
	}))
	t.Cleanup(s.srv.Close)
	var once sync.Once
	// Runs before srv.Close (cleanups run last-registered first): no
	// handler is left holding.
	t.Cleanup(func() { once.Do(func() { close(s.release) }) })
	return s
}

func jwksOf(t *testing.T, signers ...*authtest.Signer) []byte {
	t.Helper()
	data, err := authtest.JWKS(signers...)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestURLKeysKnownKidDoesNotWaitForAFetch: the JWKS key
// lookup does not hold its lock across a network fetch: while a fetch
// stalls on a slow JWKS server (held by the test, not timed), a token
// whose kid is already known verifies, both when the fetch is for a kid the
// keys lack (a rotation) and when it refreshes a stale set; the lookup of
// the kid being fetched waits for that fetch and then trusts it.
func TestURLKeysKnownKidDoesNotWaitForAFetch(t *testing.T) {
	known, rotated, third := authtest.MustSigner("known", "ES256"), authtest.MustSigner("rotated", "ES256"), authtest.MustSigner("third", "EdDSA")
	js := newStallingJWKS(t, jwksOf(t, known), jwksOf(t, known, rotated), jwksOf(t, known, rotated, third))
	ca := (&jwksServer{srv: js.srv}).ca()
	// The client's timeout only ends a fetch the test never releases: with
	// a lookup that waits on the fetch, it is what lets the test fail
	// rather than hang.
	keys, err := auth.NewURLKeys(js.srv.URL+"/jwks", ca, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var clock atomic.Int64
	clock.Store(now.UnixNano())
	nowFn := func() time.Time { return time.Unix(0, clock.Load()).UTC() }
	advance := func(d time.Duration) { clock.Add(int64(d)) }
	keys.Now = nowFn
	keys.Refresh, keys.MinInterval = 10*time.Minute, 30*time.Second
	v := &auth.Verifier{Keys: keys, Now: nowFn}
	verifyKnown := func(when string) {
		t.Helper()
		tok := mint(t, known, authtest.Claims("alice", "acme", "acme-ns", auth.RoleEditor, nowFn()))
		if _, err := v.Verify(tok); err != nil {
			t.Fatalf("%s: a token with a known kid: %v", when, err)
		}
	}
	verifyKnown("first fetch")

	// A rotation: the lookup of the new kid fetches, and the server stalls.
	advance(31 * time.Second)
	rotatedTrusted := make(chan bool, 1)
	go func() { _, ok := keys.Key("rotated"); rotatedTrusted <- ok }()
	<-js.entered
	verifyKnown("while the rotation's fetch stalls")
	select {
	case ok := <-rotatedTrusted:
		t.Fatalf("the rotated kid's lookup returned (trusted %v) before its fetch was released: the known kid's lookup waited for the fetch", ok)
	default:
	}
	js.release <- struct{}{}
	if !<-rotatedTrusted {
		t.Fatalf("the rotated kid is not trusted once the fetch answers (last error %v)", keys.LastError())
	}

	// A stale set: the known kid answers at once, the refresh stalls in the
	// background.
	advance(11 * time.Minute)
	verifyKnown("stale keys, refresh pending")
	<-js.entered
	if err := keys.LastError(); err != nil {
		t.Fatalf("the refresh ended before it was released: %v", err)
	}
	thirdTrusted := make(chan bool, 1)
	go func() { _, ok := keys.Key("third"); thirdTrusted <- ok }()
	verifyKnown("stale keys, refresh stalled, another kid waiting")
	js.release <- struct{}{}
	if !<-thirdTrusted {
		t.Fatalf("the refreshed set's new kid is not trusted (last error %v)", keys.LastError())
	}
	if n := js.requests.Load(); n != 3 {
		t.Errorf("%d fetches, want 3 (one at a time: the waiting lookup joined the refresh)", n)
	}
}
