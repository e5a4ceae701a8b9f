package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
)

// servingCert is the webhook server's certificate. controller-runtime's own
// watcher makes the webhook server fail to start (and so the process exit)
// when the directory is still empty — as it is while cert-manager has not
// issued the Secret yet. servingCert instead waits for tls.crt and tls.key to
// load, then hands over to a certwatcher that follows rotations. Until then
// handshakes fail and Checker keeps /readyz failing, so no traffic is routed
// to a replica that cannot serve it.
type servingCert struct {
	certPath, keyPath string
	pollInterval      time.Duration

	mu      sync.RWMutex
	watcher *certwatcher.CertWatcher
	lastErr error
}

func newServingCert(dir string) *servingCert {
	return &servingCert{
		certPath:     filepath.Join(dir, "tls.crt"),
		keyPath:      filepath.Join(dir, "tls.key"),
		pollInterval: time.Second,
		lastErr:      errors.New("not loaded yet"),
	}
}

// GetCertificate is the webhook server's tls.Config.GetCertificate.
func (s *servingCert) GetCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	s.mu.RLock()
	w, lastErr := s.watcher, s.lastErr
	s.mu.RUnlock()
	if w == nil {
		return nil, fmt.Errorf("webhook serving certificate %s: %w", s.certPath, lastErr)
	}
	return w.GetCertificate(hello)
}

// Checker is a readyz check: it fails until the certificate has loaded.
func (s *servingCert) Checker(_ *http.Request) error {
	_, err := s.GetCertificate(nil)
	return err
}

// Start loads the certificate, retrying until it loads, then watches it for
// rotation until ctx ends. It runs on every replica (a manager runnable).
func (s *servingCert) Start(ctx context.Context) error {
	for {
		w, err := certwatcher.New(s.certPath, s.keyPath)
		if err == nil {
			s.mu.Lock()
			s.watcher, s.lastErr = w, nil
			s.mu.Unlock()
			return w.Start(ctx)
		}
		s.mu.Lock()
		s.lastErr = err
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(s.pollInterval):
		}
	}
}

// NeedLeaderElection: every replica serves webhooks, so every replica loads
// the certificate.
func (s *servingCert) NeedLeaderElection() bool { return false }
