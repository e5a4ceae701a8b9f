package source

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// TestCredentialTarget: a credential goes only over https to a listed
// host:port (canonical form, port 443 by default, host case-insensitive);
// plain http never carries one, even with AllowHTTP; ssh has no transport.
func TestCredentialTarget(t *testing.T) {
	cfg := Config{AllowHTTP: true, CredentialHosts: []string{"git.example.com:443", "127.0.0.1:8443", "[::1]:9443"}}
	cases := []struct {
		url, reason string
	}{
		{"https://git.example.com/acme/evals.git", ""},
		{"https://GIT.Example.COM./acme/evals.git", ""},
		{"https://git.example.com:443/acme/evals.git", ""},
		{"https://127.0.0.1:8443/repo.git", ""},
		{"https://[::1]:9443/repo.git", ""},
		{"https://git.example.com:8443/acme/evals.git", v1alpha1.ArenaProjectReasonCredentialsHostNotAllowed},
		{"https://attacker.example/acme/evals.git", v1alpha1.ArenaProjectReasonCredentialsHostNotAllowed},
		{"https://git.example.com.attacker.example/x.git", v1alpha1.ArenaProjectReasonCredentialsHostNotAllowed},
		{"https://127.0.0.1:9443/repo.git", v1alpha1.ArenaProjectReasonCredentialsHostNotAllowed},
		{"http://git.example.com/acme/evals.git", v1alpha1.ArenaProjectReasonCredentialsHostNotAllowed},
		{"http://git.example.com:443/acme/evals.git", v1alpha1.ArenaProjectReasonCredentialsHostNotAllowed},
		{"http://127.0.0.1:8443/repo.git", v1alpha1.ArenaProjectReasonCredentialsHostNotAllowed},
		{"ssh://git.example.com/acme/evals.git", v1alpha1.ArenaProjectReasonInsecureURL},
		{"git@git.example.com:acme/evals.git", v1alpha1.ArenaProjectReasonInsecureURL},
		{"/acme/evals.git", v1alpha1.ArenaProjectReasonInsecureURL},
	}
	for _, tc := range cases {
		err := credentialTarget(tc.url, cfg)
		if got := ReasonOf(err); got != tc.reason {
			t.Errorf("credentialTarget(%q) = %v, want reason %q", tc.url, err, tc.reason)
		}
	}
	if err := credentialTarget("https://git.example.com/x.git", Config{}); ReasonOf(err) != v1alpha1.ArenaProjectReasonCredentialsHostNotAllowed {
		t.Errorf("with no --arena-git-hosts: %v, want %s", err, v1alpha1.ArenaProjectReasonCredentialsHostNotAllowed)
	}
}

// TestOptedIn: only a basic-auth or ssh-auth Secret with the label opts in.
func TestOptedIn(t *testing.T) {
	label := map[string]string{v1alpha1.ArenaProjectGitCredentialsLabel: v1alpha1.ArenaProjectGitCredentialsValue}
	cases := []struct {
		name   string
		typ    corev1.SecretType
		labels map[string]string
		want   bool
	}{
		{"basic-auth, labelled", corev1.SecretTypeBasicAuth, label, true},
		{"ssh-auth, labelled", corev1.SecretTypeSSHAuth, label, true},
		{"basic-auth, unlabelled", corev1.SecretTypeBasicAuth, nil, false},
		{"basic-auth, another value", corev1.SecretTypeBasicAuth, map[string]string{v1alpha1.ArenaProjectGitCredentialsLabel: "repository"}, false},
		{"Opaque, labelled", corev1.SecretTypeOpaque, label, false},
		{"untyped, labelled", "", label, false},
		{"service account token, labelled", corev1.SecretTypeServiceAccountToken, label, false},
		{"tls, labelled", corev1.SecretTypeTLS, label, false},
	}
	for _, tc := range cases {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Labels: tc.labels}, Type: tc.typ}
		if got := optedIn(s); got != tc.want {
			t.Errorf("%s: optedIn = %v, want %v", tc.name, got, tc.want)
		}
	}
}
