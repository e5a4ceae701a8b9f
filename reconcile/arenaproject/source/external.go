package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/memory"
	ctrlclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/netguard"
)

// Config is how the operator reaches project repositories. Zero values
// take the defaults.
type Config struct {
	// ContentRoot is the workspace content volume's mount
	// (--workspace-content-path); "" makes every hosted project
	// ContentRootNotSet.
	ContentRoot string
	// AllowHTTP lets an external URL be http:// (in-process tests only; no
	// flag sets it, and the catalog's arenaproject/git-url refuses http).
	// A credential is never sent over http (credentials.go).
	AllowHTTP bool
	// CredentialHosts are the "host:port" entries (rules.ParseCredentialHosts'
	// canonical form; --arena-git-hosts) that spec.git.secretRef's
	// credentials may be sent to over https. Empty: none.
	CredentialHosts []string
	// ListTimeout bounds Opener.Head's read of an external repository's
	// refs. Default 15s.
	ListTimeout time.Duration
	// FetchTimeout bounds Opener.Open's fetch of an external repository.
	// Default 60s.
	FetchTimeout time.Duration
	// MaxFetchBytes bounds the bytes read from the server in one call (its
	// refs advertisement and pack), and the pack written to disk. Default
	// 128 MiB.
	MaxFetchBytes int64
	// MaxObjects bounds the objects of one fetched pack, checked from its
	// header before anything is read for them. Default 100000.
	MaxObjects int
	// MaxObjectBytes bounds every object of a fetched pack that must be
	// held whole in memory: a commit, tree or tag, a delta's base and the
	// object it resolves to. Checked from the declared sizes before the
	// object is inflated. A blob stored whole is streamed and bounded by
	// Limits.MaxSnapshotBytes instead. Default 32 MiB.
	MaxObjectBytes int64
	// MaxInflatedBytes bounds the sum of the inflated sizes of every
	// object of one fetched pack (a delta counted at the size it resolves
	// to). Default 1 GiB.
	MaxInflatedBytes int64
	// FetchDir is where a fetch writes the repository (a fresh directory
	// each, removed when the fetch's work is done). Default: os.TempDir().
	FetchDir string
	// Limits bound the snapshot check.
	Limits Limits
}

func (c Config) withDefaults() Config {
	if c.ListTimeout <= 0 {
		c.ListTimeout = defaultListTimeout
	}
	if c.FetchTimeout <= 0 {
		c.FetchTimeout = defaultFetchTimeout
	}
	if c.MaxFetchBytes <= 0 {
		c.MaxFetchBytes = defaultMaxFetchBytes
	}
	if c.MaxObjects <= 0 {
		c.MaxObjects = defaultMaxObjects
	}
	if c.MaxObjectBytes <= 0 {
		c.MaxObjectBytes = defaultMaxObjectBytes
	}
	if c.MaxInflatedBytes <= 0 {
		c.MaxInflatedBytes = defaultMaxInflatedBytes
	}
	c.Limits = c.Limits.withDefaults()
	return c
}

// ErrFetchTooLarge is wrapped by the error of a call that read more than
// Config.MaxFetchBytes from the server.
var ErrFetchTooLarge = errors.New("the repository is larger than the operator's fetch bound")

// callPolicy travels in the request context of one call, to the shared
// transport: which schemes it may use and how many bytes it may still read.
type callPolicy struct {
	allowHTTP bool
	left      atomic.Int64
}

type policyKey struct{}

// guardedTransport is the http.RoundTripper of every go-git HTTP request
// this process makes: netguard's dialer, no proxy, the call's scheme policy
// and byte budget. A request without a policy (another go-git user in the
// process) is refused: only this package fetches.
type guardedTransport struct{ base http.RoundTripper }

func (t guardedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	pol, _ := req.Context().Value(policyKey{}).(*callPolicy)
	if pol == nil {
		return nil, errors.New("git over http is only made through the arena project source package")
	}
	if req.URL.Scheme != "https" && (req.URL.Scheme != "http" || !pol.allowHTTP) {
		return nil, fmt.Errorf("scheme %q refused", req.URL.Scheme)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &budgetBody{rc: resp.Body, pol: pol}
	return resp, nil
}

// budgetBody fails a read once the call's byte budget is spent.
type budgetBody struct {
	rc  io.ReadCloser
	pol *callPolicy
}

func (b *budgetBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if b.pol.left.Add(-int64(n)) < 0 {
		return n, ErrFetchTooLarge
	}
	return n, err
}

func (b *budgetBody) Close() error { return b.rc.Close() }

var installOnce sync.Once

// installTransport makes go-git's http and https protocols use
// guardedTransport, redirects not followed. go-git chooses its transport
// from a process-wide table; this package owns the two HTTP entries.
func installTransport() {
	installOnce.Do(func() {
		base := netguard.NewTransport(nil)
		base.ResponseHeaderTimeout = 30 * time.Second
		c := githttp.NewClientWithOptions(&http.Client{Transport: guardedTransport{base: base}},
			&githttp.ClientOptions{CacheMaxEntries: 64, RedirectPolicy: githttp.NoFollowRedirects})
		client.InstallProtocol("https", c)
		client.InstallProtocol("http", c)
	})
}

// checkURL refuses what is not an http(s) URL the config allows.
func checkURL(raw string, allowHTTP bool) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return newError(v1alpha1.ArenaProjectReasonInsecureURL, nil, "%q is not an absolute URL", raw)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowHTTP:
	case u.Scheme == "http":
		return newError(v1alpha1.ArenaProjectReasonInsecureURL, nil, "%s: only https URLs are fetched (this operator does not allow http)", u.Redacted())
	default:
		return newError(v1alpha1.ArenaProjectReasonInsecureURL, nil, "%s: scheme %q is not accepted, only https", u.Redacted(), u.Scheme)
	}
	if u.User != nil {
		return newError(v1alpha1.ArenaProjectReasonInsecureURL, nil, "%s: credentials in the URL are not accepted; use spec.git.secretRef", u.Redacted())
	}
	return nil
}

