package auth_test

import (
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/auth/authtest"
)

// jwksServer serves a JWKS document over TLS on a loopback port, counting
// fetches; a test swaps the document or the status.
type jwksServer struct {
	mu      sync.Mutex
	body    []byte
	status  int
	fetches int
	srv     *httptest.Server
}

func newJWKSServer(t *testing.T, signers ...*authtest.Signer) *jwksServer {
	t.Helper()
	s := &jwksServer{status: http.StatusOK}
	s.set(t, signers...)
	s.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.fetches++
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/jwks", http.StatusFound)
			return
		}
		w.WriteHeader(s.status)
		_, _ = w.Write(s.body)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *jwksServer) set(t *testing.T, signers ...*authtest.Signer) {
	t.Helper()
	data, err := authtest.JWKS(signers...)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.body, s.status = data, http.StatusOK
	s.mu.Unlock()
}

func (s *jwksServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fetches
}

func (s *jwksServer) ca() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.srv.Certificate().Raw})
}

// TestURLKeys: keys come from a JWKS served locally over TLS; a token
// naming a new kid fetches again (a rotation), at most once per
// MinInterval; stale keys are fetched again after Refresh; a failing
// server keeps the last good keys.
func TestURLKeys(t *testing.T) {
	oldKey, newKey := authtest.MustSigner("old", "ES256"), authtest.MustSigner("new", "RS256")
	js := newJWKSServer(t, oldKey)
	clock := now
	keys, err := auth.NewURLKeys(js.srv.URL+"/jwks", js.ca(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	keys.Now = func() time.Time { return clock }
	keys.Refresh, keys.MinInterval = 10*time.Minute, 30*time.Second
	v := &auth.Verifier{Keys: keys, Now: func() time.Time { return clock }}
	verify := func(s *authtest.Signer) error {
		_, err := v.Verify(mint(t, s, good()))
		return err
	}
	step := func(name string, err, want error, fetches int) {
		t.Helper()
		if want == nil && err != nil || want != nil && !errors.Is(err, want) {
			t.Fatalf("%s: %v, want %v", name, err, want)
		}
		if got := js.count(); got != fetches {
			t.Fatalf("%s: %d fetches, want %d", name, got, fetches)
		}
	}
	step("first token fetches", verify(oldKey), nil, 1)
	step("second token uses the cache", verify(oldKey), nil, 1)
	js.set(t, oldKey, newKey)
	step("a new kid within MinInterval does not fetch", verify(newKey), auth.ErrUnauthenticated, 1)
	clock = clock.Add(31 * time.Second)
	step("a new kid after MinInterval fetches", verify(newKey), nil, 2)
	js.mu.Lock()
	js.status = http.StatusInternalServerError
	js.mu.Unlock()
	clock = clock.Add(11 * time.Minute)
	// A known kid answers at once and the stale set is refreshed in the
	// background; an unknown kid's lookup waits for that fetch.
	err = verify(newKey)
	if _, ok := keys.Key("unpublished"); ok {
		t.Fatal("an unpublished kid is trusted")
	}
	step("stale keys fetch again; a failure keeps them", err, nil, 3)
	if keys.LastError() == nil {
		t.Fatal("LastError is nil after a 500")
	}
	step("no new fetch within MinInterval of the failure", verify(oldKey), nil, 3)
}

// TestURLKeysBounds: only https; the server's certificate must chain to
// the given CA; no redirect is followed; an oversized document is refused.
func TestURLKeysBounds(t *testing.T) {
	s := authtest.MustSigner("k", "EdDSA")
	js := newJWKSServer(t, s)
	if _, err := auth.NewURLKeys("http://127.0.0.1/jwks", nil, 0); err == nil {
		t.Fatal("an http:// JWKS URL was accepted")
	}
	fetchErr := func(url string, ca []byte) error {
		keys, err := auth.NewURLKeys(url, ca, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := keys.Key("k"); ok {
			return nil
		}
		return keys.LastError()
	}
	if err := fetchErr(js.srv.URL+"/jwks", js.ca()); err != nil {
		t.Fatalf("the trusted server: %v", err)
	}
	if err := fetchErr(js.srv.URL+"/jwks", nil); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("a server the system roots do not trust: %v", err)
	}
	if err := fetchErr(js.srv.URL+"/redirect", js.ca()); err == nil || !strings.Contains(err.Error(), "HTTP 302") {
		t.Fatalf("a redirect: %v", err)
	}
	js.mu.Lock()
	js.body = []byte(`{"keys":[],"pad":"` + strings.Repeat("x", auth.MaxJWKSBytes) + `"}`)
	js.mu.Unlock()
	if err := fetchErr(js.srv.URL+"/jwks", js.ca()); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("an oversized JWKS: %v", err)
	}
}
