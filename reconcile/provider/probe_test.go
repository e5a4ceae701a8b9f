package provider

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

const (
	goodKey = "sk-test-accepted-7f3c9a"
	badKey  = "sk-test-rejected-1b2d4e"
	denyKey = "sk-test-forbidden-5e6f7a"
)

// vendorServer is a local stand-in for the vendors: it accepts goodKey,
// answers 403 to denyKey and 401 to anything else, on each vendor's models
// path and header. Any other path answers 404 (reachable).
func vendorServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(vendorHandler())
	t.Cleanup(srv.Close)
	return srv
}

func vendorHandler() http.Handler {
	mux := http.NewServeMux()
	verdict := func(w http.ResponseWriter, key string) {
		switch key {
		case goodKey:
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"data":[]}`))
		case denyKey:
			w.WriteHeader(http.StatusForbidden)
		default:
			// Like some vendors, echo part of the key: the controller must
			// never quote the body.
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"invalid x-api-key ` + key + `"}`))
		}
	}
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Header.Get("x-api-key") != "":
			if r.Header.Get("anthropic-version") == "" {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			verdict(w, r.Header.Get("x-api-key"))
		case strings.HasPrefix(r.Header.Get("Authorization"), "Bearer "):
			verdict(w, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		default:
			w.WriteHeader(http.StatusUnauthorized)
		}
	})
	mux.HandleFunc("GET /v1beta/models", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("key") != "" {
			w.WriteHeader(http.StatusBadRequest) // the key must not travel in the URL
			return
		}
		verdict(w, r.Header.Get("x-goog-api-key"))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) })
	return mux
}

// closingServer accepts connections and closes them without a response.
func closingServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 1024)
			_, _ = c.Read(buf)
			_ = c.Close()
		}
	}()
	return "http://" + l.Addr().String()
}

// hangingServer answers nothing until the test ends.
func hangingServer(t *testing.T) string {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv.URL
}

// refusedURL is an address nothing listens on.
func refusedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "http://" + addr
}

func TestCheckCredential(t *testing.T) {
	srv := vendorServer(t)
	pr := NewProber(nil, 2*time.Second)
	for _, typ := range []v1alpha1.ProviderType{v1alpha1.ProviderTypeClaude, v1alpha1.ProviderTypeOpenAI, v1alpha1.ProviderTypeGemini} {
		for _, tt := range []struct {
			key  string
			want int
		}{
			{goodKey, 200},
			{goodKey + "\n", 200}, // trimmed
			{badKey, 401},
			{denyKey, 403},
		} {
			t.Run(string(typ)+"/"+strings.TrimSpace(tt.key), func(t *testing.T) {
				p := &v1alpha1.Provider{Spec: v1alpha1.ProviderSpec{Type: typ, BaseURL: srv.URL}}
				probe, base, ok := ProbeFor(p, DefaultEndpoints)
				if !ok {
					t.Fatal("no probe")
				}
				out := pr.CheckCredential(context.Background(), probe, base, nil, []byte(tt.key))
				if out.StatusCode != tt.want {
					t.Fatalf("status %d (%s), want %d", out.StatusCode, out.Detail, tt.want)
				}
				if strings.Contains(out.Detail, strings.TrimSpace(tt.key)) {
					t.Fatalf("detail quotes the key: %s", out.Detail)
				}
			})
		}
	}
}

func TestCheckCredentialOpenAIBaseWithVersion(t *testing.T) {
	srv := vendorServer(t)
	pr := NewProber(nil, 2*time.Second)
	p := &v1alpha1.Provider{Spec: v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeOpenAI, BaseURL: srv.URL + "/v1/"}}
	probe, base, _ := ProbeFor(p, DefaultEndpoints)
	out := pr.CheckCredential(context.Background(), probe, base, nil, []byte(goodKey))
	if out.StatusCode != 200 || !strings.Contains(out.Detail, srv.URL+"/v1/models ") {
		t.Fatalf("got %+v", out)
	}
}

func TestProbeURL(t *testing.T) {
	tests := []struct {
		typ  v1alpha1.ProviderType
		base string
		want string
	}{
		{v1alpha1.ProviderTypeClaude, "https://api.anthropic.com", "https://api.anthropic.com/v1/models"},
		{v1alpha1.ProviderTypeClaude, "https://proxy.internal/anthropic/", "https://proxy.internal/anthropic/v1/models"},
		{v1alpha1.ProviderTypeOpenAI, "https://api.openai.com/v1", "https://api.openai.com/v1/models"},
		{v1alpha1.ProviderTypeOpenAI, "https://openrouter.ai/api/v1", "https://openrouter.ai/api/v1/models"},
		{v1alpha1.ProviderTypeOpenAI, "http://vllm:8000", "http://vllm:8000/v1/models"},
		{v1alpha1.ProviderTypeGemini, "https://generativelanguage.googleapis.com", "https://generativelanguage.googleapis.com/v1beta/models"},
		{v1alpha1.ProviderTypeGemini, "https://generativelanguage.googleapis.com/v1", "https://generativelanguage.googleapis.com/v1/models"},
	}
	for _, tt := range tests {
		got, err := probeURL(tt.base, CredentialProbes[tt.typ])
		if err != nil || got != tt.want {
			t.Errorf("probeURL(%s, %q) = %q, %v; want %q", tt.typ, tt.base, got, err, tt.want)
		}
	}
	if _, err := probeURL("api.anthropic.com", CredentialProbes[v1alpha1.ProviderTypeClaude]); err == nil {
		t.Error("a base URL without a scheme must be refused")
	}
}

