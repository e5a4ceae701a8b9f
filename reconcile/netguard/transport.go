package netguard

import (
	"crypto/tls"
	"net/http"
	"time"
)

// NewTransport returns an http.Transport whose every connection goes through
// a guarded dialer (NewDialer), with tlsConfig for https (nil: the system
// roots) and HTTP/2 when the server offers it.
//
// It uses no proxy, whatever HTTPS_PROXY and friends say: a proxy resolves
// and dials the target itself, so the guard would only ever see the proxy's
// address. The operator's probes go to the vendor or the tenant's endpoint
// directly; an installation that must egress through a proxy needs a
// transport of its own, and gives up this guard for it.
func NewTransport(tlsConfig *tls.Config) *http.Transport {
	d := NewDialer(nil)
	d.Timeout = 30 * time.Second
	d.KeepAlive = 30 * time.Second
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           d.DialContext,
		TLSClientConfig:       tlsConfig,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}
