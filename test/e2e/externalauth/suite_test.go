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
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/altairalabs/omnia/test/e2e/framework"
)

var (
	suite *framework.Suite
	// issuer is the local TLS OIDC issuer; issuerFetches counts its JWKS
	// requests.
	issuer        *httptest.Server
	issuerFetches atomic.Int32
)

// issuerJWKS is the key set the local issuer serves.
const issuerJWKS = `{"keys":[{"alg":"RS256","e":"AQAB","kid":"e2e-1","kty":"RSA","n":"sXchw","use":"sig"}]}`

func TestExternalAuth(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia external auth e2e")
}

var _ = ReportAfterEach(framework.RecordSpecFailure)

var _ = BeforeSuite(func() {
	suite = framework.NewSuite("externalauth")

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
	// Closed after AfterSuite, once the operator that polls it has stopped.
	DeferCleanup(issuer.Close)
	caFile := suite.Path("issuer-ca.pem")
	Expect(os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: issuer.Certificate().Raw}), 0o600)).To(Succeed())

	suite.StartOperator(framework.OperatorOptions{Args: []string{"--oidc-ca-file", caFile}, CollectWarnings: true})
})

var _ = AfterSuite(func() { suite.Stop() })
