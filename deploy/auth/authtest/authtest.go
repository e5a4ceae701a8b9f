// Package authtest mints deploy API tokens for tests and local
// development: signing keys of each family, the JWKS that publishes them,
// and signed tokens with chosen claims. Production code never mints.
package authtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/golang-jwt/jwt/v5"

	"github.com/altairalabs/omnia/deploy/auth"
)

// Signer is a private signing key with its kid and algorithm.
type Signer struct {
	KID    string
	Alg    string
	Key    crypto.Signer
	method jwt.SigningMethod
}

// NewSigner generates a key for alg: RS256/384/512 and PS256/384/512 (RSA
// 2048), ES256 (P-256), ES384 (P-384), ES512 (P-521) or EdDSA (Ed25519).
func NewSigner(kid, alg string) (*Signer, error) {
	method := jwt.GetSigningMethod(alg)
	if method == nil {
		return nil, fmt.Errorf("authtest: unknown alg %q", alg)
	}
	var (
		key crypto.Signer
		err error
	)
	switch alg {
	case "RS256", "RS384", "RS512", "PS256", "PS384", "PS512":
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	case "ES256":
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "ES384":
		key, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case "ES512":
		key, err = ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	case "EdDSA":
		_, key, err = ed25519.GenerateKey(rand.Reader)
	default:
		return nil, fmt.Errorf("authtest: alg %q is not an asymmetric signature", alg)
	}
	if err != nil {
		return nil, err
	}
	return &Signer{KID: kid, Alg: alg, Key: key, method: method}, nil
}

// SignerFromKey wraps an existing private key (e.g. one kept on disk by
// `make run`) as a Signer for alg.
func SignerFromKey(kid, alg string, key crypto.Signer) (*Signer, error) {
	method := jwt.GetSigningMethod(alg)
	if method == nil {
		return nil, fmt.Errorf("authtest: unknown alg %q", alg)
	}
	return &Signer{KID: kid, Alg: alg, Key: key, method: method}, nil
}

// LoadOrCreateES256 loads an ES256 signer's P-256 key from a PKCS #8 PEM
// file, creating the file (0600) with a new key when it does not exist.
// `make run` keeps its development deploy API key this way.
func LoadOrCreateES256(path, kid string) (*Signer, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
			return nil, err
		}
		return SignerFromKey(kid, "ES256", key)
	}
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("%s: no PEM block", path)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ec, ok := k.(*ecdsa.PrivateKey)
	if !ok || ec.Curve != elliptic.P256() {
		return nil, fmt.Errorf("%s: not a P-256 key", path)
	}
	return SignerFromKey(kid, "ES256", ec)
}

// MustSigner is NewSigner that panics.
func MustSigner(kid, alg string) *Signer {
	s, err := NewSigner(kid, alg)
	if err != nil {
		panic(err)
	}
	return s
}

// Claims builds the claims of a token valid from now for an hour (the
// longest a deploy API token may live, auth.DefaultMaxTokenLifetime), with
// audience omnia-operator.
func Claims(subject, workspace, namespace string, role auth.Role, now time.Time) auth.Claims {
	return auth.Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   subject,
			Audience:  jwt.ClaimStrings{auth.Audience},
			IssuedAt:  jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour)),
		},
		Workspace: workspace,
		Namespace: namespace,
		Role:      role,
	}
}

// Mint signs claims (any jwt.Claims, so a test can send odd shapes) with
// the signer's key and kid, and the header typ JWT.
func (s *Signer) Mint(claims jwt.Claims) (string, error) {
	return s.MintWithHeader(claims, nil)
}

// MintWithHeader is Mint with header fields set (typ, cty, …) or, for a
// nil value, removed.
func (s *Signer) MintWithHeader(claims jwt.Claims, header map[string]any) (string, error) {
	t := jwt.NewWithClaims(s.method, claims)
	t.Header["kid"] = s.KID
	for k, v := range header {
		if v == nil {
			delete(t.Header, k)
		} else {
			t.Header[k] = v
		}
	}
	return t.SignedString(s.Key)
}

// JWKS is the JSON Web Key Set publishing the signers' public keys, each
// with its kid, use sig and alg.
func JWKS(signers ...*Signer) ([]byte, error) {
	set := jose.JSONWebKeySet{}
	for _, s := range signers {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: s.Key.Public(), KeyID: s.KID, Algorithm: s.Alg, Use: "sig"})
	}
	return json.Marshal(set)
}

// WriteJWKS writes the signers' JWKS to path (0600).
func WriteJWKS(path string, signers ...*Signer) error {
	data, err := JWKS(signers...)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// DelegationClaims builds the claims of a catalog delegation token for
// workspace, valid from now for five minutes (the longest a delegation
// token may live, auth.DefaultMaxDelegationLifetime).
func DelegationClaims(subject, agent, workspace string, now time.Time) auth.DelegationClaims {
	return auth.DelegationClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   subject,
			Audience:  jwt.ClaimStrings{auth.WorkspaceAudience(workspace)},
			IssuedAt:  jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(5 * time.Minute)),
		},
		Agent: agent,
	}
}
