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
// the Default catalog.
func (s SeverityOverrides) Set(v string) error {
	id, sev, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("want <rule-id>=deny|warn, got %q", v)
	}
	if _, known := Default.Lookup(id); !known {
		return fmt.Errorf("unknown rule ID %q (omniactl rules lists the catalog)", id)
	}
	switch Severity(sev) {
	case SeverityDeny, SeverityWarn:
		s[id] = Severity(sev)
		return nil
	}
	return fmt.Errorf("severity %q for %s is not deny or warn", sev, id)
}
