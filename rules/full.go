package rules

import (
	"context"
	"sort"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules/schema"
)

// Full evaluates one manifest as every path would: the schema rules exactly
// as the API server runs them under strict field validation (kubectl apply's
// default: every unknown field refused; object metadata; defaulting, OpenAPI,
// CEL), then the Go rules of the requested stages on the defaulted typed
// object. It is what omniactl check and the deploy API call. old is nil on
// create.
func Full(ctx context.Context, sv *schema.Validator, cat *Catalog, obj, old map[string]any, facts Facts, opts Options) ([]Finding, error) {
	res, err := ValidateSchema(ctx, sv, obj, old)
	if err != nil {
		return nil, err
	}
	kind, _ := obj["kind"].(string)
	findings := res.Findings
	for _, path := range res.Pruned {
		findings = append(findings, cat.UnknownField(kind, path, opts))
	}
	// Go rules read the typed object; one whose shape the schema refused
	// cannot be decoded, and the schema findings already say why.
	typed, err := Typed(res.Object)
	if err != nil {
		if len(res.Findings) > 0 {
			return findings, nil
		}
		return nil, err
	}
	in := Input{Object: typed, Facts: facts}
	if old != nil {
		// The stored object went through the same defaulting; an old object
		// that no longer decodes is treated as a create.
		if oldRes, err := ValidateSchema(ctx, sv, old, nil); err == nil {
			if typedOld, err := Typed(oldRes.Object); err == nil {
				in.Old = typedOld
			}
		}
	}
	findings = append(findings, cat.Evaluate(kind, in, opts)...)
	SortFindings(findings)
	return findings, nil
}

// SortFindings orders findings by field, then rule ID, so every surface
// prints them in the same order.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Field != fs[j].Field {
			return fs[i].Field < fs[j].Field
		}
		return fs[i].RuleID < fs[j].RuleID
	})
}

func (r *Rule) findingAt(path, msg string, opts Options) Finding {
	sev := r.Severity
	if s, ok := opts.Severity[r.ID]; ok {
		sev = s
	}
	return Finding{RuleID: r.ID, Field: path, Severity: sev, Stage: r.Stage, Source: r.Source, Reason: r.Reason, Condition: r.Condition, Message: msg}
}

// FullStored is Full on a typed object read from the cluster (a reconciler's
// view): converted to a manifest of the given kind in this API group, its
// status left out (no rule judges status through the schema), judged as a
// create with the default catalog. Every reconciler that reports schema
// findings in its conditions calls it, so they judge exactly as omniactl and
// the webhook do.
func FullStored(ctx context.Context, sv *schema.Validator, kind string, obj runtime.Object, facts Facts) ([]Finding, error) {
	return FullStoredIn(ctx, sv, Default, kind, obj, facts)
}

// FullStoredIn is FullStored with the given catalog: the built-in rules and
// the policy rules in force (policies.Store.Catalog), as the reconcilers and
// the background audit judge a stored object.
func FullStoredIn(ctx context.Context, sv *schema.Validator, cat *Catalog, kind string, obj runtime.Object, facts Facts) ([]Finding, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	m["apiVersion"] = v1alpha1.GroupVersion.String()
	m["kind"] = kind
	delete(m, "status")
	return Full(ctx, sv, cat, m, nil, facts, Options{})
}
