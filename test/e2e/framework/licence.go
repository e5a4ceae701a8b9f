package framework

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"os"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/test/licencetest"
)

// trustLicenceKey generates the suite's licence key and writes its public
// half where the operator reads it, returning that path.
func (s *Suite) trustLicenceKey() string {
	ginkgo.GinkgoHelper()
	var err error
	_, s.LicenceKey, err = ed25519.GenerateKey(rand.Reader)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	pub, err := licensing.MarshalPublicKeyPEM(s.LicenceKey.Public())
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	path := s.Path("license.pub")
	gomega.Expect(os.WriteFile(path, pub, 0o600)).To(gomega.Succeed())
	return path
}

// InstallLicence installs an enterprise licence with every feature, signed
// with the key the operator trusts (OperatorOptions.TrustLicenceKey), for
// the licence-gated features a suite's specs use.
func (s *Suite) InstallLicence(ctx context.Context, lid, customer string) {
	ginkgo.GinkgoHelper()
	gomega.Expect(s.LicenceKey).NotTo(gomega.BeNil(), "the operator trusts no licence key: set OperatorOptions.TrustLicenceKey")
	gomega.Expect(licencetest.InstallLicence(ctx, s.Client, s.LicenceKey, lid, customer)).To(gomega.Succeed())
}
