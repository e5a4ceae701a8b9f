package admission

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/policies"
	"github.com/altairalabs/omnia/rules"
)

// The ValidationPolicy kind's own webhook: a policy that does not compile
// (a CEL type error against the kind's schema, a cost over the limit, a
// Rego module that does not parse or calls a refused builtin) is refused by
// the API server with each error and its rule ID, as its status would say.
// The API server has already run the CRD's schema and CEL rules.

// PolicyKind is the kind the policy webhook validates.
const PolicyKind = "ValidationPolicy"

// PolicyCompiler compiles a ValidationPolicy (*policies.Env in the operator).
type PolicyCompiler interface {
	Compile(p *v1alpha1.ValidationPolicy) *policies.Compiled
}

// MaxPolicyCauses bounds the status causes of one refusal: the status's
// ruleErrors hold as many.
const MaxPolicyCauses = 128

// PolicyHandler validates ValidationPolicies.
type PolicyHandler struct {
	cfg     *Config
	decoder admission.Decoder
}

// NewPolicyHandler returns the ValidationPolicy webhook's handler.
func NewPolicyHandler(scheme *runtime.Scheme, cfg *Config) *PolicyHandler {
	return &PolicyHandler{cfg: cfg, decoder: admission.NewDecoder(scheme)}
}

// Handle implements admission.Handler. Deletes are never judged, nor an
// update that leaves the spec alone or is made to a policy being deleted
// (rules.UpdateNeverRefused, the project's ratchet): labels, annotations and
// the removal of a finalizer always go through, even for a policy that no
// longer compiles (after an operator upgrade, say).
func (h *PolicyHandler) Handle(_ context.Context, req admission.Request) admission.Response {
	start := time.Now()
	defer func() { h.cfg.Metrics.Latency.WithLabelValues(PolicyKind).Observe(time.Since(start).Seconds()) }()

	if req.Kind.Kind != PolicyKind || req.Kind.Group != "omnia.altairalabs.ai" {
		h.decided(OutcomeError)
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("this webhook validates omnia.altairalabs.ai %s, not %s %s", PolicyKind, req.Kind.Group, req.Kind.Kind))
	}
	switch req.Operation {
	case admissionv1.Create, admissionv1.Update:
	default:
		h.decided(OutcomeAllowed)
		return admission.Allowed("")
	}
	obj := &v1alpha1.ValidationPolicy{}
	if err := h.decoder.DecodeRaw(req.Object, obj); err != nil {
		h.decided(OutcomeError)
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the %s in the request: %w", PolicyKind, err))
	}
	if req.Operation == admissionv1.Update && len(req.OldObject.Raw) > 0 {
		old := &v1alpha1.ValidationPolicy{}
		if err := h.decoder.DecodeRaw(req.OldObject, old); err != nil {
			h.decided(OutcomeError)
			return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the stored %s in the request: %w", PolicyKind, err))
		}
		if rules.UpdateNeverRefused(obj, old) {
			h.decided(OutcomeAllowed)
			return admission.Allowed("")
		}
	}
	if h.cfg.PolicyCompiler == nil {
		h.decided(OutcomeError)
		return admission.Errored(http.StatusServiceUnavailable, errors.New("the operator has no policy compiler: ValidationPolicies cannot be checked"))
	}
	compiled := h.cfg.PolicyCompiler.Compile(obj)
	if compiled == nil || len(compiled.Errors) == 0 {
		h.decided(OutcomeAllowed)
		return admission.Allowed("")
	}
	for _, e := range compiled.Errors {
		h.cfg.Metrics.Findings.WithLabelValues(PolicyKind, ruleOf(obj.Name, e), OutcomeDenied).Inc()
	}
	h.decided(OutcomeDenied)
	return PolicyDenial(obj.Name, compiled.Errors)
}

// ruleOf is the rule ID a compile error is reported under: its rule, or
// the policy's prefix for an error of the whole policy.
func ruleOf(policy string, e v1alpha1.ValidationPolicyRuleError) string {
	if e.Rule != "" {
		return e.Rule
	}
	return rules.PolicyRulePrefix + policy
}

// PolicyDenial is the refusal of a policy with compile errors: 422 Invalid,
// each error a status cause at its field with "[<rule ID>] message", at
// most MaxPolicyCauses of them (the message says how many were left out).
func PolicyDenial(name string, errs []v1alpha1.ValidationPolicyRuleError) admission.Response {
	shown := errs
	if len(shown) > MaxPolicyCauses {
		shown = shown[:MaxPolicyCauses]
	}
	lines := make([]string, 0, len(shown)+1)
	causes := make([]metav1.StatusCause, 0, len(shown))
	for _, e := range shown {
		msg := "[" + ruleOf(name, e) + "] " + e.Message
		lines = append(lines, "["+ruleOf(name, e)+"] "+e.Field+": "+e.Message)
		causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: e.Field, Message: msg})
	}
	if more := len(errs) - len(shown); more > 0 {
		lines = append(lines, fmt.Sprintf("and %d more errors", more))
	}
	resp := admission.Denied(PolicyKind + " " + name + " does not compile: " + strings.Join(lines, "; "))
	resp.Result.Code = http.StatusUnprocessableEntity
	resp.Result.Reason = metav1.StatusReasonInvalid
	resp.Result.Details = &metav1.StatusDetails{Kind: PolicyKind, Name: name, Group: "omnia.altairalabs.ai", Causes: causes}
	return resp
}

func (h *PolicyHandler) decided(outcome string) {
	h.cfg.Metrics.Decisions.WithLabelValues(PolicyKind, outcome).Inc()
}
