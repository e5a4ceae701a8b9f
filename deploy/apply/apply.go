// Package apply materializes a published-pack deploy intent against the API
// server (deploy-intent.md § What one intent materializes), in the spec's
// order and each object as the spec says:
//
//	ConfigMap     create-only, then owned by the PromptPack (an owner
//	              reference that cannot be established is an error on an
//	              otherwise successful result; an existing ConfigMap is
//	              adopted only when it carries this pack's label)
//	PromptPack    create-only; an existing one is unchanged
//	ToolRegistry  create-only; an existing one is unchanged, with the
//	              migration caveat as its error, and the deploy succeeds
//	Secret        upsert, owned by the ToolRegistry; not written when equal
//	ToolPolicy    upsert; not written when equal (defaults allowed for)
//	AgentRuntime  upsert, field-merged with deploy/merge over the live agent
//	              read fresh from the API server; not written when Merge
//	              says unchanged
//
// agents[].create with an existing agent answers 409 before anything is
// written. Otherwise the apply is best-effort per object: a failure is a
// failed result with the API error, the rest still apply, and the status is
// 207 when any result failed, else 200. url is never set. No credential
// value appears in any result.
//
// A pack.project intent (a dev agent) is not handled here.
package apply

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/deploy/translate"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
)

// DefaultFieldOwner is the field manager of the deploy's writes.
const DefaultFieldOwner = "omnia-deploy"

// MigrationCaveat is the error an existing ToolRegistry is reported
// unchanged with (deploy-intent.md § The migration caveat).
const MigrationCaveat = "the ToolRegistry already exists and a published deploy never updates it: " +
	"its handlers keep the Secret references (and settings) they were created with, not this intent's; " +
	"to re-materialize it with operator-owned credentials, delete it and redeploy"

// conflictRetries bounds the re-reads of an agent whose update lost a race.
const conflictRetries = 3

// Options configures one apply.
type Options struct {
	// Reader reads live objects fresh from the API server (the manager's
	// APIReader), never from a cache: the 409 check, the owner references,
	// the upserts' comparisons and the agent merge read through it. Nil
	// reads through the client given to Apply, which must then be uncached.
	Reader client.Reader
	// FieldOwner is the field manager of every write; empty is
	// DefaultFieldOwner.
	FieldOwner string
	// Check, when its Schema is set, evaluates every object of a kind the
	// schema knows with rules.Full (rules.FullUpdate over the live object on
	// an update) before it is written: a deny finding fails that object's
	// result with the rule ID, and the rest still apply.
	Check Check
}

// Check is the catalog evaluation before writes.
type Check struct {
	Schema *schema.Validator
	// Catalog defaults to rules.Default.
	Catalog *rules.Catalog
	// Facts default to rules.NoFacts (the open-core licence).
	Facts rules.Facts
	// Options default to the admission stage, as the webhook runs.
	Options *rules.Options
}

// Apply materializes in (decoded and validated, a published pack) in
// namespace and answers the status and body of deploy-intent.md § Reading
// the response: 200, 207, or 409 (agents[].create on an existing agent,
// nothing written). A read that cannot tell whether a create: true agent
// exists answers 503, nothing written.
func Apply(ctx context.Context, c client.Client, namespace string, in *intent.DeployIntent, opts Options) (int, intent.DeployResult) {
	a := &applier{c: c, r: opts.Reader, owner: opts.FieldOwner, check: opts.Check, ns: namespace}
	if a.r == nil {
		a.r = c
	}
	if a.owner == "" {
		a.owner = DefaultFieldOwner
	}
	if in.Credentials != nil {
		for _, v := range in.Credentials.Data {
			if v != "" {
				a.secrets = append(a.secrets, v)
			}
		}
	}
	if in.Pack.Project != nil {
		return a.finish(http.StatusBadRequest, []intent.ResourceResult{{
			Kind: translate.KindPromptPack, Name: in.Pack.Name, Action: intent.ActionFailed,
			Error: "pack.project intents deploy a dev agent, which this apply does not handle",
		}})
	}
	tr := translate.Translate(in, namespace)
	if status, results := a.createConflicts(ctx, tr); status != 0 {
		return a.finish(status, results)
	}
	var results []intent.ResourceResult
	results = append(results, a.pack(ctx, tr)...)
	registryUID := types.UID("")
	if tr.ToolRegistryName != "" {
		var res intent.ResourceResult
		res, registryUID = a.toolRegistry(ctx, tr)
		results = append(results, res)
	}
	if tr.Secret != nil {
		results = append(results, a.secret(ctx, tr, registryUID))
	}
	if tr.ToolPolicy != nil {
		results = append(results, a.toolPolicy(ctx, tr.ToolPolicy))
	}
	for _, ag := range tr.Agents {
		results = append(results, a.agent(ctx, ag))
	}
	status := http.StatusOK
	for _, r := range results {
		if r.Action == intent.ActionFailed {
			status = http.StatusMultiStatus
		}
	}
	return a.finish(status, results)
}

