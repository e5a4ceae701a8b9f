package arenarun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/memory"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source/gittest"
)

func TestParseArenaConfig(t *testing.T) {
	cases := []struct {
		name      string
		dir       string
		data      string
		scenarios []string
		providers []string
		err       error
	}{
		{name: "promptkit file entries", dir: ".", data: `
apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Arena
metadata: {name: smoke}
spec:
  prompt_configs: [{id: support, file: prompts/support.yaml}]
  providers:
    - file: providers/openai-gpt4o.yaml
    - file: providers/claude.yml
  scenarios:
    - file: scenarios/greet.yaml
    - file: scenarios/refund.yaml
  defaults: {temperature: 0.7}
`, scenarios: []string{"scenarios/greet.yaml", "scenarios/refund.yaml"}, providers: []string{"openai-gpt4o", "claude"}},
		{name: "path entries and explicit provider ids", dir: ".", data: `
kind: Arena
spec:
  providers: [{id: mock, path: ./providers/mock.yaml}]
  scenarios: [{path: ./scenarios/a.yaml}]
`, scenarios: []string{"scenarios/a.yaml"}, providers: []string{"mock"}},
		{name: "relative to the arena file's directory", dir: "evals", data: `
spec:
  scenarios: [{file: scenarios/a.yaml}, {file: ../shared/b.yaml}]
`, scenarios: []string{"evals/scenarios/a.yaml", "shared/b.yaml"}},
		{name: "not yaml", dir: ".", data: "spec: [unclosed", err: errArenaNotYAML},
		{name: "another kind", dir: ".", data: "kind: Scenario\nspec: {scenarios: [{file: a.yaml}]}\n", err: errArenaKind},
		{name: "no spec", dir: ".", data: "version: 1\n", err: errArenaNoSpec},
		{name: "no scenarios", dir: ".", data: "spec: {providers: [{file: p.yaml}]}\n", err: errArenaNoScenarios},
		{name: "entry without file", dir: ".", data: "spec: {scenarios: [{id: x}]}\n", err: errArenaEntry},
		{name: "absolute file", dir: ".", data: "spec: {scenarios: [{file: /etc/passwd}]}\n", err: errArenaEntryPath},
		{name: "file leaving the repository", dir: "evals", data: "spec: {scenarios: [{file: ../../x.yaml}]}\n", err: errArenaEntryPath},
		{name: "duplicate scenario", dir: ".", data: "spec: {scenarios: [{file: a.yaml}, {file: ./a.yaml}]}\n", err: errArenaDuplicate},
		{name: "duplicate provider id", dir: ".", data: "spec: {scenarios: [{file: a.yaml}], providers: [{file: x/p.yaml}, {file: y/p.yaml}]}\n", err: errArenaDuplicate},
		{name: "provider entry without file or id", dir: ".", data: "spec: {scenarios: [{file: a.yaml}], providers: [{}]}\n", err: errArenaEntry},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseArenaConfig([]byte(tc.data), tc.dir)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("error %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Scenarios, tc.scenarios) || !reflect.DeepEqual(got.Providers, tc.providers) {
				t.Fatalf("got %+v, want scenarios %v providers %v", got, tc.scenarios, tc.providers)
			}
		})
	}
}

const goodArena = `kind: Arena
spec:
  providers: [{file: providers/mock.yaml}]
  scenarios: [{file: scenarios/a.yaml}, {file: scenarios/b.yaml}]
`

