package arenaproject

// Controller tests against a real kube-apiserver and etcd (envtest): the
// manager runs the controller with a content root in a temporary directory,
// as the operator does (https only), with the local smart-HTTP servers
// (gittest, over TLS, trusted as the process's system roots) that serve the
// external projects, and one credential host: allowedGitHost, the
// listener of the server the credentials tests lock.

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/memory"
	"github.com/onsi/gomega"
	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source/gittest"
	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/test/controlplane"
)

var (
	testEnv     *envtest.Environment
	direct      client.Client
	contentRoot string
	logs        = &controlplane.LogBuffer{}
	nsCount     atomic.Int32
	t0          = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	// licence is the controller's licence: gitSource granted, except while
	// TestExternalProjectNeedsGitSourceLicence withdraws it.
	licence = licensing.NewStore()
	// allowedGitHost is the controller's --arena-git-hosts: the one
	// host:port credentials may be sent to, served by
	// TestExternalProjectCredentials on allowedGitListener.
	allowedGitListener net.Listener
	allowedGitHost     string
)

// gitLicence is an enterprise licence granting gitSource alone.
func gitLicence() licensing.State {
	return licensing.State{Verified: true, License: licensing.License{Tier: licensing.TierEnterprise, Customer: "test",
		Features: map[string]bool{licensing.FeatureGitSource: true}, Limits: &licensing.Limits{}}}
}

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	ctrl.SetLogger(zap.New(zap.WriteTo(logs), zap.UseDevMode(true), zap.Level(zapcore.Level(-5))))
	var err error
	contentRoot, err = os.MkdirTemp("", "arenaproject-content-")
	must(err)
	defer func() { _ = os.RemoveAll(contentRoot) }()
	must(gittest.Trust(contentRoot))
	allowedGitListener, err = net.Listen("tcp", "127.0.0.1:0")
	must(err)
	allowedGitHost = allowedGitListener.Addr().String()
	testEnv, err = controlplane.Start(controlplane.Options{Kinds: []string{"ArenaProject"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = testEnv.Stop() }()

	scheme := runtime.NewScheme()
	must(clientgoscheme.AddToScheme(scheme))
	must(v1alpha1.AddToScheme(scheme))
	direct, err = client.New(testEnv.Config, client.Options{Scheme: scheme})
	must(err)
	mgr, err := ctrl.NewManager(testEnv.Config, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Client:                 client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}},
	})
	must(err)
	licence.Set(gitLicence())
	must(SetupWithManager(mgr, Options{
		Common: ctrlopts.Common{License: licence, Clock: clocktesting.NewFakeClock(t0)},

		Source: source.Config{ContentRoot: contentRoot, CredentialHosts: []string{allowedGitHost}, ListTimeout: 5 * time.Second},
	}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "manager:", err)
		}
	}()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		panic("cache did not sync")
	}
	code := m.Run()
	cancel()
	<-done
	if code != 0 {
		l := logs.String()
		if len(l) > 4000 {
			l = l[len(l)-4000:]
		}
		fmt.Fprintln(os.Stderr, "controller log tail:\n"+l)
	}
	return code
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func namespace(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("ap-%d-%d", os.Getpid()%10000, nsCount.Add(1))
	if err := direct.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	return name
}

// twoCommits writes a repository with main (two commits) and trunk (HEAD),
// returning trunk's commit.
func twoCommits(t *testing.T, repo *git.Repository, head string) plumbing.Hash {
	t.Helper()
	c1 := gittest.Commit(t, repo, "one", map[string]gittest.File{"config.arena.yaml": {Content: "v: 1\n"}})
	c2 := gittest.Commit(t, repo, "two", map[string]gittest.File{"config.arena.yaml": {Content: "v: 2\n"}}, c1)
	gittest.Branch(t, repo, "main", c1)
	gittest.Branch(t, repo, "trunk", c2)
	gittest.Head(t, repo, head)
	if head == "main" {
		return c1
	}
	return c2
}

func create(t *testing.T, p *v1alpha1.ArenaProject) {
	t.Helper()
	if err := direct.Create(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}

// eventually waits for the project's status to have phase, reason and branch.
func eventually(t *testing.T, ns, name string, phase v1alpha1.ArenaProjectPhase, reason, branch, commit string) *v1alpha1.ArenaProject {
	t.Helper()
	g := gomega.NewWithT(t)
	p := &v1alpha1.ArenaProject{}
	g.Eventually(func(g gomega.Gomega) {
		g.Expect(direct.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, p)).To(gomega.Succeed())
		g.Expect(p.Status.Phase).To(gomega.Equal(phase))
		g.Expect(p.Status.ObservedGeneration).To(gomega.Equal(p.Generation))
		c := meta.FindStatusCondition(p.Status.Conditions, v1alpha1.ArenaProjectConditionReady)
		g.Expect(c).NotTo(gomega.BeNil())
		g.Expect(c.Reason).To(gomega.Equal(reason))
		g.Expect(c.Status == metav1.ConditionTrue).To(gomega.Equal(phase == v1alpha1.ArenaProjectPhaseReady))
		g.Expect(p.Status.DefaultBranch).To(gomega.Equal(branch))
		g.Expect(p.Status.HeadCommit).To(gomega.Equal(commit))
	}).WithTimeout(30 * time.Second).WithPolling(50 * time.Millisecond).Should(gomega.Succeed())
	return p
}

