package rules

import (
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// The git URL rule: an external ArenaProject's spec.git.url is where the
// operator connects, with its own network identity and possibly with
// spec.git.secretRef's credentials, so it must be a plain absolute URL over
// an encrypted transport that does not point at the node's cloud metadata
// service. The operator's dialer (reconcile/netguard) holds for names that
// resolve there; the credential host list (--arena-git-hosts) and the
// Secret's opt-in (reconcile/arenaproject/source, credentials.go) decide
// whether a credential goes with the request — those are facts of the
// operator and of Secrets, so they are not judged here.
//
// Accepted schemes: https, and ssh (ssh://host[:port]/path) as a URL shape,
// though this operator has only the smart-HTTP transport and refuses an ssh
// URL when it reconciles (InsecureURL), and the CRD schema accepts only
// http(s) today. The scp-like form (git@host:path) is not a URL and is
// refused: it has no scheme, and its host and path cannot be told apart
// reliably. http is refused: the repository, and the operator's choice of
// what to run, would cross the network unencrypted.

// ArenaProjectGitURLRuleID is the git URL rule.
const ArenaProjectGitURLRuleID = "arenaproject/git-url"

func init() {
	Default.Register(Rule{
		ID:        ArenaProjectGitURLRuleID,
		Kinds:     []string{kindArenaProject},
		Stage:     StageAdmission,
		Severity:  SeverityDeny,
		Condition: v1alpha1.ArenaProjectConditionReady,
		Reason:    v1alpha1.ArenaProjectReasonInsecureURL,
		Doc: "spec.git.url, when set, must be an absolute https (or ssh://) URL with a host and no user info (user@ or " +
			"user:password@; credentials go in spec.git.secretRef), not plain http and not the scp-like git@host:path, and its host " +
			"may not be a link-local or cloud-metadata address (the same list as provider/base-url) or a numeric host that is not a " +
			"dotted quad. Names are not resolved here: the operator checks resolved addresses when it dials.",
		Spec:  "arenajob.md#sourceref",
		Check: checkArenaProjectGitURL,
	})
}

var arenaProjectGitURLPath = field.NewPath("spec", "git", "url")

// arenaProjectGitURLProblem says what is wrong with a git URL, or "" when
// nothing is.
func arenaProjectGitURLProblem(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		if !strings.Contains(raw, "://") && strings.Contains(raw, "@") && strings.Contains(raw, ":") {
			return "is an scp-like address (user@host:path), not a URL: write the repository's https URL"
		}
		if err != nil {
			return "is not a URL (" + strings.TrimPrefix(err.Error(), "parse ") + ")"
		}
		return "is not an absolute URL: it needs a scheme, https://"
	}
	switch u.Scheme {
	case "https", "ssh":
	case "http":
		return "is plain http: the repository would be read unencrypted, and any credential sent in clear text; use https"
	default:
		return "has scheme " + u.Scheme + ": only https (and ssh) repository URLs are accepted"
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return "has no host: write it as " + u.Scheme + "://host[:port]/path"
	}
	if u.User != nil {
		return "carries user info (user@ or user:password@): put credentials in spec.git.secretRef, never in the URL"
	}
	if host := u.Hostname(); providerNumericHost.MatchString(host) && !validIP(host) {
		return "names host " + host + ", a number that is not a dotted-quad IP address; write the address as a.b.c.d or use a host name"
	}
	if MetadataHost(u.Hostname()) {
		return "names host " + u.Hostname() + ", a link-local or cloud-metadata address, which the operator never connects to"
	}
	return ""
}

func checkArenaProjectGitURL(in Input) field.ErrorList {
	p, ok := in.Object.(*v1alpha1.ArenaProject)
	if !ok || p == nil || p.Spec.Git == nil {
		return nil
	}
	if why := arenaProjectGitURLProblem(p.Spec.Git.URL); why != "" {
		return field.ErrorList{field.Invalid(arenaProjectGitURLPath, p.Spec.Git.URL,
			"spec.git.url "+why+" (e.g. https://github.com/acme/evals.git)")}
	}
	return nil
}
