package source_test

import (
	"context"
	"encoding/base64"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/storage/memory"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source/gittest"
)

// fixture is a repository with:
//
//	c1 (main~1): config.arena.yaml v1        ← tag v1 (lightweight)
//	c2 (main):   config.arena.yaml v2        ← tag v2 (annotated), HEAD → main
//	c3 (feature): evals/other.arena.yaml only (no config.arena.yaml)
//	sub (submodule): config + a gitlink          ← branch with-submodule
//	lfs: config is an LFS pointer                ← branch with-lfs
//	link: a symlink out of the tree              ← branch with-escaping-link
//	dangling: the tag "both" and the branch "both" at different commits
type fixture struct {
	repo                              *git.Repository
	c1, c2, c3, sub, lfs, link, inner plumbing.Hash
}

func build(t *testing.T, repo *git.Repository, headBranch string) fixture {
	t.Helper()
	f := fixture{repo: repo}
	f.c1 = gittest.Commit(t, repo, "one", map[string]gittest.File{
		"config.arena.yaml":       {Content: "version: 1\n"},
		"scenarios/hello.yaml":    {Content: "name: hello\n"},
		"prompts/system.md":       {Content: "be nice\n"},
		"scripts/run.sh":          {Content: "#!/bin/sh\n", Mode: filemode.Executable},
		"scenarios/inner/x.yaml":  {Content: "x\n"},
		"scenarios/link-ok.yaml":  {Content: "hello.yaml", Mode: filemode.Symlink},
		"scenarios/inner/up.yaml": {Content: "../hello.yaml", Mode: filemode.Symlink},
	})
	f.c2 = gittest.Commit(t, repo, "two", map[string]gittest.File{
		"config.arena.yaml":    {Content: "version: 2\n"},
		"scenarios/hello.yaml": {Content: "name: hello\n"},
	}, f.c1)
	f.c3 = gittest.Commit(t, repo, "three", map[string]gittest.File{
		"evals/other.arena.yaml": {Content: "version: 3\n"},
	}, f.c2)
	f.sub = gittest.Commit(t, repo, "submodule", map[string]gittest.File{
		"config.arena.yaml": {Content: "version: 4\n"},
		"vendor/lib":        {Mode: filemode.Submodule, Hash: f.c1},
	}, f.c2)
	f.lfs = gittest.Commit(t, repo, "lfs", map[string]gittest.File{
		"config.arena.yaml": {Content: "version 1\n"},
		"data/big.bin":      {Content: "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"},
	}, f.c2)
	f.link = gittest.Commit(t, repo, "link", map[string]gittest.File{
		"config.arena.yaml": {Content: "version: 5\n"},
		"secrets":           {Content: "../../../etc", Mode: filemode.Symlink},
	}, f.c2)
	f.inner = gittest.Commit(t, repo, "both-branch", map[string]gittest.File{
		"config.arena.yaml": {Content: "branch\n"},
	}, f.c2)
	gittest.Branch(t, repo, "main", f.c2)
	gittest.Branch(t, repo, "feature", f.c3)
	gittest.Branch(t, repo, "release/1.x", f.c1)
	gittest.Branch(t, repo, "with-submodule", f.sub)
	gittest.Branch(t, repo, "with-lfs", f.lfs)
	gittest.Branch(t, repo, "with-escaping-link", f.link)
	gittest.Branch(t, repo, "both", f.inner)
	gittest.Tag(t, repo, "v1", f.c1, false)
	gittest.Tag(t, repo, "v2", f.c2, true)
	gittest.Tag(t, repo, "both", f.c1, false)
	gittest.Head(t, repo, headBranch)
	return f
}

// hosted makes the fixture as a hosted project's repository under a fresh
// content root: <root>/ns/arena/sources/proj.
func hosted(t *testing.T) (root string, f fixture) {
	t.Helper()
	root = t.TempDir()
	repo, err := git.PlainInit(source.HostedPath(root, "ns", "proj"), false)
	if err != nil {
		t.Fatal(err)
	}
	return root, build(t, repo, "main")
}

type refCase struct {
	name   string
	ref    string
	want   func(fixture) plumbing.Hash
	reason string
}

