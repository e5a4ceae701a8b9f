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
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/altairalabs/omnia/deploy/auth/authtest"
	"github.com/altairalabs/omnia/test/controlplane"
)

var (
	cluster   *controlplane.Cluster
	operator  *controlplane.Operator
	k8sClient client.Client
	logDir    string
	// signer signs delegation tokens (the catalog's key set);
	// deploySigner deploy API tokens (the deploy API's, a set of its own).
	signer       *authtest.Signer
	deploySigner *authtest.Signer
	apiAddr      string
	// platformURL is the operator's --platform-api-url: its own listener.
	platformURL string
	httpClient  *http.Client
	anyFailed   bool
)

var _ = ReportAfterEach(func(r SpecReport) {
	if r.Failed() {
		anyFailed = true
	}
})

func TestCatalog(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia catalog API e2e")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(GinkgoLogr)
	var err error
	logDir, err = os.MkdirTemp("", "omnia-catalog-e2e-")
	Expect(err).NotTo(HaveOccurred())

	// The token-signing keys, one set per kind of token: the operator
	// trusts each JWKS for its own kind only.
	signer = authtest.MustSigner("catalog-e2e", "ES256")
	catalogJWKS := filepath.Join(logDir, "catalog-jwks.json")
	Expect(authtest.WriteJWKS(catalogJWKS, signer)).To(Succeed())
	deploySigner = authtest.MustSigner("deploy-e2e", "ES256")
	jwks := filepath.Join(logDir, "jwks.json")
	Expect(authtest.WriteJWKS(jwks, deploySigner)).To(Succeed())

	port, err := controlplane.FreePort()
	Expect(err).NotTo(HaveOccurred())
	apiAddr = "127.0.0.1:" + strconv.Itoa(port)
	platformURL = "https://" + apiAddr
	cluster, operator, err = controlplane.WithOperatorCluster(controlplane.Options{}, logDir,
		"--deploy-api-bind-address", apiAddr, "--deploy-api-jwks-file", jwks, "--catalog-jwks-file", catalogJWKS,
		"--platform-api-url", platformURL)
	Expect(err).NotTo(HaveOccurred())
	Expect(operator.WaitReady(2 * time.Minute)).To(Succeed())

	k8sClient, err = controlplane.NewClient(cluster.Config)
	Expect(err).NotTo(HaveOccurred())

	pool := x509.NewCertPool()
	Expect(pool.AppendCertsFromPEM(cluster.WebhookInstallOptions.LocalServingCAData)).To(BeTrue())
	httpClient = &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
})

var _ = AfterSuite(func() {
	var errs []error
	if operator != nil {
		errs = append(errs, operator.StopChecked())
	}
	if cluster != nil {
		errs = append(errs, controlplane.StopEnvironment(cluster.Environment, cluster.Stop))
	}
	err := errors.Join(errs...)
	controlplane.KeepLogsIfFailed(logDir, err != nil || anyFailed || CurrentSpecReport().Failed(), GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
})

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

// reply is one answer.
type reply struct {
	status int
	header http.Header
	body   []byte
}

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
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := httpClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

// freshNamespace creates a namespace named <prefix>-<random>.
func freshNamespace(prefix string) string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	Expect(k8sClient.Create(context.Background(), ns)).To(Succeed())
	return ns.Name
}
