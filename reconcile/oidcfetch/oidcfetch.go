// Package oidcfetch fetches an OIDC issuer's JWKS for the AgentRuntime
// controller (agentruntime.md § externalAuth): the discovery document
// {issuer}/.well-known/openid-configuration (trailing slashes trimmed), then
// the document's jwks_uri, then a validated JWKS.
//
// The issuer is a tenant's input, so every fetch is bounded and guarded:
//
//   - https only, for the issuer, the jwks_uri and every redirect; an
//     http:// URL is refused before any connection;
//   - every connection goes through the operator's egress guard
//     (reconcile/netguard): a link-local or cloud metadata address is
//     refused after DNS and before the socket connects, and a literal one in
//     a URL is refused before any dial;
//   - at most MaxRedirects redirects, each checked like the first URL;
//   - each response body is read up to a limit (64 KiB for the discovery
//     document, 1 MiB for the JWKS by default), and the whole fetch (both
//     requests) is cut at Timeout (10 s by default);
//   - the JWKS must be a JSON object with a keys array of 1 to MaxKeys keys,
//     each with a kty, RSA keys with n and e, and no private key material.
//
// Errors carry a Class and the URL; never a response body.
package oidcfetch

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/altairalabs/omnia/reconcile/netguard"
)

// Defaults of Options.
const (
	DefaultTimeout           = 10 * time.Second
	DefaultMaxDiscoveryBytes = 64 << 10
	DefaultMaxJWKSBytes      = 1 << 20
	DefaultMaxKeys           = 100
	// MaxRedirects is the most redirects one request follows.
	MaxRedirects = 3
)

// DiscoveryPath is appended to the trimmed issuer.
const DiscoveryPath = "/.well-known/openid-configuration"

// Class names why a fetch failed; the OIDCJWKSReady message carries it.
type Class string

// The failure classes.
const (
	// ClassNotHTTPS: the issuer, the jwks_uri or a redirect is not an
	// https URL (or not a URL with a host).
	ClassNotHTTPS Class = "NotHTTPS"
	// ClassBlockedAddress: the URL's host is, or resolved to, a
	// link-local or cloud metadata address.
	ClassBlockedAddress Class = "BlockedAddress"
	// ClassTimeout: the fetch did not finish within the timeout.
	ClassTimeout Class = "Timeout"
	// ClassTLS: the TLS handshake failed (e.g. an unknown certificate
	// authority: see the operator's --oidc-ca-file).
	ClassTLS Class = "TLSError"
	// ClassConnection: no connection or no HTTP answer.
	ClassConnection Class = "ConnectionFailed"
	// ClassHTTPStatus: the server answered with a status other than 200.
	ClassHTTPStatus Class = "HTTPStatus"
	// ClassTooLarge: the body is larger than the limit.
	ClassTooLarge Class = "ResponseTooLarge"
	// ClassRedirect: too many redirects.
	ClassRedirect Class = "TooManyRedirects"
	// ClassBadDiscovery: the discovery document is not JSON or has no
	// jwks_uri.
	ClassBadDiscovery Class = "InvalidDiscoveryDocument"
	// ClassInvalidJWKS: the JWKS is not a usable key set.
	ClassInvalidJWKS Class = "InvalidJWKS"
)

// Error is a failed fetch: its class, the URL it concerns and a short
// detail that never holds a response body.
type Error struct {
	Class  Class
	URL    string
	Detail string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s %s: %s", e.Class, e.URL, e.Detail)
}

// Options configure a Fetcher. Zero values take the defaults.
type Options struct {
	// RootCAs verify the servers' certificates; nil: the system roots.
	RootCAs *x509.CertPool
	// Timeout bounds one whole fetch (discovery and JWKS).
	Timeout time.Duration
	// MaxDiscoveryBytes and MaxJWKSBytes bound the bodies read.
	MaxDiscoveryBytes, MaxJWKSBytes int64
	// MaxKeys is the most keys a JWKS may hold.
	MaxKeys int
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxDiscoveryBytes <= 0 {
		o.MaxDiscoveryBytes = DefaultMaxDiscoveryBytes
	}
	if o.MaxJWKSBytes <= 0 {
		o.MaxJWKSBytes = DefaultMaxJWKSBytes
	}
	if o.MaxKeys <= 0 {
		o.MaxKeys = DefaultMaxKeys
	}
	return o
}