func refCases() []refCase {
	c1 := func(f fixture) plumbing.Hash { return f.c1 }
	c2 := func(f fixture) plumbing.Hash { return f.c2 }
	c3 := func(f fixture) plumbing.Hash { return f.c3 }
	return []refCase{
		{name: "empty is the default branch", ref: "", want: c2},
		{name: "branch", ref: "feature", want: c3},
		{name: "branch with a slash", ref: "release/1.x", want: c1},
		{name: "lightweight tag", ref: "v1", want: c1},
		{name: "annotated tag peeled to its commit", ref: "v2", want: c2},
		{name: "full branch ref", ref: "refs/heads/feature", want: c3},
		{name: "full tag ref", ref: "refs/tags/v2", want: c2},
		{name: "short name: the tag wins over the branch, as git", ref: "both", want: c1},
		{name: "full ref picks the branch", ref: "refs/heads/both", want: func(f fixture) plumbing.Hash { return f.inner }},
		{name: "full SHA of an older commit", ref: "SHA1", want: c1},
		{name: "full SHA in upper case", ref: "SHA1UPPER", want: c1},
		{name: "unknown branch", ref: "nope", reason: v1alpha1.ArenaRunReasonRefNotFound},
		{name: "unknown full ref", ref: "refs/heads/nope", reason: v1alpha1.ArenaRunReasonRefNotFound},
		{name: "abbreviated SHA", ref: "SHORT1", reason: v1alpha1.ArenaRunReasonRefNotFound},
		{name: "SHA of no commit", ref: "0123456789abcdef0123456789abcdef01234567", reason: v1alpha1.ArenaRunReasonRefNotFound},
		{name: "invalid ref name", ref: "a..b", reason: v1alpha1.ArenaRunReasonRefNotFound},
		{name: "remote ref form not advertised", ref: "refs/remotes/origin/main", reason: v1alpha1.ArenaRunReasonRefNotFound},
	}
}

func (c refCase) refFor(f fixture) string {
	switch c.ref {
	case "SHA1":
		return f.c1.String()
	case "SHA1UPPER":
		return strings.ToUpper(f.c1.String())
	case "SHORT1":
		return f.c1.String()[:12]
	}
	return c.ref
}

func checkResolve(t *testing.T, r *source.Repository, f fixture) {
	t.Helper()
	for _, tc := range refCases() {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.Resolve(tc.refFor(f))
			if tc.reason != "" {
				if err == nil || source.ReasonOf(err) != tc.reason {
					t.Fatalf("Resolve(%q) = %q, %v; want reason %s", tc.refFor(f), got, err, tc.reason)
				}
				if !source.IsRefNotFound(err) {
					t.Errorf("IsRefNotFound(%v) = false", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tc.refFor(f), err)
			}
			if want := tc.want(f).String(); got != want {
				t.Errorf("Resolve(%q) = %s, want %s", tc.refFor(f), got, want)
			}
		})
	}
}

func TestResolveRefHosted(t *testing.T) {
	root, f := hosted(t)
	r, err := source.OpenHosted(root, "ns", "proj", source.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Name() != source.RepositoryHosted || r.DefaultBranch() != "main" {
		t.Errorf("name %q branch %q, want hosted main", r.Name(), r.DefaultBranch())
	}
	if h, err := r.Head(); err != nil || h != f.c2.String() {
		t.Errorf("Head() = %s, %v; want %s", h, err, f.c2)
	}
	checkResolve(t, r, f)
}

func TestOpenHostedErrors(t *testing.T) {
	root, _ := hosted(t)
	empty := t.TempDir()
	if _, err := git.PlainInit(source.HostedPath(empty, "ns", "fresh"), true); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, root, ns, project, reason string
		head                            bool // open succeeds, Head fails
	}{
		{name: "no content root", root: "", ns: "ns", project: "proj", reason: v1alpha1.ArenaProjectReasonContentRootNotSet},
		{name: "no repository", root: root, ns: "ns", project: "other", reason: v1alpha1.ArenaProjectReasonRepositoryNotFound},
		{name: "no repository in that namespace", root: root, ns: "ns2", project: "proj", reason: v1alpha1.ArenaProjectReasonRepositoryNotFound},
		{name: "traversal in a name", root: root, ns: "..", project: "proj", reason: v1alpha1.ArenaProjectReasonRepositoryNotFound},
		{name: "bare repository with no commit", root: empty, ns: "ns", project: "fresh", reason: v1alpha1.ArenaProjectReasonEmptyRepository, head: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := source.OpenHosted(tc.root, tc.ns, tc.project, source.Limits{})
			if tc.head {
				if err != nil {
					t.Fatal(err)
				}
				if r.DefaultBranch() != "main" && r.DefaultBranch() != "master" {
					t.Errorf("default branch %q", r.DefaultBranch())
				}
				_, err = r.Head()
			}
			if source.ReasonOf(err) != tc.reason {
				t.Fatalf("got %v (reason %q), want reason %s", err, source.ReasonOf(err), tc.reason)
			}
		})
	}
}