// withPolicy is ctx with a fresh call policy of cfg.
func withPolicy(ctx context.Context, cfg Config) context.Context {
	pol := &callPolicy{allowHTTP: cfg.AllowHTTP}
	pol.left.Store(cfg.MaxFetchBytes)
	return context.WithValue(ctx, policyKey{}, pol)
}

// classify turns a go-git error into a reasoned Error.
func classify(ctx context.Context, err error, raw string) error {
	if e := ctxErr(ctx, err, "reading "+raw); e != nil {
		return e
	}
	switch {
	case errors.Is(err, transport.ErrRepositoryNotFound):
		return newError(v1alpha1.ArenaProjectReasonRepositoryNotFound, nil, "no repository at %s", raw)
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		return newError(v1alpha1.ArenaProjectReasonEmptyRepository, nil, "the repository at %s has no commit", raw)
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed):
		return newError(v1alpha1.ArenaProjectReasonFetchFailed, err, "reading %s: the server refused the credentials", raw)
	case errors.Is(err, ErrFetchTooLarge):
		var pb *packBoundError
		if errors.As(err, &pb) {
			return newError(v1alpha1.ArenaProjectReasonFetchFailed, pb, "reading %s", raw)
		}
		return newError(v1alpha1.ArenaProjectReasonFetchFailed, ErrFetchTooLarge, "reading %s", raw)
	}
	return newError(v1alpha1.ArenaProjectReasonFetchFailed, err, "reading %s", raw)
}

// listRemote reads the repository's refs (no objects): the cheap call.
func listRemote(ctx context.Context, raw string, creds *Credentials, cfg Config) ([]*plumbing.Reference, error) {
	if err := checkURL(raw, cfg.AllowHTTP); err != nil {
		return nil, err
	}
	installTransport()
	if ctx.Value(policyKey{}) == nil {
		ctx = withPolicy(ctx, cfg)
	}
	rem := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: git.DefaultRemoteName, URLs: []string{raw}})
	refs, err := rem.ListContext(ctx, &git.ListOptions{Auth: creds.auth()})
	if err != nil {
		return nil, classify(ctx, err, raw)
	}
	return refs, nil
}

// headOf is the default branch and its commit in a refs advertisement.
func headOf(refs []*plumbing.Reference, raw string) (branch, commit string, err error) {
	byName := map[plumbing.ReferenceName]plumbing.Hash{}
	var head *plumbing.Reference
	for _, r := range refs {
		if r.Name() == plumbing.HEAD {
			head = r
			continue
		}
		if r.Type() == plumbing.HashReference {
			byName[r.Name()] = r.Hash()
		}
	}
	if head == nil {
		return "", "", newError(v1alpha1.ArenaProjectReasonEmptyRepository, nil, "the repository at %s advertises no HEAD", raw)
	}
	if head.Type() == plumbing.SymbolicReference {
		if !head.Target().IsBranch() {
			return "", "", newError(v1alpha1.ArenaProjectReasonEmptyRepository, nil, "HEAD of %s names %s, not a branch", raw, head.Target())
		}
		h, ok := byName[head.Target()]
		if !ok {
			return "", "", newError(v1alpha1.ArenaProjectReasonEmptyRepository, nil, "the default branch %s of %s has no commit", head.Target().Short(), raw)
		}
		return head.Target().Short(), h.String(), nil
	}
	// No symref capability: the branch at HEAD's commit, main and master
	// first, then by name (as git clone guesses).
	var names []string
	for n, h := range byName {
		if n.IsBranch() && h == head.Hash() {
			names = append(names, n.Short())
		}
	}
	sort.Slice(names, func(i, j int) bool {
		rank := func(s string) int {
			switch s {
			case "main":
				return 0
			case "master":
				return 1
			}
			return 2
		}
		if rank(names[i]) != rank(names[j]) {
			return rank(names[i]) < rank(names[j])
		}
		return names[i] < names[j]
	})
	if len(names) == 0 {
		return "", "", newError(v1alpha1.ArenaProjectReasonEmptyRepository, nil, "HEAD of %s is on no branch", raw)
	}
	return names[0], head.Hash().String(), nil
}

