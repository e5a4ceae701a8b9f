package auth_test

import (
	"crypto/x509"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/golang-jwt/jwt/v5"

	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/auth/authtest"
)

var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// signers: one per algorithm family, each under its own kid.
var signers = map[string]*authtest.Signer{}

func signer(alg string) *authtest.Signer {
	if s, ok := signers[alg]; ok {
		return s
	}
	s := authtest.MustSigner("k-"+strings.ToLower(alg), alg)
	signers[alg] = s
	return s
}

func keySet(t *testing.T, ss ...*authtest.Signer) auth.StaticKeys {
	t.Helper()
	data, err := authtest.JWKS(ss...)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := auth.ParseJWKS(data)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

func good() auth.Claims {
	return authtest.Claims("alice", "acme", "acme-ns", auth.RoleEditor, now)
}

func mint(t *testing.T, s *authtest.Signer, c jwt.Claims) string {
	t.Helper()
	tok, err := s.Mint(c)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestVerify(t *testing.T) {
	rs, ps, es, es384, ed := signer("RS256"), signer("PS256"), signer("ES256"), signer("ES384"), signer("EdDSA")
	keys := keySet(t, rs, ps, es, es384, ed)
	// An RSA key under an unpublished kid, and one that claims an EC key's kid.
	stranger := authtest.MustSigner("k-stranger", "RS256")
	impostor := authtest.MustSigner(es.KID, "RS256")

	rsaDER, err := x509.MarshalPKIXPublicKey(rs.Key.Public())
	if err != nil {
		t.Fatal(err)
	}
	hmacWithPublicKey := func() string {
		tok := jwt.NewWithClaims(jwt.SigningMethodHS256, good())
		tok.Header["kid"] = rs.KID
		s, err := tok.SignedString(rsaDER)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	noneAlg := func() string {
		tok := jwt.NewWithClaims(jwt.SigningMethodNone, good())
		tok.Header["kid"] = rs.KID
		s, err := tok.SignedString(jwt.UnsafeAllowNoneSignatureType)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	noKid := func() string {
		tok := jwt.NewWithClaims(jwt.SigningMethodES256, good())
		s, err := tok.SignedString(es.Key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tampered := func() string {
		// Another subject's payload under the original signature.
		a := strings.Split(mint(t, es, good()), ".")
		other := good()
		other.Subject = "mallory"
		b := strings.Split(mint(t, es, other), ".")
		return a[0] + "." + b[1] + "." + a[2]
	}
	with := func(f func(*auth.Claims)) auth.Claims {
		c := good()
		f(&c)
		return c
	}

	cases := []struct {
		name  string
		token string
		iss   string
		want  error // nil: verified
	}{
		{"RS256", mint(t, rs, good()), "", nil},
		{"PS256", mint(t, ps, good()), "", nil},
		{"ES256", mint(t, es, good()), "", nil},
		{"ES384", mint(t, es384, good()), "", nil},
		{"EdDSA", mint(t, ed, good()), "", nil},
		{"alg none", noneAlg(), "", auth.ErrUnauthenticated},
		{"HS256 keyed with the public key", hmacWithPublicKey(), "", auth.ErrUnauthenticated},
		{"RS256 under an EC key's kid", mint(t, impostor, good()), "", auth.ErrUnauthenticated},
		{"unknown kid", mint(t, stranger, good()), "", auth.ErrUnauthenticated},
		{"no kid", noKid(), "", auth.ErrUnauthenticated},
		{"tampered payload", tampered(), "", auth.ErrUnauthenticated},
		{"not a JWT", "not-a-token", "", auth.ErrUnauthenticated},
		{"empty", "", "", auth.ErrUnauthenticated},
		{"expired", mint(t, es, with(func(c *auth.Claims) { c.ExpiresAt = jwt.NewNumericDate(now.Add(-time.Minute)) })), "", auth.ErrUnauthenticated},
		{"expired within the leeway", mint(t, es, with(func(c *auth.Claims) { c.ExpiresAt = jwt.NewNumericDate(now.Add(-10 * time.Second)) })), "", nil},
		{"no exp", mint(t, es, with(func(c *auth.Claims) { c.ExpiresAt = nil })), "", auth.ErrUnauthenticated},
		{"nbf in the future", mint(t, es, with(func(c *auth.Claims) { c.NotBefore = jwt.NewNumericDate(now.Add(time.Minute)) })), "", auth.ErrUnauthenticated},
		{"nbf within the leeway", mint(t, es, with(func(c *auth.Claims) { c.NotBefore = jwt.NewNumericDate(now.Add(10 * time.Second)) })), "", nil},
		{"iat in the future", mint(t, es, with(func(c *auth.Claims) { c.IssuedAt = jwt.NewNumericDate(now.Add(time.Hour)) })), "", auth.ErrUnauthenticated},
		{"wrong audience", mint(t, es, with(func(c *auth.Claims) { c.Audience = jwt.ClaimStrings{"omnia-dashboard"} })), "", auth.ErrUnauthenticated},
		{"no audience", mint(t, es, with(func(c *auth.Claims) { c.Audience = nil })), "", auth.ErrUnauthenticated},
		{"audience among several", mint(t, es, with(func(c *auth.Claims) { c.Audience = jwt.ClaimStrings{"x", auth.Audience} })), "", nil},
		{"issuer required and matching", mint(t, es, with(func(c *auth.Claims) { c.Issuer = "https://dash" })), "https://dash", nil},
		{"issuer required, other", mint(t, es, with(func(c *auth.Claims) { c.Issuer = "https://evil" })), "https://dash", auth.ErrUnauthenticated},
		{"issuer required, absent", mint(t, es, good()), "https://dash", auth.ErrUnauthenticated},
		{"missing role", mint(t, es, with(func(c *auth.Claims) { c.Role = "" })), "", auth.ErrForbidden},
		{"unknown role", mint(t, es, with(func(c *auth.Claims) { c.Role = "superuser" })), "", auth.ErrForbidden},
		{"missing workspace", mint(t, es, with(func(c *auth.Claims) { c.Workspace = "" })), "", auth.ErrForbidden},
		{"missing namespace", mint(t, es, with(func(c *auth.Claims) { c.Namespace = "" })), "", auth.ErrForbidden},
		{"namespace not a DNS label", mint(t, es, with(func(c *auth.Claims) { c.Namespace = "../kube-system" })), "", auth.ErrForbidden},
		{"no subject is still a caller", mint(t, es, with(func(c *auth.Claims) { c.Subject = "" })), "", nil},
		// The JOSE header typ.
		{"typ jwt in lower case", mintHeader(t, es, good(), map[string]any{"typ": "jwt"}), "", nil},
		{"typ application/jwt", mintHeader(t, es, good(), map[string]any{"typ": "application/jwt"}), "", nil},
		{"no typ", mintHeader(t, es, good(), map[string]any{"typ": nil}), "", auth.ErrUnauthenticated},
		{"typ at+jwt (an OAuth access token)", mintHeader(t, es, good(), map[string]any{"typ": "at+jwt"}), "", auth.ErrUnauthenticated},
		{"typ not a string", mintHeader(t, es, good(), map[string]any{"typ": 7}), "", auth.ErrUnauthenticated},
		// The lifetime, exp − iat: at most an hour.
		{"lifetime at the maximum", mint(t, es, with(func(c *auth.Claims) { c.ExpiresAt = jwt.NewNumericDate(now.Add(auth.DefaultMaxTokenLifetime)) })), "", nil},
		{"lifetime over the maximum", mint(t, es, with(func(c *auth.Claims) {
			c.ExpiresAt = jwt.NewNumericDate(now.Add(auth.DefaultMaxTokenLifetime + time.Second))
		})), "", auth.ErrUnauthenticated},
		{"a year-long token", mint(t, es, with(func(c *auth.Claims) { c.ExpiresAt = jwt.NewNumericDate(now.Add(365 * 24 * time.Hour)) })), "", auth.ErrUnauthenticated},
		{"issued long ago, valid for long", mint(t, es, with(func(c *auth.Claims) { c.IssuedAt = jwt.NewNumericDate(now.Add(-24 * time.Hour)) })), "", auth.ErrUnauthenticated},
		{"no iat", mint(t, es, with(func(c *auth.Claims) { c.IssuedAt = nil })), "", auth.ErrUnauthenticated},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := &auth.Verifier{Keys: keys, Issuer: tc.iss, Now: func() time.Time { return now }}
			c, err := v.Verify(tc.token)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				if c.Workspace != "acme" || c.Namespace != "acme-ns" || c.Role != auth.RoleEditor {
					t.Fatalf("caller %+v", c)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Verify: %v, want %v", err, tc.want)
			}
			if other := map[error]error{auth.ErrUnauthenticated: auth.ErrForbidden, auth.ErrForbidden: auth.ErrUnauthenticated}[tc.want]; errors.Is(err, other) {
				t.Fatalf("Verify: %v is both", err)
			}
		})
	}
}

// mintHeader mints with header fields set or (nil) removed.
func mintHeader(t *testing.T, s *authtest.Signer, c jwt.Claims, header map[string]any) string {
	t.Helper()
	tok, err := s.MintWithHeader(c, header)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestMaxLifetime: Verifier.MaxLifetime lowers the bound.
func TestMaxLifetime(t *testing.T) {
	es := signer("ES256")
	v := &auth.Verifier{Keys: keySet(t, es), MaxLifetime: 10 * time.Minute, Now: func() time.Time { return now }}
	c := good()
	c.ExpiresAt = jwt.NewNumericDate(now.Add(10 * time.Minute))
	if _, err := v.Verify(mint(t, es, c)); err != nil {
		t.Errorf("10 minutes under a 10-minute bound: %v", err)
	}
	c.ExpiresAt = jwt.NewNumericDate(now.Add(11 * time.Minute))
	if _, err := v.Verify(mint(t, es, c)); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("11 minutes under a 10-minute bound: %v, want ErrUnauthenticated", err)
	}
}

func TestAuthorize(t *testing.T) {
	cases := []struct {
		role      auth.Role
		workspace string
		min       auth.Role
		ok        bool
	}{
		{auth.RoleViewer, "acme", auth.RoleViewer, true},
		{auth.RoleViewer, "acme", auth.RoleEditor, false},
		{auth.RoleEditor, "acme", auth.RoleEditor, true},
		{auth.RoleAdmin, "acme", auth.RoleEditor, true},
		{auth.RoleOwner, "acme", auth.RoleEditor, true},
		{auth.RoleOwner, "other", auth.RoleViewer, false},
		{"", "acme", auth.RoleViewer, false},
		{"root", "acme", auth.RoleViewer, false},
	}
	for _, tc := range cases {
		c := auth.Caller{Workspace: "acme", Namespace: "acme-ns", Role: tc.role}
		err := c.Authorize(tc.workspace, tc.min)
		if (err == nil) != tc.ok {
			t.Errorf("role %q in %s, min %s: %v, want ok=%v", tc.role, tc.workspace, tc.min, err, tc.ok)
		}
		if err != nil && !errors.Is(err, auth.ErrForbidden) {
			t.Errorf("role %q: %v is not ErrForbidden", tc.role, err)
		}
	}
}

func TestParseJWKS(t *testing.T) {
	es := signer("ES256")
	pub := func(k jose.JSONWebKey) jose.JSONWebKey { return k }
	cases := []struct {
		name string
		keys []jose.JSONWebKey
		want string // error substring; "" accepted
	}{
		{"public EC key", []jose.JSONWebKey{pub(jose.JSONWebKey{Key: es.Key.Public(), KeyID: "a", Use: "sig"})}, ""},
		{"alg narrows", []jose.JSONWebKey{{Key: signer("RS256").Key.Public(), KeyID: "a", Algorithm: "PS256"}}, ""},
		{"alg of another family", []jose.JSONWebKey{{Key: es.Key.Public(), KeyID: "a", Algorithm: "RS256"}}, "does not suit"},
		{"no kid", []jose.JSONWebKey{{Key: es.Key.Public()}}, "no kid"},
		{"duplicate kid", []jose.JSONWebKey{{Key: es.Key.Public(), KeyID: "a"}, {Key: signer("EdDSA").Key.Public(), KeyID: "a"}}, "duplicate kid"},
		{"private key", []jose.JSONWebKey{{Key: es.Key, KeyID: "a"}}, "private or symmetric"},
		{"symmetric key", []jose.JSONWebKey{{Key: []byte("0123456789abcdef0123456789abcdef"), KeyID: "a"}}, "private or symmetric"},
		{"encryption keys only", []jose.JSONWebKey{{Key: es.Key.Public(), KeyID: "a", Use: "enc"}}, "no signing key"},
		{"empty", nil, "no signing key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data, err := json.Marshal(jose.JSONWebKeySet{Keys: tc.keys})
			if err != nil {
				t.Fatal(err)
			}
			keys, err := auth.ParseJWKS(data)
			if tc.want == "" {
				if err != nil || len(keys) != 1 {
					t.Fatalf("ParseJWKS: %v (%d keys)", err, len(keys))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ParseJWKS: %v, want %q", err, tc.want)
			}
		})
	}
	if k, err := auth.ParseJWKS([]byte(`{"keys":[{"kty":"RSA","kid":"short","n":"AQAB","e":"AQAB"}]}`)); err == nil {
		t.Fatalf("a 17-bit RSA key was accepted: %v", k)
	}
}

// TestFileKeysRotation: a rewritten JWKS file is trusted from the next
// lookup; a file that stops parsing keeps the last good keys in force.
func TestFileKeysRotation(t *testing.T) {
	oldKey, newKey := authtest.MustSigner("old", "ES256"), authtest.MustSigner("new", "EdDSA")
	path := filepath.Join(t.TempDir(), "jwks.json")
	if err := authtest.WriteJWKS(path, oldKey); err != nil {
		t.Fatal(err)
	}
	keys, err := auth.NewFileKeys(path)
	if err != nil {
		t.Fatal(err)
	}
	v := &auth.Verifier{Keys: keys, Now: func() time.Time { return now }}
	verify := func(s *authtest.Signer) error {
		_, err := v.Verify(mint(t, s, good()))
		return err
	}
	if err := verify(oldKey); err != nil {
		t.Fatal(err)
	}
	if err := verify(newKey); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Fatalf("new key before rotation: %v", err)
	}
	later := time.Now().Add(time.Hour)
	rewrite := func(data []byte) {
		t.Helper()
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		later = later.Add(time.Minute)
		if err := os.Chtimes(path, later, later); err != nil {
			t.Fatal(err)
		}
	}
	data, err := authtest.JWKS(newKey)
	if err != nil {
		t.Fatal(err)
	}
	rewrite(data)
	if err := verify(newKey); err != nil {
		t.Fatalf("new key after rotation: %v", err)
	}
	if err := verify(oldKey); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Fatalf("old key after rotation: %v", err)
	}
	rewrite([]byte("{not json"))
	if err := verify(newKey); err != nil {
		t.Fatalf("a broken file dropped the last good keys: %v", err)
	}
	if keys.LastError() == nil {
		t.Fatal("LastError is nil after a broken file")
	}
	if _, err := auth.NewFileKeys(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Fatal("a missing JWKS file was accepted")
	}
}
