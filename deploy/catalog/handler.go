package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/deploy/auth"
)

// The routes, on the deploy API's listener (deploy/server Options.Catalog, mounted at its CatalogPrefix).
const (
	RoutePrefix   = "/api/v1/workspaces/{workspace}/catalog/"
	RouteOverview = "GET /api/v1/workspaces/{workspace}/catalog/overview"
	RouteSearch   = "GET /api/v1/workspaces/{workspace}/catalog/search"
	RouteGet      = "GET /api/v1/workspaces/{workspace}/catalog/get"
)

// Defaults of Options: the deploy API's (deploy/server), which the
// operator passes on (deployapi_catalog.go).
const (
	DefaultMaxInFlightPerCaller = 4
	DefaultRetryAfter           = time.Second
)

// ErrorBody is every error answer's body: the deploy API's shape
// (server.ErrorBody), declared here so the catalog does not depend on the
// deploy API's packages; handler_test.go pins the two together.
type ErrorBody struct {
	Error string `json:"error"`
}

// Options configure the handler.
type Options struct {
	// Verifier checks every request's delegation token against the
	// delegation tokens' own keys (never the deploy API's). Required.
	Verifier *auth.DelegationVerifier
	// Reader is the manager's cache. Required.
	Reader client.Reader
	// MaxInFlightPerCaller bounds the requests one caller (token subject;
	// every subject-less token of a workspace shares one budget) has in
	// progress; one more answers 429 with Retry-After.
	MaxInFlightPerCaller int
	RetryAfter           time.Duration
	// Log receives why a request was refused (never the token).
	Log logr.Logger
}

// Handler serves the catalog's three routes.
type Handler struct {
	opts   Options
	mux    *http.ServeMux
	loader *Loader

	inFlight *auth.InFlight
}

// NewHandler builds the handler.
func NewHandler(opts Options) (*Handler, error) {
	if opts.Verifier == nil || opts.Verifier.Keys == nil {
		return nil, errors.New("catalog API: a token verifier with keys is required")
	}
	if opts.Reader == nil {
		return nil, errors.New("catalog API: a reader (the manager's cache) is required")
	}
	if opts.MaxInFlightPerCaller <= 0 {
		opts.MaxInFlightPerCaller = DefaultMaxInFlightPerCaller
	}
	if opts.RetryAfter <= 0 {
		opts.RetryAfter = DefaultRetryAfter
	}
	h := &Handler{opts: opts, mux: http.NewServeMux(), loader: &Loader{Reader: opts.Reader}, inFlight: auth.NewInFlight(opts.MaxInFlightPerCaller)}
	h.mux.Handle(RouteOverview, h.guard(h.overview))
	h.mux.Handle(RouteSearch, h.guard(h.search))
	h.mux.Handle(RouteGet, h.guard(h.get))
	h.mux.HandleFunc(RoutePrefix, unknownRoute)
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// response is a status and a JSON body.
type response struct {
	status int
	body   any
	header http.Header
}

func fail(status int, msg string) response {
	return response{status: status, body: ErrorBody{Error: msg}}
}

// routeFunc answers a route from the workspace's index.
type routeFunc func(r *http.Request, load func() (*Index, error)) response

// guard runs, in order: authentication — a delegation token whose audience
// is the URL's workspace (401 otherwise, including a token for another
// workspace, as the deploy API answers a token for another audience) —,
// the caller's concurrency limit (429), then the route, which loads the
// workspace's index from the cache only once its parameters are valid.
func (h *Handler) guard(route routeFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log := h.opts.Log.WithValues("method", r.Method, "path", r.URL.Path)
		workspace := r.PathValue("workspace")
		token, ok := bearerToken(r)
		if !ok {
			log.V(1).Info("refused: no bearer token")
			writeJSON(w, unauthorized(workspace))
			return
		}
		d, err := h.opts.Verifier.VerifyDelegation(token, workspace)
		if err != nil {
			log.V(1).Info("refused", "reason", err.Error())
			writeJSON(w, unauthorized(workspace))
			return
		}
		release, ok := h.acquire(workspace + "/" + d.Subject)
		if !ok {
			secs := int((h.opts.RetryAfter + time.Second - 1) / time.Second)
			resp := fail(http.StatusTooManyRequests, fmt.Sprintf("too many requests in progress for this caller (at most %d at once); retry later", h.opts.MaxInFlightPerCaller))
			resp.header = http.Header{"Retry-After": {strconv.Itoa(secs)}}
			writeJSON(w, resp)
			return
		}
		defer release()
		load := func() (*Index, error) { return h.loader.Load(r.Context(), workspace) }
		writeJSON(w, route(r, load))
	})
}

