// Package source is an ArenaProject's repository as the Arena controllers
// read it: where it is (hosted on the workspace content volume, or an
// external git URL), its default branch, the commit a ref resolves to, and
// whether that commit can be exported as a run's snapshot. The ArenaProject
// controller uses it (Opener.Head) to set Ready and status.defaultBranch;
// the ArenaRun controller uses Opener.Snapshot to pin status.source, read
// the run's arena file and export the snapshot. Both go through one
// Fetcher (fetcher.go), so no reconcile worker waits on a git server.
//
// Everything is done with go-git (github.com/go-git/go-git/v5); no git
// binary is run.
//
// # Where a repository is
//
// A hosted project (no spec.git) is the git repository at
// HostedPath(root, namespace, project) =
// <root>/<namespace>/arena/sources/<project>, where root is the operator's
// --workspace-content-path: <root>/<namespace> is the workspace's content
// subtree, and arena/sources/<project> is the directory whose
// .arena/versions/<commit> holds the run snapshots (arenajob.md#source,
// contentPath). It may be a working copy (with .git) or a bare repository.
// The volume is the tenants', so every path under it is opened from the
// content root down through os.Root, no component a symbolic link
// (rootfs.go): neither the repository read nor a snapshot written can be
// another namespace's.
//
// An external project (spec.git.url) is fetched over the smart HTTP
// protocol into a fresh directory of Config.FetchDir, its pack checked and
// indexed from its declared sizes before any object is inflated
// (packindex.go). A tenant chooses the URL, so the fetch is guarded:
// https only (http only when Config.AllowHTTP, for local tests); every
// connection is dialled through reconcile/netguard (no link-local or cloud
// metadata address, after DNS); redirects are not followed; every call is
// bounded in time (Config.ListTimeout, Config.FetchTimeout) and in bytes
// read from the server (Config.MaxFetchBytes, over every response of one
// call); no proxy is used.
//
// # Refs
//
// Resolve accepts, as arenajob.md#ref says: a full commit SHA (40 hex
// digits; the commit must be in the repository), a full ref name
// (refs/heads/x, refs/tags/y, or any other refs/...), or a short name,
// looked up as git does: refs/tags/<name> first, then refs/heads/<name>.
// An annotated tag is peeled to its commit. An empty ref is the default
// branch. Anything else — an unknown name, an abbreviated SHA, a SHA that
// is not a commit of the repository — is RefNotFound.
//
// # Snapshots
//
// A run's snapshot is the commit's tree written out as plain files
// (.arena/versions/<commit>). A commit is SnapshotUnexportable when that
// tree cannot be written out faithfully for the run:
//   - the arena file is missing at that commit, or is not a regular file;
//   - the tree has a submodule (a gitlink, whose content is not in this
//     repository);
//   - the tree has a Git LFS pointer file (its content is on an LFS server
//     the operator does not fetch from);
//   - the tree has a symbolic link whose target is absolute or leaves the
//     tree;
//   - the tree holds more than MaxSnapshotFiles files or
//     MaxSnapshotBytes bytes.
package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// An Error carries a reason of api/v1alpha1: one of the ArenaProject's
// Ready reasons (v1alpha1.ArenaProjectReason*), or
// v1alpha1.ArenaRunReasonRefNotFound or ArenaRunReasonSnapshotUnexportable,
// the ArenaRun's (arenajob.md#phase).
const (
	reasonFileTooLarge          = "FileTooLarge"
	reasonFileNotFound          = "FileNotFound"
	defaultUsername             = "git"
	lfsPointerPrefix            = "version https://git-lfs.github.com/spec/"
	maxLFSPointerSize           = 1024
	sha1Hex                     = 40
	contentPathFormat           = "arena/sources/%s/.arena/versions/%s"
	hostedSourcesDir            = "arena/sources"
	defaultArenaFile            = "config.arena.yaml"
	defaultMaxSnapshotFiles     = 20000
	defaultMaxSnapshotBytes     = 512 << 20
	defaultMaxFetchBytes        = 128 << 20
	defaultMaxObjects           = 100000
	defaultMaxObjectBytes       = 32 << 20
	defaultMaxInflatedBytes     = 1 << 30
	defaultListTimeout          = 15 * time.Second
	defaultFetchTimeout         = 60 * time.Second
	defaultMaxReadFileBytes     = 1 << 20
	credentialsUsernameKey      = "username"
	credentialsPasswordKey      = "password"
	repositoryHostedDescription = "hosted"
)

