package admission

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/altairalabs/omnia/rules"
)

// CheckedFacts are facts whose lookups can fail (clusterfacts.Facts): rules
// see only found or not found, and Err reports any lookup that could not be
// answered (a cache that has not synced, a Forbidden, a cancelled request).
type CheckedFacts interface {
	rules.Facts
	Err() error
}

// ClusterFacts returns cache-backed facts bounded by one request's context.
type ClusterFacts func(ctx context.Context) CheckedFacts

// factsFor returns the facts and options a request of kind is evaluated
// with: the licence alone, or — when the catalog has rules the spec says the
// webhook refuses with cluster facts (Rule.AdmissionFacts), the Config can
// look them up and the request changes the spec — facts from the cache,
// with those rules selected. An update that leaves the spec alone (labels,
// finalizers: the generation does not move) or is made to an object being
// deleted is never checked against cluster state, so it is never refused
// for a cache that has not synced.
func (h *Handler[T]) factsFor(ctx context.Context, cat *rules.Catalog, obj, old runtime.Object) (rules.Facts, CheckedFacts, rules.Options) {
	opts := rules.Options{Stages: []rules.Stage{rules.StageAdmission}, Severity: h.cfg.Severity}
	if h.cfg.ClusterFacts == nil || !cat.NeedsAdmissionFacts(h.kind) || !specChanges(obj, old) {
		return h.cfg.Facts, nil, opts
	}
	checked := h.cfg.ClusterFacts(ctx)
	opts.AdmissionFacts = true
	return checked, checked, opts
}

// specChanges reports whether a create or update may change what the
// cluster-facts rules judge: every create; an update that moves the
// generation (the API server bumps it, before admission, only on a spec
// change) of an object not being deleted.
func specChanges(obj, old runtime.Object) bool {
	if old == nil {
		return true
	}
	n, errN := meta.Accessor(obj)
	o, errO := meta.Accessor(old)
	if errN != nil || errO != nil {
		return true
	}
	return n.GetDeletionTimestamp() == nil && n.GetGeneration() != o.GetGeneration()
}

// admissionFactsRules names the rules of kind that need cluster facts at
// admission, for the fail-closed message.
func admissionFactsRules(cat *rules.Catalog, kind string) string {
	var ids []string
	for _, r := range cat.Rules() {
		if r.AdmissionFacts && r.Check != nil {
			for _, k := range r.Kinds {
				if k == kind {
					ids = append(ids, r.ID)
				}
			}
		}
	}
	return strings.Join(ids, ", ")
}

// maxNamedPolicyRules bounds the policy rules a fail-closed message names:
// a cluster may hold many policies.
const maxNamedPolicyRules = 10

// policyRules names the policy rules of kind, for the fail-closed message
// when the request's Namespace could not be looked up.
func policyRules(cat *rules.Catalog, kind string) string {
	var ids []string
	n := 0
	for _, r := range cat.Rules() {
		if r.Source == rules.SourcePolicy && slices.Contains(r.Kinds, kind) {
			if n < maxNamedPolicyRules {
				ids = append(ids, r.ID)
			}
			n++
		}
	}
	if n > maxNamedPolicyRules {
		ids = append(ids, fmt.Sprintf("and %d more policy rules", n-maxNamedPolicyRules))
	}
	return strings.Join(ids, ", ")
}

// factsUnavailable answers a request whose cluster facts could not be looked
// up. The rules that needed them (rulesNeeding) may have been told "not
// found" about an object that exists, so their verdict is unknown: in
// enforce mode the request is refused (fail closed) with 503 and a message
// saying to retry; in warn and audit modes, where those rules would not
// refuse anyway, it is admitted with a warning saying what was not checked.
func (h *Handler[T]) factsUnavailable(mode Mode, rulesNeeding string, err error) admission.Response {
	h.decided(OutcomeError)
	if mode == ModeEnforce {
		return admission.Errored(http.StatusServiceUnavailable, fmt.Errorf(
			"%s cannot be checked yet: the webhook could not look up the cluster state that %s needs "+
				"(its cache has not synced, or the lookup failed); retry shortly: %w", h.kind, rulesNeeding, err))
	}
	resp := admission.Allowed("")
	resp.Warnings = []string{fmt.Sprintf("%s not checked: the webhook could not look up the cluster state it needs (%v)", rulesNeeding, err)}
	return resp
}