// Fetch reads the whole external repository at raw (every branch and tag)
// into a fresh directory of cfg.FetchDir, bounded by cfg: the time
// (FetchTimeout), the bytes read from the server (MaxFetchBytes), and what
// the pack may inflate to, checked from its headers before any object is
// inflated (MaxObjects, MaxObjectBytes, MaxInflatedBytes,
// Limits.MaxSnapshotBytes; packindex.go). Objects are then read lazily
// from the pack on disk. The caller closes the Repository, which removes
// the directory.
func Fetch(ctx context.Context, raw string, creds *Credentials, cfg Config) (*Repository, error) {
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, cfg.FetchTimeout)
	defer cancel()
	// One byte budget for the whole call: the refs listing and the pack.
	ctx = withPolicy(ctx, cfg)
	refs, err := listRemote(ctx, raw, creds, cfg)
	if err != nil {
		return nil, err
	}
	branch, _, err := headOf(refs, raw)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(cfg.FetchDir, "omnia-git-fetch-")
	if err != nil {
		return nil, newError(v1alpha1.ArenaProjectReasonFetchFailed, err, "reading %s: no room to fetch into", raw)
	}
	st := newFetchStorage(ctx, dir, cfg)
	release := func() error { return errors.Join(st.Close(), os.RemoveAll(dir)) }
	fail := func(err error) (*Repository, error) {
		_ = release()
		return nil, err
	}
	repo, err := git.Init(st, nil)
	if err != nil {
		return fail(newError(v1alpha1.ArenaProjectReasonFetchFailed, err, "reading %s", raw))
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: git.DefaultRemoteName, URLs: []string{raw}}); err != nil {
		return fail(newError(v1alpha1.ArenaProjectReasonFetchFailed, err, "reading %s", raw))
	}
	err = repo.FetchContext(ctx, &git.FetchOptions{
		RemoteName: git.DefaultRemoteName,
		RefSpecs:   []config.RefSpec{"+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"},
		Auth:       creds.auth(),
		Tags:       git.NoTags,
	})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return fail(classify(ctx, err, raw))
	}
	if err := repo.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.NewBranchReferenceName(branch))); err != nil {
		return fail(newError(v1alpha1.ArenaProjectReasonFetchFailed, err, "reading %s", raw))
	}
	return &Repository{repo: repo, name: raw, defaultBranch: branch, limits: cfg.Limits, close: release}, nil
}

// Opener opens projects' repositories: hosted ones under Config's content
// root, external ones with the credentials of their secretRef, read through
// Secrets. With a Fetcher, what reaches a git server or writes a snapshot
// is a Fetcher job, never the caller's own work (Head, Snapshot).
type Opener struct {
	Config Config
	// Secrets reads spec.git.secretRef (the manager's uncached APIReader).
	Secrets ctrlclient.Reader
	// Fetcher runs the fetches outside the caller (nil: the caller does
	// them, a test's or a tool's choice).
	Fetcher *Fetcher
}

// NewOpener returns an Opener with cfg's defaults applied.
func NewOpener(cfg Config, secrets ctrlclient.Reader) *Opener {
	return &Opener{Config: cfg.withDefaults(), Secrets: secrets}
}

// RepositoryName is status.source.repository of p.
func RepositoryName(p *v1alpha1.ArenaProject) string {
	if p.Spec.Git != nil {
		return p.Spec.Git.URL
	}
	return RepositoryHosted
}

// Head finds p's default branch and its commit without reading objects: a
// hosted repository is opened on disk, an external one's refs are listed
// (one bounded request, Config.ListTimeout). The ArenaProject controller's
// call. With a Fetcher, the look is a Fetcher job (a hosted repository is
// the tenant's content too: its packs are checked on the way, rootfs.go):
// Head returns the answer the job found since the last Head of this
// question (taking it), or ErrFetching with the job queued.
func (o *Opener) Head(ctx context.Context, p *v1alpha1.ArenaProject) (Opened, error) {
	var creds *Credentials
	if p.Spec.Git != nil {
		var err error
		if creds, err = o.credentials(ctx, p); err != nil {
			return Opened{Repository: p.Spec.Git.URL}, err
		}
	}
	if o.Fetcher != nil {
		return o.headFromFetcher(p, creds)
	}
	ctx, cancel := context.WithTimeout(ctx, o.Config.ListTimeout)
	defer cancel()
	return o.head(ctx, p, creds)
}

// head is Head's work.
func (o *Opener) head(ctx context.Context, p *v1alpha1.ArenaProject, creds *Credentials) (Opened, error) {
	if p.Spec.Git == nil {
		r, err := openHosted(o.Config, p.Namespace, p.Name)
		if err != nil {
			return Opened{Repository: RepositoryHosted}, err
		}
		defer func() { _ = r.Close() }()
		c, err := r.Head()
		return Opened{Repository: RepositoryHosted, DefaultBranch: r.DefaultBranch(), Commit: c}, err
	}
	return listHead(ctx, p.Spec.Git.URL, creds, o.Config)
}
