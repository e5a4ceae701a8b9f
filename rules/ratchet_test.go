package rules

import (
	"context"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules/schema"
)

const (
	ruleProviderTimeout = "provider/defaults-timeout-duration"
	ruleProviderPricing = "provider/pricing-decimal"
)

// Mutations of the base Provider the ratchet table combines.
func providerBadTimeout(p *v1alpha1.Provider) {
	p.Spec.Defaults = &v1alpha1.ProviderDefaults{RequestTimeout: "thirty seconds"}
}

func providerBadPricing(p *v1alpha1.Provider) {
	p.Spec.Pricing = &v1alpha1.ProviderPricing{InputCostPer1K: "$0.003"}
}

func providerLabelled(p *v1alpha1.Provider) { p.Labels = map[string]string{"team": "support"} }

func providerNoFinalizer(p *v1alpha1.Provider) { p.Finalizers = nil }

func providerFinalized(p *v1alpha1.Provider) { p.Finalizers = []string{"example.com/hold"} }

func providerTerminating(p *v1alpha1.Provider) {
	now := metav1.Now()
	p.DeletionTimestamp = &now
}

func provider(mutations ...func(*v1alpha1.Provider)) *v1alpha1.Provider {
	p := providerBase()
	for _, m := range mutations {
		m(p)
	}
	return p
}

// TestRatchetUpdate evaluates real updates of a Provider through the default
// catalog, exactly as the webhook does (new object with Old, old object as a
// create, same options), and checks which findings still refuse and which
// the ratchet lets through as warnings.
func TestRatchetUpdate(t *testing.T) {
	timeoutField := "spec.defaults.requestTimeout"
	pricingField := "spec.pricing.inputCostPer1K"
	cases := []struct {
		name     string
		old, obj *v1alpha1.Provider
		// wantDenied are rule|field of the findings that still refuse;
		// wantRatcheted those reported as ratcheted warnings.
		wantDenied, wantRatcheted []string
	}{
		// Accepted updates.
		{
			name:          "label change on an object with a deny finding",
			old:           provider(providerBadTimeout),
			obj:           provider(providerBadTimeout, providerLabelled),
			wantRatcheted: []string{ruleProviderTimeout + "|" + timeoutField},
		},
		{
			name:          "finalizer removed from a Terminating object with a deny finding",
			old:           provider(providerBadTimeout, providerFinalized, providerTerminating),
			obj:           provider(providerBadTimeout, providerNoFinalizer, providerTerminating),
			wantRatcheted: []string{ruleProviderTimeout + "|" + timeoutField},
		},
		{
			name:          "spec edited on a Terminating object: never refused, even a new finding",
			old:           provider(providerBadTimeout, providerFinalized, providerTerminating),
			obj:           provider(providerBadTimeout, providerBadPricing, providerFinalized, providerTerminating),
			wantRatcheted: []string{ruleProviderTimeout + "|" + timeoutField, ruleProviderPricing + "|" + pricingField},
		},
		{
			name:          "spec edit keeping the old finding and adding none",
			old:           provider(providerBadTimeout),
			obj:           provider(providerBadTimeout, func(p *v1alpha1.Provider) { p.Spec.Model = "claude-opus-4" }),
			wantRatcheted: []string{ruleProviderTimeout + "|" + timeoutField},
		},
		{
			name: "fixing the old finding",
			old:  provider(providerBadTimeout),
			obj:  provider(func(p *v1alpha1.Provider) { p.Spec.Defaults = &v1alpha1.ProviderDefaults{RequestTimeout: "30s"} }),
		},
		{
			name: "clean update of a clean object",
			old:  provider(),
			obj:  provider(providerLabelled),
		},
		// Refused updates.
		{
			name:          "a new violation beside the old one: only the new one refuses",
			old:           provider(providerBadTimeout),
			obj:           provider(providerBadTimeout, providerBadPricing),
			wantDenied:    []string{ruleProviderPricing + "|" + pricingField},
			wantRatcheted: []string{ruleProviderTimeout + "|" + timeoutField},
		},
		{
			name:       "the same rule at another field refuses",
			old:        provider(providerBadTimeout),
			obj:        provider(func(p *v1alpha1.Provider) { p.Spec.Defaults = &v1alpha1.ProviderDefaults{FirstTokenTimeout: "soon"} }),
			wantDenied: []string{ruleProviderTimeout + "|spec.defaults.firstTokenTimeout"},
		},
		{
			name:       "a violation added to a clean object",
			old:        provider(),
			obj:        provider(providerBadPricing),
			wantDenied: []string{ruleProviderPricing + "|" + pricingField},
		},
		{
			name:       "a finalizer added while the spec gains a violation (not Terminating)",
			old:        provider(),
			obj:        provider(providerFinalized, providerBadPricing),
			wantDenied: []string{ruleProviderPricing + "|" + pricingField},
		},
	}
	opts := Options{Stages: []Stage{StageAdmission}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			findings := Default.Evaluate(kindProvider, Input{Object: tc.obj, Old: tc.old}, opts)
			got := RatchetUpdate(tc.obj, tc.old, findings, func() []Finding {
				return Default.Evaluate(kindProvider, Input{Object: tc.old}, opts)
			})
			if len(got) != len(findings) {
				t.Fatalf("the ratchet dropped findings: %v -> %v", findings, got)
			}
			for _, f := range got {
				if f.Ratcheted && f.Severity != SeverityWarn {
					t.Errorf("ratcheted finding %s has severity %s, want warn", f, f.Severity)
				}
			}
			denied, ratchetedOut := ratchetOutcome(got)
			if !slices.Equal(denied, tc.wantDenied) {
				t.Errorf("denied %v, want %v", denied, tc.wantDenied)
			}
			if !slices.Equal(ratchetedOut, tc.wantRatcheted) {
				t.Errorf("ratcheted %v, want %v", ratchetedOut, tc.wantRatcheted)
			}
		})
	}
}

