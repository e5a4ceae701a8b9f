package rules

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// arenaProjectGitCredentialTypes are the Secret types that may opt in to be
// an ArenaProject's git credentials.
var arenaProjectGitCredentialTypes = []corev1.SecretType{corev1.SecretTypeBasicAuth, corev1.SecretTypeSSHAuth}

// ArenaProjectGitCredentialsOptedIn is the one decision whether a Secret
// opted in to be an ArenaProject's spec.git.secretRef, as Argo CD's
// repository Secrets do: typed kubernetes.io/basic-auth (or
// kubernetes.io/ssh-auth) and labelled
// arena.omnia.altairalabs.ai/secret-type=git-credentials. It reads the
// type and labels only, so a caller never touches the data of a Secret
// that did not opt in. The operator reads a secretRef with its own RBAC
// for an author who may not read that Secret, so any other Secret of the
// namespace (a database password) must not be usable this way.
func ArenaProjectGitCredentialsOptedIn(t corev1.SecretType, labels map[string]string) bool {
	return slices.Contains(arenaProjectGitCredentialTypes, t) &&
		labels[v1alpha1.ArenaProjectGitCredentialsLabel] == v1alpha1.ArenaProjectGitCredentialsValue
}
