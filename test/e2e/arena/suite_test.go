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
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/altairalabs/omnia/test/arenafixture"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

var (
	suite       *framework.Suite
	fx          *arenafixture.Env
	contentRoot string
)

// redisPassword protects the suite's Redis: the operator's admin
// credential, which no namespace's pods may receive.
const redisPassword = "arena-e2e-admin-3f9c"

func TestArena(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia Arena e2e")
}

var _ = ReportAfterEach(framework.RecordSpecFailure)

var _ = BeforeSuite(func() {
	suite = framework.NewSuite("arena")
	contentRoot = suite.Path("content")
	Expect(os.MkdirAll(contentRoot, 0o755)).To(Succeed())
	redis := suite.StartRedis(redisPassword)
	urlFile := suite.Path("queue-redis-url")
	Expect(os.WriteFile(urlFile, []byte(redis.URL()+"\n"), 0o600)).To(Succeed())

	// The operator trusts the suite's licence key; the licence itself is
	// installed by a spec (the suite starts open-core).
	suite.StartOperator(framework.OperatorOptions{Cluster: true, TrustLicenceKey: true, Args: []string{
		"--arena", "--workspace-content-path", contentRoot, "--arena-queue-redis-url-file", urlFile,
	}})
	fx = &arenafixture.Env{Client: suite.Client, ContentRoot: contentRoot, RedisURL: redis.URL()}
})

var _ = AfterSuite(func() { suite.Stop() })

// installLicence installs an enterprise licence the operator trusts.
func installLicence(ctx context.Context) {
	GinkgoHelper()
	suite.InstallLicence(ctx, "arena-e2e", "arena e2e")
}
