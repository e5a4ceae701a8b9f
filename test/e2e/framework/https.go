package framework

import (
	"crypto/tls"
	"crypto/x509"
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
