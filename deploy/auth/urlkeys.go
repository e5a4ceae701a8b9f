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
// rotation) — never more often than MinInterval. A fetch that fails keeps
// the last good keys; until one succeeds every token is refused (401). The
// client follows no redirect, waits at most Timeout and reads at most
// MaxJWKSBytes.
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

// Key implements KeySet.
func (u *URLKeys) Key(kid string) (Key, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	refresh, minInterval := u.Refresh, u.MinInterval
	if refresh <= 0 {
		refresh = DefaultJWKSRefresh
	}
	if minInterval <= 0 {
		minInterval = DefaultJWKSMinInterval
	}
	now := u.now()
	k, ok := u.keys[kid]
	stale := u.keys == nil || now.Sub(u.fetchedAt) >= refresh
	if (stale || !ok) && (u.attemptedAt.IsZero() || now.Sub(u.attemptedAt) >= minInterval) {
		u.attemptedAt = now
		keys, err := u.fetch()
		switch {
		case err != nil && (u.lastErr == nil || u.lastErr.Error() != err.Error()):
			u.Log.Error(err, "fetching the deploy API's JWKS failed; the last good keys stay in force")
		case err == nil && u.lastErr != nil:
			u.Log.Info("the deploy API's JWKS fetches again", "url", u.url)
		}
		u.lastErr = err
		if err == nil {
			u.keys, u.fetchedAt = keys, now
		}
		k, ok = u.keys[kid]
	}
	return k, ok
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
