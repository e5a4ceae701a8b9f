package auth

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// WorkspaceAudiencePrefix prefixes a delegation token's audience: a token
// for the catalog of workspace W carries aud "workspace:W"
// (toolregistry.md § Platform handler: "a delegation token whose audience is
// the agent's workspace"). The spec names the audience but not its
// spelling; the prefix follows the facade audience's
// "agent-facade:<namespace>/<target>" and keeps a workspace name from ever
// equalling another service's audience (e.g. omnia-operator).
const WorkspaceAudiencePrefix = "workspace:"

// WorkspaceAudience is the audience of a delegation token for workspace.
func WorkspaceAudience(workspace string) string { return WorkspaceAudiencePrefix + workspace }

// DelegationClaims are a platform tool call's delegation token: the
// registered claims (aud is WorkspaceAudience of the workspace, sub the end
// user when there is one) and who the call is made for.
type DelegationClaims struct {
	jwt.RegisteredClaims
	// Agent is the calling agent ("<namespace>/<name>"), for the log only.
	Agent string `json:"agent,omitempty"`
}

// Delegation is who is calling, from a verified delegation token. Nothing
// in it widens what the caller sees: every caller of the catalog gets the
// same viewer-level view.
type Delegation struct {
	Subject   string
	Agent     string
	Workspace string
}

// DefaultMaxDelegationLifetime bounds a delegation token's exp − iat:
// it is minted for one platform tool call, so minutes, not the hour a
// deploy API token may live.
const DefaultMaxDelegationLifetime = 5 * time.Minute

// DelegationVerifier checks the catalog's delegation tokens against a key
// set of their own (--catalog-jwks-file or --catalog-jwks-url): a key that
// signs delegation tokens — which agents' runtimes hold the means to get —
// never signs a deploy API token, so a delegation token cannot be used
// against the deploy API even if its audience were forged, and a deploy
// API token cannot read a catalog.
type DelegationVerifier struct {
	// Keys are the trusted delegation-token signing keys. Required.
	Keys KeySet
	// Issuer, when set, must equal the token's iss.
	Issuer string
	// Leeway is the clock skew allowed on exp, nbf and iat (DefaultLeeway
	// when zero).
	Leeway time.Duration
	// MaxLifetime bounds exp − iat (DefaultMaxDelegationLifetime when zero).
	MaxLifetime time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// VerifyDelegation checks a delegation token for workspace with the same
// checks as Verifier.Verify (typ JWT, kid in the key set, pinned algorithm,
// iat and exp required and at most MaxLifetime apart, exp in the future,
// nbf/iat with the leeway, the configured issuer) but audience
// WorkspaceAudience(workspace): a token minted for another workspace fails
// like a token for another service, ErrUnauthenticated (401), so it cannot
// be replayed across workspaces.
func (v *DelegationVerifier) VerifyDelegation(token, workspace string) (Delegation, error) {
	if workspace == "" || strings.ContainsAny(workspace, "/ ") {
		return Delegation{}, fmt.Errorf("%w: %q is not a workspace name", ErrUnauthenticated, workspace)
	}
	if v == nil || v.Keys == nil {
		return Delegation{}, fmt.Errorf("%w: %w", ErrUnauthenticated, errors.New("no trusted keys"))
	}
	var c DelegationClaims
	p := tokenPolicy{keys: v.Keys, issuer: v.Issuer, leeway: v.Leeway, maxLifetime: v.MaxLifetime,
		defaultMaxLifetime: DefaultMaxDelegationLifetime, now: v.Now}
	if err := p.parse(token, WorkspaceAudience(workspace), &c); err != nil {
		return Delegation{}, err
	}
	return Delegation{Subject: c.Subject, Agent: c.Agent, Workspace: workspace}, nil
}
