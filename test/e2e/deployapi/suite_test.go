// Package deployapi runs the deploy API's published-pack path end to end on
// the local cluster (test/controlplane WithOperatorCluster: kube-apiserver,
// etcd, kube-controller-manager, kube-scheduler and a kwok Node) with the
// operator binary as `make run` starts it: webhooks over TLS, its
// ServiceAccount and generated RBAC, and the deploy API on a loopback port
// (--deploy-api-bind-address) serving the webhook's certificate, verifying
// tokens against a JWKS file written by deploy/auth/authtest. Every request
// goes over TLS (verified with the webhook CA) with a token minted locally.
//
// Why a suite of its own rather than specs in test/e2e: it needs operator
// flags test/e2e does not start with (the deploy API, its JWKS, a small
// body limit, a trusted licence key), and it installs an enterprise licence
// (a ToolPolicy is enterprise only), which would change what test/e2e's
// specs see.
//
// Dev project intents (pack.project: an Arena project deployed to a dev
// agent) are project_test.go's.
package deployapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/auth/authtest"
	"github.com/altairalabs/omnia/test/controlplane"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

// maxBody is the operator's --deploy-api-max-body-bytes: small, so the 413
// spec sends a modest body.
const maxBody = 64 << 10

var (
	suite      *framework.Suite
	signer     *authtest.Signer
	apiAddr    string
	httpClient *http.Client
)

func TestDeployAPI(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia deploy API e2e")
}

var _ = ReportAfterEach(framework.RecordSpecFailure)

var _ = BeforeSuite(func() {
	suite = framework.NewSuite("deployapi")

	// The dashboard's token-signing key: the operator trusts its JWKS.
	signer = authtest.MustSigner("dash-e2e", "ES256")
	jwks := suite.Path("jwks.json")
	Expect(authtest.WriteJWKS(jwks, signer)).To(Succeed())

	port, err := controlplane.FreePort()
	Expect(err).NotTo(HaveOccurred())
	apiAddr = "127.0.0.1:" + strconv.Itoa(port)
	suite.StartOperator(framework.OperatorOptions{Cluster: true, TrustLicenceKey: true, Args: []string{
		"--deploy-api-bind-address", apiAddr, "--deploy-api-jwks-file", jwks,
		"--deploy-api-max-body-bytes", strconv.Itoa(maxBody),
	}})
	// The deploy API serves the webhook's serving certificate.
	httpClient = suite.WebhookCAClient()

	// A ToolPolicy is enterprise only.
	suite.InstallLicence(context.Background(), "deployapi-e2e", "deploy API e2e")
})

var _ = AfterSuite(func() { suite.Stop() })

// token mints a token for claims with the trusted key.
func token(claims auth.Claims) string {
	GinkgoHelper()
	tok, err := signer.Mint(claims)
	Expect(err).NotTo(HaveOccurred())
	return tok
}

// claimsFor is a valid token's claims for the workspace of ns
// (freshNamespace names it after ns).
func claimsFor(ns string, role auth.Role) auth.Claims {
	return authtest.Claims("alice", ns, ns, role, time.Now())
}

// reply is one deploy API answer.
type reply = framework.HTTPReply

// call sends a request to the deploy API over TLS; bearer "" sends no
// Authorization header.
func call(method, path, bearer string, body []byte) reply {
	GinkgoHelper()
	req, err := http.NewRequest(method, "https://"+apiAddr+path, bytes.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	return framework.Send(httpClient, req, bearer)
}

// deploy POSTs an intent to the deployments route of ns's workspace as an
// editor.
func deploy(ns string, in any) reply {
	GinkgoHelper()
	return call(http.MethodPost, deploymentsPath(ns), token(claimsFor(ns, auth.RoleEditor)), mustJSON(in))
}

// deploymentsPath is the deployments route of workspace ws.
func deploymentsPath(ws string) string { return "/api/v1/workspaces/" + ws + "/deployments" }

func mustJSON(v any) []byte {
	GinkgoHelper()
	if b, ok := v.([]byte); ok {
		return b
	}
	b, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	return b
}

// freshNamespace creates a namespace named <prefix>-<random> and its
// Workspace, named after it (the deploy API acts in the Workspace's
// spec.namespace.name), and waits until the deploy API serves it.
func freshNamespace(prefix string) string {
	GinkgoHelper()
	ns := framework.CreateNamespace(suite.Client, prefix)
	Expect(suite.Client.Create(context.Background(), &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: ns},
		Spec: v1alpha1.WorkspaceSpec{Namespace: v1alpha1.WorkspaceNamespace{Name: ns}}})).To(Succeed())
	// Until the operator's cache holds the Workspace its routes are 404.
	Eventually(func() int {
		return call(http.MethodGet, "/api/v1/workspaces/"+ns+"/deploy-profile", token(claimsFor(ns, auth.RoleViewer)), nil).Status
	}).WithTimeout(30 * time.Second).WithPolling(100 * time.Millisecond).Should(Equal(http.StatusOK))
	return ns
}