func TestCheckEndpoint(t *testing.T) {
	srv := vendorServer(t)
	dnsFail := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return nil, &net.DNSError{Err: "no such host", Name: "vendor.invalid", IsNotFound: true}
	}}}
	tests := []struct {
		name       string
		client     *http.Client
		endpoint   string
		wantStatus int
		wantReason string
	}{
		{name: "any HTTP response is reachable (404)", endpoint: srv.URL, wantStatus: 404},
		{name: "connection refused", endpoint: refusedURL(t), wantReason: v1alpha1.ProviderReasonConnectionFailed},
		{name: "connection closed without a response", endpoint: closingServer(t), wantReason: v1alpha1.ProviderReasonConnectionFailed},
		{name: "hangs past the timeout", endpoint: hangingServer(t), wantReason: v1alpha1.ProviderReasonProbeTimeout},
		{name: "DNS failure", client: dnsFail, endpoint: "http://vendor.invalid", wantReason: v1alpha1.ProviderReasonDNSLookupFailed},
		{name: "not a URL", endpoint: "api.anthropic.com", wantReason: v1alpha1.ProviderReasonInvalidEndpoint},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := NewProber(tt.client, 300*time.Millisecond).CheckEndpoint(context.Background(), tt.endpoint, nil)
			if out.StatusCode != tt.wantStatus || out.Failure != tt.wantReason {
				t.Fatalf("got %+v, want status %d reason %q", out, tt.wantStatus, tt.wantReason)
			}
			if out.Detail == "" {
				t.Fatal("no detail")
			}
		})
	}
}

func TestProbeDoesNotFollowRedirects(t *testing.T) {
	var hit atomic.Bool
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hit.Store(true) }))
	defer elsewhere.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusFound)
	}))
	defer redirector.Close()

	pr := NewProber(&http.Client{}, time.Second)
	out := pr.CheckCredential(context.Background(), CredentialProbes[v1alpha1.ProviderTypeClaude], redirector.URL, nil, []byte(goodKey))
	if out.StatusCode != http.StatusFound || hit.Load() {
		t.Fatalf("redirect followed: %+v, hit=%v", out, hit.Load())
	}
}

func TestProbeSendsCustomHeadersButNotOverAuth(t *testing.T) {
	var gotTitle, gotKey string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotTitle, gotKey = r.Header.Get("X-Title"), r.Header.Get("x-api-key")
	}))
	defer srv.Close()
	pr := NewProber(nil, time.Second)
	pr.CheckCredential(context.Background(), CredentialProbes[v1alpha1.ProviderTypeClaude], srv.URL,
		map[string]string{"X-Title": "omnia", "x-api-key": "from-spec"}, []byte(goodKey))
	if gotTitle != "omnia" || gotKey != goodKey {
		t.Fatalf("X-Title=%q x-api-key=%q", gotTitle, gotKey)
	}
}

func TestEndpointFor(t *testing.T) {
	tests := []struct {
		name string
		spec v1alpha1.ProviderSpec
		want string
	}{
		{"claude default", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeClaude}, DefaultEndpoints[v1alpha1.ProviderTypeClaude]},
		{"baseURL wins", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeOpenAI, BaseURL: "http://gw/v1"}, "http://gw/v1"},
		{"mock", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeMock, BaseURL: "http://x"}, ""},
		{"platform-hosted", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeClaude, Platform: &v1alpha1.ProviderPlatform{Type: "bedrock"}}, ""},
		{"tts role", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeOpenAI, Role: v1alpha1.ProviderRoleTTS}, ""},
		{"stt role", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeOpenAI, Role: v1alpha1.ProviderRoleSTT}, ""},
		{"image role", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeImagen, Role: v1alpha1.ProviderRoleImage}, ""},
		{"vllm without baseURL", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeVLLM}, ""},
		{"ollama without baseURL", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeOllama}, ""},
		{"vllm with baseURL", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeVLLM, BaseURL: "http://vllm:8000"}, "http://vllm:8000"},
		{"voyageai embedding", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeVoyageAI, Role: v1alpha1.ProviderRoleEmbedding}, DefaultEndpoints[v1alpha1.ProviderTypeVoyageAI]},
	}
	for _, tt := range tests {
		got, ok := EndpointFor(&v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: tt.spec}, DefaultEndpoints)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("%s: EndpointFor = %q, %v; want %q", tt.name, got, ok, tt.want)
		}
	}
}
