package licensing

import (
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Claims is the payload of a licence JWT: "lid", "iat" and "exp", plus the
// licence body ("tier", "customer", "features", "limits"). See
// docs/licensing.md.
type Claims struct {
	LID       string           `json:"lid"`
	IssuedAt  *jwt.NumericDate `json:"iat"`
	ExpiresAt *jwt.NumericDate `json:"exp"`
	Tier      Tier             `json:"tier"`
	Customer  string           `json:"customer"`
	Features  []string         `json:"features,omitempty"`
	// Limits; absent means the open-core limits, a 0 inside means unlimited.
	Limits *Limits `json:"limits,omitempty"`
}

var _ jwt.Claims = (*Claims)(nil)

// The jwt.Claims methods. The licence carries no issuer, subject, audience
// or not-before; expiry is checked by Verifier (with its grace period).
func (c *Claims) GetExpirationTime() (*jwt.NumericDate, error) { return c.ExpiresAt, nil }
func (c *Claims) GetIssuedAt() (*jwt.NumericDate, error)       { return c.IssuedAt, nil }
func (c *Claims) GetNotBefore() (*jwt.NumericDate, error)      { return nil, nil }
func (c *Claims) GetIssuer() (string, error)                   { return "", nil }
func (c *Claims) GetSubject() (string, error)                  { return "", nil }
func (c *Claims) GetAudience() (jwt.ClaimStrings, error)       { return nil, nil }

// ErrInvalidClaims is wrapped by every error about the licence body.
var ErrInvalidClaims = errors.New("invalid licence claims")

// validate checks the body's shape: required claims present, known tier,
// limits not negative. It says which claim is wrong.
func (c *Claims) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidClaims, fmt.Sprintf(format, args...))
	}
	switch {
	case c.LID == "":
		return bad(`claim "lid" is missing`)
	case c.IssuedAt == nil:
		return bad(`claim "iat" is missing`)
	case c.ExpiresAt == nil:
		return bad(`claim "exp" is missing`)
	case !c.ExpiresAt.After(c.IssuedAt.Time):
		return bad(`claim "exp" is not after "iat"`)
	case c.Tier != TierOpenCore && c.Tier != TierEnterprise:
		return bad(`claim "tier" is %q, want %q or %q`, c.Tier, TierOpenCore, TierEnterprise)
	case c.Customer == "":
		return bad(`claim "customer" is missing`)
	}
	if c.Limits != nil {
		if c.Limits.MaxScenarios < 0 {
			return bad(`claim "limits.maxScenarios" is negative`)
		}
		if c.Limits.MaxWorkerReplicas < 0 {
			return bad(`claim "limits.maxWorkerReplicas" is negative`)
		}
	}
	return nil
}

// License is what the claims grant.
func (c *Claims) License() License {
	l := License{
		ID:       c.LID,
		Tier:     c.Tier,
		Customer: c.Customer,
		Features: map[string]bool{},
	}
	if c.IssuedAt != nil {
		l.IssuedAt = c.IssuedAt.Time.UTC()
	}
	if c.ExpiresAt != nil {
		l.ExpiresAt = c.ExpiresAt.Time.UTC()
	}
	for _, f := range c.Features {
		l.Features[f] = true
	}
	if c.Limits != nil {
		lim := *c.Limits
		l.Limits = &lim
	}
	return l
}

// NewClaims returns the claims of a licence issued at iat for validity.
func NewClaims(lid, customer string, tier Tier, features []string, limits *Limits, iat time.Time, validity time.Duration) Claims {
	return Claims{
		LID:       lid,
		IssuedAt:  jwt.NewNumericDate(iat),
		ExpiresAt: jwt.NewNumericDate(iat.Add(validity)),
		Tier:      tier,
		Customer:  customer,
		Features:  features,
		Limits:    limits,
	}
}
