// Package arenafixture is what the Arena e2e suites (test/e2e/arena,
// test/e2e/arenaschedule) share: a namespace holding a Ready hosted
// ArenaProject whose git repository go-git wrote into the workspace content
// volume, waits on a run's phase, and a run's work queue on the suite's
// Redis (for test/arenaworker). Call it from Ginkgo specs: it fails them
// with Gomega and closes what it opens with DeferCleanup.
package arenafixture

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/arena/queue"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
	"github.com/altairalabs/omnia/reconcile/arenarun"
)

// ProjectName is the hosted project every namespace holds.
const ProjectName = "proj"

// ProjectFiles is the project: two scenarios, one provider, in the
// PromptKit arena file shape docs/arena.md describes.
var ProjectFiles = map[string]string{
	"config.arena.yaml": `apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Arena
metadata: {name: e2e}
spec:
  providers:
    - file: providers/mock.yaml
  scenarios:
    - file: scenarios/greet.yaml
    - file: scenarios/refund.yaml
`,
	"scenarios/greet.yaml":  "kind: Scenario\nmetadata: {name: greet}\n",
	"scenarios/refund.yaml": "kind: Scenario\nmetadata: {name: refund}\n",
	"providers/mock.yaml":   "kind: Provider\nmetadata: {name: mock}\nspec: {type: mock}\n",
}

// Env is a suite's cluster client, content volume and queue Redis.
type Env struct {
	Client client.Client
	// ContentRoot is the workspace content volume the controllers are
	// given (--workspace-content-path).
	ContentRoot string
	// RedisURL is the operator-wide queue's Redis.
	RedisURL string

	nsCount atomic.Int32
}

// Namespace creates a namespace <prefix>-<n> with a Ready hosted project
// ProjectName whose repository go-git wrote into the content volume, and
// returns the namespace and the project's head commit.
func (e *Env) Namespace(ctx context.Context, prefix string) (string, string) {
	ginkgo.GinkgoHelper()
	ns := fmt.Sprintf("%s-%d", prefix, e.nsCount.Add(1))
	gomega.Expect(e.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(gomega.Succeed())
	commit := WriteRepository(source.HostedPath(e.ContentRoot, ns, ProjectName), ProjectFiles)
	gomega.Expect(e.Client.Create(ctx, &v1alpha1.ArenaProject{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: ProjectName}})).To(gomega.Succeed())
	gomega.Eventually(func(g gomega.Gomega) {
		p := &v1alpha1.ArenaProject{}
		g.Expect(e.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: ProjectName}, p)).To(gomega.Succeed())
		g.Expect(p.Status.Phase).To(gomega.Equal(v1alpha1.ArenaProjectPhaseReady))
		g.Expect(p.Status.HeadCommit).To(gomega.Equal(commit))
	}).WithTimeout(time.Minute).WithPolling(200 * time.Millisecond).Should(gomega.Succeed())
	return ns, commit
}

// WriteRepository makes a git working copy at dir with files committed on
// main (go-git; no git binary) and returns the commit.
func WriteRepository(dir string, files map[string]string) string {
	ginkgo.GinkgoHelper()
	commit, err := CommitRepository(dir, files)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return commit
}

// CommitRepository is WriteRepository for callers outside a Ginkgo spec
// (hack/perf/scale): it returns the error instead of failing the spec.
func CommitRepository(dir string, files map[string]string) (string, error) {
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.Main}})
	if err != nil {
		return "", err
	}
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			return "", err
		}
	}
	wt, err := repo.Worktree()
	if err != nil {
		return "", err
	}
	if err := wt.AddGlob("."); err != nil {
		return "", err
	}
	sig := &object.Signature{Name: "e2e", Email: "e2e@example.invalid", When: time.Now()}
	h, err := wt.Commit("arena e2e project", &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

// CreateJob creates the ArenaJob ns/name running the namespace's project.
func (e *Env) CreateJob(ctx context.Context, ns, name string, spec v1alpha1.ArenaJobSpec) error {
	spec.SourceRef = v1alpha1.LocalObjectReference{Name: ProjectName}
	return e.Client.Create(ctx, &v1alpha1.ArenaJob{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: spec})
}

// WaitRun waits for the run to be in phase and returns it.
func (e *Env) WaitRun(ctx context.Context, ns, name string, phase v1alpha1.ArenaRunPhase, timeout time.Duration) *v1alpha1.ArenaRun {
	ginkgo.GinkgoHelper()
	run := &v1alpha1.ArenaRun{}
	gomega.Eventually(func(g gomega.Gomega) {
		g.Expect(e.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, run)).To(gomega.Succeed())
		g.Expect(run.Status.Phase).To(gomega.Equal(phase), "run %s/%s: conditions %+v\ntemplate type %q loadTest %+v\nresult %+v", ns, name,
			run.Status.Conditions, run.Spec.Template.Type, run.Spec.Template.LoadTest, run.Status.Result)
	}).WithTimeout(timeout).WithPolling(250 * time.Millisecond).Should(gomega.Succeed())
	return run
}

// Queue is the run's work queue as its worker pods reach it: through the
// URL of the run's queue Secret (<run>-queue-redis, key url: what the Job
// hands the pods as ARENA_QUEUE_REDIS_URL), waiting for the Secret to be
// written. With per-namespace credentials (the operator's default) that is
// the namespace's own Redis user, not the suite's admin URL. Its connection
// is closed when the spec ends.
func (e *Env) Queue(ns, run string) *queue.Queue {
	ginkgo.GinkgoHelper()
	rdb, err := queue.Connect(e.WorkerQueueURL(ns, run))
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(rdb.Close)
	return queue.New(rdb, ns, run)
}

// WorkerQueueURL is the URL the run's queue Secret holds, once written.
func (e *Env) WorkerQueueURL(ns, run string) string {
	ginkgo.GinkgoHelper()
	var u string
	gomega.Eventually(func(g gomega.Gomega) {
		sec := &corev1.Secret{}
		g.Expect(e.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: arenarun.QueueSecretName(run)}, sec)).To(gomega.Succeed())
		u = string(sec.Data[arenarun.QueueSecretKey])
		g.Expect(u).NotTo(gomega.BeEmpty())
	}).WithTimeout(time.Minute).WithPolling(100 * time.Millisecond).Should(gomega.Succeed())
	return u
}
