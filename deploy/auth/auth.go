// Package auth is the deploy API's guard: it verifies the dashboard-minted
// identity JWT a caller presents (audience omnia-operator) against the
// operator's trusted deploy keys (a JWKS) and turns its claims into a Caller
// — the workspace, the namespace the token claims, the user and the role.
// The namespace is never taken from a request body, nor on the token's word
// alone: deploy/server checks it against the Workspace's
// spec.namespace.name. The catalog's delegation tokens (delegation.go) are
// verified against a key set of their own. docs/deploy-api.md describes the
// token.
package auth

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Audience is the audience every deploy API token must carry.
const Audience = "omnia-operator"

// DefaultLeeway is the clock skew allowed on exp, nbf and iat.
const DefaultLeeway = 30 * time.Second

// DefaultMaxTokenLifetime bounds a deploy API token's exp − iat: a leaked
// token is useful for at most this long. The dashboard mints them for
// minutes.
const DefaultMaxTokenLifetime = time.Hour

// Role is a caller's role in its workspace.
type Role string

// The roles, weakest first: each includes everything the one before it may
// do. Any other value is no role at all.
const (
	RoleViewer Role = "viewer"
	RoleEditor Role = "editor"
	RoleAdmin  Role = "admin"
	RoleOwner  Role = "owner"
)

// roleOrder ranks the roles; an unknown role ranks below viewer.
var roleOrder = []Role{RoleViewer, RoleEditor, RoleAdmin, RoleOwner}

// rank is the role's place in roleOrder, -1 for an unknown role.
func (r Role) rank() int { return slices.Index(roleOrder, r) }

// Valid reports whether r is one of the four roles.
func (r Role) Valid() bool { return r.rank() >= 0 }

// AtLeast reports whether r includes min (an unknown role includes nothing).
func (r Role) AtLeast(min Role) bool { return r.Valid() && r.rank() >= min.rank() }

// Claims are the deploy API token's claims: the registered ones (iss, sub,
// aud, exp, nbf, iat) and the workspace's identity.
type Claims struct {
	jwt.RegisteredClaims
	// Workspace is the workspace's name; the URL's {workspace} must equal it.
	Workspace string `json:"workspace"`
	// Namespace is the workspace's Kubernetes namespace: every object the
	// request reads or writes is in it.
	Namespace string `json:"namespace"`
	// Role is the caller's role in the workspace.
	Role Role `json:"role"`
}

// Caller is who is asking, from a verified token.
type Caller struct {
	// Subject is the token's sub: the user (may be empty for a service
	// identity; a dev intent refuses an identity with no user).
	Subject   string
	Workspace string
	Namespace string
	Role      Role
}

// Errors. ErrUnauthenticated covers every way a token fails to prove who
// sent it (missing, malformed, badly signed, expired, not yet valid, wrong
// audience or issuer, unknown kid): 401. ErrForbidden covers a verified
// token that does not grant the request (no or too weak a role, another
// workspace, no namespace): 403. Each wraps a detail for the operator's
// log; a client sees only which of the two it was.
var (
	ErrUnauthenticated = errors.New("unauthenticated")
	ErrForbidden       = errors.New("forbidden")
)

// Verifier checks deploy API tokens. Its key set is the deploy tokens'
// only: delegation tokens have a DelegationVerifier with keys of their own.
type Verifier struct {
	// Keys are the trusted deploy-token signing keys.
	Keys KeySet
	// Issuer, when set, must equal the token's iss.
	Issuer string
	// Leeway is the clock skew allowed on exp, nbf and iat (DefaultLeeway
	// when zero).
	Leeway time.Duration
	// MaxLifetime bounds exp − iat (DefaultMaxTokenLifetime when zero).
	MaxLifetime time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Verify checks a compact JWS token and returns its caller. The token must
// have typ JWT, name a kid present in the key set, be signed with an
// algorithm that key's type allows, carry audience omnia-operator, an iat
// and an exp at most MaxLifetime apart, an exp in the future and no nbf or
// iat in the future (with the leeway), the configured issuer, a role, a
// workspace and a namespace that is a DNS label. Errors wrap
// ErrUnauthenticated or ErrForbidden.
func (v *Verifier) Verify(token string) (Caller, error) {
	var c Claims
	if err := v.policy().parse(token, Audience, &c); err != nil {
		return Caller{}, err
	}
	if !c.Role.Valid() {
		return Caller{}, fmt.Errorf("%w: role %q is none of %v", ErrForbidden, c.Role, roleOrder)
	}
	if c.Workspace == "" {
		return Caller{}, fmt.Errorf("%w: the token names no workspace", ErrForbidden)
	}
	if errs := validation.IsDNS1123Label(c.Namespace); len(errs) > 0 {
		return Caller{}, fmt.Errorf("%w: namespace %q: %s", ErrForbidden, c.Namespace, strings.Join(errs, "; "))
	}
	return Caller{Subject: c.Subject, Workspace: c.Workspace, Namespace: c.Namespace, Role: c.Role}, nil
}

// Authorize checks that the caller may act in workspace with at least role
// min. The error wraps ErrForbidden.
func (c Caller) Authorize(workspace string, min Role) error {
	if c.Workspace != workspace {
		return fmt.Errorf("%w: the token is for workspace %q, the request for %q", ErrForbidden, c.Workspace, workspace)
	}
	if !c.Role.AtLeast(min) {
		return fmt.Errorf("%w: role %s, %s or higher required", ErrForbidden, c.Role, min)
	}
	return nil
}

// policy is the token checks of deploy API tokens.
func (v *Verifier) policy() tokenPolicy {
	return tokenPolicy{keys: v.Keys, issuer: v.Issuer, leeway: v.Leeway, maxLifetime: v.MaxLifetime,
		defaultMaxLifetime: DefaultMaxTokenLifetime, now: v.Now}
}
