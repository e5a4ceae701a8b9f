package auth_test

import (
	"errors"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/auth/authtest"
)

// TestVerifyDelegation: one accepted token, and each way a delegation token
// is refused — all 401s (ErrUnauthenticated), like the deploy API's.
func TestVerifyDelegation(t *testing.T) {
	es := signer("ES256")
	other := authtest.MustSigner("k-untrusted", "ES256")
	v := &auth.Verifier{Keys: keySet(t, es), Now: func() time.Time { return now }}
	good := func() auth.DelegationClaims {
		return authtest.DelegationClaims("alice", "acme-ns/support", "acme", now)
	}

	d, err := v.VerifyDelegation(mint(t, es, good()), "acme")
	if err != nil {
		t.Fatalf("good token refused: %v", err)
	}
	if d != (auth.Delegation{Subject: "alice", Agent: "acme-ns/support", Workspace: "acme"}) {
		t.Errorf("delegation = %+v", d)
	}

	cases := map[string]struct {
		token     func() string
		workspace string
	}{
		"another workspace's token": {func() string { return mint(t, es, good()) }, "globex"},
		"a deploy API token (audience omnia-operator)": {func() string {
			return mint(t, es, authtest.Claims("alice", "acme", "acme-ns", auth.RoleViewer, now))
		}, "acme"},
		"expired": {func() string {
			c := good()
			c.ExpiresAt = jwt.NewNumericDate(now.Add(-time.Hour))
			return mint(t, es, c)
		}, "acme"},
		"no exp": {func() string {
			c := good()
			c.ExpiresAt = nil
			return mint(t, es, c)
		}, "acme"},
		"untrusted key": {func() string { return mint(t, other, good()) }, "acme"},
		"alg none": {func() string {
			tok := jwt.NewWithClaims(jwt.SigningMethodNone, good())
			tok.Header["kid"] = es.KID
			s, err := tok.SignedString(jwt.UnsafeAllowNoneSignatureType)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}, "acme"},
		"empty workspace": {func() string { return mint(t, es, good()) }, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := v.VerifyDelegation(c.token(), c.workspace)
			if !errors.Is(err, auth.ErrUnauthenticated) {
				t.Errorf("err = %v, want ErrUnauthenticated", err)
			}
		})
	}
}
