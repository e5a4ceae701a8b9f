package rules

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	psapi "k8s.io/pod-security-admission/api"
)

// PodSecuritySettings are the operator's own limits on the pods it builds
// for tenants (--pod-security-level, --agent-runtime-classes). They are
// configuration, not cluster state, but every surface must judge with the
// same ones, so they reach the rules as facts, like the licence.
type PodSecuritySettings struct {
	// Level is the Pod Security Standard every agent pod meets whatever
	// its namespace enforces: privileged, baseline or restricted. Empty
	// is DefaultPodSecurityLevel.
	Level string
	// RuntimeClasses, when not empty, are the only RuntimeClasses
	// podOverrides.runtimeClassName may name besides the Workspace's own
	// spec.runtime.runtimeClassName. Empty: any (the spec's default).
	RuntimeClasses []string
}

// DefaultPodSecurityLevel is the operator's floor when none is configured:
// baseline forbids what gives a container the node (host namespaces and
// paths, privilege, added capabilities, unconfined profiles) and nothing an
// agent needs.
const DefaultPodSecurityLevel = string(psapi.LevelBaseline)

// PodSecurityFacts is an optional part of Facts: the operator's
// PodSecuritySettings. Sources that do not implement it judge with the
// defaults (DefaultPodSecurityLevel, any RuntimeClass), which are the
// operator's defaults too.
type PodSecurityFacts interface {
	PodSecuritySettings() PodSecuritySettings
}

// PodSecuritySettingsOf returns the settings facts carry, defaulted.
func PodSecuritySettingsOf(facts Facts) PodSecuritySettings {
	var s PodSecuritySettings
	if pf, ok := facts.(PodSecurityFacts); ok {
		s = pf.PodSecuritySettings()
	}
	if s.Level == "" {
		s.Level = DefaultPodSecurityLevel
	}
	return s
}

// ParsePodSecurityLevel checks a --pod-security-level value: privileged,
// baseline or restricted (Kubernetes' level names).
func ParsePodSecurityLevel(s string) (string, error) {
	l := psapi.Level(s)
	if !l.Valid() {
		return "", fmt.Errorf("pod security level %q: must be one of privileged, baseline, restricted", s)
	}
	return s, nil
}

// ParsePodSecuritySettings checks and converts the flags
// --pod-security-level (ParsePodSecurityLevel) and --agent-runtime-classes
// (comma-separated RuntimeClass names), for the operator and omniactl
// alike.
func ParsePodSecuritySettings(level, runtimeClasses string) (PodSecuritySettings, error) {
	l, err := ParsePodSecurityLevel(level)
	if err != nil {
		return PodSecuritySettings{}, fmt.Errorf("--pod-security-level: %w", err)
	}
	s := PodSecuritySettings{Level: l}
	for c := range strings.SplitSeq(runtimeClasses, ",") {
		if c = strings.TrimSpace(c); c == "" {
			continue
		}
		if errs := validation.IsDNS1123Subdomain(c); len(errs) > 0 {
			return PodSecuritySettings{}, fmt.Errorf("--agent-runtime-classes: %q is not a RuntimeClass name: %s", c, strings.Join(errs, "; "))
		}
		s.RuntimeClasses = append(s.RuntimeClasses, c)
	}
	return s, nil
}

// WithPodSecuritySettings returns facts that answer s as their
// PodSecuritySettings and everything else as facts do; a Namespace lookup
// (NamespaceFacts) is passed through when facts answer it.
func WithPodSecuritySettings(facts Facts, s PodSecuritySettings) Facts {
	if facts == nil {
		facts = NoFacts{}
	}
	s.RuntimeClasses = slices.Clone(s.RuntimeClasses)
	return podSecurityFacts{Facts: facts, settings: s}
}

type podSecurityFacts struct {
	Facts
	settings PodSecuritySettings
}

var (
	_ PodSecurityFacts = podSecurityFacts{}
	_ NamespaceFacts   = podSecurityFacts{}
)

func (f podSecurityFacts) PodSecuritySettings() PodSecuritySettings { return f.settings }

func (f podSecurityFacts) Namespace(name string) (*corev1.Namespace, bool) {
	if nf, ok := f.Facts.(NamespaceFacts); ok {
		return nf.Namespace(name)
	}
	return nil, false
}

var _ SecretLabelFacts = podSecurityFacts{}

// SecretLabels passes a Secret's labels through when facts know them; not
// found otherwise, so the tool-credentials opt-in is judged exactly as the
// wrapped facts would judge it.
func (f podSecurityFacts) SecretLabels(namespace, name string) (map[string]string, bool) {
	if lf, ok := f.Facts.(SecretLabelFacts); ok {
		return lf.SecretLabels(namespace, name)
	}
	return nil, false
}
