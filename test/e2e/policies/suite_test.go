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
	"context"
	"errors"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/altairalabs/omnia/test/controlplane"
)

var (
	env       *envtest.Environment
	operator  *controlplane.Operator
	k8sClient client.Client
	warnings  = &warningLog{}
	logDir    string
	anyFailed bool
)

var _ = ReportAfterEach(func(r SpecReport) {
	if r.Failed() {
		anyFailed = true
	}
})

func TestPolicies(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia ValidationPolicy e2e")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(GinkgoLogr)
	var err error
	logDir, err = os.MkdirTemp("", "omnia-policies-e2e-")
	Expect(err).NotTo(HaveOccurred())
	env, operator, err = controlplane.WithOperator(controlplane.Options{}, logDir,
		"--policy-rego-timeout", regoTimeout.String())
	Expect(err).NotTo(HaveOccurred())
	Expect(operator.WaitReady(2 * time.Minute)).To(Succeed())

	cfg := *env.Config
	cfg.WarningHandlerWithContext = warnings
	k8sClient, err = controlplane.NewClient(&cfg)
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	var errs []error
	if operator != nil {
		errs = append(errs, operator.StopChecked())
	}
	if env != nil {
		errs = append(errs, controlplane.StopEnvironment(env, env.Stop))
	}
	err := errors.Join(errs...)
	controlplane.KeepLogsIfFailed(logDir, err != nil || anyFailed || CurrentSpecReport().Failed(), GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
})

// warningLog collects the API server's warnings (admission warnings among
// them) for the specs to take.
type warningLog struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warningLog) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, msg)
}

// take returns the warnings seen since the last take.
func (w *warningLog) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.msgs
	w.msgs = nil
	return out
}

// counter reads the series of the counter name from the operator's /metrics
// (HTTPS, for a scraper bound to omnia-metrics-reader), keyed by their label
// sets as exposed.
func counter(name string) map[string]float64 {
	GinkgoHelper()
	token, err := controlplane.ServiceAccountToken(env.Config, controlplane.OperatorNamespace, controlplane.MetricsScraper)
	Expect(err).NotTo(HaveOccurred())
	code, body, err := operator.Metrics(token)
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
