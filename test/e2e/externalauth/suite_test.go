// Package externalauth runs the AgentRuntime's external auth end to end:
// the operator binary as `make run` starts it (webhooks over TLS, its
// ServiceAccount and the generated RBAC) against a real API server, with
// --oidc-ca-file naming the CA of a local TLS OIDC issuer the suite starts.
// The operator fetches the issuer's discovery document and JWKS in the
// background and mirrors the JWKS into the agent's Secret; issuers it must
// never dial (http://, a link-local address) are refused.
//
// Why a suite of its own: --oidc-ca-file is an operator flag the other
// suites do not pass.
package externalauth

import (
	"context"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
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
	// issuer is the local TLS OIDC issuer; issuerFetches counts its JWKS
	// requests.
	issuer        *httptest.Server
	issuerFetches atomic.Int32
)

// issuerJWKS is the key set the local issuer serves.
const issuerJWKS = `{"keys":[{"alg":"RS256","e":"AQAB","kid":"e2e-1","kty":"RSA","n":"sXchw","use":"sig"}]}`

var _ = ReportAfterEach(func(r SpecReport) {
	if r.Failed() {
		anyFailed = true
	}
})

func TestExternalAuth(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia external auth e2e")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(GinkgoLogr)
	var err error
	logDir, err = os.MkdirTemp("", "omnia-externalauth-e2e-")
	Expect(err).NotTo(HaveOccurred())

	issuer = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			_, _ = w.Write([]byte(`{"issuer":"` + issuer.URL + `","jwks_uri":"` + issuer.URL + `/keys"}`))
		case "/keys":
			issuerFetches.Add(1)
			_, _ = w.Write([]byte(issuerJWKS))
		default:
			http.NotFound(w, r)
		}
	}))
	caFile := filepath.Join(logDir, "issuer-ca.pem")
	Expect(os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: issuer.Certificate().Raw}), 0o600)).To(Succeed())

	env, operator, err = controlplane.WithOperator(controlplane.Options{}, logDir, "--oidc-ca-file", caFile)
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
	if issuer != nil {
		issuer.Close()
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
