package v1alpha1

// The conditions an ArenaProject's status carries (docs/arena.md#status) and
// their reasons (hack/conditionsdoc generates docs/conditions.md from this
// file). The spec has no ArenaProject page and names none of them; they are
// the controller's. A False Ready carries the reason of a deny finding of
// the catalog, or that of the look at the repository: the errors of
// reconcile/arenaproject/source carry these constants.

const (
	// ArenaProjectConditionReady is True when the project's repository was
	// reached and its default branch resolved to a commit (phase Ready).
	// False otherwise: phase Pending while the fetcher reads it or a hosted
	// repository (or its first commit) does not exist yet, Failed for every
	// other reason.
	ArenaProjectConditionReady = "Ready"
	// ArenaProjectReasonResolved (Ready=True, not named by the spec): the
	// default branch resolved to a commit; the message names both.
	ArenaProjectReasonResolved = "Resolved"
	// ArenaProjectReasonRepositoryNotFound (Ready=False, not named by the
	// spec): a hosted project has no repository on the content volume
	// (phase Pending), or an external URL names none (Failed).
	ArenaProjectReasonRepositoryNotFound = "RepositoryNotFound"
	// ArenaProjectReasonEmptyRepository (Ready=False, not named by the
	// spec): the repository has no commit on its default branch yet (a
	// hosted one: phase Pending).
	ArenaProjectReasonEmptyRepository = "EmptyRepository"
	// ArenaProjectReasonContentRootNotSet (Ready=False, not named by the
	// spec): a hosted project, and the operator was started without
	// --workspace-content-path.
	ArenaProjectReasonContentRootNotSet = "ContentRootNotSet"
	// ArenaProjectReasonInsecureURL (Ready=False, not named by the spec,
	// rule arenaproject/git-url): the external URL is not an https URL the
	// operator fetches (another scheme, user info, a link-local or metadata
	// host), or is ssh, for which the operator has no transport.
	ArenaProjectReasonInsecureURL = "InsecureURL"
	// ArenaProjectReasonCredentialsHostNotAllowed (Ready=False, not named by
	// the spec): spec.git.secretRef is set, and the URL is not https to a
	// host:port the operator lists in --arena-git-hosts. The Secret is not
	// read and nothing is fetched.
	ArenaProjectReasonCredentialsHostNotAllowed = "CredentialsHostNotAllowed"
	// ArenaProjectReasonCredentialsSecretNotOptedIn (Ready=False, not named
	// by the spec): spec.git.secretRef names a Secret that is not typed
	// kubernetes.io/basic-auth (or kubernetes.io/ssh-auth) and labelled
	// ArenaProjectGitCredentialsLabel=ArenaProjectGitCredentialsValue. Its
	// data is not used and nothing is fetched.
	ArenaProjectReasonCredentialsSecretNotOptedIn = "CredentialsSecretNotOptedIn"
	// ArenaProjectReasonCredentialsNotFound (Ready=False, not named by the
	// spec): the credentials Secret, or one of its keys, is missing (or it
	// is an ssh-auth key, never sent over https).
	ArenaProjectReasonCredentialsNotFound = "CredentialsNotFound"
	// ArenaProjectReasonFetching (Ready=False, not named by the spec): the
	// repository is being read (an external one's refs listed) by the
	// operator's fetcher, outside the reconcile (phase Pending); the project
	// is looked at again when that ends.
	ArenaProjectReasonFetching = "Fetching"
	// ArenaProjectReasonFetchFailed (Ready=False, not named by the spec):
	// the repository could not be read (network, refused address,
	// authentication, time or size bound), or the look failed with an
	// error that carries no reason.
	ArenaProjectReasonFetchFailed = "FetchFailed"
	// ArenaProjectReasonLicenseViolation (Ready=False, not named by the
	// spec, rule arenaproject/license-git-source): an external project and
	// a licence that does not grant gitSource; nothing is fetched (phase
	// Failed), and a licence granting it later makes the project Ready at
	// its next look.
	ArenaProjectReasonLicenseViolation = "LicenseViolation"
	// ArenaProjectReasonInvalidSpec (Ready=False, not named by the spec): a
	// deny rule of the catalog that names no reason of its own found a
	// problem in the spec (an object that got in with the webhook off); a
	// rule's own reason is used when it has one. Nothing is fetched.
	ArenaProjectReasonInvalidSpec = "InvalidSpec"
)
