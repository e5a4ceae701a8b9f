package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/netguard"
)

// DefaultEndpoints are the vendors' API endpoints, used when spec.baseURL is
// unset, for the EndpointReachable health check and the CredentialValid probe.
// A type not listed (vllm and ollama need a baseURL; cartesia, elevenlabs and
// imagen only serve the tts and image roles, which are not health-checked;
// mock has no endpoint) has no default endpoint to probe.
var DefaultEndpoints = map[v1alpha1.ProviderType]string{
	v1alpha1.ProviderTypeClaude:      "https://api.anthropic.com",
	v1alpha1.ProviderTypeOpenAI:      "https://api.openai.com/v1",
	v1alpha1.ProviderTypeGemini:      "https://generativelanguage.googleapis.com",
	v1alpha1.ProviderTypeVoyageAI:    "https://api.voyageai.com/v1",
	v1alpha1.ProviderTypeCohere:      "https://api.cohere.com",
	v1alpha1.ProviderTypeHuggingFace: "https://api-inference.huggingface.co",
}

// CredentialProbe is the request that asks a vendor whether a credential is
// good: a cheap authenticated GET that lists models. 2xx means accepted, 401
// or 403 rejected, anything else (no response, a timeout, another status) a
// transient validation error. The key always travels in a header, never in
// the URL: a URL appears in transport error messages, which reach status.
type CredentialProbe struct {
	// Versions are the API version path segments the models listing lives
	// under; the first is appended to the base URL unless its path already
	// ends in one of them (e.g. https://api.openai.com/v1, or a gateway's
	// https://openrouter.ai/api/v1).
	Versions []string
	// Path follows the version segment.
	Path string
	// Header carries the credential; Prefix goes before it (e.g. "Bearer ").
	Header, Prefix string
	// Extra are fixed headers the vendor requires on every request.
	Extra map[string]string
	// Doc describes the request for people.
	Doc string
}

// anthropicVersion is the API version header the Anthropic API requires.
const anthropicVersion = "2023-06-01"

// CredentialProbes are the vendor probes, per type. Every other type (vllm,
// ollama, voyageai, cohere, cartesia, elevenlabs, imagen, huggingface, mock)
// has none: its CredentialValid is Unknown with reason ValidationNotSupported.
var CredentialProbes = map[v1alpha1.ProviderType]CredentialProbe{
	v1alpha1.ProviderTypeClaude: {
		Versions: []string{"v1"}, Path: "models",
		Header: "x-api-key",
		Extra:  map[string]string{"anthropic-version": anthropicVersion},
		Doc:    "GET {base}/v1/models with headers x-api-key: <key> and anthropic-version: " + anthropicVersion,
	},
	v1alpha1.ProviderTypeOpenAI: {
		Versions: []string{"v1"}, Path: "models",
		Header: "Authorization", Prefix: "Bearer ",
		Doc: "GET {base}/v1/models (or {base}/models when the base already ends in /v1) with header Authorization: Bearer <key>",
	},
	v1alpha1.ProviderTypeGemini: {
		Versions: []string{"v1beta", "v1"}, Path: "models",
		Header: "x-goog-api-key",
		Doc:    "GET {base}/v1beta/models (or {base}/models when the base already ends in /v1beta or /v1) with header x-goog-api-key: <key> (the header, not ?key=, so the key never appears in a URL)",
	},
}

// platformHosted reports whether the provider is hosted by a hyperscaler.
func platformHosted(p *v1alpha1.Provider) bool {
	return p.Spec.Platform != nil || p.Spec.Auth != nil
}

// EndpointFor returns the endpoint the EndpointReachable health check probes:
// spec.baseURL, or the vendor's default endpoint. It returns false where the
// spec says the condition is not set: mock, platform-hosted providers, the
// tts, stt and image roles, and a type with no endpoint (no baseURL and no
// default).
func EndpointFor(p *v1alpha1.Provider, defaults map[v1alpha1.ProviderType]string) (string, bool) {
	if p.Spec.Type == v1alpha1.ProviderTypeMock || platformHosted(p) {
		return "", false
	}
	switch p.Spec.Role {
	case v1alpha1.ProviderRoleTTS, v1alpha1.ProviderRoleSTT, v1alpha1.ProviderRoleImage:
		return "", false
	}
	if p.Spec.BaseURL != "" {
		return p.Spec.BaseURL, true
	}
	ep, ok := defaults[p.Spec.Type]
	return ep, ok && ep != ""
}

// ProbeFor returns the vendor probe for the provider's credential and the base
// URL it is sent to (spec.baseURL or the vendor default), or false when the
// type has no probe or the provider is platform-hosted.
func ProbeFor(p *v1alpha1.Provider, defaults map[v1alpha1.ProviderType]string) (CredentialProbe, string, bool) {
	if platformHosted(p) {
		return CredentialProbe{}, "", false
	}
	probe, ok := CredentialProbes[p.Spec.Type]
	if !ok {
		return CredentialProbe{}, "", false
	}
	base := p.Spec.BaseURL
	if base == "" {
		base = defaults[p.Spec.Type]
	}
	if base == "" {
		return CredentialProbe{}, "", false
	}
	return probe, base, true
}

