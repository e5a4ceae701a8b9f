package workload

import (
	"encoding/json"
	"path"

	corev1 "k8s.io/api/core/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// The facade's external-auth configuration: OMNIA_EXTERNAL_AUTH, one JSON
// object (externalAuthConfig), on the facade container. It names the
// validators of the external chain, in order, with their settings and
// defaults applied; it holds no secret value (client keys are Secrets the
// facade watches by label, the JWKS is a mounted file).

// ClientKeyCredentialKind is the omnia.altairalabs.ai/credential-kind
// label value of a client key Secret (agentruntime.md § Client key Secret).
const (
	LabelCredentialKind     = "omnia.altairalabs.ai/credential-kind"
	ClientKeyCredentialKind = "agent-client-key"
	// EdgeTrustRoleHeader is the edgeTrust role header; not configurable.
	EdgeTrustRoleHeader = "x-user-roles"
)

// The JWKS Secret's key, and where the facade finds the JWKS and its
// configuration.
const (
	// OIDCJWKSKey is the JWKS Secret's data key.
	OIDCJWKSKey = "jwks.json"
	// EnvExternalAuth is the facade's external-auth configuration, one
	// JSON object (externalAuthConfig). It holds no secret value.
	EnvExternalAuth = "OMNIA_EXTERNAL_AUTH"
	// VolumeOIDCJWKS is the JWKS Secret's volume, mounted read-only in the
	// facade container at OIDCJWKSMountPath.
	VolumeOIDCJWKS    = "omnia-oidc-jwks"
	OIDCJWKSMountPath = "/etc/omnia/oidc-jwks"
)

// OIDCJWKSSecretName is the agent's JWKS Secret, agent-<agent>-oidc-jwks.
func OIDCJWKSSecretName(ar *v1alpha1.AgentRuntime) string { return "agent-" + ar.Name + "-oidc-jwks" }

// externalAuthConfig is OMNIA_EXTERNAL_AUTH.
type externalAuthConfig struct {
	// Validators are the external chain, in the order it runs them; empty:
	// every external request is answered 401.
	Validators []string                `json:"validators"`
	ClientKeys *clientKeysFacadeConfig `json:"clientKeys,omitempty"`
	OIDC       *oidcFacadeConfig       `json:"oidc,omitempty"`
	EdgeTrust  *edgeTrustFacadeConfig  `json:"edgeTrust,omitempty"`
}

type clientKeysFacadeConfig struct {
	DefaultRole        string `json:"defaultRole"`
	TrustEndUserHeader bool   `json:"trustEndUserHeader"`
	// SecretLabelSelector selects the agent's client key Secrets.
	SecretLabelSelector string `json:"secretLabelSelector"`
}

type oidcFacadeConfig struct {
	Issuer        string `json:"issuer"`
	Audience      string `json:"audience"`
	SubjectClaim  string `json:"subjectClaim"`
	EndUserClaim  string `json:"endUserClaim"`
	SessionClaim  string `json:"sessionClaim,omitempty"`
	JWKSFile      string `json:"jwksFile"`
	JWKSSecretRef string `json:"jwksSecret"`
}

type edgeTrustFacadeConfig struct {
	SubjectHeader     string            `json:"subjectHeader"`
	EndUserHeader     string            `json:"endUserHeader"`
	EmailHeader       string            `json:"emailHeader"`
	RoleHeader        string            `json:"roleHeader"`
	ClaimsFromHeaders map[string]string `json:"claimsFromHeaders,omitempty"`
}

// ExternalAuthFacadeConfig is the facade's OMNIA_EXTERNAL_AUTH value: the
// spec's validators with their defaults, oidc only once jwksSecret (the
// resolved OIDCJWKSSecret) is set.
func ExternalAuthFacadeConfig(ar *v1alpha1.AgentRuntime, jwksSecret string) string {
	cfg := externalAuthConfig{Validators: []string{}}
	ea := ar.Spec.ExternalAuth
	if ea == nil {
		ea = &v1alpha1.AgentRuntimeExternalAuth{}
	}
	if ck := ea.ClientKeys; ck != nil {
		cfg.Validators = append(cfg.Validators, rules.ExternalAuthClientKeys)
		cfg.ClientKeys = &clientKeysFacadeConfig{
			DefaultRole: stringOr(ck.DefaultRole, "viewer"), TrustEndUserHeader: ck.TrustEndUserHeader,
			SecretLabelSelector: LabelCredentialKind + "=" + ClientKeyCredentialKind + "," + LabelAgent + "=" + ar.Name,
		}
	}
	if o := ea.OIDC; o != nil && jwksSecret != "" {
		cfg.Validators = append(cfg.Validators, rules.ExternalAuthOIDC)
		sub, end := "sub", "sub"
		if m := o.ClaimMapping; m != nil {
			sub, end = stringOr(m.Subject, sub), stringOr(m.EndUser, end)
		}
		cfg.OIDC = &oidcFacadeConfig{Issuer: o.Issuer, Audience: o.Audience, SubjectClaim: sub, EndUserClaim: end,
			SessionClaim: o.SessionClaim, JWKSFile: path.Join(OIDCJWKSMountPath, OIDCJWKSKey), JWKSSecretRef: jwksSecret}
	}
	if et := ea.EdgeTrust; et != nil {
		cfg.Validators = append(cfg.Validators, rules.ExternalAuthEdgeTrust)
		e := &edgeTrustFacadeConfig{SubjectHeader: "x-user-id", EndUserHeader: "x-user-id", EmailHeader: "x-user-email",
			RoleHeader: EdgeTrustRoleHeader, ClaimsFromHeaders: et.ClaimsFromHeaders}
		if m := et.HeaderMapping; m != nil {
			e.SubjectHeader, e.EndUserHeader, e.EmailHeader = stringOr(m.Subject, e.SubjectHeader), stringOr(m.EndUser, e.EndUserHeader), stringOr(m.Email, e.EmailHeader)
		}
		cfg.EdgeTrust = e
	}
	b, _ := json.Marshal(cfg) // plain strings and maps: cannot fail
	return string(b)
}

// externalAuthEnv sets OMNIA_EXTERNAL_AUTH on the facade.
func externalAuthEnv(e envSet, ar *v1alpha1.AgentRuntime, r *Resolved) {
	e.lit(EnvExternalAuth, ExternalAuthFacadeConfig(ar, r.OIDCJWKSSecret))
}

// withJWKSVolume adds the JWKS Secret's volume to the pod and its
// read-only mount to the facade, once the Secret holds the current
// issuer's JWKS (r.OIDCJWKSSecret); nothing before.
func withJWKSVolume(vols []corev1.Volume, facade *corev1.Container, r *Resolved) []corev1.Volume {
	if r.OIDCJWKSSecret == "" {
		return vols
	}
	facade.VolumeMounts = append(facade.VolumeMounts, corev1.VolumeMount{Name: VolumeOIDCJWKS, MountPath: OIDCJWKSMountPath, ReadOnly: true})
	return append(vols, corev1.Volume{Name: VolumeOIDCJWKS, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
		SecretName: r.OIDCJWKSSecret, DefaultMode: ptrInt32(0o444),
		Items: []corev1.KeyToPath{{Key: OIDCJWKSKey, Path: OIDCJWKSKey}},
	}}})
}
