package rules

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func TestArenaProjectGitCredentialsOptedIn(t *testing.T) {
	label := map[string]string{v1alpha1.ArenaProjectGitCredentialsLabel: v1alpha1.ArenaProjectGitCredentialsValue}
	cases := []struct {
		name   string
		typ    corev1.SecretType
		labels map[string]string
		want   bool
	}{
		{"basic-auth, labelled", corev1.SecretTypeBasicAuth, label, true},
		{"ssh-auth, labelled", corev1.SecretTypeSSHAuth, label, true},
		{"Opaque, labelled (a database password)", corev1.SecretTypeOpaque, label, false},
		{"basic-auth, unlabelled", corev1.SecretTypeBasicAuth, nil, false},
		{"basic-auth, another label value", corev1.SecretTypeBasicAuth, map[string]string{v1alpha1.ArenaProjectGitCredentialsLabel: "repository"}, false},
	}
	for _, c := range cases {
		if got := ArenaProjectGitCredentialsOptedIn(c.typ, c.labels); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