func TestHostedProjectReady(t *testing.T) {
	ns := namespace(t)
	repo, err := git.PlainInit(source.HostedPath(contentRoot, ns, "evals"), false)
	if err != nil {
		t.Fatal(err)
	}
	head := twoCommits(t, repo, "main")
	create(t, &v1alpha1.ArenaProject{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "evals"}})
	p := eventually(t, ns, "evals", v1alpha1.ArenaProjectPhaseReady, v1alpha1.ArenaProjectReasonResolved, "main", head.String())
	if p.Status.Repository != "hosted" {
		t.Errorf("repository %q, want hosted", p.Status.Repository)
	}
}

// TestHostedProjectWaitsForItsRepository: no repository on the volume is
// Pending RepositoryNotFound; once it exists, a spec change (which clears the
// backoff) makes the project Ready.
func TestHostedProjectWaitsForItsRepository(t *testing.T) {
	ns := namespace(t)
	create(t, &v1alpha1.ArenaProject{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "later"}})
	eventually(t, ns, "later", v1alpha1.ArenaProjectPhasePending, v1alpha1.ArenaProjectReasonRepositoryNotFound, "", "")

	repo, err := git.PlainInit(source.HostedPath(contentRoot, ns, "later"), false)
	if err != nil {
		t.Fatal(err)
	}
	head := twoCommits(t, repo, "trunk")
	p := &v1alpha1.ArenaProject{}
	if err := direct.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "later"}, p); err != nil {
		t.Fatal(err)
	}
	p.Spec.DisplayName = "Later"
	if err := direct.Update(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	eventually(t, ns, "later", v1alpha1.ArenaProjectPhaseReady, v1alpha1.ArenaProjectReasonResolved, "trunk", head.String())
}

func TestExternalProject(t *testing.T) {
	repo, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		t.Fatal(err)
	}
	head := twoCommits(t, repo, "trunk")
	open := gittest.Serve(t, repo, gittest.Options{TLS: true})
	locked := gittest.Serve(t, repo, gittest.Options{Username: "bot", Password: "tok", TLS: true})
	plain := gittest.Serve(t, repo, gittest.Options{})
	ns := namespace(t)
	cases := []struct {
		name, url      string
		phase          v1alpha1.ArenaProjectPhase
		reason         string
		branch, commit string
	}{
		{name: "open", url: open.URL, phase: "Ready", reason: v1alpha1.ArenaProjectReasonResolved, branch: "trunk", commit: head.String()},
		{name: "without-credentials", url: locked.URL, phase: "Failed", reason: v1alpha1.ArenaProjectReasonFetchFailed},
		{name: "nothing-listening", url: "https://127.0.0.1:1/repo.git", phase: "Failed", reason: v1alpha1.ArenaProjectReasonFetchFailed},
		{name: "wrong-path", url: open.Server.URL + "/other.git", phase: "Failed", reason: v1alpha1.ArenaProjectReasonRepositoryNotFound},
		// Refused by arenaproject/git-url (its reason): nothing is fetched.
		{name: "plain-http", url: plain.URL, phase: "Failed", reason: v1alpha1.ArenaProjectReasonInsecureURL},
		{name: "metadata-address", url: "https://169.254.169.254/repo.git", phase: "Failed", reason: v1alpha1.ArenaProjectReasonInsecureURL},
	}
	for _, tc := range cases {
		create(t, externalProject(ns, tc.name, tc.url, ""))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := eventually(t, ns, tc.name, tc.phase, tc.reason, tc.branch, tc.commit)
			if p.Status.Repository != tc.url {
				t.Errorf("repository %q, want %q", p.Status.Repository, tc.url)
			}
		})
	}
	if n := plain.Requests.Load(); n != 0 {
		t.Errorf("the plain-http repository was read %d times", n)
	}
}

// externalProject is an ArenaProject of url with secretRef secret ("" none).
func externalProject(ns, name, url, secret string) *v1alpha1.ArenaProject {
	p := &v1alpha1.ArenaProject{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.ArenaProjectSpec{Git: &v1alpha1.ArenaProjectGitSource{URL: url}}}
	if secret != "" {
		p.Spec.Git.SecretRef = &v1alpha1.LocalObjectReference{Name: secret}
	}
	return p
}

