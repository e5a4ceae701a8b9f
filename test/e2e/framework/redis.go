package framework

import (
	"os"
	"os/exec"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	testredis "github.com/altairalabs/omnia/test/redis"
)

// StartRedis starts the suite's private redis-server, its directory under
// LogDir, protected by password unless it is "". Stop stops it after the
// operator, which may hold connections to it.
func (s *Suite) StartRedis(password string) *testredis.Server {
	ginkgo.GinkgoHelper()
	bin, err := exec.LookPath("redis-server")
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "redis-server not found: run hack/ensure-redis.sh (make redis)")
	dir := s.Path("redis")
	gomega.Expect(os.MkdirAll(dir, 0o700)).To(gomega.Succeed())
	if password == "" {
		s.Redis, err = testredis.StartIn(bin, dir)
	} else {
		s.Redis, err = testredis.StartInWithPassword(bin, dir, password)
	}
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return s.Redis
}
