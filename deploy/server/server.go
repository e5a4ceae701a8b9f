// Package server is the deploy API's HTTP handler: the three routes of
// deploy-intent.md, each behind the token guard (deploy/auth), the
// Workspace's namespace (deploy/workspace), a body limit and a per-caller
// concurrency limit. Deployments and plan are answered by a
// Deployer and a Planner (their own packages); the deploy profile is read
// here from the manager's cache. docs/deploy-api.md describes the API.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/deploy/auth"
	ws "github.com/altairalabs/omnia/deploy/workspace"
)

// The routes (Go 1.22 ServeMux patterns).
const (
	RouteDeployments = "POST /api/v1/workspaces/{workspace}/deployments"
	RoutePlan        = "POST /api/v1/workspaces/{workspace}/deploy/plan"
	RouteProfile     = "GET /api/v1/workspaces/{workspace}/deploy-profile"
	// CatalogPrefix is where Options.Catalog is mounted.
	CatalogPrefix = "/api/v1/workspaces/{workspace}/catalog/"
)

// Defaults of Options.
const (
	DefaultMaxBodyBytes         = 1 << 20
	DefaultMaxInFlightPerCaller = 4
	DefaultRetryAfter           = time.Second
)

// Response is what a Deployer or Planner answers: a status, a body encoded
// as JSON, and extra headers (e.g. Retry-After on a 503).
type Response struct {
	Status int
	Body   any
	Header http.Header
}

// Deployer applies a deploy intent (POST .../deployments). body is the raw
// request body, at most MaxBodyBytes; the caller — its workspace, user and
// role — comes from the verified token, never from the body, and its
// namespace is the Workspace's (which the token's claim equals).
type Deployer interface {
	Deploy(ctx context.Context, caller auth.Caller, body []byte) Response
}

// Planner answers a plan (POST .../deploy/plan), as Deployer.
type Planner interface {
	Plan(ctx context.Context, caller auth.Caller, body []byte) Response
}

// Options configure the handler.
type Options struct {
	// Verifier checks every request's bearer token. Required.
	Verifier *auth.Verifier
	// Reader reads the Workspace (its namespace) for every route, and the
	// workspace's Providers and SkillSources for the deploy profile: the
	// manager's cache. Required.
	Reader client.Reader
	// Deployer and Planner answer their routes; nil answers 501.
	Deployer Deployer
	Planner  Planner
	// Catalog, when set, serves the workspace catalog's routes
	// (GET .../workspaces/{workspace}/catalog/...; deploy/catalog) on this
	// listener. It does its own token check: a delegation token for the
	// workspace, not a deploy API token.
	Catalog http.Handler
	// APIEndpoint is the deploy profile's api_endpoint: the URL clients
	// reach this API at. Empty when not configured.
	APIEndpoint string
	// MaxBodyBytes bounds a request body (DefaultMaxBodyBytes when 0);
	// a larger one answers 413.
	MaxBodyBytes int64
	// MaxInFlightPerCaller bounds the requests one caller (token subject;
	// every subject-less token shares one budget) has in progress (DefaultMaxInFlightPerCaller when
	// 0); one more answers 429 with Retry-After.
	MaxInFlightPerCaller int
	// RetryAfter is the 429's Retry-After (DefaultRetryAfter when 0;
	// rounded up to whole seconds).
	RetryAfter time.Duration
	// WatchedNamespaces (--watch-namespaces), when set, are the only
	// namespaces this installation serves: a workspace whose namespace is
	// not among them answers 404, as one with no Workspace does (another
	// installation owns it, and this one caches nothing there). Empty:
	// every namespace.
	WatchedNamespaces []string
	// Log receives why a request was refused (never the token).
	Log logr.Logger
}

// Handler is the deploy API.
type Handler struct {
	opts Options
	mux  *http.ServeMux

	inFlight *auth.InFlight
}

