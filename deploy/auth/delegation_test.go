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
	v := &auth.DelegationVerifier{Keys: keySet(t, es), Now: func() time.Time { return now }}
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
		"empty workspace":     {func() string { return mint(t, es, good()) }, ""},
		"no typ":              {func() string { return mintHeader(t, es, good(), map[string]any{"typ": nil}) }, "acme"},
		"typ of another kind": {func() string { return mintHeader(t, es, good(), map[string]any{"typ": "at+jwt"}) }, "acme"},
		"lifetime over five minutes": {func() string {
			c := good()
			c.ExpiresAt = jwt.NewNumericDate(now.Add(auth.DefaultMaxDelegationLifetime + time.Second))
			return mint(t, es, c)
		}, "acme"},
		"an hour-long token, as a deploy token may be": {func() string {
			c := good()
			c.ExpiresAt = jwt.NewNumericDate(now.Add(time.Hour))
			return mint(t, es, c)
		}, "acme"},
		"no iat": {func() string {
			c := good()
			c.IssuedAt = nil
			return mint(t, es, c)
		}, "acme"},
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

// TestTokenKindsHaveSeparateKeys: a key of the deploy
// tokens' set never verifies a delegation token and a key of the
// delegation tokens' set never verifies a deploy token, whatever the
// token's audience and claims say.
func TestTokenKindsHaveSeparateKeys(t *testing.T) {
	deployKey, delegationKey := authtest.MustSigner("dashboard", "ES256"), authtest.MustSigner("runtime", "ES256")
	deployV := &auth.Verifier{Keys: keySet(t, deployKey), Now: func() time.Time { return now }}
	delegationV := &auth.DelegationVerifier{Keys: keySet(t, delegationKey), Now: func() time.Time { return now }}
	deployClaims := authtest.Claims("alice", "acme", "acme-ns", auth.RoleOwner, now)
	delegationClaims := authtest.DelegationClaims("alice", "acme-ns/support", "acme", now)

	if _, err := deployV.Verify(mint(t, deployKey, deployClaims)); err != nil {
		t.Fatalf("a deploy token signed by a deploy key: %v", err)
	}
	if _, err := delegationV.VerifyDelegation(mint(t, delegationKey, delegationClaims), "acme"); err != nil {
		t.Fatalf("a delegation token signed by a delegation key: %v", err)
	}
	// Deploy claims signed with the delegation key (whoever holds it cannot
	// mint deploy tokens), and the reverse.
	if _, err := deployV.Verify(mint(t, delegationKey, deployClaims)); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("deploy claims signed by a delegation key: %v, want ErrUnauthenticated", err)
	}
	if _, err := delegationV.VerifyDelegation(mint(t, deployKey, delegationClaims), "acme"); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("delegation claims signed by a deploy key: %v, want ErrUnauthenticated", err)
	}
}
