package admission

import (
	"context"
	"fmt"
)

// Mode is how the webhook acts on deny findings.
type Mode string

const (
	// ModeEnforce refuses an object with a deny finding.
	ModeEnforce Mode = "enforce"
	// ModeWarn admits it, turning every deny finding into a warning.
	ModeWarn Mode = "warn"
	// ModeAudit admits it silently, recording findings as audit annotations
	// and in the decision metrics.
	ModeAudit Mode = "audit"
)

// NamespaceModeLabel on a Namespace overrides the global mode for objects in
// it. It may only make enforcement stricter unless the operator allows
// downgrades (Config.AllowNamespaceDowngrade, --allow-namespace-downgrade):
// whoever may label a namespace must not thereby switch enforcement off.
const NamespaceModeLabel = "omnia.altairalabs.ai/enforcement-mode"

// ParseMode parses a mode name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeEnforce, ModeWarn, ModeAudit:
		return m, nil
	}
	return "", fmt.Errorf("enforcement mode %q is not one of enforce, warn, audit", s)
}

// NamespaceLabels returns a namespace's labels; the manager answers from its
// cache. A nil func means no per-namespace override.
type NamespaceLabels func(ctx context.Context, namespace string) (map[string]string, error)

// strictness orders the modes: enforce > warn > audit.
func (m Mode) strictness() int {
	switch m {
	case ModeEnforce:
		return 2
	case ModeWarn:
		return 1
	}
	return 0
}

// modeFor resolves the mode for a request in namespace: the namespace label
// when it names a valid mode at least as strict as the global mode (or any
// valid mode when AllowNamespaceDowngrade is set), else the global mode. A
// lookup failure keeps the global mode (fail towards the stricter,
// configured behaviour).
func (c *Config) modeFor(ctx context.Context, namespace string) Mode {
	if namespace == "" || c.NamespaceLabels == nil {
		return c.Mode
	}
	labels, err := c.NamespaceLabels(ctx, namespace)
	if err != nil {
		return c.Mode
	}
	m, err := ParseMode(labels[NamespaceModeLabel])
	if err != nil {
		return c.Mode
	}
	if m.strictness() < c.Mode.strictness() && !c.AllowNamespaceDowngrade {
		return c.Mode
	}
	return m
}
