package oidcfetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/altairalabs/omnia/reconcile/netguard"
)

const testJWKS = `{"keys":[{"kty":"RSA","kid":"k1","use":"sig","alg":"RS256","n":"sXchw","e":"AQAB"}]}`

// issuer is a local TLS issuer: its discovery document points at its own
// /jwks unless jwksURI says otherwise; jwks is served there.
type issuer struct {
	srv      *httptest.Server
	jwksURI  string
	jwks     string
	handlers map[string]http.HandlerFunc
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	is := &issuer{jwks: testJWKS, handlers: map[string]http.HandlerFunc{}}
	is.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := is.handlers[r.URL.Path]; ok {
			h(w, r)
			return
		}
		switch r.URL.Path {
		case DiscoveryPath:
			uri := is.jwksURI
			if uri == "" {
				uri = is.srv.URL + "/jwks"
			}
			_, _ = w.Write([]byte(`{"issuer":"` + is.srv.URL + `","jwks_uri":"` + uri + `"}`))
		case "/jwks":
			_, _ = w.Write([]byte(is.jwks))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(is.srv.Close)
	return is
}

func (is *issuer) fetcher(opts Options) *Fetcher {
	opts.RootCAs = is.srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	return New(opts)
}

func wantClass(t *testing.T, err error, class Class) *Error {
	t.Helper()
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatalf("error = %v, want an *Error of class %s", err, class)
	}
	if fe.Class != class {
		t.Fatalf("class = %s (%v), want %s", fe.Class, fe, class)
	}
	return fe
}

func TestFetch(t *testing.T) {
	is := newIssuer(t)
	got, err := is.fetcher(Options{}).Fetch(context.Background(), is.srv.URL+"//")
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if got.URI != is.srv.URL+"/jwks" || got.Keys != 1 || string(got.Data) != testJWKS {
		t.Errorf("JWKS = %+v %s", got, got.Data)
	}
}

