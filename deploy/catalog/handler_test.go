package catalog

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/auth/authtest"
	"github.com/altairalabs/omnia/deploy/server"
)

// unreadReader fails the test when read: what is refused before the
// cache is read (authentication, parameters) must not read it. Reading a
// real cache is the e2e suite's (test/e2e/catalog).
type unreadReader struct{ t *testing.T }

func (r unreadReader) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	r.t.Error("the cache was read")
	return nil
}

func (r unreadReader) List(context.Context, client.ObjectList, ...client.ListOption) error {
	r.t.Error("the cache was read")
	return nil
}

// TestErrorBodyIsTheDeployAPIs pins the catalog's error body to the deploy
// API's.
func TestErrorBodyIsTheDeployAPIs(t *testing.T) {
	a, _ := json.Marshal(ErrorBody{Error: "x"})
	b, _ := json.Marshal(server.ErrorBody{Error: "x"})
	if string(a) != string(b) {
		t.Errorf("catalog %s, deploy API %s", a, b)
	}
	if RoutePrefix != server.CatalogPrefix {
		t.Errorf("the catalog's routes (%s) are not where the deploy API mounts it (%s)", RoutePrefix, server.CatalogPrefix)
	}
}

// TestHandlerRefusesBeforeReading: 401 (no token, another workspace's, a
// deploy API token), 400 (a bad parameter), 404/405 (no such route or
// method) are answered without reading the cache, in the error body.
func TestHandlerRefusesBeforeReading(t *testing.T) {
	s := authtest.MustSigner("k", "ES256")
	data, err := authtest.JWKS(s)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := auth.ParseJWKS(data)
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHandler(Options{Verifier: &auth.DelegationVerifier{Keys: keys}, Reader: unreadReader{t}})
	if err != nil {
		t.Fatal(err)
	}
	tok := func(ws string) string {
		v, err := s.Mint(authtest.DelegationClaims("alice", "ns/agent", ws, time.Now()))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	deployTok, err := s.Mint(authtest.Claims("alice", "acme", "acme-ns", auth.RoleOwner, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, method, path, token string
		want                      int
	}{
		{"no token", http.MethodGet, "/api/v1/workspaces/acme/catalog/overview", "", http.StatusUnauthorized},
		{"another workspace's token", http.MethodGet, "/api/v1/workspaces/acme/catalog/overview", tok("globex"), http.StatusUnauthorized},
		{"a deploy API token", http.MethodGet, "/api/v1/workspaces/acme/catalog/search", deployTok, http.StatusUnauthorized},
		{"an unknown kind", http.MethodGet, "/api/v1/workspaces/acme/catalog/search?kinds=widget", tok("acme"), http.StatusBadRequest},
		{"21 ids", http.MethodGet, "/api/v1/workspaces/acme/catalog/get?ids=a:1,a:2,a:3,a:4,a:5,a:6,a:7,a:8,a:9,a:10,a:11,a:12,a:13,a:14,a:15,a:16,a:17,a:18,a:19,a:20,a:21", tok("acme"), http.StatusBadRequest},
		{"no such route", http.MethodGet, "/api/v1/workspaces/acme/catalog/list", tok("acme"), http.StatusNotFound},
		{"POST", http.MethodPost, "/api/v1/workspaces/acme/catalog/search", tok("acme"), http.StatusMethodNotAllowed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(c.method, c.path, nil)
			if c.token != "" {
				req.Header.Set("Authorization", "Bearer "+c.token)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			var body map[string]string
			if rec.Code != c.want || json.Unmarshal(rec.Body.Bytes(), &body) != nil || body["error"] == "" || len(body) != 1 {
				t.Errorf("%d %s, want %d with {\"error\": ...}", rec.Code, rec.Body, c.want)
			}
			if c.want == http.StatusUnauthorized && rec.Header().Get("WWW-Authenticate") == "" {
				t.Error("a 401 without WWW-Authenticate")
			}
		})
	}
}
