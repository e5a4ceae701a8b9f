package rules

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func arenaProjectBase() *v1alpha1.ArenaProject {
	return &v1alpha1.ArenaProject{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: kindArenaProject},
		ObjectMeta: metav1.ObjectMeta{Name: "evals", Namespace: "arena"},
		Spec: v1alpha1.ArenaProjectSpec{Git: &v1alpha1.ArenaProjectGitSource{
			URL: "https://github.com/acme/evals.git", SecretRef: &v1alpha1.LocalObjectReference{Name: "git-creds"}}},
	}
}

func arenaProjectGitURL(u string) func(*v1alpha1.ArenaProject) {
	return func(p *v1alpha1.ArenaProject) { p.Spec.Git.URL = u }
}

// TestArenaProjectGitURLRule: arenaproject/git-url accepts an absolute https
// (or ssh://) URL and refuses plain http, user info, relative and scp-like
// addresses, and link-local or metadata hosts.
func TestArenaProjectGitURLRule(t *testing.T) {
	deny := []ruleWant{{ArenaProjectGitURLRuleID, "spec.git.url"}}
	// The CRD's own pattern (^https?://[^\s]+$) refuses what is not http(s).
	pattern := []string{"arenaproject/schema:spec.git.url:pattern"}
	cases := []ruleCase[*v1alpha1.ArenaProject]{
		// Accepted.
		{name: "https"},
		{name: "hosted project: no spec.git", mutate: func(p *v1alpha1.ArenaProject) { p.Spec.Git = nil }},
		{name: "https with a port", mutate: arenaProjectGitURL("https://git.internal:8443/acme/evals.git")},
		{name: "https to a private IP", mutate: arenaProjectGitURL("https://10.0.0.12/acme/evals.git")},
		{name: "https to an IPv6 address", mutate: arenaProjectGitURL("https://[2001:db8::1]/acme/evals.git")},
		{name: "upper-case scheme (the schema refuses it)", mutate: arenaProjectGitURL("HTTPS://github.com/acme/evals.git"), schema: pattern},
		{name: "ssh URL (the schema refuses it today)", mutate: arenaProjectGitURL("ssh://github.com/acme/evals.git"), schema: pattern},
		{name: "update fixing a metadata URL", mutate: arenaProjectGitURL("https://github.com/acme/evals.git"),
			old: arenaProjectGitURL("https://169.254.169.254/repo.git")},

		// Denied: not an https (or ssh) URL.
		{name: "plain http", mutate: arenaProjectGitURL("http://github.com/acme/evals.git"), want: deny},
		{name: "plain http to loopback", mutate: arenaProjectGitURL("http://127.0.0.1:8080/repo.git"), want: deny},
		{name: "relative URL", mutate: arenaProjectGitURL("acme/evals.git"), want: deny, schema: pattern},
		{name: "absolute path", mutate: arenaProjectGitURL("/srv/git/evals.git"), want: deny, schema: pattern},
		{name: "scp-like", mutate: arenaProjectGitURL("git@github.com:acme/evals.git"), want: deny, schema: pattern},
		{name: "git scheme", mutate: arenaProjectGitURL("git://github.com/acme/evals.git"), want: deny, schema: pattern},
		{name: "file scheme", mutate: arenaProjectGitURL("file:///etc/passwd"), want: deny, schema: pattern},
		{name: "https without a host", mutate: arenaProjectGitURL("https:///acme/evals.git"), want: deny},
		{name: "unparseable port", mutate: arenaProjectGitURL("https://github.com:port/acme/evals.git"), want: deny},
		// Denied: user info.
		{name: "user and password", mutate: arenaProjectGitURL("https://bot:s3cret@github.com/acme/evals.git"), want: deny},
		{name: "user name only", mutate: arenaProjectGitURL("https://bot@github.com/acme/evals.git"), want: deny},
		{name: "ssh with a user", mutate: arenaProjectGitURL("ssh://git@github.com/acme/evals.git"), want: deny, schema: pattern},
		// Denied: link-local and metadata hosts.
		{name: "metadata IP", mutate: arenaProjectGitURL("https://169.254.169.254/repo.git"), want: deny},
		{name: "IPv4 link-local with a port", mutate: arenaProjectGitURL("https://169.254.10.1:8443/repo.git"), want: deny},
		{name: "IPv6 link-local", mutate: arenaProjectGitURL("https://[fe80::1]/repo.git"), want: deny},
		{name: "IPv6 link-local with a zone", mutate: arenaProjectGitURL("https://[fe80::1%25eth0]/repo.git"), want: deny},
		{name: "IPv4-mapped metadata IP", mutate: arenaProjectGitURL("https://[::ffff:169.254.169.254]/repo.git"), want: deny},
		{name: "GCP metadata name", mutate: arenaProjectGitURL("https://metadata.google.internal/repo.git"), want: deny},
		{name: "GCP metadata name, upper case with a trailing dot", mutate: arenaProjectGitURL("https://METADATA.GOOGLE.INTERNAL./repo.git"), want: deny},
		{name: "decimal IP", mutate: arenaProjectGitURL("https://2852039166/repo.git"), want: deny},
	}
	ruleTable[*v1alpha1.ArenaProject]{kind: kindArenaProject, prefix: ArenaProjectGitURLRuleID, base: arenaProjectBase,
		facts: func() Facts { return NoFacts{} }}.run(t, cases)
}
