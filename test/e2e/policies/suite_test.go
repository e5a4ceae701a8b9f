// Package policies runs ValidationPolicies end to end: the operator binary
// as `make run` starts it (webhooks over TLS, its ServiceAccount and the
// generated RBAC) against a real API server, with policies created through
// the API and judged by the API server's own calls to the webhook.
//
// Why a suite of its own: policies are cluster-scoped and bind every
// namespace, so one that denies Providers would change what the specs of
// test/e2e see.
package policies

import (
	"bufio"
	"net/http"
	"strconv"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/altairalabs/omnia/test/controlplane"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

var suite *framework.Suite

func TestPolicies(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia ValidationPolicy e2e")
}

var _ = ReportAfterEach(framework.RecordSpecFailure)

var _ = BeforeSuite(func() {
	suite = framework.Start("policies", framework.OperatorOptions{
		Args:            []string{"--policy-rego-timeout", regoTimeout.String()},
		CollectWarnings: true,
	})
})

var _ = AfterSuite(func() { suite.Stop() })

// counter reads the series of the counter name from the operator's /metrics
// (HTTPS, for a scraper bound to omnia-metrics-reader), keyed by their label
// sets as exposed.
func counter(name string) map[string]float64 {
	GinkgoHelper()
	token, err := controlplane.ServiceAccountToken(suite.Env.Config, controlplane.OperatorNamespace, controlplane.MetricsScraper)
	Expect(err).NotTo(HaveOccurred())
	code, body, err := suite.Operator.Metrics(token)
	Expect(err).NotTo(HaveOccurred())
	Expect(code).To(Equal(http.StatusOK), body)
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		labels, ok := strings.CutPrefix(sc.Text(), name+"{")
		if !ok {
			continue
		}
		set, value, ok := strings.Cut(labels, "} ")
		Expect(ok).To(BeTrue(), sc.Text())
		v, err := strconv.ParseFloat(value, 64)
		Expect(err).NotTo(HaveOccurred())
		out[set] = v
	}
	return out
}
