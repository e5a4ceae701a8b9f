// Package policycheck is how a reconciler answers a platform team's policy
// rules (the ValidationPolicy kind): it runs the policy rules of the catalog
// in force on the object and turns their verdict into conditions
// (conditions.SetPolicy): a rule naming a condition sets it, the others
// share PolicyCompliant.
//
// The policy rules run apart from the built-in ones. A reconciler keeps
// evaluating the built-in rules as before and reads phase, Ready and its
// children from them alone; the policy verdict only adds conditions, after
// the reconciler's own are computed. A policy finding never changes an
// object's phase, Ready or workload: it is the platform team's compliance
// signal, not the health of the spec.
package policycheck

import (
	"fmt"
	"slices"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/rules"
)

// Catalog returns the catalog in force: p's, or rules.Default — no policy
// rule — when p is nil or has none.
func Catalog(p Policies) *rules.Catalog {
	if p != nil {
		if c := p.Catalog(); c != nil {
			return c
		}
	}
	return rules.Default
}

// Verdict is the policy rules' answer on one object: the rules that apply
// to it, each with its findings. The zero Verdict has no rule applying.
type Verdict struct {
	applying []conditions.PolicyRule[rules.Finding]
}

// Rules returns the IDs of the applying rules, in catalog order.
func (v Verdict) Rules() []string {
	out := make([]string, 0, len(v.applying))
	for _, r := range v.applying {
		out = append(out, r.ID)
	}
	return out
}

// Findings returns every finding of the applying rules.
func (v Verdict) Findings() []rules.Finding {
	var out []rules.Finding
	for _, r := range v.applying {
		out = append(out, r.Findings...)
	}
	return out
}

// Set puts the verdict's conditions into conds and removes the policy
// conditions it no longer produces (conditions.SetPolicy). reserved are the
// condition types the reconciler sets itself: a policy rule naming one
// reports to PolicyCompliant instead. Call it after the reconciler's own
// conditions and phase are computed, on the status it is about to compare
// with the stored one: an unchanged verdict changes nothing, so it adds no
// write.
func (v Verdict) Set(conds *[]metav1.Condition, reserved []string, generation int64, now metav1.Time) bool {
	return conditions.SetPolicy(conds, v.applying, reserved, generation, now)
}

// Evaluate runs cat's policy rules for kind on obj, a stored object, with
// facts (they should answer rules.NamespaceFacts, for namespaceSelector and
// namespaceObject). The rules see the object as rules.FullStoredIn shows it
// to them — apiVersion and kind set, status left out, judged as a create —
// so a reconciler reports the same findings as the background audit and
// omniactl. A catalog without policy rules for kind costs nothing.
//
// The caller checks facts.Err() afterwards, as for the built-in rules: a
// namespace lookup that failed may make a selector miss.
func Evaluate(cat *rules.Catalog, kind string, obj runtime.Object, facts rules.Facts) (Verdict, error) {
	view, err := policyView(cat)
	if err != nil {
		return Verdict{}, err
	}
	if !view.kinds[kind] {
		return Verdict{}, nil
	}
	typed, err := storedObject(kind, obj)
	if err != nil {
		return Verdict{}, err
	}
	in := rules.Input{Object: typed, Facts: facts}
	var v Verdict
	for _, r := range view.only.Rules() {
		if r.Applies(kind, in) {
			v.applying = append(v.applying, conditions.PolicyRule[rules.Finding]{ID: r.ID, Condition: r.Condition})
		}
	}
	if len(v.applying) == 0 {
		return Verdict{}, nil
	}
	for _, f := range view.only.Evaluate(kind, in, rules.Options{}) {
		i := slices.IndexFunc(v.applying, func(r conditions.PolicyRule[rules.Finding]) bool { return r.ID == f.RuleID })
		if i >= 0 {
			v.applying[i].Findings = append(v.applying[i].Findings, f)
		}
	}
	return v, nil
}

// storedObject is obj as rules.FullStoredIn hands it to the Go rules: a
// manifest of kind in this API group without status, decoded back. (A stored
// object from the cache may carry no TypeMeta; a policy reading
// object.kind or object.apiVersion must see them, as at admission.)
func storedObject(kind string, obj runtime.Object) (runtime.Object, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("policy rules: converting the %s: %w", kind, err)
	}
	m["apiVersion"] = v1alpha1.GroupVersion.String()
	m["kind"] = kind
	delete(m, "status")
	return rules.Typed(m)
}

// view is a catalog's policy rules alone, as a catalog of their own, and
// the kinds they judge.
type view struct {
	from  *rules.Catalog
	only  *rules.Catalog
	kinds map[string]bool
}

// lastView caches the view of the last catalog asked about: the catalog in
// force changes only when a policy does, so every reconcile in between
// reuses it.
var lastView atomic.Pointer[view]

func policyView(cat *rules.Catalog) (*view, error) {
	if v := lastView.Load(); v != nil && v.from == cat {
		return v, nil
	}
	v, err := buildView(cat)
	if err != nil {
		return nil, err
	}
	lastView.Store(v)
	return v, nil
}

func buildView(cat *rules.Catalog) (*view, error) {
	v := &view{from: cat, kinds: map[string]bool{}}
	var extra []rules.Rule
	for _, r := range cat.Rules() {
		if r.Source != rules.SourcePolicy {
			continue
		}
		extra = append(extra, *r)
		for _, k := range r.Kinds {
			v.kinds[k] = true
		}
	}
	only, err := rules.NewCatalog().With(extra)
	if err != nil {
		// The catalog in force already took these rules (policies.Store
		// builds it with With): this is not expected.
		return nil, fmt.Errorf("policy rules: %w", err)
	}
	v.only = only
	return v, nil
}

// Judges reports whether cat holds a policy rule for kind. It leaves the
// reconcilers' cached view alone (OnChange asks about the catalog before a
// change too).
func Judges(cat *rules.Catalog, kind string) bool {
	if v := lastView.Load(); v != nil && v.from == cat {
		return v.kinds[kind]
	}
	for _, r := range cat.Rules() {
		if r.Source == rules.SourcePolicy && slices.Contains(r.Kinds, kind) {
			return true
		}
	}
	return false
}
