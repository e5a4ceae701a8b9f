package audit

import (
	"context"
	"errors"
	"fmt"
	"time"

	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/policies/reports"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
)

// auditedKinds are the kinds the operator's webhooks validate (the kinds a
// ValidationPolicy may match), each with its list type.
var auditedKinds = []struct {
	kind string
	list func() client.ObjectList
}{
	{"AgentRuntime", func() client.ObjectList { return &v1alpha1.AgentRuntimeList{} }},
	{"ArenaJob", func() client.ObjectList { return &v1alpha1.ArenaJobList{} }},
	{"ArenaRun", func() client.ObjectList { return &v1alpha1.ArenaRunList{} }},
	{"PromptPack", func() client.ObjectList { return &v1alpha1.PromptPackList{} }},
	{"Provider", func() client.ObjectList { return &v1alpha1.ProviderList{} }},
	{"ToolRegistry", func() client.ObjectList { return &v1alpha1.ToolRegistryList{} }},
}

// ErrTooManyObjects stops an audit over Options.MaxObjects: it writes
// nothing rather than reports of part of the cluster (which would also
// delete the reports of the namespaces it did not reach).
var ErrTooManyObjects = errors.New("audit: more objects than --audit-max-objects")

// Result is what one audit found and did.
type Result struct {
	// Objects is how many objects it judged.
	Objects int
	// Summary counts every result of every report (before the caps).
	Summary openreportsv1alpha1.ReportSummary
	// ReportsServed: the OpenReports CRDs are installed, so it wrote.
	ReportsServed bool
	// Writes counts the reports created, updated and deleted.
	Writes int
	// built: the audit got as far as its reports (Objects and Summary
	// hold).
	built bool
}

// Run audits once: it judges every object, builds the reports and writes
// the ones that changed. Start calls it; tests may too.
func (a *Auditor) Run(ctx context.Context) (Result, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	start := time.Now()
	res, err := a.run(ctx)
	a.opts.Metrics.observe(res, err, time.Since(start))
	return res, err
}

func (a *Auditor) run(ctx context.Context) (Result, error) {
	var res Result
	sv, err := schema.Default()
	if err != nil {
		return res, fmt.Errorf("audit: compiling the CRD schemas: %w", err)
	}
	cat := a.opts.Catalog()
	in := reports.Input{Now: time.Now(), MaxResults: a.opts.MaxResults}
	policyRules := policyRulesByKind(cat)
	count := 0
	for _, k := range auditedKinds {
		list := k.list()
		if err := a.opts.Reader.List(ctx, list); err != nil {
			if meta.IsNoMatchError(err) {
				continue
			}
			return res, fmt.Errorf("audit: listing %s: %w", k.kind, err)
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return res, err
		}
		count += len(items)
		if count > a.opts.MaxObjects {
			a.opts.Log.Error(ErrTooManyObjects, "audit stopped: the cluster holds more Omnia objects than one audit judges; no report written",
				"max", a.opts.MaxObjects, "countedSoFar", count)
			return res, ErrTooManyObjects
		}
		for _, item := range items {
			obj, ok := item.(client.Object)
			if !ok {
				continue
			}
			in.Objects = append(in.Objects, a.evaluate(ctx, sv, cat, policyRules[k.kind], k.kind, obj))
		}
	}
	res.Objects = count
	in.Policies, err = a.policies(ctx, cat)
	if err != nil {
		return res, err
	}
	set := reports.Build(in)
	res.Summary = total(set)
	res.built = true

	served, err := a.reportsServed()
	if err != nil {
		return res, err
	}
	res.ReportsServed = served
	if !served {
		return res, nil
	}
	res.Writes, err = a.write(ctx, set)
	return res, err
}

// evaluate judges one object with the whole catalog, as FullStoredIn does
// for the reconcilers, and lists the policy rules that applied to it (a
// pass where they found nothing).
func (a *Auditor) evaluate(ctx context.Context, sv *schema.Validator, cat *rules.Catalog, policyRules []*rules.Rule, kind string, obj client.Object) reports.Object {
	o := reports.Object{APIVersion: v1alpha1.GroupVersion.String(), Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: obj.GetUID()}
	facts := clusterfacts.New(ctx, a.opts.Reader, a.opts.Secrets, a.opts.Mapper, a.opts.License)
	findings, err := rules.FullStoredIn(ctx, sv, cat, kind, obj, facts)
	if err != nil {
		o.Error = err.Error()
		return o
	}
	// A lookup that failed (not "not found") may have made a rule report
	// a missing object that exists: the object is reported as not
	// evaluated rather than with findings that may be false.
	if err := facts.Err(); err != nil {
		o.Error = "cluster facts could not be read: " + err.Error()
		return o
	}
	o.Findings = findings
	in := rules.Input{Object: obj, Facts: facts}
	for _, r := range policyRules {
		if r.Applies(kind, in) {
			o.Rules = append(o.Rules, r.ID)
		}
	}
	return o
}

// policyRulesByKind indexes the catalog's policy rules by kind.
func policyRulesByKind(cat *rules.Catalog) map[string][]*rules.Rule {
	out := map[string][]*rules.Rule{}
	for _, r := range cat.Rules() {
		if r.Source != rules.SourcePolicy {
			continue
		}
		for _, k := range r.Kinds {
			out[k] = append(out[k], r)
		}
	}
	return out
}

// policies reads the ValidationPolicies' compile state from their status
// (the policy controller writes it): pending until it has observed the
// current generation, its compile errors, or the rules of it that are in
// this catalog.
func (a *Auditor) policies(ctx context.Context, cat *rules.Catalog) ([]reports.Policy, error) {
	list := &v1alpha1.ValidationPolicyList{}
	if err := a.opts.Reader.List(ctx, list); err != nil {
		if meta.IsNoMatchError(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("audit: listing ValidationPolicies: %w", err)
	}
	if len(list.Items) > a.opts.MaxObjects {
		return nil, ErrTooManyObjects
	}
	out := make([]reports.Policy, 0, len(list.Items))
	for i := range list.Items {
		vp := &list.Items[i]
		p := reports.Policy{Name: vp.Name, UID: vp.UID}
		switch {
		case vp.Status.ObservedGeneration != vp.Generation:
			p.Pending = true
		case len(vp.Status.RuleErrors) > 0:
			p.Errors = vp.Status.RuleErrors
		default:
			for _, r := range vp.Spec.Rules {
				id := rules.PolicyRuleID(vp.Name, r.ID)
				if _, ok := cat.Lookup(id); ok {
					p.Rules = append(p.Rules, id)
				}
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// total sums the summaries of every report of set.
func total(set reports.Set) openreportsv1alpha1.ReportSummary {
	var t openreportsv1alpha1.ReportSummary
	add := func(s openreportsv1alpha1.ReportSummary) {
		t.Pass += s.Pass
		t.Fail += s.Fail
		t.Warn += s.Warn
		t.Error += s.Error
		t.Skip += s.Skip
	}
	for _, r := range set.Namespaced {
		add(r.Summary)
	}
	if set.Cluster != nil {
		add(set.Cluster.Summary)
	}
	return t
}