type applier struct {
	c       client.Client
	r       client.Reader
	owner   string
	check   Check
	ns      string
	secrets []string
}

// finish scrubs every credential value from the results' errors (an API
// error may quote what it refused) and sets succeeded.
func (a *applier) finish(status int, results []intent.ResourceResult) (int, intent.DeployResult) {
	out := intent.DeployResult{Succeeded: true, Results: results}
	if out.Results == nil {
		out.Results = []intent.ResourceResult{}
	}
	for i := range out.Results {
		out.Results[i].URL = ""
		out.Results[i].Error = a.redact(out.Results[i].Error)
		if out.Results[i].Action == intent.ActionFailed {
			out.Succeeded = false
		}
	}
	if status != http.StatusOK && status != http.StatusMultiStatus {
		out.Succeeded = false
	}
	return status, out
}

func (a *applier) redact(s string) string {
	for _, v := range a.secrets {
		s = strings.ReplaceAll(s, v, "[redacted]")
	}
	return s
}

// createConflicts reads every agents[].create agent before anything is
// written: any that exists answers 409, naming each.
func (a *applier) createConflicts(ctx context.Context, tr *translate.Objects) (int, []intent.ResourceResult) {
	var conflicts, unknown []intent.ResourceResult
	for _, ag := range tr.Agents {
		if !ag.Create {
			continue
		}
		err := a.r.Get(ctx, client.ObjectKey{Namespace: a.ns, Name: ag.Name}, &v1alpha1.AgentRuntime{})
		switch {
		case err == nil:
			conflicts = append(conflicts, failed(translate.KindAgentRuntime, ag.Name,
				"AgentRuntime "+ag.Name+" already exists and agents[].create is true: the deploy makes a new agent and never "+
					"updates an existing one; nothing was written (drop create to update it, or choose another name)"))
		case !apierrors.IsNotFound(err):
			unknown = append(unknown, failed(translate.KindAgentRuntime, ag.Name,
				"could not check whether AgentRuntime "+ag.Name+" exists (agents[].create is true); nothing was written: "+err.Error()))
		}
	}
	switch {
	case len(conflicts) > 0:
		return http.StatusConflict, conflicts
	case len(unknown) > 0:
		return http.StatusServiceUnavailable, unknown
	}
	return 0, nil
}

func failed(kind, name, msg string) intent.ResourceResult {
	return intent.ResourceResult{Kind: kind, Name: name, Action: intent.ActionFailed, Error: msg}
}

func result(kind, name string, action intent.Action) intent.ResourceResult {
	return intent.ResourceResult{Kind: kind, Name: name, Action: action}
}

// denied evaluates obj (and old, on an update) with the catalog; it returns
// the deny findings as one message, or "" when the object may be written.
func (a *applier) denied(ctx context.Context, kind string, obj, old runtime.Object) string {
	sv := a.check.Schema
	if sv == nil || !sv.Knows(kind) {
		return ""
	}
	cat := a.check.Catalog
	if cat == nil {
		cat = rules.Default
	}
	facts := a.check.Facts
	if facts == nil {
		facts = rules.NoFacts{}
	}
	opts := rules.Options{Stages: []rules.Stage{rules.StageAdmission}}
	if a.check.Options != nil {
		opts = *a.check.Options
	}
	m, err := manifest(kind, obj)
	if err != nil {
		return "could not evaluate the " + kind + " with the rule catalog: " + err.Error()
	}
	var oldM map[string]any
	if old != nil {
		if oldM, err = manifest(kind, old); err != nil {
			return "could not evaluate the " + kind + " with the rule catalog: " + err.Error()
		}
	}
	findings, err := rules.FullUpdate(ctx, sv, cat, m, oldM, facts, opts)
	if err != nil {
		return "could not evaluate the " + kind + " with the rule catalog: " + err.Error()
	}
	var deny []string
	for _, f := range findings {
		if f.Severity == rules.SeverityDeny {
			deny = append(deny, f.String())
		}
	}
	return strings.Join(deny, "; ")
}

// manifest is obj as a request body of kind: apiVersion and kind set,
// status and server-managed metadata left out.
func manifest(kind string, obj runtime.Object) (map[string]any, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	m["apiVersion"] = v1alpha1.GroupVersion.String()
	m["kind"] = kind
	delete(m, "status")
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
	return m, nil
}

func (a *applier) create(ctx context.Context, obj client.Object) error {
	return a.c.Create(ctx, obj, client.FieldOwner(a.owner))
}

func (a *applier) update(ctx context.Context, obj client.Object) error {
	return a.c.Update(ctx, obj, client.FieldOwner(a.owner))
}

// apiError words an API error for a result.
func apiError(verb, kind, name string, err error) string {
	return fmt.Sprintf("%s %s %s: %v", verb, kind, name, err)
}