// TestExternalProjectNeedsGitSourceLicence: without a licence granting
// gitSource an external project is Failed with the gate's reason and its
// repository is not read (the server sees no request). Granted, the project becomes Ready at its next reconcile (here a
// spec change).
func TestExternalProjectNeedsGitSourceLicence(t *testing.T) {
	repo, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		t.Fatal(err)
	}
	head := twoCommits(t, repo, "main")
	srv := gittest.Serve(t, repo, gittest.Options{TLS: true})
	ns := namespace(t)

	licence.Set(licensing.State{License: licensing.OpenCore()})
	defer licence.Set(gitLicence())
	p := &v1alpha1.ArenaProject{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "unlicensed"},
		Spec: v1alpha1.ArenaProjectSpec{Git: &v1alpha1.ArenaProjectGitSource{URL: srv.URL}}}
	create(t, p)
	got := eventually(t, ns, "unlicensed", v1alpha1.ArenaProjectPhaseFailed, v1alpha1.ArenaProjectReasonLicenseViolation, "", "")
	c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ArenaProjectConditionReady)
	if !strings.Contains(c.Message, rules.ArenaProjectGitSourceLicenseRuleID) {
		t.Errorf("Ready message %q does not name %s", c.Message, rules.ArenaProjectGitSourceLicenseRuleID)
	}
	if n := srv.Requests.Load(); n != 0 {
		t.Errorf("the unlicensed project's repository was read %d times", n)
	}

	licence.Set(gitLicence())
	got.Spec.DisplayName = "licensed now"
	if err := direct.Update(context.Background(), got); err != nil {
		t.Fatal(err)
	}
	eventually(t, ns, "unlicensed", v1alpha1.ArenaProjectPhaseReady, v1alpha1.ArenaProjectReasonResolved, "main", head.String())
}

// TestGitURLSchema: the CRD refuses a URL that is not http(s).
func TestGitURLSchema(t *testing.T) {
	ns := namespace(t)
	for i, url := range []string{"git@github.com:acme/evals.git", "ssh://git@github.com/acme/evals.git", "file:///etc/passwd", "https://has space/x.git"} {
		p := &v1alpha1.ArenaProject{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("bad-%d", i)},
			Spec: v1alpha1.ArenaProjectSpec{Git: &v1alpha1.ArenaProjectGitSource{URL: url}}}
		err := direct.Create(context.Background(), p)
		if err == nil || !strings.Contains(err.Error(), "spec.git.url") {
			t.Errorf("create with url %q = %v, want refused on spec.git.url", url, err)
		}
	}
}

// TestExternalProjectDoesNotWaitForTheServer: a git server that stalls
// does not hold an ArenaProject reconcile worker: Reconcile returns while
// the server still holds the listing (the fetcher lists the refs outside
// the reconcile), with a requeue and the project Pending (Fetching); once
// the server answers, the fetcher's announcement makes the project Ready.
// Before the fetcher, Reconcile listed the refs itself and returned only
// when ListTimeout cut the request, with FetchFailed.
func TestExternalProjectDoesNotWaitForTheServer(t *testing.T) {
	repo, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		t.Fatal(err)
	}
	head := twoCommits(t, repo, "main")
	hold, arrived := make(chan struct{}), make(chan struct{}, 16)
	srv := gittest.Serve(t, repo, gittest.Options{Hold: hold, Arrived: arrived, TLS: true})
	released := false
	release := func() {
		if !released {
			released = true
			close(hold)
		}
	}
	t.Cleanup(release)
	ns := namespace(t)
	create(t, &v1alpha1.ArenaProject{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "slow"},
		Spec: v1alpha1.ArenaProjectSpec{Git: &v1alpha1.ArenaProjectGitSource{URL: srv.URL}}})

	// A reconciler of the test's own, called directly (the manager's also
	// reconciles the project, and also only queues a listing). The time
	// bound only keeps a reconcile that does wait from hanging the test.
	r := NewReconciler(direct, nil, direct.RESTMapper(), nil, Options{
		Common: ctrlopts.Common{License: licence, Clock: clocktesting.NewFakeClock(t0)},
		Source: source.Config{ContentRoot: contentRoot, ListTimeout: 5 * time.Second},
	})
	res, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: "slow"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.RequeueAfter <= 0 {
		t.Errorf("Reconcile returned %+v, want a requeue while the listing runs", res)
	}
	p := &v1alpha1.ArenaProject{}
	if err := direct.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "slow"}, p); err != nil {
		t.Fatal(err)
	}
	c := meta.FindStatusCondition(p.Status.Conditions, v1alpha1.ArenaProjectConditionReady)
	if p.Status.Phase != v1alpha1.ArenaProjectPhasePending || c == nil || c.Reason != v1alpha1.ArenaProjectReasonFetching {
		t.Fatalf("while the server holds the listing: phase %q, Ready %+v; want Pending, Fetching", p.Status.Phase, c)
	}
	<-arrived // a listing is in flight, held by the server
	release()
	eventually(t, ns, "slow", v1alpha1.ArenaProjectPhaseReady, v1alpha1.ArenaProjectReasonResolved, "main", head.String())
}
