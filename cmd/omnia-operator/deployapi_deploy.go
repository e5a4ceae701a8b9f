package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strconv"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/deploy/apply"
	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/deploy/server"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
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
// A dev project intent also writes its PromptPackSource and updates its
// ToolRegistry, both owned by the dev AgentRuntime.
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=promptpacksources,verbs=get;create;update;patch
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=toolregistries,verbs=update;patch
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=agentruntimes/finalizers,verbs=update

// deploymentsFlags are the deployments route's flags. pseudonymKeyFile is
// the file holding the key of the dev users' pseudonyms (intent.Pseudonym);
// mounted from a Secret so it is the same across restarts and replicas.
// Empty: unkeyed pseudonyms.
type deploymentsFlags struct {
	pseudonymKeyFile string
}

func (f *deploymentsFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&f.pseudonymKeyFile, "deploy-api-pseudonym-key-file", "",
		"File holding the key of the user pseudonyms of dev project intents (HMAC-SHA256 of the token subject). "+
			"Keep it stable: a changed key gives every user a new pseudonym and new dev agents. Empty: unkeyed SHA-256.")
}

// setupDeployer sets the deployments route (POST .../deployments):
// deploy/intent decodes and validates the intent with the catalog,
// deploy/apply materializes it.
func setupDeployer(mgr ctrl.Manager, op *operator, o *server.Options) error {
	sv, err := schema.Default()
	if err != nil {
		return err
	}
	var key []byte
	if keyFile := op.flags.deployAPI.deployments.pseudonymKeyFile; keyFile != "" {
		if key, err = os.ReadFile(keyFile); err != nil {
			return fmt.Errorf("reading --deploy-api-pseudonym-key-file: %w", err)
		}
		if len(key) == 0 {
			return fmt.Errorf("--deploy-api-pseudonym-key-file %s is empty", keyFile)
		}
	}
	podSecurity, err := op.flags.podSecurity.settings()
	if err != nil {
		return err
	}
	o.Deployer = intentDeployer{client: mgr.GetClient(), reader: mgr.GetAPIReader(), cache: mgr.GetCache(), mgr: mgr,
		schema: sv, pseudonymKey: key, podSecurity: podSecurity,
		license: op.license, exposureBaseDomain: op.flags.agentRuntime.exposure.baseDomainFact()}
	return nil
}

// intentDeployer answers deploy intents.
type intentDeployer struct {
	client client.Client
	// reader reads live objects fresh (the 409 check, the merges).
	reader client.Reader
	// cache answers the catalog's facts, as for the webhook.
	cache  client.Reader
	mgr    ctrl.Manager
	schema *schema.Validator
	// pseudonymKey keys the dev users' pseudonyms (nil: unkeyed).
	pseudonymKey []byte
	// podSecurity are the operator's pod limits (podsecurity_flags.go).
	podSecurity rules.PodSecuritySettings
	// license is the licence in force, for the facts.
	license rules.LicenseSource
	// exposureBaseDomain is the host rules' base domain
	// (exposureFlags.baseDomainFact).
	exposureBaseDomain string
}

// Deploy is 400 for an intent that does not decode or breaks a
// deployintent/* rule (the body names the key or each rule ID and field),
// else deploy/apply's answer: 200, 207, 409 or 503. A project intent is
// 403 for an identity with no user (token sub); its names are derived from
// the project id and the user's pseudonym, and it is validated and applied
// as a dev deploy (503 with Retry-After while the dev agent is being
// deleted). The namespace is the token's, never the body's.
func (d intentDeployer) Deploy(ctx context.Context, caller auth.Caller, body []byte) server.Response {
	in, err := intent.Decode(body)
	if err != nil {
		return server.Response{Status: http.StatusBadRequest, Body: intent.BadRequest(err)}
	}
	facts := d.facts(ctx)
	if in.Pack.Project != nil {
		return d.deployProject(ctx, caller, in, facts)
	}
	if denied := denies(intent.Validate(in, facts, "")); len(denied) > 0 {
		return server.Response{Status: http.StatusBadRequest, Body: intent.Invalid(denied)}
	}
	status, res := apply.Apply(ctx, d.client, caller.Namespace, in, apply.Options{
		Reader: d.reader,
		Check:  d.check(facts),
	})
	return server.Response{Status: status, Body: res}
}

// facts are the catalog's facts from the cache, with the operator's pod
// limits (the pod rules judge a deployed agent as the webhook does).
func (d intentDeployer) facts(ctx context.Context) rules.Facts {
	return rules.WithPodSecuritySettings(clusterfacts.New(ctx, d.cache, d.reader, d.mgr.GetRESTMapper(), d.license).WithExposureBaseDomain(d.exposureBaseDomain), d.podSecurity)
}

// deployProject answers a pack.project intent: the dev agent of the
// caller's user.
func (d intentDeployer) deployProject(ctx context.Context, caller auth.Caller, in *intent.DeployIntent, facts rules.Facts) server.Response {
	user := intent.Pseudonym(caller.Subject, d.pseudonymKey)
	if user == "" {
		return server.Response{Status: http.StatusForbidden,
			Body: intent.ErrorResponse{Error: "a dev project intent deploys the signed-in user's own dev agent, and this identity has no user (no token subject)"}}
	}
	if denied := denies(intent.Validate(in, facts, intent.DevName(in.Pack.Project.ID, user))); len(denied) > 0 {
		return server.Response{Status: http.StatusBadRequest, Body: intent.Invalid(denied)}
	}
	res := apply.ApplyProject(ctx, d.client, caller.Namespace, in, user, apply.Options{
		Reader: d.reader,
		Check:  d.check(facts),
	})
	out := server.Response{Status: res.Status, Body: res.Body}
	if res.RetryAfter > 0 {
		out.Header = http.Header{"Retry-After": []string{strconv.Itoa(res.RetryAfter)}}
	}
	return out
}

// webhookStages are the rules the webhook runs: the admission stage, and
// the reconcile-stage rules it runs with cluster facts (Rule.AdmissionFacts,
// e.g. agentruntime/expose-host-outside-namespace-domain), so a write the
// webhook would refuse fails here with the same rule IDs.
var webhookStages = rules.Options{Stages: []rules.Stage{rules.StageAdmission}, AdmissionFacts: true}

// check is the catalog evaluation of every object before it is written:
// the webhook's rules, with the deploy's facts.
func (d intentDeployer) check(facts rules.Facts) apply.Check {
	opts := webhookStages
	return apply.Check{Schema: d.schema, Facts: facts, Options: &opts}
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
