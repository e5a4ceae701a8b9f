package source

// An external project's credentials, and the decision whether to use them.
//
// spec.git.secretRef names a Secret of the project's namespace, and the
// operator reads it with its own RBAC: the project's author may not be
// allowed to read that Secret, and chooses the URL it is sent to. So the
// operator uses a secretRef only when both of these hold, and otherwise
// Head and Open return an Error and make no request at all (not an
// anonymous one either: the project asked for credentials):
//
//  1. The URL is https, to a host:port the operator lists in
//     Config.CredentialHosts (--arena-git-hosts; empty: no host). Checked
//     first, so for any other URL the Secret is not even read.
//     CredentialsHostNotAllowed. Plain http never carries a credential,
//     even when Config.AllowHTTP lets anonymous http through (local tests);
//     an ssh URL is InsecureURL, since the operator has no ssh transport.
//  2. The Secret opts in, as Argo CD's repository Secrets do: type
//     kubernetes.io/basic-auth (or kubernetes.io/ssh-auth) and label
//     arena.omnia.altairalabs.ai/secret-type=git-credentials. A Secret that
//     does not is looked at for its type and labels only; its data is not
//     touched. CredentialsSecretNotOptedIn.
//
// An opted-in kubernetes.io/ssh-auth Secret holds an ssh key, which is never
// sent over https: it is CredentialsNotFound for an https URL.

import (
	"context"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// Credentials are HTTP basic-auth credentials for an external repository.
type Credentials struct {
	Username string
	Password string
}

func (c *Credentials) auth() transport.AuthMethod {
	if c == nil {
		return nil
	}
	u := c.Username
	if u == "" {
		u = defaultUsername
	}
	return &githttp.BasicAuth{Username: u, Password: c.Password}
}

// credentialTarget returns nil when a credential may be sent to raw (the
// catalog's decision, rules.CredentialTarget: an https URL without user
// info whose host:port is one of cfg.CredentialHosts), or the project's
// reason.
func credentialTarget(raw string, cfg Config) error {
	v := rules.CredentialTarget(raw, cfg.CredentialHosts)
	switch v.Problem {
	case "":
		return nil
	case rules.CredentialTargetNotAbsolute:
		return newError(v1alpha1.ArenaProjectReasonInsecureURL, nil, "%q is not an absolute URL", raw)
	case rules.CredentialTargetNotHTTPS:
		if v.URL.Scheme == "ssh" {
			return newError(v1alpha1.ArenaProjectReasonInsecureURL, nil, "%s: ssh URLs are not fetched: the operator reads repositories over https only (it has no ssh transport)", v.URL.Redacted())
		}
		return newError(v1alpha1.ArenaProjectReasonCredentialsHostNotAllowed, nil, "%s: spec.git.secretRef's credentials are sent only over https, and this URL is %s", v.URL.Redacted(), v.URL.Scheme)
	case rules.CredentialTargetUserInfo:
		return newError(v1alpha1.ArenaProjectReasonCredentialsHostNotAllowed, nil, "%s: the URL carries user info; spec.git.secretRef's credentials are the only ones sent", v.URL.Redacted())
	}
	return newError(v1alpha1.ArenaProjectReasonCredentialsHostNotAllowed, nil,
		"spec.git.secretRef's credentials are sent only to a host the operator allows with --arena-git-hosts, and %s is not one; nothing was fetched", v.Target)
}

// optedIn reports whether s opted in to be an ArenaProject's git
// credentials: the catalog's decision (rules.ArenaProjectGitCredentialsOptedIn),
// from s's type and labels only.
func optedIn(s *corev1.Secret) bool {
	return rules.ArenaProjectGitCredentialsOptedIn(s.Type, s.Labels)
}

// credentials reads p's secretRef (nil when it sets none), after the checks
// of this file's comment.
func (o *Opener) credentials(ctx context.Context, p *v1alpha1.ArenaProject) (*Credentials, error) {
	ref := p.Spec.Git.SecretRef
	if ref == nil {
		return nil, nil
	}
	if err := credentialTarget(p.Spec.Git.URL, o.Config); err != nil {
		return nil, err
	}
	if o.Secrets == nil {
		return nil, newError(v1alpha1.ArenaProjectReasonCredentialsNotFound, nil, "Secret %s: the operator cannot read Secrets", ref.Name)
	}
	s := &corev1.Secret{}
	if err := o.Secrets.Get(ctx, types.NamespacedName{Namespace: p.Namespace, Name: ref.Name}, s); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, newError(v1alpha1.ArenaProjectReasonCredentialsNotFound, nil, "Secret %s not found in namespace %s", ref.Name, p.Namespace)
		}
		return nil, newError(v1alpha1.ArenaProjectReasonFetchFailed, err, "reading Secret %s", ref.Name)
	}
	if !optedIn(s) {
		return nil, newError(v1alpha1.ArenaProjectReasonCredentialsSecretNotOptedIn, nil,
			"Secret %s is not git credentials: a Secret used by spec.git.secretRef must be of type %s and labelled %s=%s; its data was not used and nothing was fetched",
			ref.Name, corev1.SecretTypeBasicAuth, v1alpha1.ArenaProjectGitCredentialsLabel, v1alpha1.ArenaProjectGitCredentialsValue)
	}
	if s.Type != corev1.SecretTypeBasicAuth {
		return nil, newError(v1alpha1.ArenaProjectReasonCredentialsNotFound, nil,
			"Secret %s is %s (an ssh key), which is never sent over https: an https repository needs a %s Secret", ref.Name, s.Type, corev1.SecretTypeBasicAuth)
	}
	pw, ok := s.Data[CredentialsPasswordKey]
	if !ok || len(pw) == 0 {
		return nil, newError(v1alpha1.ArenaProjectReasonCredentialsNotFound, nil, "Secret %s has no key %s", ref.Name, CredentialsPasswordKey)
	}
	return &Credentials{Username: strings.TrimSpace(string(s.Data[CredentialsUsernameKey])), Password: strings.TrimSpace(string(pw))}, nil
}