// TestRatchet checks the matching on rule ID and field alone.
func TestRatchet(t *testing.T) {
	f := func(rule, field string, sev Severity) Finding {
		return Finding{RuleID: rule, Field: field, Severity: sev, Message: "m"}
	}
	cases := []struct {
		name            string
		findings, old   []Finding
		wantSeverities  []Severity
		wantRatchetedAt []bool
	}{
		{
			name:            "same rule and field ratchets, whatever the message",
			findings:        []Finding{f("a/x", "spec.a", SeverityDeny)},
			old:             []Finding{{RuleID: "a/x", Field: "spec.a", Severity: SeverityDeny, Message: "another value"}},
			wantSeverities:  []Severity{SeverityWarn},
			wantRatchetedAt: []bool{true},
		},
		{
			name:            "same rule, other field denies",
			findings:        []Finding{f("a/x", "spec.b", SeverityDeny)},
			old:             []Finding{f("a/x", "spec.a", SeverityDeny)},
			wantSeverities:  []Severity{SeverityDeny},
			wantRatchetedAt: []bool{false},
		},
		{
			name:            "same field, other rule denies",
			findings:        []Finding{f("a/y", "spec.a", SeverityDeny)},
			old:             []Finding{f("a/x", "spec.a", SeverityDeny)},
			wantSeverities:  []Severity{SeverityDeny},
			wantRatchetedAt: []bool{false},
		},
		{
			name:            "a warn finding is left as it is",
			findings:        []Finding{f("a/w", "spec.a", SeverityWarn)},
			old:             []Finding{f("a/w", "spec.a", SeverityWarn)},
			wantSeverities:  []Severity{SeverityWarn},
			wantRatchetedAt: []bool{false},
		},
		{
			name:            "no old findings (create-like): everything stands",
			findings:        []Finding{f("a/x", "spec.a", SeverityDeny), f("a/w", "spec.b", SeverityWarn)},
			wantSeverities:  []Severity{SeverityDeny, SeverityWarn},
			wantRatchetedAt: []bool{false, false},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.findings)
			got := Ratchet(tc.findings, tc.old)
			if !slices.Equal(in, tc.findings) {
				t.Errorf("Ratchet modified its input: %v", tc.findings)
			}
			if len(got) != len(tc.wantSeverities) {
				t.Fatalf("got %v", got)
			}
			for i := range got {
				if got[i].Severity != tc.wantSeverities[i] || got[i].Ratcheted != tc.wantRatchetedAt[i] {
					t.Errorf("finding %d: severity %s ratcheted %v, want %s %v", i, got[i].Severity, got[i].Ratcheted, tc.wantSeverities[i], tc.wantRatchetedAt[i])
				}
				if got[i].RuleID != tc.findings[i].RuleID || got[i].Field != tc.findings[i].Field || got[i].Message != tc.findings[i].Message {
					t.Errorf("finding %d changed identity: %v -> %v", i, tc.findings[i], got[i])
				}
			}
		})
	}
}