// TestHostedDefaultBranchFromHEAD: a hosted repository whose HEAD names
// trunk has the default branch trunk.
func TestHostedDefaultBranchFromHEAD(t *testing.T) {
	root := t.TempDir()
	repo, err := git.PlainInit(source.HostedPath(root, "ns", "p"), false)
	if err != nil {
		t.Fatal(err)
	}
	f := build(t, repo, "feature")
	r, err := source.OpenHosted(root, "ns", "p", source.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if r.DefaultBranch() != "feature" {
		t.Errorf("default branch %q, want feature", r.DefaultBranch())
	}
	if c, _ := r.Resolve(""); c != f.c3.String() {
		t.Errorf("Resolve(\"\") = %s, want %s", c, f.c3)
	}
}

func TestCheckExportable(t *testing.T) {
	root, f := hosted(t)
	r, err := source.OpenHosted(root, "ns", "proj", source.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	small, err := source.OpenHosted(root, "ns", "proj", source.Limits{MaxSnapshotFiles: 3})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		repo      *source.Repository
		commit    plumbing.Hash
		arenaFile string
		reason    string
		says      string
	}{
		{name: "default arena file present, in-tree links", repo: r, commit: f.c1},
		{name: "explicit arena file", repo: r, commit: f.c2, arenaFile: "config.arena.yaml"},
		{name: "nested arena file", repo: r, commit: f.c3, arenaFile: "evals/other.arena.yaml"},
		{name: "arena file missing at that commit", repo: r, commit: f.c3, reason: v1alpha1.ArenaRunReasonSnapshotUnexportable, says: "not in it"},
		{name: "arena file a directory", repo: r, commit: f.c1, arenaFile: "scenarios", reason: v1alpha1.ArenaRunReasonSnapshotUnexportable, says: "not in it"},
		{name: "arena file a symlink", repo: r, commit: f.c1, arenaFile: "scenarios/link-ok.yaml", reason: v1alpha1.ArenaRunReasonSnapshotUnexportable, says: "symbolic link"},
		{name: "arena file leaving the tree", repo: r, commit: f.c1, arenaFile: "../config.arena.yaml", reason: v1alpha1.ArenaRunReasonSnapshotUnexportable},
		{name: "submodule", repo: r, commit: f.sub, reason: v1alpha1.ArenaRunReasonSnapshotUnexportable, says: "submodule"},
		{name: "LFS pointer", repo: r, commit: f.lfs, reason: v1alpha1.ArenaRunReasonSnapshotUnexportable, says: "LFS"},
		{name: "symlink out of the tree", repo: r, commit: f.link, reason: v1alpha1.ArenaRunReasonSnapshotUnexportable, says: "outside"},
		{name: "over the file bound", repo: small, commit: f.c1, reason: v1alpha1.ArenaRunReasonSnapshotUnexportable, says: "more than 3 files"},
		{name: "no such commit", repo: r, commit: plumbing.NewHash("0123456789abcdef0123456789abcdef01234567"), reason: v1alpha1.ArenaRunReasonRefNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.repo.CheckExportable(tc.commit.String(), tc.arenaFile)
			if source.ReasonOf(err) != tc.reason {
				t.Fatalf("CheckExportable = %v, want reason %q", err, tc.reason)
			}
			if tc.says != "" && !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error %q does not say %q", err, tc.says)
			}
		})
	}
}