// resolverRepo writes, with go-git, a repository with: main (HEAD) a valid
// arena file; tag v1 the same; broken an unparsable one; bare a commit with
// no arena file; nested an arena file in evals/.
func resolverRepo(t *testing.T, repo *git.Repository) map[string]plumbing.Hash {
	t.Helper()
	files := func(arena string) map[string]gittest.File {
		return map[string]gittest.File{
			"config.arena.yaml":   {Content: arena},
			"scenarios/a.yaml":    {Content: "kind: Scenario\n"},
			"scenarios/b.yaml":    {Content: "kind: Scenario\n"},
			"providers/mock.yaml": {Content: "kind: Provider\n"},
		}
	}
	c := map[string]plumbing.Hash{}
	c["main"] = gittest.Commit(t, repo, "good", files(goodArena))
	c["broken"] = gittest.Commit(t, repo, "broken", files("spec: [unclosed\n"), c["main"])
	c["bare"] = gittest.Commit(t, repo, "bare", map[string]gittest.File{"README.md": {Content: "x\n"}}, c["main"])
	c["nested"] = gittest.Commit(t, repo, "nested", map[string]gittest.File{
		"evals/smoke.arena.yaml": {Content: "spec: {scenarios: [{file: s/one.yaml}], providers: [{id: p1, file: p.yaml}]}\n"},
		"evals/s/one.yaml":       {Content: "x\n"},
	}, c["main"])
	c["huge"] = gittest.Commit(t, repo, "huge", map[string]gittest.File{
		"config.arena.yaml": {Content: goodArena + "# " + strings.Repeat("x", MaxArenaFileBytes) + "\n"},
	}, c["main"])
	for name, h := range c {
		gittest.Branch(t, repo, name, h)
	}
	gittest.Tag(t, repo, "v1", c["main"], true)
	gittest.Head(t, repo, "main")
	return c
}

// TestProjectResolverHosted: a hosted project's repository, created on disk
// by go-git under a content root, resolved by the operator's resolver:
// status.source pinned, the arena file's scenarios and providers read, the
// snapshot exported; a bad ref, a missing or unparsable arena file fail
// with the run's reasons; an unreadable project is transient.
func TestProjectResolverHosted(t *testing.T) {
	root := t.TempDir()
	ns := "team-a"
	repo, err := git.PlainInit(source.HostedPath(root, ns, "evals"), false)
	if err != nil {
		t.Fatal(err)
	}
	c := resolverRepo(t, repo)
	r := NewProjectResolver(source.Config{ContentRoot: root}, nil, source.NewFetcher(source.FetcherOptions{}))
	project := &v1alpha1.ArenaProject{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "evals"}}
	cases := []struct {
		name, ref, arenaFile string
		wantRef, wantCommit  string
		scenarios, providers []string
		err                  error
		transient            bool
		project              *v1alpha1.ArenaProject
	}{
		{name: "default branch", wantRef: "main", wantCommit: c["main"].String(),
			scenarios: []string{"scenarios/a.yaml", "scenarios/b.yaml"}, providers: []string{"mock"}},
		{name: "annotated tag", ref: "v1", wantRef: "v1", wantCommit: c["main"].String(),
			scenarios: []string{"scenarios/a.yaml", "scenarios/b.yaml"}, providers: []string{"mock"}},
		{name: "full sha", ref: c["main"].String(), wantRef: c["main"].String(), wantCommit: c["main"].String(),
			scenarios: []string{"scenarios/a.yaml", "scenarios/b.yaml"}, providers: []string{"mock"}},
		{name: "nested arena file", ref: "nested", arenaFile: "evals/smoke.arena.yaml", wantRef: "nested", wantCommit: c["nested"].String(),
			scenarios: []string{"evals/s/one.yaml"}, providers: []string{"p1"}},
		{name: "unknown ref", ref: "nope", err: ErrRefNotFound},
		{name: "abbreviated sha", ref: c["main"].String()[:12], err: ErrRefNotFound},
		{name: "no arena file at the commit", ref: "bare", err: ErrSnapshotUnexportable},
		{name: "unparsable arena file", ref: "broken", err: ErrSnapshotUnexportable},
		{name: "arena file over the bound", ref: "huge", err: ErrSnapshotUnexportable},
		{name: "no repository is transient", transient: true,
			project: &v1alpha1.ArenaProject{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "missing"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := project
			if tc.project != nil {
				p = tc.project
			}
			got, err := resolveWait(t, r, p, tc.ref, tc.arenaFile)
			switch {
			case tc.err != nil:
				if !errors.Is(err, tc.err) || resolutionReason(err) != tc.err.Error() {
					t.Fatalf("error %v, want %v", err, tc.err)
				}
				return
			case tc.transient:
				if err == nil || resolutionReason(err) != "" {
					t.Fatalf("error %v, want a transient error", err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			want := v1alpha1.ArenaRunSource{Repository: "hosted", Ref: tc.wantRef, Commit: tc.wantCommit,
				ContentPath: "arena/sources/evals/.arena/versions/" + tc.wantCommit}
			if got.Source != want {
				t.Fatalf("source %+v, want %+v", got.Source, want)
			}
			if !reflect.DeepEqual(got.Scenarios, tc.scenarios) || !reflect.DeepEqual(got.Providers, tc.providers) {
				t.Fatalf("scenarios %v providers %v, want %v %v", got.Scenarios, got.Providers, tc.scenarios, tc.providers)
			}
			snap := filepath.Join(root, ns, filepath.FromSlash(want.ContentPath))
			af := tc.arenaFile
			if af == "" {
				af = "config.arena.yaml"
			}
			if _, err := os.Stat(filepath.Join(snap, af)); err != nil {
				t.Fatalf("snapshot not exported: %v", err)
			}
		})
	}
}

// gitCredentials is an opted-in credentials Secret: basic-auth, labelled.
func gitCredentials(ns, name, user, password string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		Labels: map[string]string{v1alpha1.ArenaProjectGitCredentialsLabel: v1alpha1.ArenaProjectGitCredentialsValue}},
		Type: corev1.SecretTypeBasicAuth, Data: map[string][]byte{"username": []byte(user), "password": []byte(password)}}
}

