package auth

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TokenType is the JOSE header typ every token must carry (RFC 7519 §5.1):
// what the dashboard's signer writes. Compared case-insensitively, and
// "application/jwt" is the same type (RFC 7515 §4.1.9). A token with
// another typ, or none, is not a JWT this operator was meant to read (a
// JWE, a JWS of another format, an explicitly typed token of another
// protocol such as at+jwt).
const TokenType = "JWT"

// tokenPolicy is what both kinds of token are checked against; the kinds
// differ in key set, audience, lifetime and claims.
type tokenPolicy struct {
	keys               KeySet
	issuer             string
	leeway             time.Duration
	maxLifetime        time.Duration
	defaultMaxLifetime time.Duration
	now                func() time.Time
}

// parse verifies a compact JWS token into claims: typ JWT, a kid present in
// the key set, an algorithm that key's type allows (pinned: never the
// token's choice), audience aud, an iat and an exp at most the maximum
// lifetime apart, an exp in the future, no nbf or iat in the future (with
// the leeway) and the configured issuer. Every failure wraps
// ErrUnauthenticated.
func (p tokenPolicy) parse(token, aud string, claims jwt.Claims) error {
	leeway := p.leeway
	if leeway == 0 {
		leeway = DefaultLeeway
	}
	maxLifetime := p.maxLifetime
	if maxLifetime <= 0 {
		maxLifetime = p.defaultMaxLifetime
	}
	opts := []jwt.ParserOption{
		jwt.WithValidMethods(allAlgorithms),
		jwt.WithAudience(aud),
		jwt.WithExpirationRequired(),
		jwt.WithLeeway(leeway),
		jwt.WithIssuedAt(),
	}
	if p.issuer != "" {
		opts = append(opts, jwt.WithIssuer(p.issuer))
	}
	if p.now != nil {
		opts = append(opts, jwt.WithTimeFunc(p.now))
	}
	_, err := jwt.NewParser(opts...).ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) {
		if err := checkType(t.Header["typ"]); err != nil {
			return nil, err
		}
		kid, _ := t.Header["kid"].(string)
		if kid == "" {
			return nil, errors.New("the token names no kid")
		}
		if p.keys == nil {
			return nil, errors.New("no trusted keys")
		}
		key, ok := p.keys.Key(kid)
		if !ok {
			return nil, fmt.Errorf("no trusted key has kid %q", kid)
		}
		if alg := t.Method.Alg(); !slices.Contains(key.Algorithms, alg) {
			return nil, fmt.Errorf("alg %s does not suit key %q (accepted: %v)", alg, kid, key.Algorithms)
		}
		return key.Public, nil
	})
	if err == nil {
		err = checkLifetime(claims, maxLifetime)
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnauthenticated, err)
	}
	return nil
}

// checkType accepts the header typ JWT (any case, with or without the
// application/ prefix) and nothing else, absent included.
func checkType(typ any) error {
	s, ok := typ.(string)
	if !ok || s == "" {
		return fmt.Errorf("the token's header has no typ (want %s)", TokenType)
	}
	if !strings.EqualFold(strings.TrimPrefix(strings.ToLower(s), "application/"), TokenType) {
		return fmt.Errorf("typ %q: want %s", s, TokenType)
	}
	return nil
}

// checkLifetime requires an iat (without one the lifetime is unbounded)
// and exp − iat at most max. exp is required by the parser.
func checkLifetime(claims jwt.Claims, max time.Duration) error {
	iat, err := claims.GetIssuedAt()
	if err != nil || iat == nil {
		return errors.New("the token has no iat: its lifetime cannot be bounded")
	}
	exp, err := claims.GetExpirationTime()
	if err != nil || exp == nil {
		return errors.New("the token has no exp")
	}
	if life := exp.Sub(iat.Time); life > max {
		return fmt.Errorf("lifetime (exp − iat) %s exceeds the %s allowed", life, max)
	}
	return nil
}