func TestPin(t *testing.T) {
	root, f := hosted(t)
	r, err := source.OpenHosted(root, "ns", "proj", source.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	pin, err := r.Pin("proj", "", "")
	if err != nil {
		t.Fatal(err)
	}
	want := source.Pin{Repository: "hosted", Ref: "main", Commit: f.c2.String(), ContentPath: "arena/sources/proj/.arena/versions/" + f.c2.String()}
	if pin != want {
		t.Errorf("Pin = %+v, want %+v", pin, want)
	}
	if pin, err = r.Pin("proj", "v1", ""); err != nil || pin.Ref != "v1" || pin.Commit != f.c1.String() {
		t.Errorf("Pin(v1) = %+v, %v", pin, err)
	}
	if _, err := r.Pin("proj", "feature", ""); !source.IsSnapshotUnexportable(err) {
		t.Errorf("Pin(feature) without the arena file = %v, want SnapshotUnexportable", err)
	}
	if _, err := r.Pin("proj", "nope", ""); !source.IsRefNotFound(err) {
		t.Errorf("Pin(nope) = %v, want RefNotFound", err)
	}
}

func TestReadFile(t *testing.T) {
	root, f := hosted(t)
	r, err := source.OpenHosted(root, "ns", "proj", source.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.ReadFile(f.c1.String(), "config.arena.yaml", 0)
	if err != nil || string(got) != "version: 1\n" {
		t.Errorf("ReadFile at c1 = %q, %v", got, err)
	}
	got, err = r.ReadFile(f.c2.String(), "./config.arena.yaml", 64)
	if err != nil || string(got) != "version: 2\n" {
		t.Errorf("ReadFile at c2 = %q, %v", got, err)
	}
	if _, err := r.ReadFile(f.c1.String(), "config.arena.yaml", 5); !errors.Is(err, source.ErrFileTooLarge) {
		t.Errorf("ReadFile over the bound = %v, want ErrFileTooLarge", err)
	}
	if _, err := r.ReadFile(f.c3.String(), "config.arena.yaml", 0); !source.IsFileNotFound(err) {
		t.Errorf("ReadFile of a missing file = %v, want IsFileNotFound", err)
	}
	if _, err := r.ReadFile(f.c1.String(), "/etc/passwd", 0); source.ReasonOf(err) != v1alpha1.ArenaRunReasonSnapshotUnexportable {
		t.Errorf("ReadFile of an absolute path = %v", err)
	}
	if _, err := r.ReadFile("main", "config.arena.yaml", 0); !source.IsRefNotFound(err) {
		t.Errorf("ReadFile at a ref, not a SHA = %v, want RefNotFound", err)
	}
}

// external serves a fixture over smart HTTP from an in-memory repository.
func external(t *testing.T, opts gittest.Options) (*gittest.Server, fixture) {
	t.Helper()
	repo, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		t.Fatal(err)
	}
	f := build(t, repo, "main")
	return gittest.Serve(t, repo, opts), f
}

var localHTTP = source.Config{AllowHTTP: true}

func TestResolveRefExternal(t *testing.T) {
	srv, f := external(t, gittest.Options{})
	r, err := source.Fetch(context.Background(), srv.URL, nil, localHTTP)
	if err != nil {
		t.Fatal(err)
	}
	if r.Name() != srv.URL || r.DefaultBranch() != "main" {
		t.Errorf("name %q branch %q", r.Name(), r.DefaultBranch())
	}
	checkResolve(t, r, f)
	if err := r.CheckExportable(f.sub.String(), ""); !source.IsSnapshotUnexportable(err) {
		t.Errorf("submodule commit fetched over HTTP: %v, want SnapshotUnexportable", err)
	}
	if got, err := r.ReadFile(f.c1.String(), "config.arena.yaml", 0); err != nil || string(got) != "version: 1\n" {
		t.Errorf("ReadFile = %q, %v", got, err)
	}
}

func TestExternalDefaultBranchFromSymref(t *testing.T) {
	repo, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		t.Fatal(err)
	}
	f := build(t, repo, "release/1.x")
	srv := gittest.Serve(t, repo, gittest.Options{})
	r, err := source.Fetch(context.Background(), srv.URL, nil, localHTTP)
	if err != nil {
		t.Fatal(err)
	}
	if r.DefaultBranch() != "release/1.x" {
		t.Errorf("default branch %q, want release/1.x", r.DefaultBranch())
	}
	if c, _ := r.Resolve(""); c != f.c1.String() {
		t.Errorf("Resolve(\"\") = %s, want %s", c, f.c1)
	}
}