// New builds the handler.
func New(opts Options) (*Handler, error) {
	if opts.Verifier == nil || opts.Verifier.Keys == nil {
		return nil, errors.New("deploy API: a token verifier with keys is required")
	}
	if opts.Reader == nil {
		return nil, errors.New("deploy API: a reader (the manager's cache) is required")
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.MaxInFlightPerCaller <= 0 {
		opts.MaxInFlightPerCaller = DefaultMaxInFlightPerCaller
	}
	if opts.RetryAfter <= 0 {
		opts.RetryAfter = DefaultRetryAfter
	}
	h := &Handler{opts: opts, mux: http.NewServeMux(), inFlight: auth.NewInFlight(opts.MaxInFlightPerCaller)}
	h.mux.Handle(RouteDeployments, h.guard(auth.RoleEditor, true, h.deployments))
	h.mux.Handle(RoutePlan, h.guard(auth.RoleEditor, true, h.plan))
	h.mux.Handle(RouteProfile, h.guard(auth.RoleViewer, false, h.profile))
	if opts.Catalog != nil {
		h.mux.Handle(CatalogPrefix, opts.Catalog)
	}
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// routeFunc answers one route for a verified, authorized caller; body is
// the read request body (nil for a route without one).
type routeFunc func(ctx context.Context, caller auth.Caller, workspace string, body []byte) Response

// guard runs, in order: authentication (401), authorization for the URL's
// workspace with at least min (403), the Workspace's namespace — 404 when
// there is no such Workspace, 403 when the token claims another namespace —,
// the caller's concurrency limit (429), then the body limit (413), and only
// then the route, whose caller's Namespace is the Workspace's.
func (h *Handler) guard(min auth.Role, readBody bool, route routeFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log := h.opts.Log.WithValues("method", r.Method, "path", r.URL.Path)
		workspace := r.PathValue("workspace")
		token, ok := bearerToken(r)
		if !ok {
			log.V(1).Info("refused: no bearer token")
			unauthorized(w)
			return
		}
		caller, err := h.opts.Verifier.Verify(token)
		if err == nil {
			err = caller.Authorize(workspace, min)
		}
		switch {
		case errors.Is(err, auth.ErrUnauthenticated):
			log.V(1).Info("refused", "reason", err.Error())
			unauthorized(w)
			return
		case err != nil:
			log.V(1).Info("refused", "reason", err.Error(), "subject", caller.Subject)
			writeJSON(w, forbidden())
			return
		}
		if resp, ok := h.resolveNamespace(r.Context(), &caller, workspace, log); !ok {
			writeJSON(w, resp)
			return
		}
		release, ok := h.acquire(caller)
		if !ok {
			secs := int((h.opts.RetryAfter + time.Second - 1) / time.Second)
			writeJSON(w, Response{
				Status: http.StatusTooManyRequests,
				Header: http.Header{"Retry-After": {strconv.Itoa(secs)}},
				Body:   errorBody(fmt.Sprintf("too many requests in progress for this caller (at most %d at once); retry later", h.opts.MaxInFlightPerCaller)),
			})
			return
		}
		defer release()
		var body []byte
		if readBody {
			body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
			if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
				writeJSON(w, Response{Status: http.StatusRequestEntityTooLarge, Body: errorBody(fmt.Sprintf("request body exceeds %d bytes", mbe.Limit))})
				return
			}
			if err != nil {
				writeJSON(w, Response{Status: http.StatusBadRequest, Body: errorBody("reading the request body: " + err.Error())})
				return
			}
		}
		writeJSON(w, route(r.Context(), caller, workspace, body))
	})
}

// resolveNamespace sets caller.Namespace to the Workspace's
// spec.namespace.name, read from the cache: the namespace every route reads
// and writes is the Workspace's, never the token's on its word alone. The
// token's namespace claim must equal it (403 otherwise: whoever mints
// tokens does not pick the namespace); a workspace with no Workspace is
// 404. ok is false with the answer to send.
func (h *Handler) resolveNamespace(ctx context.Context, caller *auth.Caller, name string, log logr.Logger) (Response, bool) {
	ns, err := ws.Namespace(ctx, h.opts.Reader, name)
	switch {
	case errors.Is(err, ws.ErrNotFound):
		log.V(1).Info("refused", "reason", err.Error(), "subject", caller.Subject)
		return Response{Status: http.StatusNotFound, Body: errorBody(fmt.Sprintf("workspace %q not found", name))}, false
	case err != nil:
		log.Error(err, "reading the Workspace", "workspace", name)
		return Response{Status: http.StatusInternalServerError, Body: errorBody("reading the workspace failed")}, false
	case len(h.opts.WatchedNamespaces) > 0 && !slices.Contains(h.opts.WatchedNamespaces, ns):
		log.V(1).Info("refused", "reason", fmt.Sprintf("Workspace %q's namespace %q is not watched by this installation", name, ns), "subject", caller.Subject)
		return Response{Status: http.StatusNotFound, Body: errorBody(fmt.Sprintf("workspace %q not found", name))}, false
	case caller.Namespace != ns:
		log.V(1).Info("refused", "reason", fmt.Sprintf("the token claims namespace %q, Workspace %q's is %q", caller.Namespace, name, ns), "subject", caller.Subject)
		return forbidden(), false
	}
	caller.Namespace = ns
	return Response{}, true
}

// forbidden answers 403 without saying which check failed.
func forbidden() Response {
	return Response{Status: http.StatusForbidden, Body: errorBody("the token does not grant this request")}
}

// acquire takes one of the caller's in-flight slots.
func (h *Handler) acquire(c auth.Caller) (release func(), ok bool) {
	return h.inFlight.Acquire(c.Subject)
}

func (h *Handler) deployments(ctx context.Context, caller auth.Caller, _ string, body []byte) Response {
	if h.opts.Deployer == nil {
		return notImplemented("deployments")
	}
	return h.opts.Deployer.Deploy(ctx, caller, body)
}

func (h *Handler) plan(ctx context.Context, caller auth.Caller, _ string, body []byte) Response {
	if h.opts.Planner == nil {
		return notImplemented("plan")
	}
	return h.opts.Planner.Plan(ctx, caller, body)
}

func notImplemented(what string) Response {
	return Response{Status: http.StatusNotImplemented, Body: errorBody("the deploy API's " + what + " route is not implemented by this operator yet")}
}

// bearerToken reads "Authorization: Bearer <token>" (scheme case-insensitive).
func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return token, true
}

// ErrorBody is every error answer's body.
type ErrorBody struct {
	Error string `json:"error"`
}

func errorBody(msg string) ErrorBody { return ErrorBody{Error: msg} }

// unauthorized answers 401 without saying which check failed.
func unauthorized(w http.ResponseWriter) {
	writeJSON(w, Response{
		Status: http.StatusUnauthorized,
		Header: http.Header{"WWW-Authenticate": {`Bearer realm="omnia-operator"`}},
		Body:   errorBody("a valid bearer token with audience " + auth.Audience + " is required"),
	})
}

func writeJSON(w http.ResponseWriter, resp Response) {
	data, err := json.Marshal(resp.Body)
	if err != nil {
		resp.Status, resp.Header = http.StatusInternalServerError, nil
		data, _ = json.Marshal(errorBody("encoding the response failed"))
	}
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	status := resp.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}
