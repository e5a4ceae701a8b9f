package rules

import (
	"fmt"
	"strings"
)

// SeverityOverrides maps rule IDs to the severity an operator configured. It
// is a flag.Value for a repeatable `--rule-severity <rule-id>=deny|warn`,
// shared by omnia-operator and omniactl so both accept the same settings.
type SeverityOverrides map[string]Severity

// String implements flag.Value.
func (s SeverityOverrides) String() string { return fmt.Sprint(map[string]Severity(s)) }

// Set implements flag.Value: it accepts <rule-id>=deny|warn for a rule in
// the Default catalog, or for a policy rule (policy/<policy>/<rule>), which
// policies add at run time and so cannot be looked up when flags are parsed.
func (s SeverityOverrides) Set(v string) error {
	id, sev, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("want <rule-id>=deny|warn, got %q", v)
	}
	if strings.HasPrefix(id, PolicyRulePrefix) {
		if !IsPolicyRuleID(id) {
			return fmt.Errorf("policy rule ID %q is not policy/<policy>/<rule>", id)
		}
	} else {
		r, known := Default.Lookup(id)
		if !known {
			return fmt.Errorf("unknown rule ID %q (omniactl rules lists the catalog)", id)
		}
		if err := Overridable(r); err != nil {
			return err
		}
	}
	switch Severity(sev) {
	case SeverityDeny, SeverityWarn:
		s[id] = Severity(sev)
		return nil
	}
	return fmt.Errorf("severity %q for %s is not deny or warn", sev, id)
}

// Overridable reports why a severity override cannot affect r, or nil when
// it can: only a Go rule that runs at admission (the admission stage, or a
// reconcile-stage rule marked AdmissionFacts) denies or warns by severity.
// A schema rule is enforced by the API server before any webhook, and a
// reconcile-stage rule only sets conditions, so an override of either would
// be silently ignored.
func Overridable(r *Rule) error {
	switch {
	case r.Source == SourceSchema:
		return fmt.Errorf("rule %s is a schema rule: the API server enforces it before the webhook, so its severity cannot be changed", r.ID)
	case r.Stage == StageReconcile && !r.AdmissionFacts:
		return fmt.Errorf("rule %s is a reconcile-stage rule: it sets conditions and never denies or warns at admission, so its severity cannot be changed", r.ID)
	}
	return nil
}
