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
// Dev project intents (pack.project) are left out: they are served by
// another part of issue #10; this suite covers published packs only.
package deployapi

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/auth/authtest"
	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/test/controlplane"
	"github.com/altairalabs/omnia/test/licencetest"
)

// maxBody is the operator's --deploy-api-max-body-bytes: small, so the 413
// spec sends a modest body.
const maxBody = 64 << 10

var (
	cluster    *controlplane.Cluster
	operator   *controlplane.Operator
	k8sClient  client.Client
	logDir     string
	signer     *authtest.Signer
	apiAddr    string
	httpClient *http.Client
	licenceKey ed25519.PrivateKey
	suiteStart time.Time
	anyFailed  bool
)

var _ = ReportAfterEach(func(r SpecReport) {
	if r.Failed() {
		anyFailed = true
	}
})

func TestDeployAPI(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia deploy API e2e")
}

var _ = BeforeSuite(func() {
	suiteStart = time.Now()
	logf.SetLogger(GinkgoLogr)
	var err error
	logDir, err = os.MkdirTemp("", "omnia-deployapi-e2e-")
	Expect(err).NotTo(HaveOccurred())

	// The dashboard's token-signing key: the operator trusts its JWKS.
	signer = authtest.MustSigner("dash-e2e", "ES256")
	jwks := filepath.Join(logDir, "jwks.json")
	Expect(authtest.WriteJWKS(jwks, signer)).To(Succeed())

	// The licence issuer's key: the operator trusts its public half.
	_, licenceKey, err = ed25519.GenerateKey(rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	pub, err := licensing.MarshalPublicKeyPEM(licenceKey.Public())
	Expect(err).NotTo(HaveOccurred())
	pubPath := filepath.Join(logDir, "license.pub")
	Expect(os.WriteFile(pubPath, pub, 0o600)).To(Succeed())

	port, err := controlplane.FreePort()
	Expect(err).NotTo(HaveOccurred())
	apiAddr = "127.0.0.1:" + strconv.Itoa(port)
	cluster, operator, err = controlplane.WithOperatorCluster(controlplane.Options{}, logDir,
		"--deploy-api-bind-address", apiAddr, "--deploy-api-jwks-file", jwks,
		"--deploy-api-max-body-bytes", strconv.Itoa(maxBody),
		"--license-public-key", pubPath)
	Expect(err).NotTo(HaveOccurred())
	Expect(operator.WaitReady(2 * time.Minute)).To(Succeed())

	k8sClient, err = controlplane.NewClient(cluster.Config)
	Expect(err).NotTo(HaveOccurred())

	// The deploy API serves the webhook's serving certificate.
	pool := x509.NewCertPool()
	Expect(pool.AppendCertsFromPEM(cluster.WebhookInstallOptions.LocalServingCAData)).To(BeTrue())
	httpClient = &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}

	installLicence(context.Background())
})

var _ = AfterSuite(func() {
	var errs []error
	if operator != nil {
		errs = append(errs, operator.StopChecked())
	}
	if cluster != nil {
		errs = append(errs, controlplane.StopEnvironment(cluster.Environment, cluster.Stop))
	}
	GinkgoWriter.Printf("deploy API e2e suite took %s\n", time.Since(suiteStart).Round(time.Second))
	err := errors.Join(errs...)
	controlplane.KeepLogsIfFailed(logDir, err != nil || anyFailed || CurrentSpecReport().Failed(), GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
})

// installLicence installs an enterprise licence the operator trusts.
func installLicence(ctx context.Context) {
	Expect(licencetest.InstallLicence(ctx, k8sClient, licenceKey, "deployapi-e2e", "deploy API e2e")).To(Succeed())
}

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
type reply struct {
	status int
	header http.Header
	body   []byte
}

// call sends a request to the deploy API over TLS; bearer "" sends no
// Authorization header.
func call(method, path, bearer string, body []byte) reply {
	GinkgoHelper()
	req, err := http.NewRequest(method, "https://"+apiAddr+path, bytes.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := httpClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
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
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed())
	Expect(k8sClient.Create(ctx, &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: ns.Name},
		Spec: v1alpha1.WorkspaceSpec{Namespace: v1alpha1.WorkspaceNamespace{Name: ns.Name}}})).To(Succeed())
	// Until the operator's cache holds the Workspace its routes are 404.
	Eventually(func() int {
		return call(http.MethodGet, "/api/v1/workspaces/"+ns.Name+"/deploy-profile", token(claimsFor(ns.Name, auth.RoleViewer)), nil).status
	}).WithTimeout(30 * time.Second).WithPolling(100 * time.Millisecond).Should(Equal(http.StatusOK))
	return ns.Name
}

// mockProvider creates a mock Provider (Ready without a vendor) and waits
// until it is Ready.
func mockProvider(ns, name string) {
	GinkgoHelper()
	ctx := context.Background()
	Expect(k8sClient.Create(ctx, &v1alpha1.Provider{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeMock},
	})).To(Succeed())
	Eventually(func(g Gomega) {
		p := &v1alpha1.Provider{}
		g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, p)).To(Succeed())
		g.Expect(p.Status.Phase).To(Equal(v1alpha1.ProviderPhaseReady))
	}).WithTimeout(time.Minute).WithPolling(200 * time.Millisecond).Should(Succeed())
}