// Fetcher fetches JWKS. It is safe for concurrent use.
type Fetcher struct {
	opts   Options
	client *http.Client
}

// New returns a Fetcher whose connections go through netguard's dialer.
func New(opts Options) *Fetcher {
	return newFetcher(opts, nil)
}

// newFetcher is New with the transport's dial function replaced when dial
// is not nil (tests count dials with it).
func newFetcher(opts Options, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *Fetcher {
	opts = opts.withDefaults()
	tr := netguard.NewTransport(&tls.Config{RootCAs: opts.RootCAs, MinVersion: tls.VersionTLS12})
	if dial != nil {
		tr.DialContext = dial
	}
	tr.ResponseHeaderTimeout = opts.Timeout
	return &Fetcher{opts: opts, client: &http.Client{
		Transport:     tr,
		Timeout:       opts.Timeout,
		CheckRedirect: checkRedirect,
	}}
}

// RootsWith returns the system roots plus the PEM certificates in pem: the
// operator's --oidc-ca-file, for issuers whose certificate a private
// authority signed.
func RootsWith(pem []byte) (*x509.CertPool, error) {
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errors.New("no PEM certificate found")
	}
	return pool, nil
}

// JWKS is a fetched, validated key set.
type JWKS struct {
	// URI is the jwks_uri it was fetched from.
	URI string
	// Data is the key set as the Secret stores it: {"keys":[...]}, each
	// key compacted, other members dropped. Deterministic for the same keys.
	Data []byte
	// Keys is the number of keys.
	Keys int
}

// DiscoveryURL is {issuer}/.well-known/openid-configuration, trailing
// slashes of the issuer trimmed.
func DiscoveryURL(issuer string) string {
	return strings.TrimRight(issuer, "/") + DiscoveryPath
}

// CheckURL refuses a URL the fetcher never requests: not absolute https
// with a host, or a literal link-local / cloud metadata address. It dials
// nothing.
func CheckURL(raw string) *Error {
	u, err := url.Parse(raw)
	if err != nil {
		return &Error{Class: ClassNotHTTPS, URL: raw, Detail: "not a URL"}
	}
	return checkParsed(u)
}

func checkParsed(u *url.URL) *Error {
	if u.Scheme != "https" || u.Host == "" {
		return &Error{Class: ClassNotHTTPS, URL: u.String(), Detail: "only https URLs with a host are fetched"}
	}
	if ip, err := netip.ParseAddr(u.Hostname()); err == nil && netguard.Blocked(ip) {
		return &Error{Class: ClassBlockedAddress, URL: u.String(), Detail: "link-local and cloud metadata addresses are refused by the operator's egress guard"}
	}
	return nil
}

// checkRedirect follows at most MaxRedirects redirects, each to an https
// URL that passes CheckURL.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= MaxRedirects {
		return &Error{Class: ClassRedirect, URL: req.URL.String(), Detail: fmt.Sprintf("more than %d redirects", MaxRedirects)}
	}
	if e := checkParsed(req.URL); e != nil {
		e.Detail = "redirect refused: " + e.Detail
		return e
	}
	return nil
}