// loadError maps Load's error: 404 for an unknown workspace, else 500
// (the detail goes to the log, not the caller).
func (h *Handler) loadError(r *http.Request, err error) response {
	if errors.Is(err, ErrWorkspaceNotFound) {
		return fail(http.StatusNotFound, fmt.Sprintf("workspace %q not found", r.PathValue("workspace")))
	}
	h.opts.Log.Error(err, "reading the catalog from the cache", "workspace", r.PathValue("workspace"))
	return fail(http.StatusInternalServerError, "reading the workspace's catalog failed")
}

func (h *Handler) overview(r *http.Request, load func() (*Index, error)) response {
	if err := ParseOverview(r.URL.Query()); err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	ix, err := load()
	if err != nil {
		return h.loadError(r, err)
	}
	return response{status: http.StatusOK, body: ix.Overview()}
}

func (h *Handler) search(r *http.Request, load func() (*Index, error)) response {
	p, err := ParseSearch(r.URL.Query())
	if err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	ix, err := load()
	if err != nil {
		return h.loadError(r, err)
	}
	res, err := ix.Search(p)
	if err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	return response{status: http.StatusOK, body: res}
}

func (h *Handler) get(r *http.Request, load func() (*Index, error)) response {
	ids, err := ParseGet(r.URL.Query())
	if err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	ix, err := load()
	if err != nil {
		return h.loadError(r, err)
	}
	return response{status: http.StatusOK, body: ix.Get(ids)}
}

// unknownRoute answers a path under .../catalog/ that is not a route (404),
// or a route with a method other than GET (405), in the error body shape.
func unknownRoute(w http.ResponseWriter, r *http.Request) {
	switch path.Base(r.URL.Path) {
	case "overview", "search", "get":
		resp := fail(http.StatusMethodNotAllowed, "the catalog's routes take GET only")
		resp.header = http.Header{"Allow": {http.MethodGet}}
		writeJSON(w, resp)
	default:
		writeJSON(w, fail(http.StatusNotFound, "no such catalog route; the routes are .../catalog/overview, .../catalog/search and .../catalog/get"))
	}
}

// acquire takes one of the caller's in-flight slots.
func (h *Handler) acquire(k string) (release func(), ok bool) {
	return h.inFlight.Acquire(k)
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

// unauthorized answers 401 without saying which check failed.
func unauthorized(workspace string) response {
	resp := fail(http.StatusUnauthorized, "a valid delegation token with audience "+auth.WorkspaceAudience(workspace)+" is required")
	resp.header = http.Header{"WWW-Authenticate": {`Bearer realm="omnia-operator"`}}
	return resp
}

// writeJSON writes resp with the deploy API's headers.
func writeJSON(w http.ResponseWriter, resp response) {
	data, err := json.Marshal(resp.body)
	if err != nil {
		resp.status, resp.header = http.StatusInternalServerError, nil
		data, _ = json.Marshal(ErrorBody{Error: "encoding the response failed"})
	}
	for k, vs := range resp.header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(resp.status)
	_, _ = w.Write(append(data, '\n'))
}
