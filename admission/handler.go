// Package admission serves the validating webhooks: one generic handler
// (decode → rules.Evaluate → on update, the rules.RatchetUpdate ratchet →
// respond) wired for each kind. The API server runs
// the CRD schema and its CEL before calling a validating webhook, so the
// handler evaluates only the catalog's Go rules of the admission stage, plus
// the reconcile-stage rules the spec says the webhook refuses with cluster
// facts (Rule.AdmissionFacts), with facts from the manager's cache.
package admission

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/altairalabs/omnia/policies"
	"github.com/altairalabs/omnia/rules"
)

// Config is shared by every kind's handler.
type Config struct {
	// Catalog is the rule catalog when Policies is nil (rules.Default).
	Catalog *rules.Catalog
	// Policies, when set, gives the catalog in force: the built-in rules
	// and the ValidationPolicies that compiled. Each request takes it once
	// (one atomic load), so a policy change applies from the next
	// admission, without a restart, and one request sees one catalog.
	Policies *policies.Store
	// PolicyCompiler compiles ValidationPolicies for the policy kind's
	// webhook (policy.go); the operator passes its *policies.Env. Nil:
	// that webhook refuses every policy (fail closed).
	PolicyCompiler PolicyCompiler
	// Mode is the global enforcement mode.
	Mode Mode
	// NamespaceLabels resolves per-namespace mode overrides; nil for none.
	NamespaceLabels NamespaceLabels
	// Namespace returns a Namespace from the manager's cache: policy rules
	// match it (namespaceSelector) and read it (namespaceObject). Nil: the
	// Namespace is built from NamespaceLabels (name and labels), or, with
	// neither, as the API server creates it bare (rules.NamespaceOf).
	Namespace NamespaceGetter
	// Severity overrides rule severities by ID (an operator raising a warn
	// rule to deny).
	Severity map[string]rules.Severity
	// Facts answers the licence; admission rules need no other facts.
	Facts rules.Facts
	// ClusterFacts, when set, gives the rules marked AdmissionFacts (those
	// the spec says the webhook refuses with cluster state: a promptPackRef
	// version on a live PromptPack) facts from the manager's cache. While a
	// lookup fails — the cache has not synced — the webhook refuses such a
	// kind in enforce mode (fail closed). Nil: those rules never run here.
	ClusterFacts ClusterFacts
	// Metrics records decisions, findings and latency.
	Metrics *Metrics
	// ExcludedNamespace is never validated: the operator's own namespace, so
	// a broken webhook cannot lock out the operator's recovery. The
	// registration's namespaceSelector skips it too (ExcludeNamespace); the
	// handler honours it as well, should a registration lack the selector.
	// Empty excludes nothing.
	ExcludedNamespace string
	// WatchedNamespaces (--watch-namespaces), when set, are the only
	// namespaces validated: the operator caches no other, so it has no
	// facts to judge them with, and another installation owns them. The
	// registration's namespaceSelector (config/namespaced) selects the same
	// list; cluster-scoped kinds are always validated. Empty: every
	// namespace.
	WatchedNamespaces []string
	// PodSecurity are the operator's pod limits (--pod-security-level,
	// --agent-runtime-classes) the pod rules judge with
	// (rules.PodSecurityFacts; namespacefacts.go hands them over). Zero:
	// the defaults.
	PodSecurity rules.PodSecuritySettings
	// AllowNamespaceDowngrade lets a namespace label choose a mode less
	// strict than Mode (enforce > warn > audit). Off, a tenant who may label
	// their namespace cannot switch enforcement off for themselves.
	AllowNamespaceDowngrade bool
}

// Handler validates one kind. T is the typed object, e.g. *v1alpha1.Provider.
type Handler[T runtime.Object] struct {
	kind    string
	newObj  func() T
	cfg     *Config
	decoder admission.Decoder
}

// NewHandler returns the validating handler for kind.
func NewHandler[T runtime.Object](kind string, newObj func() T, scheme *runtime.Scheme, cfg *Config) *Handler[T] {
	return &Handler[T]{kind: kind, newObj: newObj, cfg: cfg, decoder: admission.NewDecoder(scheme)}
}