// TestUpdateNeverRefused covers typed and unstructured objects (the deploy
// API holds manifests as maps).
func TestUpdateNeverRefused(t *testing.T) {
	u := func(spec map[string]any, meta map[string]any) *unstructured.Unstructured {
		obj := map[string]any{"apiVersion": "omnia.altairalabs.ai/v1alpha1", "kind": "Provider", "metadata": meta}
		if spec != nil {
			obj["spec"] = spec
		}
		return &unstructured.Unstructured{Object: obj}
	}
	named := map[string]any{"name": "claude"}
	labelled := map[string]any{"name": "claude", "labels": map[string]any{"team": "support"}}
	deleting := map[string]any{"name": "claude", "deletionTimestamp": "2026-11-30T00:00:00Z"}
	cases := []struct {
		name     string
		obj, old runtime.Object
		want     bool
	}{
		{"typed: label change", provider(providerLabelled), provider(), true},
		{"typed: finalizer removal", provider(providerNoFinalizer), provider(providerFinalized), true},
		{"typed: spec change", provider(providerBadPricing), provider(), false},
		{"typed: spec change on a Terminating object", provider(providerBadPricing, providerTerminating), provider(providerTerminating), true},
		{"typed: a nil and an empty list are the same spec", provider(func(p *v1alpha1.Provider) { p.Spec.Capabilities = []v1alpha1.ProviderCapability{} }), provider(), true},
		{"typed: create (no old object)", provider(), nil, false},
		{"unstructured: label change", u(map[string]any{"model": "m"}, labelled), u(map[string]any{"model": "m"}, named), true},
		{"unstructured: spec change", u(map[string]any{"model": "n"}, named), u(map[string]any{"model": "m"}, named), false},
		{"unstructured: spec added", u(map[string]any{"model": "n"}, named), u(nil, named), false},
		{"unstructured: Terminating", u(map[string]any{"model": "n"}, deleting), u(map[string]any{"model": "m"}, deleting), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := UpdateNeverRefused(tc.obj, tc.old); got != tc.want {
				t.Errorf("UpdateNeverRefused = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestFullUpdate judges manifest updates as the deploy API does: the Go
// rules' findings are ratcheted, schema findings follow the API server's own
// CRD validation ratcheting (a value the update leaves alone is not judged).
func TestFullUpdate(t *testing.T) {
	sv, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	manifest := func(labels bool, spec map[string]any) map[string]any {
		meta := map[string]any{"name": "claude", "namespace": "agents"}
		if labels {
			meta["labels"] = map[string]any{"team": "support"}
		}
		return map[string]any{"apiVersion": "omnia.altairalabs.ai/v1alpha1", "kind": "Provider", "metadata": meta, "spec": spec}
	}
	mock := func(extra map[string]any) map[string]any {
		spec := map[string]any{"type": "mock"}
		for k, v := range extra {
			spec[k] = v
		}
		return spec
	}
	badTimeout := map[string]any{"defaults": map[string]any{"requestTimeout": "thirty seconds"}}
	badBoth := map[string]any{"defaults": map[string]any{"requestTimeout": "thirty seconds"}, "pricing": map[string]any{"inputCostPer1K": "$0.003"}}
	noModel := map[string]any{"type": "claude", "credential": map[string]any{"envVar": "ANTHROPIC_API_KEY"}}
	cases := []struct {
		name                  string
		obj, old              map[string]any
		wantDenied, wantWarns []string // rule IDs, sorted by field
	}{
		{name: "create: the finding denies", obj: manifest(false, mock(badTimeout)),
			wantDenied: []string{ruleProviderTimeout}},
		{name: "label change: ratcheted", obj: manifest(true, mock(badTimeout)), old: manifest(false, mock(badTimeout)),
			wantWarns: []string{ruleProviderTimeout}},
		{name: "new violation: only it denies", obj: manifest(false, mock(badBoth)), old: manifest(false, mock(badTimeout)),
			wantDenied: []string{ruleProviderPricing}, wantWarns: []string{ruleProviderTimeout}},
		{name: "fix: clean", obj: manifest(false, mock(nil)), old: manifest(false, mock(badTimeout))},
		{name: "schema finding on a label change: ratcheted by the API server's own rules, not reported", obj: manifest(true, noModel), old: manifest(false, noModel)},
		{name: "schema finding on a create: denied", obj: manifest(false, noModel), wantDenied: []string{"provider/model-required"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FullUpdate(context.Background(), sv, Default, tc.obj, tc.old, NoFacts{}, Options{Stages: []Stage{StageAdmission}})
			if err != nil {
				t.Fatal(err)
			}
			var denied, warned []string
			for _, f := range got {
				switch {
				case f.Severity == SeverityDeny:
					denied = append(denied, f.RuleID)
				case f.Ratcheted:
					warned = append(warned, f.RuleID)
				}
			}
			if !slices.Equal(denied, tc.wantDenied) || !slices.Equal(warned, tc.wantWarns) {
				t.Errorf("denied %v ratcheted %v, want %v and %v (findings %v)", denied, warned, tc.wantDenied, tc.wantWarns, got)
			}
		})
	}
}

// ratchetOutcome sorts RatchetUpdate's findings into the rule|field pairs
// that still refuse and those let through as ratcheted warnings.
func ratchetOutcome(findings []Finding) (denied, ratcheted []string) {
	for _, f := range findings {
		switch {
		case f.Ratcheted:
			ratcheted = append(ratcheted, f.RuleID+"|"+f.Field)
		case f.Severity == SeverityDeny:
			denied = append(denied, f.RuleID+"|"+f.Field)
		}
	}
	slices.Sort(denied)
	slices.Sort(ratcheted)
	return denied, ratcheted
}