func TestFetchGuards(t *testing.T) {
	open, _ := external(t, gittest.Options{})
	locked, _ := external(t, gittest.Options{Username: "bot", Password: "s3cret"})
	// A branch with 64 KiB of incompressible content: its pack is larger
	// than a 16 KiB bound.
	bigRepo, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		t.Fatal(err)
	}
	bf := build(t, bigRepo, "main")
	noise := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	gittest.Branch(t, bigRepo, "big", gittest.Commit(t, bigRepo, "big", map[string]gittest.File{
		"config.arena.yaml": {Content: "big\n"}, "data.bin": {Content: string(noise)},
	}, bf.c2))
	padded := gittest.Serve(t, bigRepo, gittest.Options{})
	cases := []struct {
		name   string
		url    string
		creds  *source.Credentials
		cfg    source.Config
		reason string
		says   string
	}{
		{name: "http refused by default", url: open.URL, reason: v1alpha1.ArenaProjectReasonInsecureURL, says: "only https"},
		{name: "file scheme", url: "file:///etc", cfg: localHTTP, reason: v1alpha1.ArenaProjectReasonInsecureURL},
		{name: "ssh scheme", url: "ssh://git@example.invalid/x.git", cfg: localHTTP, reason: v1alpha1.ArenaProjectReasonInsecureURL},
		{name: "credentials in the URL", url: strings.Replace(locked.URL, "http://", "http://bot:s3cret@", 1), cfg: localHTTP, reason: v1alpha1.ArenaProjectReasonInsecureURL},
		{name: "metadata address refused by the egress guard", url: "http://169.254.169.254/repo.git", cfg: localHTTP, reason: v1alpha1.ArenaProjectReasonFetchFailed, says: "egress guard"},
		{name: "no credentials for a locked repository", url: locked.URL, cfg: localHTTP, reason: v1alpha1.ArenaProjectReasonFetchFailed},
		{name: "wrong credentials", url: locked.URL, cfg: localHTTP, creds: &source.Credentials{Username: "bot", Password: "nope"}, reason: v1alpha1.ArenaProjectReasonFetchFailed},
		{name: "right credentials", url: locked.URL, cfg: localHTTP, creds: &source.Credentials{Username: "bot", Password: "s3cret"}},
		{name: "over the byte bound", url: padded.URL, cfg: source.Config{AllowHTTP: true, MaxFetchBytes: 16 << 10}, reason: v1alpha1.ArenaProjectReasonFetchFailed, says: "larger than"},
		{name: "under the byte bound", url: padded.URL, cfg: source.Config{AllowHTTP: true, MaxFetchBytes: 16 << 20}},
		{name: "nothing listening", url: "http://127.0.0.1:1/repo.git", cfg: localHTTP, reason: v1alpha1.ArenaProjectReasonFetchFailed},
		{name: "no repository at that path", url: open.Server.URL + "/other.git", cfg: localHTTP, reason: v1alpha1.ArenaProjectReasonRepositoryNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := source.Fetch(context.Background(), tc.url, tc.creds, tc.cfg)
			if source.ReasonOf(err) != tc.reason {
				t.Fatalf("Fetch = %v, want reason %q", err, tc.reason)
			}
			if tc.says != "" && !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error %q does not say %q", err, tc.says)
			}
		})
	}
}