// ProbeOutcome is what one probe request observed: an HTTP status, or the
// kind of failure. Detail describes it for a condition message; it never
// holds the credential.
type ProbeOutcome struct {
	// StatusCode is the HTTP status of the response, 0 when there was none.
	StatusCode int
	// Failure is the EndpointReachable reason for a request with no response
	// (v1alpha1.ProviderReasonConnectionFailed, v1alpha1.ProviderReasonDNSLookupFailed, v1alpha1.ProviderReasonProbeTimeout,
	// v1alpha1.ProviderReasonAddressNotAllowed or v1alpha1.ProviderReasonInvalidEndpoint); empty when there was
	// a response.
	Failure string
	// Withheld is set, with a reason (v1alpha1.ProviderReasonCredentialProbeDisabled,
	// v1alpha1.ProviderReasonEndpointProbeDisabled, v1alpha1.ProviderReasonCredentialProbeInsecure or
	// v1alpha1.ProviderReasonCredentialProbeHostNotAllowed), when the egress policy did not
	// let the probe be sent: no request was made and Detail says why.
	Withheld string
	// Detail is e.g. `GET https://api.anthropic.com/v1/models answered HTTP 401`
	// or the transport error.
	Detail string
	// RetryAfter is the Retry-After header of a 429 response, which the
	// asynchronous prober honours before probing the target again.
	RetryAfter string
}

// Prober sends the probes.
type Prober struct {
	client  *http.Client
	timeout time.Duration
}

// NewProber returns a Prober sending through client, each request bounded by
// timeout. A nil client is one whose transport is netguard's: it dials no
// link-local or cloud-metadata address, whatever a host name resolves to, and
// uses no proxy. Redirects are never followed: a redirect is an HTTP response
// (the endpoint is reachable), and following one would carry the credential
// header to wherever it points.
func NewProber(client *http.Client, timeout time.Duration) *Prober {
	c := &http.Client{Transport: netguard.NewTransport(nil)}
	if client != nil {
		*c = *client
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &Prober{client: c, timeout: timeout}
}

// CheckEndpoint is the EndpointReachable health check: GET endpoint with the
// provider's custom headers and no credential. Any HTTP response counts as
// reachable; connection, DNS and timeout failures do not.
func (pr *Prober) CheckEndpoint(ctx context.Context, endpoint string, headers map[string]string) ProbeOutcome {
	u, err := parseEndpoint(endpoint)
	if err != nil {
		return ProbeOutcome{Failure: v1alpha1.ProviderReasonInvalidEndpoint, Detail: err.Error()}
	}
	return pr.do(ctx, u.String(), headers, nil, nil)
}

// CheckCredential sends the vendor probe for a credential value to base. The
// value is trimmed of surrounding whitespace (a trailing newline would make
// every request fail in a way that looks like a wrong key) and only ever
// placed in the probe's header.
func (pr *Prober) CheckCredential(ctx context.Context, probe CredentialProbe, base string, headers map[string]string, value []byte) ProbeOutcome {
	target, err := probeURL(base, probe)
	if err != nil {
		return ProbeOutcome{Failure: v1alpha1.ProviderReasonInvalidEndpoint, Detail: err.Error()}
	}
	key := strings.TrimSpace(string(value))
	auth := map[string]string{probe.Header: probe.Prefix + key}
	for k, v := range probe.Extra {
		auth[k] = v
	}
	out := pr.do(ctx, target, headers, auth, []byte(key))
	return out
}

func (pr *Prober) do(ctx context.Context, target string, headers, auth map[string]string, secret []byte) ProbeOutcome {
	ctx, cancel := context.WithTimeout(ctx, pr.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return ProbeOutcome{Failure: v1alpha1.ProviderReasonInvalidEndpoint, Detail: redact(err.Error(), secret)}
	}
	req.Header.Set("User-Agent", "omnia-operator/provider-probe")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	for k, v := range auth {
		req.Header.Set(k, v)
	}
	resp, err := pr.client.Do(req)
	if err != nil {
		// The class only: a transport error's text is the network's.
		return ProbeOutcome{Failure: classify(err), Detail: redact(fmt.Sprintf("GET %s failed: %s", target, netguard.Describe(err)), secret)}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	// The response body is never quoted: a vendor may echo part of the key.
	out := ProbeOutcome{StatusCode: resp.StatusCode, Detail: fmt.Sprintf("GET %s answered HTTP %d", target, resp.StatusCode)}
	if resp.StatusCode == http.StatusTooManyRequests {
		out.RetryAfter = resp.Header.Get("Retry-After")
	}
	return out
}

// classify names the EndpointReachable reason of a failed request.
func classify(err error) string {
	var blocked *netguard.BlockedError
	if errors.As(err, &blocked) {
		return v1alpha1.ProviderReasonAddressNotAllowed
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		if dnsErr.IsTimeout {
			return v1alpha1.ProviderReasonProbeTimeout
		}
		return v1alpha1.ProviderReasonDNSLookupFailed
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return v1alpha1.ProviderReasonProbeTimeout
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return v1alpha1.ProviderReasonProbeTimeout
	}
	return v1alpha1.ProviderReasonConnectionFailed
}

// redact removes the credential from a message, should a transport error
// ever quote it. Messages are built not to contain it; this is the backstop.
func redact(msg string, secret []byte) string {
	if len(secret) == 0 {
		return msg
	}
	return strings.ReplaceAll(msg, string(secret), "[redacted]")
}

func parseEndpoint(endpoint string) (*url.URL, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("endpoint %q is not an absolute http or https URL", endpoint)
	}
	return u, nil
}

// probeURL joins base with the probe's version segment (unless base already
// ends in one) and path.
func probeURL(base string, probe CredentialProbe) (string, error) {
	u, err := parseEndpoint(base)
	if err != nil {
		return "", err
	}
	p := strings.TrimRight(u.Path, "/")
	hasVersion := false
	for _, v := range probe.Versions {
		if strings.HasSuffix(p, "/"+v) {
			hasVersion = true
			break
		}
	}
	if !hasVersion && len(probe.Versions) > 0 {
		p += "/" + probe.Versions[0]
	}
	u.Path = p + "/" + probe.Path
	u.RawPath = ""
	return u.String(), nil
}
