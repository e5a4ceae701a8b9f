package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/altairalabs/omnia/test/controlplane"
)

// TestReadyzWaitsForTheServingCertificate: an operator whose certificate
// directory is still empty (cert-manager has not issued yet) keeps running
// and is not ready, naming the certificate; once the files appear it loads
// them and becomes ready. The caches' sync is a check of its own.
func TestReadyzWaitsForTheServingCertificate(t *testing.T) {
	needsAPIServer(t)
	certDir := t.TempDir()
	op := launch(t, "operator", certDir)
	eventually(t, time.Minute, "/readyz reports the missing certificate and synced caches", func() error {
		select {
		case err := <-op.Exited():
			t.Fatalf("the operator exited with an empty certificate directory: %v", err)
		default:
		}
		code, body, err := op.Ready()
		if err != nil {
			return err
		}
		if code == http.StatusOK {
			t.Fatalf("ready without a serving certificate:\n%s", body)
		}
		for _, want := range []string{"[-]webhook-certificate failed", "[-]webhooks failed", "[+]informers ok"} {
			if !strings.Contains(body, want) {
				return fmt.Errorf("/readyz %d lacks %q:\n%s", code, want, body)
			}
		}
		return nil
	})

	if err := controlplane.CopyCerts(env.WebhookInstallOptions.LocalServingCertDir, certDir); err != nil {
		t.Fatal(err)
	}
	if err := op.WaitReady(time.Minute); err != nil {
		t.Fatal(err)
	}
	_, body, err := op.Ready()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[+]webhook-certificate ok", "[+]webhooks ok", "[+]informers ok"} {
		if !strings.Contains(body, want) {
			t.Errorf("/readyz lacks %q once ready:\n%s", want, body)
		}
	}
	// The webhook server now serves the loaded certificate.
	conn, err := tls.Dial("tcp", op.WebhookAddr, &tls.Config{RootCAs: caPool(t)})
	if err != nil {
		t.Fatalf("TLS to the webhook server with the loaded certificate: %v", err)
	}
	_ = conn.Close()
}

// TestServers checks the webhook and metrics servers of one operator:
// metrics only over HTTPS and only to a caller the API server authorizes
// for /metrics, and neither server speaking HTTP/2 unless --enable-http2.
func TestServers(t *testing.T) {
	needsAPIServer(t)
	op := launch(t, "operator", env.WebhookInstallOptions.LocalServingCertDir)
	if err := op.WaitReady(time.Minute); err != nil {
		t.Fatal(err)
	}
	token := func(sa string) string {
		tok, err := controlplane.ServiceAccountToken(env.Config, controlplane.OperatorNamespace, sa)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}

	t.Run("metrics need an authorized token", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			token string
			want  int
		}{
			{"no token", "", http.StatusUnauthorized},
			// controller-runtime's filter answers a token the TokenReview
			// rejects with 500 "Authentication failed".
			{"a token the API server does not know", "not-a-token", http.StatusInternalServerError},
			{"the operator's own token (not bound to omnia-metrics-reader)", token(controlplane.OperatorServiceAccount), http.StatusForbidden},
			{"a scraper bound to omnia-metrics-reader", token(controlplane.MetricsScraper), http.StatusOK},
		} {
			t.Run(tc.name, func(t *testing.T) {
				code, body, err := op.Metrics(tc.token)
				if err != nil {
					t.Fatal(err)
				}
				if code != tc.want {
					t.Fatalf("GET %s: %d, want %d: %s", op.MetricsURL, code, tc.want, body)
				}
				if code == http.StatusOK && !strings.Contains(body, "controller_runtime_") {
					t.Errorf("no metrics in the body:\n%.500s", body)
				}
			})
		}
	})

	t.Run("metrics are not served over plain HTTP", func(t *testing.T) {
		c := &http.Client{Timeout: 10 * time.Second}
		resp, err := c.Get("http://" + op.MetricsAddr + "/metrics")
		if err == nil {
			defer resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.Fatalf("plain HTTP /metrics answered 200")
			}
		}
	})

	t.Run("HTTP/2 is off", func(t *testing.T) {
		for name, addr := range map[string]string{"webhook": op.WebhookAddr, "metrics": op.MetricsAddr} {
			proto, err := negotiate(t, addr)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if proto == "h2" {
				t.Errorf("the %s server negotiated HTTP/2", name)
			}
		}
	})
}

// TestEnableHTTP2: --enable-http2 turns HTTP/2 back on, so the test above
// would see it if the servers offered it.
func TestEnableHTTP2(t *testing.T) {
	needsAPIServer(t)
	op := launch(t, "operator", env.WebhookInstallOptions.LocalServingCertDir, "--enable-http2")
	if err := op.WaitReady(time.Minute); err != nil {
		t.Fatal(err)
	}
	for name, addr := range map[string]string{"webhook": op.WebhookAddr, "metrics": op.MetricsAddr} {
		proto, err := negotiate(t, addr)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if proto != "h2" {
			t.Errorf("the %s server negotiated %q with --enable-http2, want h2", name, proto)
		}
	}
}

// negotiate offers h2 and http/1.1 over TLS and returns what the server chose.
func negotiate(t *testing.T, addr string) (string, error) {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: caPool(t), NextProtos: []string{"h2", "http/1.1"}})
	if err != nil {
		return "", err
	}
	defer conn.Close()
	return conn.ConnectionState().NegotiatedProtocol, nil
}

func caPool(t *testing.T) *x509.CertPool {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(env.WebhookInstallOptions.LocalServingCAData) {
		t.Fatal(errors.New("no envtest webhook CA"))
	}
	return pool
}
