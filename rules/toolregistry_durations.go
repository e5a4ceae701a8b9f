package rules

import (
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// ToolRegistry duration rules: every duration string parses as a Go
// duration, and a retry policy's maxBackoff is at least its initialBackoff.

// Retry policy defaults (the CRD's), used when a field is empty because the
// object was not defaulted by the API server.
const (
	toolRegistryDefaultInitialBackoff = 100 * time.Millisecond
	toolRegistryDefaultMaxBackoff     = 30 * time.Second
)

// toolRegistryDurationHint is how every duration message says what a
// duration looks like.
const toolRegistryDurationHint = "a number with a unit ns, us, ms, s, m or h (e.g. 500ms, 30s, 5m)"

func init() {
	Default.Register(Rule{
		ID:       "toolregistry/duration-format",
		Kinds:    toolRegistryKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc: "Every duration string must parse as a Go duration: handlers[].timeout; the initialBackoff and maxBackoff of " +
			"httpConfig, grpcConfig, mcpConfig and openAPIConfig retryPolicy; probe.interval and probe.timeout.",
		Spec:  "toolregistry.md#handler-definition",
		Check: checkToolRegistryDurations,
	})
	Default.Register(Rule{
		ID:        "toolregistry/retry-backoff-order",
		Kinds:     toolRegistryKinds,
		Stage:     StageAdmission,
		Severity:  SeverityWarn,
		Condition: v1alpha1.ToolRegistryConditionHandlersValid,
		Reason:    v1alpha1.ToolRegistryReasonValidationFailed,
		Doc: "A retryPolicy's maxBackoff (default 30s) must be at least its initialBackoff (default 100ms); the controller rejects " +
			"the handler otherwise.",
		Spec:  "toolregistry.md#http-retry-policy",
		Check: checkToolRegistryBackoffOrder,
	})
}

// toolRegistryDuration is one duration field's value and path.
type toolRegistryDuration struct {
	path  *field.Path
	value string
}

// toolRegistryBackoff is one retry policy's backoff pair.
type toolRegistryBackoff struct {
	path             *field.Path // the retryPolicy
	initial, maximum string
}

// toolRegistryBackoffs lists the retry policies of the handlers.
func toolRegistryBackoffs(tr *v1alpha1.ToolRegistry) []toolRegistryBackoff {
	var out []toolRegistryBackoff
	for i := range tr.Spec.Handlers {
		h := &tr.Spec.Handlers[i]
		p := toolRegistryHandlersPath.Index(i)
		if h.HTTPConfig != nil && h.HTTPConfig.RetryPolicy != nil {
			rp := h.HTTPConfig.RetryPolicy
			out = append(out, toolRegistryBackoff{p.Child("httpConfig", "retryPolicy"), rp.InitialBackoff, rp.MaxBackoff})
		}
		if h.GRPCConfig != nil && h.GRPCConfig.RetryPolicy != nil {
			rp := h.GRPCConfig.RetryPolicy
			out = append(out, toolRegistryBackoff{p.Child("grpcConfig", "retryPolicy"), rp.InitialBackoff, rp.MaxBackoff})
		}
		if h.MCPConfig != nil && h.MCPConfig.RetryPolicy != nil {
			rp := h.MCPConfig.RetryPolicy
			out = append(out, toolRegistryBackoff{p.Child("mcpConfig", "retryPolicy"), rp.InitialBackoff, rp.MaxBackoff})
		}
		if h.OpenAPIConfig != nil && h.OpenAPIConfig.RetryPolicy != nil {
			rp := h.OpenAPIConfig.RetryPolicy
			out = append(out, toolRegistryBackoff{p.Child("openAPIConfig", "retryPolicy"), rp.InitialBackoff, rp.MaxBackoff})
		}
	}
	return out
}

func checkToolRegistryDurations(in Input) field.ErrorList {
	tr := toolRegistryOf(in)
	if tr == nil {
		return nil
	}
	var ds []toolRegistryDuration
	for i := range tr.Spec.Handlers {
		ds = append(ds, toolRegistryDuration{toolRegistryHandlersPath.Index(i).Child("timeout"), tr.Spec.Handlers[i].Timeout})
	}
	for _, b := range toolRegistryBackoffs(tr) {
		ds = append(ds,
			toolRegistryDuration{b.path.Child("initialBackoff"), b.initial},
			toolRegistryDuration{b.path.Child("maxBackoff"), b.maximum})
	}
	if pr := tr.Spec.Probe; pr != nil {
		probe := field.NewPath("spec", "probe")
		ds = append(ds,
			toolRegistryDuration{probe.Child("interval"), pr.Interval},
			toolRegistryDuration{probe.Child("timeout"), pr.Timeout})
	}
	var errs field.ErrorList
	for _, d := range ds {
		if d.value == "" {
			continue // defaulted by the CRD
		}
		if _, err := time.ParseDuration(d.value); err != nil {
			errs = append(errs, field.Invalid(d.path, d.value, "not a duration: write "+toolRegistryDurationHint))
		}
	}
	return errs
}

func checkToolRegistryBackoffOrder(in Input) field.ErrorList {
	tr := toolRegistryOf(in)
	if tr == nil {
		return nil
	}
	var errs field.ErrorList
	for _, b := range toolRegistryBackoffs(tr) {
		initial, maximum := toolRegistryDefaultInitialBackoff, toolRegistryDefaultMaxBackoff
		var err error
		if b.initial != "" {
			if initial, err = time.ParseDuration(b.initial); err != nil {
				continue // duration-format
			}
		}
		if b.maximum != "" {
			if maximum, err = time.ParseDuration(b.maximum); err != nil {
				continue // duration-format
			}
		}
		if maximum >= initial {
			continue
		}
		msg := "maxBackoff " + maximum.String() + " is shorter than initialBackoff " + initial.String() +
			", and the controller rejects the handler (HandlersValid=False): raise maxBackoff to at least initialBackoff"
		if b.maximum == "" {
			msg = "maxBackoff defaults to 30s, which is shorter than initialBackoff " + initial.String() +
				", and the controller rejects the handler (HandlersValid=False): set maxBackoff to at least initialBackoff"
		}
		errs = append(errs, field.Invalid(b.path.Child("maxBackoff"), b.maximum, msg))
	}
	return errs
}