func TestMain(m *testing.M) {
	// go-git reads the user's git config for nothing here; keep HOME out.
	_ = os.Setenv("HOME", filepath.Join(os.TempDir(), "arenaproject-source-test-home"))
	// gittest's https servers are trusted as the system roots.
	dir, err := os.MkdirTemp("", "arenaproject-source-test-")
	if err == nil {
		err = gittest.Trust(dir)
	}
	if err != nil {
		panic(err)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// TestFetchOverTLS: over https (the production transport, no AllowHTTP),
// a locked repository is read with its credentials, sent as basic auth.
func TestFetchOverTLS(t *testing.T) {
	srv, f := external(t, gittest.Options{Username: "bot", Password: "s3cret", TLS: true})
	if !strings.HasPrefix(srv.URL, "https://") {
		t.Fatalf("server URL %s is not https", srv.URL)
	}
	r, err := source.Fetch(context.Background(), srv.URL, &source.Credentials{Username: "bot", Password: "s3cret"}, source.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := r.Resolve(""); c != f.c2.String() {
		t.Errorf("Resolve(\"\") = %s, want %s", c, f.c2)
	}
	if _, err := source.Fetch(context.Background(), srv.URL, nil, source.Config{}); source.ReasonOf(err) != v1alpha1.ArenaProjectReasonFetchFailed {
		t.Errorf("without credentials: %v, want FetchFailed", err)
	}
	if got := srv.Authorizations(); len(got) == 0 || got[0] != basicAuth("bot", "s3cret") {
		t.Errorf("Authorization headers %q, want basic auth bot:s3cret", got)
	}
}

func basicAuth(user, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
}

// exportDir is the snapshot directory of project in namespace ns of root,
// closed with the test.
func exportDir(t *testing.T, root, project string) *os.Root {
	t.Helper()
	d, err := source.OpenSnapshotsDir(root, "ns", project)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

func TestExport(t *testing.T) {
	root, f := hosted(t)
	r, err := source.OpenHosted(root, "ns", "proj", source.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	outRoot := t.TempDir()
	dest := exportDir(t, outRoot, "proj")
	out := filepath.Join(outRoot, "ns", filepath.FromSlash(source.ContentPath("proj", f.c1.String())))
	if err := r.Export(f.c1.String(), "", dest, f.c1.String()); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"config.arena.yaml": "version: 1\n", "scenarios/hello.yaml": "name: hello\n", "scenarios/inner/x.yaml": "x\n", "scenarios/link-ok.yaml": "name: hello\n", "scenarios/inner/up.yaml": "name: hello\n"} {
		got, err := os.ReadFile(filepath.Join(out, p))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", p, got, err, want)
		}
	}
	if fi, err := os.Stat(filepath.Join(out, "scripts/run.sh")); err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("scripts/run.sh not executable: %v %v", fi, err)
	}
	if fi, err := os.Lstat(filepath.Join(out, "scenarios/link-ok.yaml")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link-ok.yaml is not a symlink: %v", err)
	}
	// Exporting again leaves it as it is; an unexportable commit writes nothing.
	if err := r.Export(f.c1.String(), "", dest, f.c1.String()); err != nil {
		t.Errorf("second export: %v", err)
	}
	if err := r.Export(f.link.String(), "", dest, "link"); !source.IsSnapshotUnexportable(err) {
		t.Errorf("export of the escaping link = %v, want SnapshotUnexportable", err)
	}
	if _, err := os.Lstat(filepath.Join(filepath.Dir(out), "link")); !os.IsNotExist(err) {
		t.Errorf("an unexportable commit left a snapshot: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("temporary directories left beside the snapshot: %v", entries)
	}
}

// TestHostedOpenStaysInItsRepository: the content volume is the tenant's,
// so a hosted project's directory cannot lead the operator into another
// project's repository — not by a symbolic link for the project directory,
// not by a .git file (gitdir: …), not by a link inside .git.
func TestHostedOpenStaysInItsRepository(t *testing.T) {
	root, vf := hosted(t) // ns/proj is another tenant's repository
	victim := source.HostedPath(root, "ns", "proj")
	mk := func(project string) string {
		d := source.HostedPath(root, "evil", project)
		if err := os.MkdirAll(filepath.Dir(d), 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	if err := os.Symlink(victim, mk("linked")); err != nil {
		t.Fatal(err)
	}
	gitfile := mk("gitfile")
	if err := os.MkdirAll(gitfile, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gitfile, ".git"), []byte("gitdir: "+filepath.Join(victim, ".git")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A repository of its own whose objects directory links to the
	// victim's: go-billy's OS filesystem (bound to the git directory) does
	// not follow a link out of it.
	inner := mk("innerlink")
	if _, err := git.PlainInit(inner, false); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(inner, ".git", "objects")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(victim, ".git", "objects"), filepath.Join(inner, ".git", "objects")); err != nil {
		t.Fatal(err)
	}
	for _, project := range []string{"linked", "gitfile"} {
		if _, err := source.OpenHosted(root, "evil", project, source.Limits{}); source.ReasonOf(err) != v1alpha1.ArenaProjectReasonRepositoryNotFound {
			t.Errorf("OpenHosted(evil/%s) = %v, want RepositoryNotFound", project, err)
		}
	}
	r, err := source.OpenHosted(root, "evil", "innerlink", source.Limits{})
	if err == nil {
		if c, err := r.Resolve(vf.c1.String()); err == nil {
			t.Errorf("a link inside .git let evil/innerlink read the victim's commit %s", c)
		}
	}
}

// TestContentPathLinksAreNotFollowed: a link in a parent folder of a
// project's repository — the namespace folder itself, or its arena folder —
// pointing at another namespace's (a relative link, inside the content
// root) does not make the operator read that namespace's repository, nor
// write a snapshot into its folder: every component is opened through
// os.Root from the content root down, and a link is refused.
func TestContentPathLinksAreNotFollowed(t *testing.T) {
	for _, tc := range []struct{ name, link, target string }{
		{name: "the namespace folder", link: "evil", target: "victim"},
		{name: "the arena folder", link: "evil/arena", target: "../victim/arena"},
		{name: "the sources folder", link: "evil/arena/sources", target: "../../victim/arena/sources"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			repo, err := git.PlainInit(source.HostedPath(root, "victim", "proj"), false)
			if err != nil {
				t.Fatal(err)
			}
			vf := build(t, repo, "main")
			link := filepath.Join(root, filepath.FromSlash(tc.link))
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(tc.target, link); err != nil {
				t.Fatal(err)
			}

			// Read: evil/proj is the victim's repository through the link.
			r, err := source.OpenHosted(root, "evil", "proj", source.Limits{})
			if err == nil {
				c, rerr := r.Head()
				_ = r.Close()
				t.Fatalf("OpenHosted(evil/proj) read through the link (head %s, %v), want RepositoryNotFound", c, rerr)
			}
			if source.ReasonOf(err) != v1alpha1.ArenaProjectReasonRepositoryNotFound || !strings.Contains(err.Error(), "symbolic link") {
				t.Errorf("OpenHosted(evil/proj) = %v, want RepositoryNotFound naming the link", err)
			}

			// Write: a snapshot of evil/proj must not land in the victim's
			// folder.
			own, err := source.OpenHosted(root, "victim", "proj", source.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = own.Close() }()
			victimSnap := filepath.Join(root, "victim", filepath.FromSlash(source.ContentPath("proj", vf.c1.String())))
			if d, err := source.OpenSnapshotsDir(root, "evil", "proj"); err == nil {
				werr := own.Export(vf.c1.String(), "", d, vf.c1.String())
				_ = d.Close()
				t.Errorf("OpenSnapshotsDir(evil/proj) opened through the link (export: %v)", werr)
			} else if !errors.Is(err, source.ErrLinkInPath) {
				t.Errorf("OpenSnapshotsDir(evil/proj) = %v, want ErrLinkInPath", err)
			}
			if _, err := os.Lstat(victimSnap); !os.IsNotExist(err) {
				t.Errorf("a snapshot was written into the victim's folder: %v", err)
			}
		})
	}
}

// TestSnapshotThroughTheFetcher: with a Fetcher, Snapshot does no work of
// its own: the first ask is Fetching (a job queued), the fetcher announces
// the project when the job is done, and the next ask has the pin, the arena
// file and the snapshot on the content volume; asking again with the
// pinned commit as the ref is answered from the same job.
func TestSnapshotThroughTheFetcher(t *testing.T) {
	root, f := hosted(t)
	o := source.NewOpener(source.Config{ContentRoot: root}, nil)
	o.Fetcher = source.NewFetcher(source.FetcherOptions{})
	ready := o.Fetcher.Events(source.KindArenaRun)
	p := &v1alpha1.ArenaProject{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "proj", UID: "u", Generation: 1}}
	_, err := o.Snapshot(context.Background(), p, "v1", "", source.SnapshotOptions{})
	if !source.IsFetching(err) || source.ReasonOf(err) != v1alpha1.ArenaProjectReasonFetching {
		t.Fatalf("first Snapshot = %v, want Fetching", err)
	}
	ev := <-ready
	if ev.Object.GetNamespace() != "ns" || ev.Object.GetName() != "proj" {
		t.Fatalf("announced %s/%s", ev.Object.GetNamespace(), ev.Object.GetName())
	}
	s, err := o.Snapshot(context.Background(), p, "v1", "", source.SnapshotOptions{})
	if err != nil || s.Pin.Commit != f.c1.String() || s.Pin.Ref != "v1" || string(s.ArenaFile) != "version: 1\n" {
		t.Fatalf("Snapshot = %+v, %v", s, err)
	}
	if _, err := os.Stat(filepath.Join(root, "ns", filepath.FromSlash(s.Pin.ContentPath), "config.arena.yaml")); err != nil {
		t.Errorf("snapshot not exported: %v", err)
	}
	byCommit, err := o.Snapshot(context.Background(), p, f.c1.String(), "", source.SnapshotOptions{})
	if err != nil || byCommit.Pin.Commit != f.c1.String() || byCommit.Pin.Ref != f.c1.String() || o.Fetcher.Pending() != 0 {
		t.Errorf("Snapshot by commit = %+v, %v (%d jobs)", byCommit.Pin, err, o.Fetcher.Pending())
	}
}