// Exported names of the constants other packages use.
const (
	// RepositoryHosted is status.source.repository of a hosted project.
	RepositoryHosted = repositoryHostedDescription
	// HostedDefaultBranch is a hosted project's default branch when its
	// repository's HEAD names none.
	HostedDefaultBranch = "main"
	// DefaultArenaFile is arenaFile's default (arenajob.md#arenafile).
	DefaultArenaFile = defaultArenaFile
	// CredentialsUsernameKey and CredentialsPasswordKey are the keys of
	// spec.git.secretRef's Secret.
	CredentialsUsernameKey = credentialsUsernameKey
	CredentialsPasswordKey = credentialsPasswordKey
	// DefaultMaxReadFileBytes bounds ReadFile when the caller gives 0.
	DefaultMaxReadFileBytes = defaultMaxReadFileBytes
	// Defaults of Config's fetch bounds.
	DefaultMaxFetchBytes    = defaultMaxFetchBytes
	DefaultMaxObjects       = defaultMaxObjects
	DefaultMaxObjectBytes   = defaultMaxObjectBytes
	DefaultMaxInflatedBytes = defaultMaxInflatedBytes
)

// Error is a resolution failure with the reason a condition carries.
type Error struct {
	// Reason is one of the Reason constants.
	Reason string
	// Message says what failed, for a condition message.
	Message string
	// Err is the underlying error, if any.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

func newError(reason string, err error, format string, args ...any) *Error {
	return &Error{Reason: reason, Message: fmt.Sprintf(format, args...), Err: err}
}

// ReasonOf is err's reason: the Reason of the *Error it wraps, or
// FetchFailed for any other error ("" for nil).
func ReasonOf(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return v1alpha1.ArenaProjectReasonFetchFailed
}

// IsRefNotFound and IsSnapshotUnexportable tell the two run-failing
// reasons apart from a project that cannot be read at all.
func IsRefNotFound(err error) bool { return ReasonOf(err) == v1alpha1.ArenaRunReasonRefNotFound }

// IsSnapshotUnexportable: see IsRefNotFound.
func IsSnapshotUnexportable(err error) bool {
	return ReasonOf(err) == v1alpha1.ArenaRunReasonSnapshotUnexportable
}

// Limits bound what Resolve's snapshot check accepts. Zero values take the
// defaults.
type Limits struct {
	// MaxSnapshotFiles: more files in a commit's tree make it
	// unexportable. Default 20000.
	MaxSnapshotFiles int
	// MaxSnapshotBytes: more bytes of file content make it unexportable.
	// Default 512 MiB.
	MaxSnapshotBytes int64
}

func (l Limits) withDefaults() Limits {
	if l.MaxSnapshotFiles <= 0 {
		l.MaxSnapshotFiles = defaultMaxSnapshotFiles
	}
	if l.MaxSnapshotBytes <= 0 {
		l.MaxSnapshotBytes = defaultMaxSnapshotBytes
	}
	return l
}

// Repository is an opened project repository: a hosted one on disk or an
// external one fetched into memory.
type Repository struct {
	repo *git.Repository
	// name is status.source.repository: the URL, or hosted.
	name          string
	defaultBranch string
	limits        Limits
	// close releases what the repository holds open (its directory
	// handles, its temporary directory); nil: nothing.
	close func() error
}

// Close releases the repository: a hosted one's directory handles, an
// external one's fetched copy on disk. The Repository is not usable after.
func (r *Repository) Close() error {
	if r == nil || r.close == nil {
		return nil
	}
	c := r.close
	r.close = nil
	return c()
}

// Name is the repository as status.source.repository records it: the URL
// of an external project, hosted for a hosted one.
func (r *Repository) Name() string { return r.name }

// DefaultBranch is the branch HEAD names.
func (r *Repository) DefaultBranch() string { return r.defaultBranch }

// openBounded opens the hosted repository at rel (<namespace>/arena/sources/<project>)
// of the content root: a working copy's .git, or a bare repository. The
// content volume is written by the tenants, so no component of rel, nor
// .git, may be a symbolic link (each is opened through an os.Root from the
// content root down, rootfs.go), a .git file (gitdir: …) is not followed,
// and go-git reads every file through an os.Root of the git directory, so a
// link inside it cannot lead out of it. The returned function closes what
// was opened.
func openBounded(root, rel string, bounds readBounds) (*git.Repository, func() error, error) {
	where := contentRel(rel)
	notFound := func(err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return newError(v1alpha1.ArenaProjectReasonRepositoryNotFound, nil, "hosted project: no git repository at %s of the workspace content volume", where)
		case errors.Is(err, ErrLinkInPath):
			return newError(v1alpha1.ArenaProjectReasonRepositoryNotFound, nil, "hosted project: a directory on the way to %s is a symbolic link, which is not followed", where)
		case errors.Is(err, errNotDirectory):
			return newError(v1alpha1.ArenaProjectReasonRepositoryNotFound, nil, "hosted project: %s is not a directory (a symbolic link is not followed)", where)
		}
		return newError(v1alpha1.ArenaProjectReasonRepositoryNotFound, err, "hosted project: opening its repository")
	}
	dir, err := OpenContentDir(root, rel, false)
	if err != nil {
		return nil, nil, notFound(err)
	}
	gitDir := dir
	if fi, err := dir.Lstat(git.GitDirName); err == nil {
		if !fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0 {
			_ = dir.Close()
			return nil, nil, newError(v1alpha1.ArenaProjectReasonRepositoryNotFound, nil, "hosted project: %s/.git is not a directory (a .git file or link is not followed)", where)
		}
		gitDir, err = OpenDirNoLinks(dir, git.GitDirName, false)
		_ = dir.Close()
		if err != nil {
			return nil, nil, notFound(err)
		}
	}
	fsys := newRootFS(gitDir, bounds)
	if err := judgePacks(fsys); err != nil {
		_ = gitDir.Close()
		if errors.Is(err, ErrFetchTooLarge) {
			return nil, nil, newError(v1alpha1.ArenaProjectReasonFetchFailed, err, "hosted project %s: reading its repository", where)
		}
		return nil, nil, newError(v1alpha1.ArenaProjectReasonRepositoryNotFound, err, "hosted project %s: reading its repository", where)
	}
	st := filesystem.NewStorageWithOptions(fsys, cache.NewObjectLRU(readCacheBytes),
		filesystem.Options{LargeObjectThreshold: largeObjectThreshold})
	closeAll := func() error {
		err := st.Close()
		return errors.Join(err, gitDir.Close())
	}
	repo, err := git.Open(st, nil)
	if err != nil {
		_ = closeAll()
		if errors.Is(err, git.ErrRepositoryNotExists) {
			return nil, nil, newError(v1alpha1.ArenaProjectReasonRepositoryNotFound, nil, "hosted project: no git repository at %s of the workspace content volume", where)
		}
		return nil, nil, newError(v1alpha1.ArenaProjectReasonRepositoryNotFound, err, "hosted project: opening its repository")
	}
	return repo, closeAll, nil
}

