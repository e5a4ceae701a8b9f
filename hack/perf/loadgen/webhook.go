package loadgen

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/altairalabs/omnia/admission"
	"github.com/altairalabs/omnia/test/controlplane"
)

// Route is where the webhook of a kind is served.
type Route struct {
	// Resource is the kind's plural, as the AdmissionReview names it.
	Resource string
	// Path is the path config/webhook/manifests.yaml registers for it.
	Path string
}

// WebhookRoutes reads, per kind, the resource and webhook path from the
// generated CRDs and webhook configuration, the same files the API server
// is given.
func WebhookRoutes() (map[string]Route, error) {
	crds, err := controlplane.LoadCRDs(nil)
	if err != nil {
		return nil, err
	}
	kindOf := map[string]string{}
	for _, crd := range crds {
		kindOf[crd.Spec.Names.Plural] = crd.Spec.Names.Kind
	}
	configs, err := controlplane.ValidatingWebhooks(admission.DefaultExcludedNamespace)
	if err != nil {
		return nil, err
	}
	routes := map[string]Route{}
	for _, cfg := range configs {
		for _, hook := range cfg.Webhooks {
			if hook.ClientConfig.Service == nil || hook.ClientConfig.Service.Path == nil {
				continue
			}
			for _, rule := range hook.Rules {
				for _, res := range rule.Resources {
					if kind, ok := kindOf[res]; ok {
						routes[kind] = Route{Resource: res, Path: *hook.ClientConfig.Service.Path}
					}
				}
			}
		}
	}
	if len(routes) == 0 {
		return nil, errors.New("loadgen: the webhook configuration routes no kind")
	}
	return routes, nil
}

// maxAnswerBytes bounds the webhook answer read: an AdmissionReview
// response is a few hundred bytes.
const maxAnswerBytes = 1 << 20

// requestTimeout is the API server's own limit on a call to these webhooks
// (timeoutSeconds: 10 in the generated configuration).
const requestTimeout = 10 * time.Second

// Request is one prepared AdmissionReview: where it goes, its body, and
// the verdict it must get.
type Request struct {
	Case *Case
	URL  string
	UID  string
	Body []byte
}

// WebhookClient posts AdmissionReviews to the operator's webhook server
// over TLS, on keep-alive connections, verifying the server with the CA
// that signed its certificate.
type WebhookClient struct {
	http *http.Client
	base string
}

// NewWebhookClient returns a client of the webhook server at addr
// (host:port) that keeps up to maxConns connections open. With http2 it
// offers HTTP/2 (the operator serves it only with --enable-http2; by
// default it answers over HTTP/1.1, one request per connection at a time).
func NewWebhookClient(addr string, caPEM []byte, maxConns int, http2 bool) (*WebhookClient, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("loadgen: no CA certificate to verify the webhook server with")
	}
	transport := &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:   http2,
		MaxIdleConns:        maxConns,
		MaxIdleConnsPerHost: maxConns,
		MaxConnsPerHost:     maxConns,
		IdleConnTimeout:     90 * time.Second,
	}
	if !http2 {
		// A non-nil empty map turns HTTP/2 off entirely (net/http).
		transport.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	return &WebhookClient{http: &http.Client{Transport: transport, Timeout: requestTimeout}, base: "https://" + addr}, nil
}

// Prepare renders each case's AdmissionReview once, so the load loop only
// sends bytes.
func (w *WebhookClient) Prepare(cases []Case, routes map[string]Route) ([]Request, error) {
	out := make([]Request, 0, len(cases))
	for i := range cases {
		c := &cases[i]
		route, ok := routes[c.Kind]
		if !ok {
			return nil, fmt.Errorf("loadgen: %s: no webhook serves kind %q", c.Name, c.Kind)
		}
		uid := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		body, err := ReviewBody(c, route.Resource, uid)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		out = append(out, Request{Case: c, URL: w.base + route.Path, UID: uid, Body: body})
	}
	return out, nil
}

// Do sends r and judges the answer. It returns the outcome, a reason when
// it is not OK, and the protocol the answer came over ("HTTP/1.1",
// "HTTP/2.0").
func (w *WebhookClient) Do(ctx context.Context, r *Request) (Outcome, string, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return Transport, err.Error(), ""
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := w.http.Do(req)
	if err != nil {
		return Transport, err.Error(), ""
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return Transport, err.Error(), resp.Proto
	}
	if resp.StatusCode != http.StatusOK {
		return NotOK, fmt.Sprintf("HTTP %d: %.200s", resp.StatusCode, body), resp.Proto
	}
	out, why := CheckVerdict(r.Case.Expect, r.UID, body)
	return out, why, resp.Proto
}

// Close drops the client's idle connections.
func (w *WebhookClient) Close() { w.http.CloseIdleConnections() }
