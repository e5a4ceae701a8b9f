package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/go-logr/logr"
)

// DefaultShutdownTimeout bounds how long Start waits for requests in
// progress once its context ends.
const DefaultShutdownTimeout = 30 * time.Second

// Server serves a handler over HTTPS (TLS 1.2 or later, HTTP/1.1 only: the
// deploy API never speaks HTTP/2, CVE-2023-44487 and CVE-2023-39325) until
// its context ends, then shuts down gracefully. It is a controller-runtime
// Runnable that every replica runs (NeedLeaderElection false).
type Server struct {
	// BindAddress is the host:port to listen on ("127.0.0.1:0" picks a
	// port; see Addr after Ready).
	BindAddress string
	Handler     http.Handler
	// GetCertificate supplies the serving certificate (the webhook's,
	// which follows rotation).
	GetCertificate func(*tls.ClientHelloInfo) (*tls.Certificate, error)
	// ShutdownTimeout: DefaultShutdownTimeout when 0.
	ShutdownTimeout time.Duration
	Log             logr.Logger

	once  sync.Once
	ready chan struct{}
	mu    sync.Mutex
	addr  net.Addr
}

func (s *Server) init() { s.once.Do(func() { s.ready = make(chan struct{}) }) }

// Ready is closed once the server listens.
func (s *Server) Ready() <-chan struct{} {
	s.init()
	return s.ready
}

// Addr is the address the server listens on (nil before Ready).
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// Started is a readyz check: it fails until the server listens.
func (s *Server) Started(*http.Request) error {
	if s.Addr() == nil {
		return errors.New("the deploy API is not listening yet")
	}
	return nil
}

// NeedLeaderElection: every replica serves the deploy API.
func (s *Server) NeedLeaderElection() bool { return false }

// Start listens and serves until ctx ends, then lets the requests in
// progress finish (up to ShutdownTimeout).
func (s *Server) Start(ctx context.Context) error {
	s.init()
	if s.GetCertificate == nil {
		return errors.New("deploy API: no serving certificate")
	}
	ln, err := net.Listen("tcp", s.BindAddress)
	if err != nil {
		return fmt.Errorf("deploy API: %w", err)
	}
	srv := &http.Server{
		Handler: s.Handler,
		TLSConfig: &tls.Config{
			MinVersion:     tls.VersionTLS12,
			NextProtos:     []string{"http/1.1"},
			GetCertificate: s.GetCertificate,
		},
		// A non-nil, empty map: no HTTP/2 even if a client offers it.
		TLSNextProto:      map[string]func(*http.Server, *tls.Conn, http.Handler){},
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	s.mu.Lock()
	s.addr = ln.Addr()
	s.mu.Unlock()
	close(s.ready)
	s.Log.Info("serving the deploy API", "address", ln.Addr().String())

	served := make(chan error, 1)
	go func() { served <- srv.ServeTLS(ln, "", "") }()
	select {
	case err := <-served:
		return fmt.Errorf("deploy API: %w", err)
	case <-ctx.Done():
	}
	timeout := s.ShutdownTimeout
	if timeout <= 0 {
		timeout = DefaultShutdownTimeout
	}
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("deploy API: shutting down: %w", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("deploy API: %w", err)
	}
	return nil
}
