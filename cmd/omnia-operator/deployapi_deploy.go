package main

import (
	"context"
	"net/http"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/deploy/apply"
	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/deploy/server"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
	"github.com/altairalabs/omnia/rules"
)

// What the deployments route writes, as the operator, in the caller's
// namespace (deploy-intent.md § What one intent materializes). The
// finalizers subresources let it set blockOwnerDeletion on the owner
// references to the PromptPack and the ToolRegistry.
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;create;update;patch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;create;update;patch
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=promptpacks;toolregistries,verbs=get;create
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=promptpacks/finalizers;toolregistries/finalizers,verbs=update
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=toolpolicies;agentruntimes,verbs=get;create;update;patch

// The deployments route (POST .../deployments): deploy/intent decodes and
// validates the intent with the catalog, deploy/apply materializes it.
func init() {
	deployAPIBackends = append(deployAPIBackends, func(mgr ctrl.Manager, o *server.Options) error {
		schema, err := rules.DefaultSchema()
		if err != nil {
			return err
		}
		o.Deployer = intentDeployer{client: mgr.GetClient(), reader: mgr.GetAPIReader(), cache: mgr.GetCache(), mgr: mgr, schema: schema}
		return nil
	})
}

// intentDeployer answers deploy intents.
type intentDeployer struct {
	client client.Client
	// reader reads live objects fresh (the 409 check, the merges).
	reader client.Reader
	// cache answers the catalog's facts, as for the webhook.
	cache  client.Reader
	mgr    ctrl.Manager
	schema *rules.SchemaValidator
}

// Deploy is 400 for an intent that does not decode or breaks a
// deployintent/* rule (the body names the key or each rule ID and field),
// 501 for a project intent (not served yet), else deploy/apply's answer:
// 200, 207, 409 or 503. The namespace is the token's, never the body's.
func (d intentDeployer) Deploy(ctx context.Context, caller auth.Caller, body []byte) server.Response {
	in, err := intent.Decode(body)
	if err != nil {
		return server.Response{Status: http.StatusBadRequest, Body: intent.BadRequest(err)}
	}
	if in.Pack.Project != nil {
		return server.Response{Status: http.StatusNotImplemented,
			Body: intent.ErrorResponse{Error: "pack.project (a dev project intent) is not served by this operator yet; deploy published content with pack.content"}}
	}
	facts := clusterfacts.New(ctx, d.cache, d.reader, d.mgr.GetRESTMapper(), licenseStore)
	if denied := denies(intent.Validate(in, facts, "")); len(denied) > 0 {
		return server.Response{Status: http.StatusBadRequest, Body: intent.Invalid(denied)}
	}
	status, res := apply.Apply(ctx, d.client, caller.Namespace, in, apply.Options{
		Reader: d.reader,
		Check:  apply.Check{Schema: d.schema, Facts: facts},
	})
	return server.Response{Status: status, Body: res}
}

// denies keeps the findings that refuse.
func denies(fs []rules.Finding) []rules.Finding {
	var out []rules.Finding
	for _, f := range fs {
		if f.Severity == rules.SeverityDeny {
			out = append(out, f)
		}
	}
	return out
}
