package workload

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// The facade's configuration: the chain in order with defaults, no secret
// value, oidc and the JWKS volume only once the Secret exists.
func TestExternalAuthFacadeConfig(t *testing.T) {
	ar := agent(withExternalAuth(&v1alpha1.AgentRuntimeExternalAuth{
		ClientKeys: &v1alpha1.AgentRuntimeClientKeys{TrustEndUserHeader: true},
		OIDC:       &v1alpha1.AgentRuntimeOIDC{Issuer: "https://id.example.com", Audience: "bot", SessionClaim: "sid"},
		EdgeTrust:  &v1alpha1.AgentRuntimeEdgeTrust{HeaderMapping: &v1alpha1.AgentRuntimeEdgeTrustHeaderMapping{Subject: "x-sub"}, ClaimsFromHeaders: map[string]string{"x-tier": "tier"}},
	}))
	decode := func(r Resolved) (externalAuthConfig, *podSpecView) {
		t.Helper()
		pod, _ := mustDeployment(t, ar, r)
		f := container(t, pod, ContainerFacade)
		v, ok := literal(f, EnvExternalAuth)
		if !ok {
			t.Fatalf("no %s on the facade", EnvExternalAuth)
		}
		var cfg externalAuthConfig
		if err := json.Unmarshal([]byte(v), &cfg); err != nil {
			t.Fatal(err)
		}
		view := &podSpecView{}
		for _, vol := range pod.Volumes {
			if vol.Name == VolumeOIDCJWKS {
				view.volumeSecret = vol.Secret.SecretName
			}
		}
		for _, m := range f.VolumeMounts {
			if m.Name == VolumeOIDCJWKS {
				view.mount = m.MountPath
				view.readOnly = m.ReadOnly
			}
		}
		return cfg, view
	}

	cfg, view := decode(resolved())
	if strings.Join(cfg.Validators, ",") != "clientKeys,edgeTrust" || cfg.OIDC != nil || view.volumeSecret != "" || view.mount != "" {
		t.Errorf("without the JWKS Secret: validators %v, oidc %+v, volume %+v; want no oidc and no volume", cfg.Validators, cfg.OIDC, view)
	}
	if ck := cfg.ClientKeys; ck == nil || ck.DefaultRole != "viewer" || !ck.TrustEndUserHeader ||
		ck.SecretLabelSelector != "omnia.altairalabs.ai/credential-kind=agent-client-key,omnia.altairalabs.ai/agent=support" {
		t.Errorf("clientKeys = %+v", ck)
	}
	if et := cfg.EdgeTrust; et == nil || et.SubjectHeader != "x-sub" || et.EndUserHeader != "x-user-id" || et.EmailHeader != "x-user-email" ||
		et.RoleHeader != "x-user-roles" || et.ClaimsFromHeaders["x-tier"] != "tier" {
		t.Errorf("edgeTrust = %+v", et)
	}

	r := resolved()
	r.OIDCJWKSSecret = OIDCJWKSSecretName(ar)
	cfg, view = decode(r)
	if strings.Join(cfg.Validators, ",") != "clientKeys,oidc,edgeTrust" {
		t.Errorf("validators = %v", cfg.Validators)
	}
	if o := cfg.OIDC; o == nil || o.Issuer != "https://id.example.com" || o.Audience != "bot" || o.SubjectClaim != "sub" || o.EndUserClaim != "sub" ||
		o.SessionClaim != "sid" || o.JWKSFile != "/etc/omnia/oidc-jwks/jwks.json" || o.JWKSSecretRef != "agent-support-oidc-jwks" {
		t.Errorf("oidc = %+v", o)
	}
	if view.volumeSecret != "agent-support-oidc-jwks" || view.mount != OIDCJWKSMountPath || !view.readOnly {
		t.Errorf("JWKS volume = %+v", view)
	}

	// No externalAuth: an empty chain, said explicitly.
	pod, _ := mustDeployment(t, agent(), resolved())
	if v, _ := literal(container(t, pod, ContainerFacade), EnvExternalAuth); v != `{"validators":[]}` {
		t.Errorf("%s without externalAuth = %s", EnvExternalAuth, v)
	}
}

func withExternalAuth(ea *v1alpha1.AgentRuntimeExternalAuth) func(*v1alpha1.AgentRuntime) {
	return func(a *v1alpha1.AgentRuntime) { a.Spec.ExternalAuth = ea }
}

type podSpecView struct {
	volumeSecret, mount string
	readOnly            bool
}
