// Package arenaschedule runs scheduled ArenaJobs end to end on the local
// cluster (test/controlplane StartCluster: kube-apiserver, etcd,
// kube-controller-manager, kube-scheduler and a kwok Node) with a real
// Redis queue (test/redis) and the test worker (test/arenaworker): ticks
// under each concurrency policy, and the run history pruned.
//
// The Arena controllers run in-process, in a controller-runtime manager
// wired by cmd/omnia-operator/arenasetup (the operator's own wiring), with
// one difference: the ArenaJob controller's clock is a FakeClock the specs
// step past cron ticks. The operator binary is not started: its ArenaJob
// controller would tick on the real clock. The ArenaProject and ArenaRun
// controllers keep the real clock: nothing they do here depends on the
// tick (a run's start, poll and end are real-time events, and the 30 s
// grace after which a run whose Job completed with its queue not done
// fails is real time too).
//
// The fake clock moves the ArenaJob reconciler's time, not its work
// queue's: a RequeueAfter to the next tick still waits in real time. So
// after stepping the clock a spec makes the controller look at the job
// again by annotating one of the job's runs: an ArenaRun event, which the
// controller's Owns watch maps to the job, as it does every run status
// change (see nudge).
//
// kwok completes a worker Job's pods at once (its pod-complete stage, shared
// by every suite on the cluster), and a run whose Job completed with work
// left fails 30 s later (WorkersFailed): each spec drains its runs' queues
// with the test worker as soon as the runs are Running.
package arenaschedule

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/altairalabs/omnia/cmd/omnia-operator/arenasetup"
	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
	"github.com/altairalabs/omnia/test/arenafixture"
	"github.com/altairalabs/omnia/test/controlplane"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

var (
	suite *framework.Suite
	fx    *arenafixture.Env
	// jobClock is the ArenaJob controller's time.
	jobClock    *clocktesting.FakeClock
	stopManager context.CancelFunc
	managerDone chan error
)

func TestArenaSchedule(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia Arena scheduled jobs e2e")
}

var _ = ReportAfterEach(framework.RecordSpecFailure)

var _ = BeforeSuite(func() {
	suite = framework.NewSuite("arenaschedule")
	contentRoot := suite.Path("content")
	Expect(os.MkdirAll(contentRoot, 0o755)).To(Succeed())
	redis := suite.StartRedis("")

	// The controllers' log, kept with the cluster's when a spec fails. Set
	// before anything else logs: controller-runtime keeps the first logger
	// it is given.
	logFile, err := os.Create(suite.Path("controllers.log"))
	Expect(err).NotTo(HaveOccurred())
	ctrl.SetLogger(zap.New(zap.WriteTo(logFile), zap.UseDevMode(true)))

	suite.StartCluster(controlplane.Options{})
	fx = &arenafixture.Env{Client: suite.Client, ContentRoot: contentRoot, RedisURL: redis.URL()}

	mgr, err := ctrl.NewManager(suite.Env.Config, ctrl.Options{
		Scheme:                 suite.Client.Scheme(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// As the operator's manager: Secrets and ConfigMaps are read from
		// the API server, never cached with their data.
		Client: client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}, &corev1.ConfigMap{}}}},
	})
	Expect(err).NotTo(HaveOccurred())
	jobClock = clocktesting.NewFakeClock(time.Now())
	Expect(arenasetup.Setup(mgr, arenasetup.Config{
		Source:        source.Config{ContentRoot: contentRoot},
		QueueRedisURL: redis.URL(),
		License:       enterpriseLicence(),
		JobClock:      jobClock,
	})).To(Succeed())
	var ctx context.Context
	ctx, stopManager = context.WithCancel(context.Background())
	managerDone = make(chan error, 1)
	go func() { managerDone <- mgr.Start(ctx) }()
	Expect(mgr.GetCache().WaitForCacheSync(ctx)).To(BeTrue())
})

var _ = AfterSuite(func() {
	// The controllers stop before the cluster they watch.
	if stopManager != nil {
		stopManager()
		Eventually(managerDone).WithTimeout(30 * time.Second).Should(Receive(BeNil()))
	}
	suite.Stop()
})

// enterpriseLicence is a verified enterprise licence with every feature
// (scheduling and load testing are licence-gated), signed and checked as
// the operator's licence watcher does.
func enterpriseLicence() licensing.Source {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	token, err := licensing.Sign(licensing.NewClaims("arenaschedule-e2e", "arena schedule e2e", licensing.TierEnterprise,
		licensing.AllFeatures, &licensing.Limits{}, time.Now(), time.Hour), key)
	Expect(err).NotTo(HaveOccurred())
	pub, err := licensing.NewPublicKey(key.Public(), "test")
	Expect(err).NotTo(HaveOccurred())
	st := licensing.NewVerifier([]licensing.PublicKey{pub}, 0, nil).StateOf(token, "")
	Expect(st.Verified).To(BeTrue(), st.Reason)
	store := licensing.NewStore()
	store.Set(st)
	return store
}