// Handle implements admission.Handler.
func (h *Handler[T]) Handle(ctx context.Context, req admission.Request) admission.Response {
	start := time.Now()
	defer func() { h.cfg.Metrics.Latency.WithLabelValues(h.kind).Observe(time.Since(start).Seconds()) }()

	if req.Kind.Kind == "" {
		h.decided(OutcomeError)
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("the AdmissionReview has no request naming an object's kind; this webhook validates omnia.altairalabs.ai %s", h.kind))
	}
	if req.Kind.Kind != h.kind || req.Kind.Group != "omnia.altairalabs.ai" {
		h.decided(OutcomeError)
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("this webhook validates omnia.altairalabs.ai %s, not %s %s", h.kind, req.Kind.Group, req.Kind.Kind))
	}
	if h.cfg.ExcludedNamespace != "" && req.Namespace == h.cfg.ExcludedNamespace ||
		req.Namespace != "" && len(h.cfg.WatchedNamespaces) > 0 && !slices.Contains(h.cfg.WatchedNamespaces, req.Namespace) {
		h.decided(OutcomeExcluded)
		return admission.Allowed("")
	}
	switch req.Operation {
	case admissionv1.Create, admissionv1.Update:
	default:
		// Deletes and connects carry nothing to validate.
		h.decided(OutcomeAllowed)
		return admission.Allowed("")
	}

	obj := h.newObj()
	if err := h.decoder.DecodeRaw(req.Object, obj); err != nil {
		h.decided(OutcomeError)
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the %s in the request: %w", h.kind, err))
	}
	in := rules.Input{Object: obj}
	if req.Operation == admissionv1.Update && len(req.OldObject.Raw) > 0 {
		old := h.newObj()
		if err := h.decoder.DecodeRaw(req.OldObject, old); err != nil {
			h.decided(OutcomeError)
			return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the stored %s in the request: %w", h.kind, err))
		}
		in.Old = old
	}
	// One catalog for the whole request, the ratchet's old object included.
	cat := h.cfg.catalog()
	facts, checked, opts := h.factsFor(ctx, cat, obj, in.Old)
	nsFacts := h.cfg.namespaceFacts(ctx, facts)
	in.Facts = nsFacts

	findings := cat.Evaluate(h.kind, in, opts)
	if in.Old != nil {
		findings = h.ratchet(cat, in, findings, opts)
	}
	mode := h.cfg.modeFor(ctx, req.Namespace)
	if checked != nil {
		if err := checked.Err(); err != nil {
			return h.factsUnavailable(mode, admissionFactsRules(cat, h.kind), err)
		}
	}
	// A Namespace that could not be looked up fails the request closed
	// only for the policy rules, whose selectors may have skipped it. The
	// pod rule (agentruntime/pod-security) then judges at the operator's
	// floor alone: the API server's PodSecurity admission still enforces
	// the namespace's own label on the pods, and the reconciler reports it.
	if err := nsFacts.Err(); err != nil {
		if named := policyRules(cat, h.kind); named != "" {
			return h.factsUnavailable(mode, named, err)
		}
	}
	// The same order as every other surface (omniactl, conditions).
	rules.SortFindings(findings)
	return h.respond(mode, req.Name, findings)
}

// catalog returns the catalog in force: the Store's when policies are
// plugged in, else the fixed one.
func (c *Config) catalog() *rules.Catalog {
	if c.Policies != nil {
		return c.Policies.Catalog()
	}
	return c.Catalog
}

// ratchet applies the update ratchet (rules.RatchetUpdate): only what the
// update adds may refuse. The old object is judged as a create with the same
// catalog and options, and only when the ratchet needs it.
func (h *Handler[T]) ratchet(cat *rules.Catalog, in rules.Input, findings []rules.Finding, opts rules.Options) []rules.Finding {
	return rules.RatchetUpdate(in.Object, in.Old, findings, func() []rules.Finding {
		return cat.Evaluate(h.kind, rules.Input{Object: in.Old, Facts: in.Facts}, opts)
	})
}

