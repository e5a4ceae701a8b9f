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
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/altairalabs/omnia/arena/queue"
	"github.com/altairalabs/omnia/test/controlplane"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

// rotateAdminPassword sets the Redis default user's password to pw, as a
// platform rotating the operator's credential.
func rotateAdminPassword(pw string) {
	GinkgoHelper()
	c, err := queue.Connect(suite.Redis.URL())
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = c.Close() }()
	Expect(c.ConfigSet(context.Background(), "requirepass", pw).Err()).To(Succeed())
	suite.Redis.Password = pw
}

// sourceSecret is the redis.default existingSecret, in the operator's
// namespace (the operator runs outside a pod, so its namespace is
// controlplane.OperatorNamespace, the webhooks' excluded namespace).
const sourceSecret = "async-redis-default"

// suite.Redis is the operator's Redis (the source Secret's URL names it),
// protected by passwords[0] until a spec rotates it.
var suite *framework.Suite

func TestAsync(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia async invocation e2e")
}

var _ = ReportAfterEach(framework.RecordSpecFailure)

var _ = BeforeSuite(func() {
	suite = framework.NewSuite("async")
	suite.StartRedis(passwords[0])
	suite.StartOperator(framework.OperatorOptions{Args: []string{"--async-redis-existing-secret", sourceSecret}})
	framework.EnsureNamespace(suite.Client, controlplane.OperatorNamespace)
})

var _ = AfterSuite(func() { suite.Stop(operatorLoggedNoQueueURL) })

// operatorLoggedNoQueueURL fails when the operator's log holds a queue
// URL's password: the URLs carry the admin credential.
func operatorLoggedNoQueueURL() error {
	if suite.Operator == nil {
		return nil
	}
	log, err := os.ReadFile(suite.Path("operator.log"))
	if err != nil {
		return err
	}
	for _, pw := range passwords {
		if strings.Contains(string(log), pw) {
			return errors.New("the operator logged a queue URL")
		}
	}
	return nil
}
