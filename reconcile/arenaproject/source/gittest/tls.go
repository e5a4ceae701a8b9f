package gittest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Serving git over https in tests, to the operator's unchanged transport.
//
// The operator verifies a git server against the system roots (its
// transport is process-wide and takes no test hook). A test process makes
// the servers of Options.TLS trusted by calling Trust from TestMain, before
// anything in the process verifies a certificate: it writes this package's
// self-signed certificate to a file and points SSL_CERT_FILE at it, which Go
// reads, with the default certificate directories, once, at the first
// verification against the system roots.

var (
	certOnce sync.Once
	certPair tls.Certificate
	certPEM  []byte
	certErr  error
)

// makeCert creates the one certificate every TLS server of the process
// serves: self-signed, for 127.0.0.1, ::1 and localhost.
func makeCert() {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		certErr = err
		return
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "gittest"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		certErr = err
		return
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		certErr = err
		return
	}
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	certPair, certErr = tls.X509KeyPair(certPEM, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
}

func serverCert(t testing.TB) tls.Certificate {
	t.Helper()
	certOnce.Do(makeCert)
	if certErr != nil {
		t.Fatal(certErr)
	}
	if trustedFile == "" || os.Getenv("SSL_CERT_FILE") != trustedFile {
		t.Fatal("gittest: a TLS server needs Trust called from TestMain first")
	}
	return certPair
}

// trustedFile is the file Trust wrote ("" before).
var trustedFile string

// Trust makes this process trust the TLS servers of Options.TLS: it writes
// their certificate under dir and sets SSL_CERT_FILE to it. Call it from
// TestMain, before anything verifies a certificate against the system
// roots (Go reads SSL_CERT_FILE only then, once).
func Trust(dir string) error {
	certOnce.Do(makeCert)
	if certErr != nil {
		return certErr
	}
	if trustedFile != "" {
		return errors.New("gittest: Trust called twice")
	}
	f := filepath.Join(dir, "gittest-ca.pem")
	if err := os.WriteFile(f, certPEM, 0o600); err != nil {
		return fmt.Errorf("gittest: %w", err)
	}
	if err := os.Setenv("SSL_CERT_FILE", f); err != nil {
		return fmt.Errorf("gittest: %w", err)
	}
	trustedFile = f
	return nil
}
