package auth

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/go-logr/logr"
)

// Bounds of URLKeys' fetches.
const (
	// MaxJWKSBytes is the largest JWKS document accepted.
	MaxJWKSBytes = 1 << 20
	// DefaultJWKSFetchTimeout bounds one fetch.
	DefaultJWKSFetchTimeout = 10 * time.Second
	// DefaultJWKSRefresh is how old the keys may grow before a lookup
	// fetches them again.
	DefaultJWKSRefresh = 5 * time.Minute
	// DefaultJWKSMinInterval is the least time between two fetches, however
	// many tokens name an unknown kid.
	DefaultJWKSMinInterval = 30 * time.Second
)

// URLKeys is a KeySet fetched over HTTPS from a JWKS URL (e.g. the
// dashboard's). Keys are fetched on the first lookup, again once they are
// older than Refresh, and again when a token names a kid they lack (a
// rotation) — never more often than MinInterval, and one fetch at a time.
// A fetch that fails keeps the last good keys; until one succeeds every
// token is refused (401). The client follows no redirect, waits at most
// Timeout and reads at most MaxJWKSBytes.
//
// No lock is held across a fetch: a lookup of a kid the keys already hold
// answers at once even while a fetch is in progress (a stale set is
// refreshed in the background, the known key answering meanwhile), so a
// slow or stalled JWKS server delays only the lookups of kids it has yet to
// publish — each of which waits for the one fetch in progress.
type URLKeys struct {
	url    string
	client *http.Client

	Refresh     time.Duration
	MinInterval time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	Log logr.Logger

	mu          sync.Mutex
	keys        StaticKeys
	fetchedAt   time.Time // last successful fetch
	attemptedAt time.Time // last attempt
	lastErr     error
	// fetching is closed when the fetch in progress ends; nil while none
	// runs.
	fetching chan struct{}
}

// NewURLKeys checks rawURL (https only) and builds the key set. caPEM, when
// not empty, is the only CA the JWKS server's certificate may chain to
// (else the system roots).
func NewURLKeys(rawURL string, caPEM []byte, timeout time.Duration) (*URLKeys, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("JWKS URL: %w", err)
	}
	if u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("JWKS URL %q: an https:// URL is required", rawURL)
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(caPEM) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caPEM) {
			return nil, errors.New("JWKS CA: no PEM certificate")
		}
		tlsConfig.RootCAs = pool
	}
	if timeout <= 0 {
		timeout = DefaultJWKSFetchTimeout
	}
	return &URLKeys{
		url: u.String(),
		client: &http.Client{
			Timeout: timeout,
			Transport: &http.Transport{
				TLSClientConfig:       tlsConfig,
				Proxy:                 nil,
				TLSHandshakeTimeout:   timeout,
				ResponseHeaderTimeout: timeout,
				MaxIdleConns:          1,
				IdleConnTimeout:       time.Minute,
			},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}, nil
}

func (u *URLKeys) now() time.Time {
	if u.Now != nil {
		return u.Now()
	}
	return time.Now()
}

// Key implements KeySet. A kid the keys hold answers without waiting; an
// unknown kid waits for the fetch in progress, or one it starts (bounded by
// the client's timeout), unless MinInterval forbids a fetch now.
func (u *URLKeys) Key(kid string) (Key, bool) {
	refresh := u.Refresh
	if refresh <= 0 {
		refresh = DefaultJWKSRefresh
	}
	u.mu.Lock()
	now := u.now()
	k, ok := u.keys[kid]
	stale := u.keys == nil || now.Sub(u.fetchedAt) >= refresh
	if ok && !stale {
		u.mu.Unlock()
		return k, true
	}
	done := u.startFetch(now)
	u.mu.Unlock()
	if ok {
		// Known: the refresh of the stale set runs on its own.
		return k, true
	}
	if done == nil {
		return Key{}, false
	}
	<-done
	u.mu.Lock()
	defer u.mu.Unlock()
	k, ok = u.keys[kid]
	return k, ok
}

// startFetch returns the channel of the fetch in progress, or starts one
// and returns its channel, or nil when the last attempt is under
// MinInterval old. Called with mu held.
func (u *URLKeys) startFetch(now time.Time) chan struct{} {
	if u.fetching != nil {
		return u.fetching
	}
	minInterval := u.MinInterval
	if minInterval <= 0 {
		minInterval = DefaultJWKSMinInterval
	}
	if !u.attemptedAt.IsZero() && now.Sub(u.attemptedAt) < minInterval {
		return nil
	}
	u.attemptedAt = now
	done := make(chan struct{})
	u.fetching = done
	go u.fetchAndStore(now, done)
	return done
}

// fetchAndStore fetches the JWKS without holding mu, then stores the keys
// (a failure keeps the last good ones) and closes done.
func (u *URLKeys) fetchAndStore(startedAt time.Time, done chan struct{}) {
	keys, err := u.fetch()
	u.mu.Lock()
	switch {
	case err != nil && (u.lastErr == nil || u.lastErr.Error() != err.Error()):
		u.Log.Error(err, "fetching the JWKS failed; the last good keys stay in force", "url", u.url)
	case err == nil && u.lastErr != nil:
		u.Log.Info("the JWKS fetches again", "url", u.url)
	}
	u.lastErr = err
	if err == nil {
		u.keys, u.fetchedAt = keys, startedAt
	}
	u.fetching = nil
	u.mu.Unlock()
	close(done)
}

// LastError is the last fetch's error (nil when it succeeded).
func (u *URLKeys) LastError() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.lastErr
}

func (u *URLKeys) fetch() (StaticKeys, error) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, u.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := u.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("JWKS %s: %w", u.url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("JWKS %s: HTTP %d", u.url, resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxJWKSBytes+1))
	if err != nil {
		return nil, fmt.Errorf("JWKS %s: %w", u.url, err)
	}
	if len(data) > MaxJWKSBytes {
		return nil, fmt.Errorf("JWKS %s: larger than %d bytes", u.url, MaxJWKSBytes)
	}
	keys, err := ParseJWKS(data)
	if err != nil {
		return nil, fmt.Errorf("JWKS %s: %w", u.url, err)
	}
	return keys, nil
}