func TestFetchRefusals(t *testing.T) {
	big := `{"keys":[` + strings.Repeat(`{"kty":"EC","crv":"P-256","x":"a","y":"b"},`, 40) + `{"kty":"EC","crv":"P-256","x":"a","y":"b"}]}`
	for _, tc := range []struct {
		name    string
		setup   func(is *issuer) (issuerURL string)
		opts    Options
		class   Class
		urlPart string
	}{
		{name: "http issuer", setup: func(is *issuer) string { return strings.Replace(is.srv.URL, "https://", "http://", 1) }, class: ClassNotHTTPS},
		{name: "http jwks_uri", setup: func(is *issuer) string {
			is.jwksURI = strings.Replace(is.srv.URL, "https://", "http://", 1) + "/jwks"
			return is.srv.URL
		}, class: ClassNotHTTPS, urlPart: "http://"},
		{name: "jwks_uri on the metadata address", setup: func(is *issuer) string {
			is.jwksURI = "https://169.254.169.254/jwks"
			return is.srv.URL
		}, class: ClassBlockedAddress, urlPart: "169.254.169.254"},
		{name: "discovery 404", setup: func(is *issuer) string { return is.srv.URL + "/nope" }, class: ClassHTTPStatus, urlPart: "/nope/.well-known"},
		{name: "discovery not JSON", setup: func(is *issuer) string {
			is.handlers[DiscoveryPath] = func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html>secret-body</html>")) }
			return is.srv.URL
		}, class: ClassBadDiscovery},
		{name: "discovery without jwks_uri", setup: func(is *issuer) string {
			is.handlers[DiscoveryPath] = func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"issuer":"x"}`)) }
			return is.srv.URL
		}, class: ClassBadDiscovery},
		{name: "oversized discovery document", setup: func(is *issuer) string {
			is.handlers[DiscoveryPath] = func(w http.ResponseWriter, _ *http.Request) {
				_, _ = w.Write([]byte(`{"jwks_uri":"` + is.srv.URL + `/jwks","pad":"` + strings.Repeat("x", 70<<10) + `"}`))
			}
			return is.srv.URL
		}, class: ClassTooLarge},
		{name: "oversized JWKS (streamed, no content length)", setup: func(is *issuer) string {
			is.handlers["/jwks"] = func(w http.ResponseWriter, _ *http.Request) {
				for range 20 {
					_, _ = w.Write([]byte(strings.Repeat(" ", 1<<10)))
					w.(http.Flusher).Flush()
				}
				_, _ = w.Write([]byte(testJWKS))
			}
			return is.srv.URL
		}, opts: Options{MaxJWKSBytes: 8 << 10}, class: ClassTooLarge, urlPart: "/jwks"},
		{name: "JWKS not JSON", setup: func(is *issuer) string { is.jwks = "nope"; return is.srv.URL }, class: ClassInvalidJWKS},
		{name: "JWKS without keys", setup: func(is *issuer) string { is.jwks = `{"other":[]}`; return is.srv.URL }, class: ClassInvalidJWKS},
		{name: "JWKS with an empty keys array", setup: func(is *issuer) string { is.jwks = `{"keys":[]}`; return is.srv.URL }, class: ClassInvalidJWKS},
		{name: "JWKS with too many keys", setup: func(is *issuer) string { is.jwks = big; return is.srv.URL }, opts: Options{MaxKeys: 40}, class: ClassInvalidJWKS},
		{name: "JWKS key without kty", setup: func(is *issuer) string { is.jwks = `{"keys":[{"kid":"a"}]}`; return is.srv.URL }, class: ClassInvalidJWKS},
		{name: "JWKS with a private key", setup: func(is *issuer) string {
			is.jwks = `{"keys":[{"kty":"RSA","n":"a","e":"AQAB","d":"private"}]}`
			return is.srv.URL
		}, class: ClassInvalidJWKS},
		{name: "RSA key without n", setup: func(is *issuer) string { is.jwks = `{"keys":[{"kty":"RSA","e":"AQAB"}]}`; return is.srv.URL }, class: ClassInvalidJWKS},
		{name: "redirect to http", setup: func(is *issuer) string {
			is.handlers["/jwks"] = func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, strings.Replace(is.srv.URL, "https://", "http://", 1)+"/jwks2", http.StatusFound)
			}
			return is.srv.URL
		}, class: ClassNotHTTPS, urlPart: "http://"},
		{name: "redirect to the metadata address", setup: func(is *issuer) string {
			is.handlers["/jwks"] = func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "https://169.254.169.254/latest/meta-data", http.StatusFound)
			}
			return is.srv.URL
		}, class: ClassBlockedAddress},
		{name: "redirect loop", setup: func(is *issuer) string {
			is.handlers["/jwks"] = func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/jwks", http.StatusFound) }
			return is.srv.URL
		}, class: ClassRedirect},
		{name: "slow server", setup: func(is *issuer) string {
			is.handlers["/jwks"] = func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
			return is.srv.URL
		}, opts: Options{Timeout: 300 * time.Millisecond}, class: ClassTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := newIssuer(t)
			u := tc.setup(is)
			_, err := is.fetcher(tc.opts).Fetch(context.Background(), u)
			fe := wantClass(t, err, tc.class)
			if tc.urlPart != "" && !strings.Contains(fe.URL, tc.urlPart) {
				t.Errorf("URL = %q, want it to contain %q", fe.URL, tc.urlPart)
			}
			if strings.Contains(err.Error(), "secret-body") || strings.Contains(err.Error(), "private") && tc.class != ClassInvalidJWKS {
				t.Errorf("error quotes the body: %v", err)
			}
		})
	}
}

func TestFetchUnknownAuthority(t *testing.T) {
	is := newIssuer(t)
	_, err := New(Options{}).Fetch(context.Background(), is.srv.URL)
	wantClass(t, err, ClassTLS)
}

// A link-local issuer and an http:// issuer are refused before any dial.
func TestRefusedWithoutDial(t *testing.T) {
	var dials atomic.Int32
	f := newFetcher(Options{}, func(context.Context, string, string) (net.Conn, error) {
		dials.Add(1)
		return nil, errors.New("dialled")
	})
	for issuer, class := range map[string]Class{
		"https://169.254.169.254":          ClassBlockedAddress,
		"https://169.254.169.254:443/x/":   ClassBlockedAddress,
		"https://[fe80::1]":                ClassBlockedAddress,
		"https://[::ffff:169.254.169.254]": ClassBlockedAddress,
		"http://id.example.com":            ClassNotHTTPS,
		"id.example.com":                   ClassNotHTTPS,
		"https://":                         ClassNotHTTPS,
	} {
		_, err := f.Fetch(context.Background(), issuer)
		wantClass(t, err, class)
	}
	if n := dials.Load(); n != 0 {
		t.Errorf("%d dials, want none", n)
	}
}

// A host name resolving to a blocked address is refused by the guarded
// dialer (after DNS, before connecting): its error is BlockedAddress; a
// net timeout is Timeout.
func TestClassify(t *testing.T) {
	blocked := &url.Error{Op: "Get", URL: "https://x", Err: &net.OpError{Op: "dial", Err: &netguard.BlockedError{Address: "169.254.169.254:443", Why: "link-local or cloud metadata"}}}
	if err := classify("https://x", blocked); err.Class != ClassBlockedAddress {
		t.Errorf("blocked dial class = %s", err.Class)
	}
	if err := classify("https://x", &netErr{}); err.Class != ClassTimeout {
		t.Errorf("net timeout class = %s", err.Class)
	}
}

type netErr struct{}

func (*netErr) Error() string   { return "i/o timeout" }
func (*netErr) Timeout() bool   { return true }
func (*netErr) Temporary() bool { return true }

func TestRootsWith(t *testing.T) {
	if _, err := RootsWith([]byte("not pem")); err == nil {
		t.Error("RootsWith(not pem): want an error")
	}
}

func TestParseJWKSDeterministic(t *testing.T) {
	a, n, err := ParseJWKS([]byte(`{ "keys" : [ { "kty" : "EC", "x":"a" } ], "extra": 1 }`), 10)
	if err != nil || n != 1 || string(a) != `{"keys":[{"kty":"EC","x":"a"}]}` {
		t.Errorf("ParseJWKS = %s, %d, %v", a, n, err)
	}
}

// What a failed fetch says is netguard.Describe's coarse wording: no
// resolved address, dial error text or certificate subject reaches the
// status a tenant reads.
func TestFetchFailureDetailIsCoarse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	_ = l.Close()
	is := newIssuer(t)
	tests := []struct {
		name   string
		issuer string
		opts   Options
		class  Class
		want   string
	}{
		{name: "nothing listening", issuer: "https://" + closed, class: ClassConnection, want: "the connection could not be made (connection refused)"},
		{name: "untrusted certificate", issuer: is.srv.URL, class: ClassTLS, want: "the server's TLS certificate is not trusted for this host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.opts).Fetch(context.Background(), tt.issuer)
			fe := wantClass(t, err, tt.class)
			if fe.Detail != tt.want {
				t.Errorf("detail %q, want %q", fe.Detail, tt.want)
			}
			if strings.Contains(fe.Detail, "127.0.0.1") || strings.Contains(fe.Detail, "dial tcp") || strings.Contains(fe.Detail, "x509") {
				t.Errorf("detail %q carries the raw error", fe.Detail)
			}
		})
	}
}