// contentRel is dir's last four elements (<namespace>/arena/sources/<project>),
// for messages that do not reveal the operator's mount.
func contentRel(dir string) string {
	parts := strings.Split(filepath.ToSlash(dir), "/")
	if len(parts) > 4 {
		parts = parts[len(parts)-4:]
	}
	return strings.Join(parts, "/")
}

// HostedPath is where a hosted project's repository is:
// <root>/<namespace>/arena/sources/<project>.
func HostedPath(root, namespace, project string) string {
	return filepath.Join(root, filepath.FromSlash(hostedRel(namespace, project)))
}

// hostedRel is HostedPath relative to the content root, slash-separated.
func hostedRel(namespace, project string) string {
	return path.Join(namespace, hostedSourcesDir, project)
}

// ContentPath is a commit's snapshot relative to the workspace content
// subtree: arena/sources/<project>/.arena/versions/<commit>
// (arenajob.md#source).
func ContentPath(project, commit string) string {
	return fmt.Sprintf(contentPathFormat, project, commit)
}

// dnsLabelish matches the names a hosted path is built from (a namespace
// and an object name), so no value can leave the content root.
var dnsLabelish = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`)

// OpenHosted opens the hosted repository of project in namespace under
// root, with the default read bounds (Config's) and limits. Errors:
// ContentRootNotSet (root empty), RepositoryNotFound (no repository
// there), FetchFailed (its packs are over the read bounds).
func OpenHosted(root, namespace, project string, limits Limits) (*Repository, error) {
	return openHosted(Config{ContentRoot: root, Limits: limits}.withDefaults(), namespace, project)
}

// openHosted is OpenHosted with cfg's content root, bounds and limits.
func openHosted(cfg Config, namespace, project string) (*Repository, error) {
	cfg = cfg.withDefaults()
	root, limits := cfg.ContentRoot, cfg.Limits
	if root == "" {
		return nil, newError(v1alpha1.ArenaProjectReasonContentRootNotSet, nil,
			"hosted project: the operator has no workspace content volume (--workspace-content-path is not set)")
	}
	if !dnsLabelish.MatchString(namespace) || !dnsLabelish.MatchString(project) {
		return nil, newError(v1alpha1.ArenaProjectReasonRepositoryNotFound, nil, "hosted project %s/%s: not a valid name", namespace, project)
	}
	repo, closeRepo, err := openBounded(root, hostedRel(namespace, project), cfg.readBounds())
	if err != nil {
		return nil, err
	}
	branch := HostedDefaultBranch
	if head, err := repo.Storer.Reference(plumbing.HEAD); err == nil && head.Type() == plumbing.SymbolicReference && head.Target().IsBranch() {
		branch = head.Target().Short()
	}
	return &Repository{repo: repo, name: RepositoryHosted, defaultBranch: branch, limits: limits.withDefaults(), close: closeRepo}, nil
}

// Head is the commit the default branch points at. EmptyRepository when
// the branch has no commit.
func (r *Repository) Head() (string, error) {
	ref, err := r.repo.Storer.Reference(plumbing.NewBranchReferenceName(r.defaultBranch))
	if err != nil {
		return "", newError(v1alpha1.ArenaProjectReasonEmptyRepository, nil, "the default branch %s has no commit", r.defaultBranch)
	}
	c, err := r.peel(ref.Hash())
	if errors.Is(err, ErrFetchTooLarge) {
		return "", newError(v1alpha1.ArenaProjectReasonFetchFailed, err, "reading the default branch %s", r.defaultBranch)
	}
	if err != nil {
		return "", newError(v1alpha1.ArenaProjectReasonEmptyRepository, err, "the default branch %s does not point at a commit", r.defaultBranch)
	}
	return c.Hash.String(), nil
}

var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// Resolve is the commit ref names (see the package doc for the forms
// accepted); "" is the default branch. Errors carry RefNotFound.
func (r *Repository) Resolve(ref string) (string, error) {
	if ref == "" {
		ref = plumbing.NewBranchReferenceName(r.defaultBranch).String()
	}
	if len(ref) == sha1Hex && fullSHA.MatchString(strings.ToLower(ref)) {
		c, err := r.repo.CommitObject(plumbing.NewHash(strings.ToLower(ref)))
		if errors.Is(err, ErrFetchTooLarge) {
			return "", newError(v1alpha1.ArenaRunReasonSnapshotUnexportable, err, "commit %s cannot be read", ref)
		}
		if err != nil {
			return "", newError(v1alpha1.ArenaRunReasonRefNotFound, nil, "commit %s is not in the repository", ref)
		}
		return c.Hash.String(), nil
	}
	var candidates []plumbing.ReferenceName
	if strings.HasPrefix(ref, "refs/") {
		candidates = []plumbing.ReferenceName{plumbing.ReferenceName(ref)}
	} else {
		candidates = []plumbing.ReferenceName{plumbing.NewTagReferenceName(ref), plumbing.NewBranchReferenceName(ref)}
	}
	for _, name := range candidates {
		if name.Validate() != nil {
			continue
		}
		rr, err := r.repo.Reference(name, true)
		if err != nil {
			continue
		}
		c, err := r.peel(rr.Hash())
		if errors.Is(err, ErrFetchTooLarge) {
			return "", newError(v1alpha1.ArenaRunReasonSnapshotUnexportable, err, "ref %s cannot be read", ref)
		}
		if err != nil {
			return "", newError(v1alpha1.ArenaRunReasonRefNotFound, err, "ref %s does not name a commit", ref)
		}
		return c.Hash.String(), nil
	}
	return "", newError(v1alpha1.ArenaRunReasonRefNotFound, nil, "ref %q names no branch, tag or commit of the repository", ref)
}

// peel is the commit h names, through annotated tags. An object over the
// read bounds (hostedread.go) is that error, not "not a commit".
func (r *Repository) peel(h plumbing.Hash) (*object.Commit, error) {
	for range 8 {
		c, err := r.repo.CommitObject(h)
		if err == nil {
			return c, nil
		}
		if errors.Is(err, ErrFetchTooLarge) {
			return nil, err
		}
		t, err := r.repo.TagObject(h)
		if errors.Is(err, ErrFetchTooLarge) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("object %s is neither a commit nor a tag", h)
		}
		h = t.Target
	}
	return nil, fmt.Errorf("tag chain at %s is too long", h)
}

// cleanPath is p as a path inside the tree, or an error when it leaves it.
func cleanPath(p string) (string, error) {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return "", fmt.Errorf("path %q is not relative to the repository root", p)
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") || c == "." {
		return "", fmt.Errorf("path %q leaves the repository", p)
	}
	return c, nil
}

// CheckExportable reports whether commit's tree can be written out as a
// run snapshot with arenaFile in it ("": config.arena.yaml); see the
// package doc. Errors carry SnapshotUnexportable (RefNotFound when commit
// is not a commit of the repository).
func (r *Repository) CheckExportable(commit, arenaFile string) error {
	if arenaFile == "" {
		arenaFile = DefaultArenaFile
	}
	c, err := r.commit(commit)
	if err != nil {
		return err
	}
	af, err := cleanPath(arenaFile)
	if err != nil {
		return newError(v1alpha1.ArenaRunReasonSnapshotUnexportable, nil, "arena file: %v", err)
	}
	tree, err := c.Tree()
	if err != nil {
		return newError(v1alpha1.ArenaRunReasonSnapshotUnexportable, err, "commit %s: reading its tree", commit)
	}
	unexportable := func(format string, args ...any) error {
		return newError(v1alpha1.ArenaRunReasonSnapshotUnexportable, nil, "commit %s cannot be exported: %s", commit[:12], fmt.Sprintf(format, args...))
	}
	foundArena := false
	files := 0
	var bytes int64
	w := object.NewTreeWalker(tree, true, nil)
	defer w.Close()
	for {
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return newError(v1alpha1.ArenaRunReasonSnapshotUnexportable, err, "commit %s: walking its tree", commit[:12])
		}
		switch e.Mode {
		case filemode.Dir:
			continue
		case filemode.Submodule:
			return unexportable("%s is a submodule, whose content is not in the repository", name)
		case filemode.Symlink:
			target, err := r.blobPrefix(e.Hash, 4096)
			if err != nil {
				return newError(v1alpha1.ArenaRunReasonSnapshotUnexportable, err, "commit %s: reading link %s", commit[:12], name)
			}
			t := string(target)
			if strings.HasPrefix(t, "/") || !withinTree(path.Join(path.Dir(name), t)) {
				return unexportable("symbolic link %s points outside the repository (%s)", name, t)
			}
			if name == af {
				return unexportable("the arena file %s is a symbolic link, not a regular file", af)
			}
		case filemode.Regular, filemode.Executable, filemode.Deprecated:
			blob, err := r.repo.BlobObject(e.Hash)
			if err != nil {
				return newError(v1alpha1.ArenaRunReasonSnapshotUnexportable, err, "commit %s: reading %s", commit[:12], name)
			}
			files++
			bytes += blob.Size
			if files > r.limits.MaxSnapshotFiles {
				return unexportable("more than %d files", r.limits.MaxSnapshotFiles)
			}
			if bytes > r.limits.MaxSnapshotBytes {
				return unexportable("more than %d bytes of content", r.limits.MaxSnapshotBytes)
			}
			if blob.Size <= maxLFSPointerSize {
				head, err := r.blobPrefix(e.Hash, len(lfsPointerPrefix))
				if err != nil {
					return newError(v1alpha1.ArenaRunReasonSnapshotUnexportable, err, "commit %s: reading %s", commit[:12], name)
				}
				if string(head) == lfsPointerPrefix {
					return unexportable("%s is a Git LFS pointer; LFS content is not fetched", name)
				}
			}
			if name == af {
				foundArena = true
			}
		default:
			return unexportable("%s has an unsupported file mode %s", name, e.Mode)
		}
	}
	if !foundArena {
		return unexportable("the arena file %s is not in it", af)
	}
	return nil
}

// withinTree reports whether the joined, cleaned path p stays in the tree.
func withinTree(p string) bool {
	c := path.Clean(p)
	return c != ".." && !strings.HasPrefix(c, "../")
}

func (r *Repository) commit(commit string) (*object.Commit, error) {
	if !fullSHA.MatchString(commit) {
		return nil, newError(v1alpha1.ArenaRunReasonRefNotFound, nil, "%q is not a full commit SHA", commit)
	}
	c, err := r.repo.CommitObject(plumbing.NewHash(commit))
	if errors.Is(err, ErrFetchTooLarge) {
		return nil, newError(v1alpha1.ArenaRunReasonSnapshotUnexportable, err, "commit %s cannot be read", commit)
	}
	if err != nil {
		return nil, newError(v1alpha1.ArenaRunReasonRefNotFound, nil, "commit %s is not in the repository", commit)
	}
	return c, nil
}

// blobPrefix reads at most n bytes of blob h.
func (r *Repository) blobPrefix(h plumbing.Hash, n int) ([]byte, error) {
	b, err := r.repo.BlobObject(h)
	if err != nil {
		return nil, err
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer func() { _ = rd.Close() }()
	return readAtMost(rd, int64(n))
}

// ReadFile is the content of file p at commit, refused (an error, no
// content) when it is larger than maxBytes (0: DefaultMaxReadFileBytes).
// Errors: RefNotFound (no such commit), SnapshotUnexportable (the path
// leaves the tree, names no regular file, or is too large) — the run's
// arena file is read with it.
func (r *Repository) ReadFile(commit, p string, maxBytes int64) ([]byte, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxReadFileBytes
	}
	c, err := r.commit(commit)
	if err != nil {
		return nil, err
	}
	cp, err := cleanPath(p)
	if err != nil {
		return nil, newError(v1alpha1.ArenaRunReasonSnapshotUnexportable, nil, "%v", err)
	}
	f, err := c.File(cp)
	if err != nil {
		return nil, &Error{Reason: v1alpha1.ArenaRunReasonSnapshotUnexportable, Message: fmt.Sprintf("%s is not a file at commit %s", cp, commit[:12]), Err: errFileNotFound}
	}
	if !f.Mode.IsFile() || f.Mode == filemode.Symlink {
		return nil, &Error{Reason: v1alpha1.ArenaRunReasonSnapshotUnexportable, Message: fmt.Sprintf("%s is not a regular file at commit %s", cp, commit[:12]), Err: errFileNotFound}
	}
	if f.Size > maxBytes {
		return nil, &Error{Reason: v1alpha1.ArenaRunReasonSnapshotUnexportable, Message: fmt.Sprintf("%s is %d bytes, over the %d-byte bound", cp, f.Size, maxBytes), Err: ErrFileTooLarge}
	}
	rd, err := f.Reader()
	if err != nil {
		return nil, newError(v1alpha1.ArenaRunReasonSnapshotUnexportable, err, "reading %s", cp)
	}
	defer func() { _ = rd.Close() }()
	data, err := readAtMost(rd, maxBytes+1)
	if err != nil {
		return nil, newError(v1alpha1.ArenaRunReasonSnapshotUnexportable, err, "reading %s", cp)
	}
	if int64(len(data)) > maxBytes {
		return nil, &Error{Reason: v1alpha1.ArenaRunReasonSnapshotUnexportable, Message: fmt.Sprintf("%s is over the %d-byte bound", cp, maxBytes), Err: ErrFileTooLarge}
	}
	return data, nil
}

// ErrFileTooLarge is wrapped by ReadFile's error for a file over the bound.
var ErrFileTooLarge = errors.New(reasonFileTooLarge)

var errFileNotFound = errors.New(reasonFileNotFound)

// IsFileNotFound reports a ReadFile of a path that is no regular file.
func IsFileNotFound(err error) bool { return errors.Is(err, errFileNotFound) }

// Pin is what a run records in status.source.
type Pin struct {
	// Repository: the URL, or hosted.
	Repository string
	// Ref: the ref asked for, or the default branch.
	Ref string
	// Commit: the SHA Ref resolved to.
	Commit string
	// ContentPath: ContentPath(project, Commit).
	ContentPath string
}

// Pin resolves ref ("" the default branch) and checks that the commit is
// exportable with arenaFile: the pure core of Opener.ResolveRef.
func (r *Repository) Pin(project, ref, arenaFile string) (Pin, error) {
	asked := ref
	if asked == "" {
		asked = r.defaultBranch
	}
	commit, err := r.Resolve(ref)
	if err != nil {
		return Pin{}, err
	}
	if err := r.CheckExportable(commit, arenaFile); err != nil {
		return Pin{}, err
	}
	return Pin{Repository: r.name, Ref: asked, Commit: commit, ContentPath: ContentPath(project, commit)}, nil
}

// Opened is what Opener.Head finds without reading the objects: the
// repository's name, default branch and its commit.
type Opened struct {
	Repository    string
	DefaultBranch string
	Commit        string
}

// ctxErr turns a context expiry into a FetchFailed that says so.
func ctxErr(ctx context.Context, err error, what string) error {
	if ctx.Err() != nil {
		return newError(v1alpha1.ArenaProjectReasonFetchFailed, err, "%s: gave up after the time bound", what)
	}
	return nil
}

// readAtMost reads at most n bytes of rd.
func readAtMost(rd io.Reader, n int64) ([]byte, error) {
	return io.ReadAll(io.LimitReader(rd, n))
}
