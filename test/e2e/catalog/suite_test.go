// Package catalog runs the workspace catalog API (docs/catalog-api.md) end
// to end on the local cluster (test/controlplane WithOperatorCluster:
// kube-apiserver, etcd, kube-controller-manager, kube-scheduler and a kwok
// Node) with the operator binary as `make run` starts it: the catalog is
// served on the deploy API's listener (--deploy-api-bind-address) over TLS
// with the webhook's certificate, verifying delegation tokens against their
// own JWKS file (--catalog-jwks-file; the deploy API's keys are another
// file), both written by deploy/auth/authtest. Every request goes over TLS
// (verified with the webhook CA) with a token minted locally.
//
// A suite of its own, as the deploy API's: it needs operator flags
// test/e2e does not start with (the deploy API and its JWKS).
package catalog

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/altairalabs/omnia/deploy/auth/authtest"
	"github.com/altairalabs/omnia/test/controlplane"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

var (
	suite *framework.Suite
	// signer signs delegation tokens (the catalog's key set);
	// deploySigner deploy API tokens (the deploy API's, a set of its own).
	signer       *authtest.Signer
	deploySigner *authtest.Signer
	apiAddr      string
	// platformURL is the operator's --platform-api-url: its own listener.
	platformURL string
	httpClient  *http.Client
)

func TestCatalog(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia catalog API e2e")
}

var _ = ReportAfterEach(framework.RecordSpecFailure)

var _ = BeforeSuite(func() {
	suite = framework.NewSuite("catalog")

	// The token-signing keys, one set per kind of token: the operator
	// trusts each JWKS for its own kind only.
	signer = authtest.MustSigner("catalog-e2e", "ES256")
	catalogJWKS := suite.Path("catalog-jwks.json")
	Expect(authtest.WriteJWKS(catalogJWKS, signer)).To(Succeed())
	deploySigner = authtest.MustSigner("deploy-e2e", "ES256")
	jwks := suite.Path("jwks.json")
	Expect(authtest.WriteJWKS(jwks, deploySigner)).To(Succeed())

	port, err := controlplane.FreePort()
	Expect(err).NotTo(HaveOccurred())
	apiAddr = "127.0.0.1:" + strconv.Itoa(port)
	platformURL = "https://" + apiAddr
	suite.StartOperator(framework.OperatorOptions{Cluster: true, Args: []string{
		"--deploy-api-bind-address", apiAddr, "--deploy-api-jwks-file", jwks, "--catalog-jwks-file", catalogJWKS,
		"--platform-api-url", platformURL,
	}})
	httpClient = suite.WebhookCAClient()
})

var _ = AfterSuite(func() { suite.Stop() })

// mint signs claims with the trusted delegation key.
func mint(claims jwt.Claims) string {
	GinkgoHelper()
	return mintWith(signer, claims)
}

// mintWith signs claims with s.
func mintWith(s *authtest.Signer, claims jwt.Claims) string {
	GinkgoHelper()
	tok, err := s.Mint(claims)
	Expect(err).NotTo(HaveOccurred())
	return tok
}

// delegation is a valid delegation token for workspace.
func delegation(workspace string) string {
	GinkgoHelper()
	return mint(authtest.DelegationClaims("alice", "agents/support", workspace, time.Now()))
}

// reply is one answer of the catalog.
type reply = framework.HTTPReply

// get sends GET path (with its query) over TLS; bearer "" sends no
// Authorization header.
func get(path, bearer string) reply {
	GinkgoHelper()
	return call(http.MethodGet, path, bearer)
}

func call(method, path, bearer string) reply {
	GinkgoHelper()
	req, err := http.NewRequest(method, "https://"+apiAddr+path, nil)
	Expect(err).NotTo(HaveOccurred())
	return framework.Send(httpClient, req, bearer)
}
