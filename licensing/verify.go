package licensing

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// DefaultGrace is how long an expired licence still applies: 72 hours after
// "exp", with a Warning event while in grace, so a renewal delayed over a
// weekend does not switch enterprise features off. Beyond it the licence is
// refused and the open-core licence applies.
const DefaultGrace = 72 * time.Hour

// maxIssuedAtSkew tolerates an issuer clock slightly ahead of the cluster's.
const maxIssuedAtSkew = 5 * time.Minute

// Errors a refused licence wraps (besides ErrInvalidClaims). Their messages
// never quote the token.
var (
	ErrMalformed = errors.New("licence is not a well-formed JWT")
	// ErrAlgorithm: the token's "alg" is one no trusted key allows (none,
	// HMAC, or the wrong family for every key).
	ErrAlgorithm = errors.New("licence algorithm not allowed")
	// ErrSignature: no trusted key verifies the signature (another issuer's
	// key, or a tampered header or body).
	ErrSignature = errors.New("licence signature does not verify with any trusted key")
	ErrExpired   = errors.New("licence expired")
	ErrNotYet    = errors.New("licence issued in the future")
	ErrNoKeys    = errNoKeys
)

// Verifier checks licences against the trusted public keys.
type Verifier struct {
	keys  []PublicKey
	grace time.Duration
	now   func() time.Time
}

// NewVerifier trusts keys (none: every licence is refused). grace < 0 means
// DefaultGrace; now nil means time.Now.
func NewVerifier(keys []PublicKey, grace time.Duration, now func() time.Time) *Verifier {
	if grace < 0 {
		grace = DefaultGrace
	}
	if now == nil {
		now = time.Now
	}
	return &Verifier{keys: keys, grace: grace, now: now}
}

// Verified is an accepted licence.
type Verified struct {
	License License
	// InGrace: past "exp" but within the grace period.
	InGrace bool
	// Key is the Origin of the key that verified it.
	Key string
}

// Verify checks token's signature with the trusted keys, the algorithm
// against each key's pinned ones, the claims' shape and the expiry (with the
// grace period). Errors wrap the Err* values above and never quote the
// token.
func (v *Verifier) Verify(token string) (Verified, error) {
	if len(v.keys) == 0 {
		return Verified{}, ErrNoKeys
	}
	token = strings.TrimSpace(token)
	alg, err := headerAlgorithm(token)
	if err != nil {
		return Verified{}, err
	}
	var (
		claims  Claims
		matched bool
		lastErr error
		key     string
	)
	for _, k := range v.keys {
		if !contains(k.Algorithms, alg) {
			continue
		}
		matched = true
		var c Claims
		// Claims are validated below (expiry with grace); the parser checks
		// only the algorithm (pinned to this key) and the signature.
		p := jwt.NewParser(jwt.WithValidMethods(k.Algorithms), jwt.WithoutClaimsValidation(), jwt.WithStrictDecoding())
		if _, err := p.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return k.Key, nil }); err != nil {
			lastErr = err
			continue
		}
		claims, key = c, k.Origin
		lastErr = nil
		break
	}
	switch {
	case !matched:
		return Verified{}, fmt.Errorf("%w: %q is not allowed by any trusted key (allowed: %s)", ErrAlgorithm, alg, strings.Join(v.allowedAlgorithms(), ", "))
	case lastErr != nil:
		if errors.Is(lastErr, jwt.ErrTokenMalformed) {
			return Verified{}, fmt.Errorf("%w: %s", ErrMalformed, describe(lastErr))
		}
		return Verified{}, fmt.Errorf("%w: %s", ErrSignature, describe(lastErr))
	}
	if err := claims.validate(); err != nil {
		return Verified{}, err
	}
	now := v.now()
	if claims.IssuedAt.After(now.Add(maxIssuedAtSkew)) {
		return Verified{}, fmt.Errorf("%w: issued at %s, after now", ErrNotYet, claims.IssuedAt.UTC().Format(time.RFC3339))
	}
	exp := claims.ExpiresAt.Time
	if !now.Before(exp.Add(v.grace)) {
		return Verified{}, fmt.Errorf("%w at %s (grace of %s ended %s)", ErrExpired,
			exp.UTC().Format(time.RFC3339), v.grace, exp.Add(v.grace).UTC().Format(time.RFC3339))
	}
	return Verified{License: claims.License(), InGrace: !now.Before(exp), Key: key}, nil
}

// Grace is the verifier's grace period after expiry.
func (v *Verifier) Grace() time.Duration { return v.grace }

// headerAlgorithm reads the token's "alg" without trusting anything else,
// so a token can be matched to the keys that allow its algorithm.
func headerAlgorithm(token string) (string, error) {
	if strings.Count(token, ".") != 2 {
		return "", fmt.Errorf("%w: want three dot-separated parts", ErrMalformed)
	}
	t, _, err := jwt.NewParser().ParseUnverified(token, &Claims{})
	if err != nil {
		return "", fmt.Errorf("%w: %s", ErrMalformed, describe(err))
	}
	alg, _ := t.Header["alg"].(string)
	if alg == "" {
		return "", fmt.Errorf("%w: header has no \"alg\"", ErrMalformed)
	}
	return alg, nil
}

func (v *Verifier) allowedAlgorithms() []string {
	var out []string
	for _, k := range v.keys {
		for _, a := range k.Algorithms {
			if !contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// describe renders a jwt error without the token (the library's errors do
// not quote it; this keeps it that way should that change).
func describe(err error) string {
	msg := err.Error()
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return msg
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// DecodeUnverified reads a token's licence without checking its signature,
// for `omniactl license inspect` when no key is given: what it prints is
// then what the token claims, not what an operator would grant.
func DecodeUnverified(token string) (License, error) {
	var c Claims
	if _, _, err := jwt.NewParser().ParseUnverified(strings.TrimSpace(token), &c); err != nil {
		return License{}, fmt.Errorf("%w: %s", ErrMalformed, describe(err))
	}
	if err := c.validate(); err != nil {
		return License{}, err
	}
	return c.License(), nil
}
