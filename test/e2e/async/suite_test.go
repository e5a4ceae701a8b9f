// Package async runs async invocation's queue wiring end to end
// (agentruntime.md § facades[].async) and the version-triggered rollout
// candidate (§ rollout.trigger): the operator binary as `make run` starts
// it (webhooks over TLS, its ServiceAccount with the generated RBAC) with
// the chart's redis.default given as existingSecret
// (--async-redis-existing-secret), against a real API server. No pod has
// to run for what these specs check (Secrets, the Deployment's template,
// the agent's status and spec), so the suite runs on the API server alone.
//
// Why a suite of its own: the operator's --async-redis-* flags are
// operator-wide, and the test/e2e suite's operator runs without them.
package async

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/altairalabs/omnia/arena/queue"
	"github.com/altairalabs/omnia/test/controlplane"
	testredis "github.com/altairalabs/omnia/test/redis"
)

// rotateAdminPassword sets the Redis default user's password to pw, as a
// platform rotating the operator's credential.
func rotateAdminPassword(pw string) {
	GinkgoHelper()
	c, err := queue.Connect(redisSrv.URL())
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = c.Close() }()
	Expect(c.ConfigSet(context.Background(), "requirepass", pw).Err()).To(Succeed())
	redisSrv.Password = pw
}

// sourceSecret is the redis.default existingSecret, in the operator's
// namespace (the operator runs outside a pod, so its namespace is
// controlplane.OperatorNamespace, the webhooks' excluded namespace).
const sourceSecret = "async-redis-default"

var (
	// redisSrv is the operator's Redis (the source Secret's URL names it),
	// protected by passwords[0] until a spec rotates it.
	redisSrv  *testredis.Server
	env       *envtest.Environment
	operator  *controlplane.Operator
	k8sClient client.Client
	logDir    string
	anyFailed bool
)

var _ = ReportAfterEach(func(r SpecReport) {
	if r.Failed() {
		anyFailed = true
	}
})

func TestAsync(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia async invocation e2e")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(GinkgoLogr)
	var err error
	logDir, err = os.MkdirTemp("", "omnia-async-e2e-")
	Expect(err).NotTo(HaveOccurred())
	bin, err := exec.LookPath("redis-server")
	Expect(err).NotTo(HaveOccurred(), "redis-server not found: run hack/ensure-redis.sh (make redis)")
	redisDir := filepath.Join(logDir, "redis")
	Expect(os.MkdirAll(redisDir, 0o700)).To(Succeed())
	redisSrv, err = testredis.StartInWithPassword(bin, redisDir, passwords[0])
	Expect(err).NotTo(HaveOccurred())
	env, operator, err = controlplane.WithOperator(controlplane.Options{}, logDir,
		"--async-redis-existing-secret", sourceSecret)
	Expect(err).NotTo(HaveOccurred())
	Expect(operator.WaitReady(2 * time.Minute)).To(Succeed())

	k8sClient, err = controlplane.NewClient(env.Config)
	Expect(err).NotTo(HaveOccurred())
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: controlplane.OperatorNamespace}}
	if err := k8sClient.Create(context.Background(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred())
	}
})

var _ = AfterSuite(func() {
	var errs []error
	if redisSrv != nil {
		defer redisSrv.Stop()
	}
	if operator != nil {
		errs = append(errs, operator.StopChecked())
		// No queue URL (they carry a password) in the operator's log.
		log, err := os.ReadFile(filepath.Join(logDir, "operator.log"))
		errs = append(errs, err)
		for _, pw := range passwords {
			if strings.Contains(string(log), pw) {
				errs = append(errs, errors.New("the operator logged a queue URL"))
			}
		}
	}
	if env != nil {
		errs = append(errs, controlplane.StopEnvironment(env, env.Stop))
	}
	err := errors.Join(errs...)
	controlplane.KeepLogsIfFailed(logDir, err != nil || anyFailed || CurrentSpecReport().Failed(), GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
})