// hostOf is a test server's host:port.
func hostOf(srv *gittest.Server) string { return srv.Listener.Addr().String() }

// TestProjectResolverExternal: an external project served over smart HTTP
// (https) by a local server, with credentials from an opted-in Secret on
// the envtest API server sent to the host the resolver allows; no content
// root, so nothing is exported.
func TestProjectResolverExternal(t *testing.T) {
	repo, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := resolverRepo(t, repo)
	srv := gittest.Serve(t, repo, gittest.Options{Username: "bot", Password: "tok", TLS: true})
	ctx := context.Background()
	ns := fmt.Sprintf("resolver-ext-%d", os.Getpid()%10000)
	if err := direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	if err := direct.Create(ctx, gitCredentials(ns, "creds", "bot", "tok")); err != nil {
		t.Fatal(err)
	}
	r := NewProjectResolver(source.Config{CredentialHosts: []string{hostOf(srv)}}, direct, source.NewFetcher(source.FetcherOptions{}))
	p := &v1alpha1.ArenaProject{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ext"},
		Spec: v1alpha1.ArenaProjectSpec{Git: &v1alpha1.ArenaProjectGitSource{URL: srv.URL, SecretRef: &v1alpha1.LocalObjectReference{Name: "creds"}}}}
	got, err := resolveWait(t, r, p, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if got.Source.Repository != srv.URL || got.Source.Commit != c["main"].String() || got.Source.Ref != "main" {
		t.Fatalf("source %+v", got.Source)
	}
	if !reflect.DeepEqual(got.Scenarios, []string{"scenarios/a.yaml", "scenarios/b.yaml"}) || !reflect.DeepEqual(got.Providers, []string{"mock"}) {
		t.Fatalf("scenarios %v providers %v", got.Scenarios, got.Providers)
	}
	if _, err := resolveWait(t, r, p, "nope", ""); !errors.Is(err, ErrRefNotFound) {
		t.Fatalf("unknown ref: %v", err)
	}
	p.Spec.Git.SecretRef = nil
	if _, err := resolveWait(t, r, p, "", ""); err == nil || resolutionReason(err) != "" {
		t.Fatalf("without credentials: %v, want a transient error", err)
	}
}

// resolveWait resolves through r's fetcher: while the answer is being
// fetched, it waits for the fetcher's announcement and asks again.
func resolveWait(t *testing.T, r *ProjectResolver, p *v1alpha1.ArenaProject, ref, arenaFile string) (Resolved, error) {
	t.Helper()
	for {
		got, err := r.Resolve(context.Background(), p, ref, arenaFile)
		if !errors.Is(err, ErrSourcePending) {
			return got, err
		}
		if resolutionReason(err) != "" {
			t.Fatalf("a pending resolution fails the run: %v", err)
		}
		select {
		case <-r.Events():
		case <-t.Context().Done():
			t.Fatal("no announcement from the fetcher")
		}
	}
}

// TestProjectResolverDoesNotWaitForTheServer: a git server that stalls
// does not hold the ArenaRun reconcile: Resolve returns at once, pending,
// while the server still holds the request (the fetch runs in the
// fetcher); the server released, the fetcher announces the project and the
// next Resolve has the pin. Before the fetcher, Resolve fetched in the
// reconcile and returned only when the fetch's time bound cut it.
func TestProjectResolverDoesNotWaitForTheServer(t *testing.T) {
	repo, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := resolverRepo(t, repo)
	hold, arrived := make(chan struct{}), make(chan struct{}, 16)
	srv := gittest.Serve(t, repo, gittest.Options{Hold: hold, Arrived: arrived})
	released := false
	release := func() {
		if !released {
			released = true
			close(hold)
		}
	}
	t.Cleanup(release)
	// The time bound only stops a reconcile that does wait from hanging
	// the test; nothing is timed.
	r := NewProjectResolver(source.Config{AllowHTTP: true, ListTimeout: 5 * time.Second, FetchTimeout: 5 * time.Second}, nil,
		source.NewFetcher(source.FetcherOptions{}))
	p := &v1alpha1.ArenaProject{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "slow", UID: "u1", Generation: 1},
		Spec: v1alpha1.ArenaProjectSpec{Git: &v1alpha1.ArenaProjectGitSource{URL: srv.URL}}}
	_, err = r.Resolve(context.Background(), p, "", "")
	if !errors.Is(err, ErrSourcePending) || resolutionReason(err) != "" {
		t.Fatalf("Resolve against a stalled server = %v, want ErrSourcePending at once", err)
	}
	<-arrived // the fetch is in flight, held by the server
	release()
	got, err := resolveWait(t, r, p, "", "")
	if err != nil || got.Source.Commit != c["main"].String() {
		t.Fatalf("after the server answered: %+v, %v", got.Source, err)
	}
}

