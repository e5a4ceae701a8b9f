// Package arena runs the Arena lifecycle end to end on the local cluster
// (test/controlplane WithOperatorCluster: kube-apiserver, etcd,
// kube-controller-manager, kube-scheduler and a kwok Node) with the operator
// binary as `make run` starts it with --arena: webhooks over TLS, its
// ServiceAccount and generated RBAC, the ArenaProject, ArenaJob and ArenaRun
// controllers, the real operator-wide Redis queue (--arena-queue-redis-url-file)
// and a workspace content volume (--workspace-content-path, a temporary
// directory) holding a hosted project's git repository written by go-git.
// The worker Job's pods are created by the Job controller and completed by
// kwok; their work is done in-process by test/arenaworker against the same
// Redis.
//
// Why a suite of its own rather than specs in test/e2e: it needs operator
// flags test/e2e does not start with (--arena, the content path, the queue
// URL file, a trusted licence key), and it changes the cluster's licence
// (the arena-license Secret) mid-suite, which would change what test/e2e's
// specs see (custom facades are licence-gated).
//
// Scheduling is checked here for one tick only: the operator's clock is
// the real one, so a tick is up to a minute away. Ticks under each
// concurrency policy and history pruning are test/e2e/arenaschedule's
// (the same local cluster, the Arena controllers in-process with the
// ArenaJob controller on an injected clock).
package arena

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/test/arenafixture"
	"github.com/altairalabs/omnia/test/controlplane"
	"github.com/altairalabs/omnia/test/licencetest"
	testredis "github.com/altairalabs/omnia/test/redis"
)

var (
	cluster     *controlplane.Cluster
	operator    *controlplane.Operator
	k8sClient   client.Client
	fx          *arenafixture.Env
	logDir      string
	contentRoot string
	redisSrv    *testredis.Server
	signingKey  ed25519.PrivateKey
	suiteStart  time.Time
)

// anyFailed keeps the logs of a failed run (set by ReportAfterEach).
var anyFailed bool

var _ = ReportAfterEach(func(r SpecReport) {
	if r.Failed() {
		anyFailed = true
	}
})

// redisPassword protects the suite's Redis: the operator's admin
// credential, which no namespace's pods may receive.
const redisPassword = "arena-e2e-admin-3f9c"

func TestArena(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia Arena e2e")
}

var _ = BeforeSuite(func() {
	suiteStart = time.Now()
	var err error
	logDir, err = os.MkdirTemp("", "omnia-arena-e2e-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		if CurrentSpecReport().Failed() {
			anyFailed = true
		}
	})
	contentRoot = filepath.Join(logDir, "content")
	Expect(os.MkdirAll(contentRoot, 0o755)).To(Succeed())

	bin, err := exec.LookPath("redis-server")
	Expect(err).NotTo(HaveOccurred(), "redis-server not found: run hack/ensure-redis.sh (make redis)")
	redisDir := filepath.Join(logDir, "redis")
	Expect(os.MkdirAll(redisDir, 0o700)).To(Succeed())
	redisSrv, err = testredis.StartInWithPassword(bin, redisDir, redisPassword)
	Expect(err).NotTo(HaveOccurred())
	urlFile := filepath.Join(logDir, "queue-redis-url")
	Expect(os.WriteFile(urlFile, []byte(redisSrv.URL()+"\n"), 0o600)).To(Succeed())

	// The licence issuer's key: the operator trusts its public half; the
	// licence itself is installed by a spec (the suite starts open-core).
	_, signingKey, err = ed25519.GenerateKey(rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	pub, err := licensing.MarshalPublicKeyPEM(signingKey.Public())
	Expect(err).NotTo(HaveOccurred())
	pubPath := filepath.Join(logDir, "license.pub")
	Expect(os.WriteFile(pubPath, pub, 0o600)).To(Succeed())

	cluster, operator, err = controlplane.WithOperatorCluster(controlplane.Options{}, logDir,
		"--arena", "--workspace-content-path", contentRoot,
		"--arena-queue-redis-url-file", urlFile, "--license-public-key", pubPath)
	Expect(err).NotTo(HaveOccurred())
	Expect(operator.WaitReady(2 * time.Minute)).To(Succeed())

	k8sClient, err = controlplane.NewClient(cluster.Config)
	Expect(err).NotTo(HaveOccurred())
	fx = &arenafixture.Env{Client: k8sClient, ContentRoot: contentRoot, RedisURL: redisSrv.URL()}
})

var _ = AfterSuite(func() {
	var errs []error
	if operator != nil {
		errs = append(errs, operator.StopChecked())
	}
	if cluster != nil {
		errs = append(errs, controlplane.StopEnvironment(cluster.Environment, cluster.Stop))
	}
	if redisSrv != nil {
		redisSrv.Stop()
	}
	GinkgoWriter.Printf("arena e2e suite took %s\n", time.Since(suiteStart).Round(time.Second))
	err := errors.Join(errs...)
	controlplane.KeepLogsIfFailed(logDir, err != nil || anyFailed, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
})

// installLicence installs an enterprise licence the operator trusts.
func installLicence(ctx context.Context) {
	Expect(licencetest.InstallLicence(ctx, k8sClient, signingKey, "arena-e2e", "arena e2e")).To(Succeed())
}
