package framework

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// WebhookCAClient is an HTTPS client that trusts the webhook's serving CA:
// the operator's other listeners (the deploy API, the catalog) serve the
// webhook's certificate, so a request to them is verified as a real
// client's would be.
func (s *Suite) WebhookCAClient() *http.Client {
	ginkgo.GinkgoHelper()
	pool := x509.NewCertPool()
	gomega.Expect(pool.AppendCertsFromPEM(s.Env.WebhookInstallOptions.LocalServingCAData)).To(gomega.BeTrue())
	return &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
}

// HTTPReply is one answer of an operator listener, its body read whole so
// a spec can compare it after the connection is gone.
type HTTPReply struct {
	Status int
	Header http.Header
	Body   []byte
}

// Send sends req with c, with an Authorization bearer token unless bearer
// is "" (the unauthenticated case), and reads the whole answer.
func Send(c *http.Client, req *http.Request, bearer string) HTTPReply {
	ginkgo.GinkgoHelper()
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := c.Do(req)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return HTTPReply{Status: resp.StatusCode, Header: resp.Header, Body: b}
}