// TestProjectResolverRefusesCredentials: the ArenaRun controller's resolver
// opens projects with the same source.Opener, so a run pins nothing with a
// credential the ArenaProject controller would refuse: an Opaque Secret
// (the namespace's database password), an opted-in Secret to a host the
// resolver does not allow, or to an allowed host:port over plain http (in
// the AllowHTTP test mode). No request reaches either server, and the error
// carries the project's reason (transient for the run).
func TestProjectResolverRefusesCredentials(t *testing.T) {
	repo, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		t.Fatal(err)
	}
	resolverRepo(t, repo)
	tenant := gittest.Serve(t, repo, gittest.Options{TLS: true}) // anonymous: it takes anything
	plain := gittest.Serve(t, repo, gittest.Options{})
	ctx := context.Background()
	ns := namespace(t)
	if err := direct.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db"},
		Data: map[string][]byte{"password": []byte("db-password")}}); err != nil {
		t.Fatal(err)
	}
	if err := direct.Create(ctx, gitCredentials(ns, "creds", "bot", "tok")); err != nil {
		t.Fatal(err)
	}
	project := func(url, secret string) *v1alpha1.ArenaProject {
		return &v1alpha1.ArenaProject{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ext"},
			Spec: v1alpha1.ArenaProjectSpec{Git: &v1alpha1.ArenaProjectGitSource{URL: url, SecretRef: &v1alpha1.LocalObjectReference{Name: secret}}}}
	}
	allowing := NewProjectResolver(source.Config{AllowHTTP: true, CredentialHosts: []string{hostOf(tenant), hostOf(plain)}}, direct, source.NewFetcher(source.FetcherOptions{}))
	allowingNone := NewProjectResolver(source.Config{}, direct, source.NewFetcher(source.FetcherOptions{}))
	cases := []struct {
		name     string
		resolver *ProjectResolver
		project  *v1alpha1.ArenaProject
		reason   string
	}{
		{"database password to an allowed host", allowing, project(tenant.URL, "db"), v1alpha1.ArenaProjectReasonCredentialsSecretNotOptedIn},
		{"git credentials to a host not allowed", allowingNone, project(tenant.URL, "creds"), v1alpha1.ArenaProjectReasonCredentialsHostNotAllowed},
		{"git credentials over plain http", allowing, project(plain.URL, "creds"), v1alpha1.ArenaProjectReasonCredentialsHostNotAllowed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := resolveWait(t, tc.resolver, tc.project, "", "")
			if source.ReasonOf(err) != tc.reason || resolutionReason(err) != "" {
				t.Errorf("Resolve = %v, want reason %s (transient for the run)", err, tc.reason)
			}
		})
	}
	for name, srv := range map[string]*gittest.Server{"https": tenant, "http": plain} {
		if n := srv.Requests.Load(); n != 0 {
			t.Errorf("the %s server was sent %d requests (Authorization headers %q)", name, n, srv.Authorizations())
		}
	}
}