// RatchetedSuffix ends the warning of a finding the update ratchet let
// through, so the user learns why an object with a deny finding was admitted.
const RatchetedSuffix = " (not refused on this update: the stored object already has it, or the update leaves spec unchanged or is made to a Terminating object; fix it)"

// respond turns findings into the admission response for a mode. Dry-run
// requests get the same answer: the handler has no side effects beyond
// metrics.
//
// A policy rule's finding is bound by its policy's validationActions
// (rules.Rule.boundByActions): AuditOnly (Audit alone) is only recorded, as
// an audit annotation and the "audited" outcome, whatever the mode; Audit
// is recorded beside the refusal or warning. The namespace mode applies on
// top, as to every finding: in audit mode nothing is refused or warned.
func (h *Handler[T]) respond(mode Mode, name string, findings []rules.Finding) admission.Response {
	if len(findings) == 0 {
		h.decided(OutcomeAllowed)
		return admission.Allowed("")
	}
	var denied []rules.Finding
	var warnings []string
	audit := map[string]string{}
	for _, f := range findings {
		switch {
		case f.AuditOnly || mode == ModeAudit:
			annotate(audit, f)
			h.found(f.RuleID, OutcomeAudited)
			continue
		case f.Severity == rules.SeverityDeny && mode == ModeEnforce:
			denied = append(denied, f)
			h.found(f.RuleID, OutcomeDenied)
		case f.Ratcheted:
			warnings = append(warnings, f.String()+RatchetedSuffix)
			if mode == ModeEnforce {
				h.found(f.RuleID, OutcomeRatcheted)
			} else {
				h.found(f.RuleID, OutcomeWarned)
			}
		default:
			warnings = append(warnings, f.String())
			h.found(f.RuleID, OutcomeWarned)
		}
		if f.Audit {
			annotate(audit, f)
		}
	}
	if len(denied) > 0 {
		h.decided(OutcomeDenied)
		resp := Denial(h.kind, name, denied)
		resp.Warnings = warnings
		if len(audit) > 0 {
			resp.AuditAnnotations = audit
		}
		return resp
	}
	resp := admission.Allowed("")
	resp.Warnings = warnings
	if len(audit) > 0 {
		resp.AuditAnnotations = audit
	}
	switch {
	case len(warnings) > 0:
		h.decided(OutcomeWarned)
	case len(audit) > 0:
		h.decided(OutcomeAudited)
	default:
		h.decided(OutcomeAllowed)
	}
	return resp
}

// Denial builds the refusal for deny findings: every field error is listed,
// in the message and as a status cause (field + "[rule] message"), so the
// client sees all of them, not only the first.
func Denial(kind, name string, denied []rules.Finding) admission.Response {
	lines := make([]string, 0, len(denied))
	causes := make([]metav1.StatusCause, 0, len(denied))
	for _, f := range denied {
		lines = append(lines, f.String())
		causes = append(causes, metav1.StatusCause{
			Type:    metav1.CauseTypeFieldValueInvalid,
			Field:   f.Field,
			Message: "[" + f.RuleID + "] " + f.Message,
		})
	}
	resp := admission.Denied(kind + " refused: " + strings.Join(lines, "; "))
	resp.Result.Code = http.StatusUnprocessableEntity
	resp.Result.Reason = metav1.StatusReasonInvalid
	resp.Result.Details = &metav1.StatusDetails{Kind: kind, Name: name, Group: "omnia.altairalabs.ai", Causes: causes}
	return resp
}

// decided counts the one decision of a request.
func (h *Handler[T]) decided(outcome string) {
	h.cfg.Metrics.Decisions.WithLabelValues(h.kind, outcome).Inc()
}

// found counts one finding by rule and what became of it.
func (h *Handler[T]) found(rule, outcome string) {
	h.cfg.Metrics.Findings.WithLabelValues(h.kind, rule, outcome).Inc()
}
