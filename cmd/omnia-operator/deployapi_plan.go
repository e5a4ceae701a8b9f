package main

import (
	"context"
	"net/http"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/deploy/plan"
	"github.com/altairalabs/omnia/deploy/server"
)

// The plan route (POST .../deploy/plan): deploy/plan decodes the request
// and resolves its bindings against the caller's namespace, read from the
// manager's informer cache (deploy-intent.md: "Lookups read the operator's
// informer cache rather than the API server").
func setupPlanner(mgr ctrl.Manager, _ *operator, o *server.Options) error {
	o.Planner = cachedPlanner{reader: mgr.GetCache()}
	return nil
}

// cachedPlanner answers plans from a cache reader.
type cachedPlanner struct{ reader client.Reader }

// Plan is 400 for a request that does not decode (the message names the
// key, the expected shape and the decoder's error), else 200 with the plan,
// diagnostics and all. The namespace is the token's, never the body's.
func (p cachedPlanner) Plan(ctx context.Context, caller auth.Caller, body []byte) server.Response {
	req, err := plan.Decode(body)
	if err != nil {
		return server.Response{Status: http.StatusBadRequest, Body: intent.BadRequest(err)}
	}
	return server.Response{Status: http.StatusOK, Body: plan.Plan(ctx, p.reader, caller.Namespace, req)}
}