// Fetch fetches and validates the issuer's JWKS.
func (f *Fetcher) Fetch(ctx context.Context, issuer string) (*JWKS, error) {
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	discovery := DiscoveryURL(issuer)
	if e := CheckURL(discovery); e != nil {
		return nil, e
	}
	body, err := f.get(ctx, discovery, f.opts.MaxDiscoveryBytes)
	if err != nil {
		return nil, err
	}
	var doc struct {
		JWKSURI *string `json:"jwks_uri"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, &Error{Class: ClassBadDiscovery, URL: discovery, Detail: "not a JSON object"}
	}
	if doc.JWKSURI == nil || *doc.JWKSURI == "" {
		return nil, &Error{Class: ClassBadDiscovery, URL: discovery, Detail: "no jwks_uri"}
	}
	uri := *doc.JWKSURI
	if e := CheckURL(uri); e != nil {
		e.Detail = "jwks_uri: " + e.Detail
		return nil, e
	}
	body, err = f.get(ctx, uri, f.opts.MaxJWKSBytes)
	if err != nil {
		return nil, err
	}
	data, n, err := ParseJWKS(body, f.opts.MaxKeys)
	if err != nil {
		return nil, &Error{Class: ClassInvalidJWKS, URL: uri, Detail: err.Error()}
	}
	return &JWKS{URI: uri, Data: data, Keys: n}, nil
}

// get reads one 200 response body of at most limit bytes.
func (f *Fetcher) get(ctx context.Context, u string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, &Error{Class: ClassNotHTTPS, URL: u, Detail: "not a URL"}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, classify(u, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, &Error{Class: ClassHTTPStatus, URL: u, Detail: fmt.Sprintf("HTTP %d", resp.StatusCode)}
	}
	if resp.ContentLength > limit {
		return nil, &Error{Class: ClassTooLarge, URL: u, Detail: fmt.Sprintf("body of %d bytes is over the %d-byte limit", resp.ContentLength, limit)}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, classify(u, err)
	}
	if int64(len(body)) > limit {
		return nil, &Error{Class: ClassTooLarge, URL: u, Detail: fmt.Sprintf("body is over the %d-byte limit", limit)}
	}
	return body, nil
}

// classify turns a transport error into an Error naming its class. The
// detail is the error's own text minus the URL (a net/http error never
// holds a response body).
func classify(u string, err error) *Error {
	var fe *Error
	if errors.As(err, &fe) {
		return fe
	}
	// The detail lands in a status a tenant reads: netguard.Describe's
	// coarse wording, never the resolved address, the dial error or what
	// the server wrote (docs/security.md § Status says what failed).
	var be *netguard.BlockedError
	var ne net.Error
	var ve *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	var rh tls.RecordHeaderError
	switch {
	case errors.As(err, &be):
		return &Error{Class: ClassBlockedAddress, URL: u, Detail: netguard.Describe(err)}
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return &Error{Class: ClassTimeout, URL: u, Detail: "no complete answer within the fetch timeout"}
	case errors.As(err, &ve) || errors.As(err, &ua) || errors.As(err, &he):
		return &Error{Class: ClassTLS, URL: u, Detail: netguard.Describe(err)}
	case errors.As(err, &rh):
		return &Error{Class: ClassTLS, URL: u, Detail: "the server does not speak TLS"}
	default:
		return &Error{Class: ClassConnection, URL: u, Detail: netguard.Describe(err)}
	}
}

// privateMembers are JWK members that carry private or symmetric key
// material: a published key set never holds them.
var privateMembers = []string{"d", "p", "q", "dp", "dq", "qi", "oth", "k"}

// ParseJWKS validates a JWKS document and returns it as the Secret stores
// it ({"keys":[...]}, each key compacted) with its number of keys. It
// refuses a document that is not a JSON object with a keys array of 1 to
// maxKeys keys, a key without kty, an RSA key without n and e, and a key
// with private key material. Errors never quote the document.
func ParseJWKS(body []byte, maxKeys int) ([]byte, int, error) {
	var doc struct {
		Keys *[]json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, 0, errors.New("not a JSON object")
	}
	if doc.Keys == nil {
		return nil, 0, errors.New("no keys array")
	}
	keys := *doc.Keys
	switch {
	case len(keys) == 0:
		return nil, 0, errors.New("the keys array is empty")
	case len(keys) > maxKeys:
		return nil, 0, fmt.Errorf("%d keys, more than the %d allowed", len(keys), maxKeys)
	}
	out := make([]json.RawMessage, 0, len(keys))
	for i, raw := range keys {
		var k map[string]json.RawMessage
		if err := json.Unmarshal(raw, &k); err != nil {
			return nil, 0, fmt.Errorf("keys[%d] is not a JSON object", i)
		}
		var kty string
		if err := json.Unmarshal(k["kty"], &kty); err != nil || kty == "" {
			return nil, 0, fmt.Errorf("keys[%d] has no kty", i)
		}
		for _, m := range privateMembers {
			if _, ok := k[m]; ok {
				return nil, 0, fmt.Errorf("keys[%d] carries private or symmetric key material (%q)", i, m)
			}
		}
		if kty == "RSA" {
			var n, e string
			if json.Unmarshal(k["n"], &n) != nil || json.Unmarshal(k["e"], &e) != nil || n == "" || e == "" {
				return nil, 0, fmt.Errorf("RSA keys[%d] has no n or e", i)
			}
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return nil, 0, fmt.Errorf("keys[%d] is not valid JSON", i)
		}
		out = append(out, buf.Bytes())
	}
	data, err := json.Marshal(struct {
		Keys []json.RawMessage `json:"keys"`
	}{out})
	if err != nil {
		return nil, 0, err
	}
	return data, len(out), nil
}
