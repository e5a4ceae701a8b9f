package rules

import (
	"context"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules/schema"
)

// providerTestFacts answers Secret lookups from a map keyed "namespace/name".
type providerTestFacts struct {
	NoFacts
	secrets map[string][]string
	values  map[string]string // "namespace/name/key" -> value
}

func (f providerTestFacts) SecretValueMatches(namespace, name, key string, match func([]byte) (string, bool)) (string, bool) {
	v, ok := f.values[namespace+"/"+name+"/"+key]
	if !ok {
		return "", false
	}
	return match([]byte(v))
}

func (f providerTestFacts) SecretKeys(namespace, name string) ([]string, bool) {
	keys, ok := f.secrets[namespace+"/"+name]
	return keys, ok
}

const providerTestNamespace = "agents"

// providerBase is a valid claude Provider reading its key from a Secret.
func providerBase() *v1alpha1.Provider {
	return &v1alpha1.Provider{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "Provider"},
		ObjectMeta: metav1.ObjectMeta{Name: "claude", Namespace: providerTestNamespace},
		Spec: v1alpha1.ProviderSpec{
			Type:  v1alpha1.ProviderTypeClaude,
			Model: "claude-sonnet-4-20250514",
			Credential: &v1alpha1.ProviderCredential{
				SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: "anthropic-credentials"},
			},
		},
	}
}

// providerBaseFacts holds the base Provider's Secret with its default key.
func providerBaseFacts() providerTestFacts {
	return providerTestFacts{secrets: map[string][]string{
		providerTestNamespace + "/anthropic-credentials": {"ANTHROPIC_API_KEY"},
	}}
}

func providerWithSecrets(secrets map[string][]string) providerTestFacts {
	return providerTestFacts{secrets: secrets}
}

// providerEnvVar replaces the credential with an envVar source.
func providerEnvVar(name string) func(*v1alpha1.Provider) {
	return func(p *v1alpha1.Provider) { p.Spec.Credential = &v1alpha1.ProviderCredential{EnvVar: name} }
}

// providerFilePath replaces the credential with a filePath source.
func providerFilePath(path string) func(*v1alpha1.Provider) {
	return func(p *v1alpha1.Provider) { p.Spec.Credential = &v1alpha1.ProviderCredential{FilePath: path} }
}

type providerWant = ruleWant

func TestProviderRules(t *testing.T) {
	cases := []ruleCase[*v1alpha1.Provider]{
		{name: "base: secretRef with an auto-detected key"},

		// provider/credential-env-var-name
		{name: "envVar upper case with underscores", mutate: providerEnvVar("ANTHROPIC_API_KEY")},
		{name: "envVar starting with an underscore", mutate: providerEnvVar("_key1")},
		{name: "envVar starting with a digit", mutate: providerEnvVar("1API_KEY"),
			want: []providerWant{{"provider/credential-env-var-name", "spec.credential.envVar"}}},
		{name: "envVar with a dash", mutate: providerEnvVar("MY-API-KEY"),
			want: []providerWant{{"provider/credential-env-var-name", "spec.credential.envVar"}}},
		{name: "envVar with a dollar sign", mutate: providerEnvVar("$API_KEY"),
			want: []providerWant{{"provider/credential-env-var-name", "spec.credential.envVar"}}},
		{name: "update fixing an invalid envVar", mutate: providerEnvVar("API_KEY"), old: providerEnvVar("API-KEY")},

		// provider/credential-file-path
		{name: "filePath absolute and clean", mutate: providerFilePath("/var/secrets/api-key")},
		{name: "filePath relative", mutate: providerFilePath("secrets/api-key"),
			want: []providerWant{{"provider/credential-file-path", "spec.credential.filePath"}}},
		{name: "filePath with ..", mutate: providerFilePath("/var/secrets/../api-key"),
			want: []providerWant{{"provider/credential-file-path", "spec.credential.filePath"}}},
		{name: "filePath with a trailing slash", mutate: providerFilePath("/var/secrets/"),
			want: []providerWant{{"provider/credential-file-path", "spec.credential.filePath"}}},
		{name: "filePath with a double slash", mutate: providerFilePath("/var//secrets/api-key"),
			want: []providerWant{{"provider/credential-file-path", "spec.credential.filePath"}}},

		// provider/defaults-timeout-duration
		{name: "timeouts are Go durations", mutate: func(p *v1alpha1.Provider) {
			p.Spec.Defaults = &v1alpha1.ProviderDefaults{RequestTimeout: "2m", StreamIdleTimeout: "30s", FirstTokenTimeout: "1m30s"}
		}},
		{name: "requestTimeout without a unit", mutate: func(p *v1alpha1.Provider) {
			p.Spec.Defaults = &v1alpha1.ProviderDefaults{RequestTimeout: "30"}
		}, want: []providerWant{{"provider/defaults-timeout-duration", "spec.defaults.requestTimeout"}}},
		{name: "streamIdleTimeout and firstTokenTimeout not durations", mutate: func(p *v1alpha1.Provider) {
			p.Spec.Defaults = &v1alpha1.ProviderDefaults{StreamIdleTimeout: "fast", FirstTokenTimeout: "90 s"}
		}, want: []providerWant{
			{"provider/defaults-timeout-duration", "spec.defaults.streamIdleTimeout"},
			{"provider/defaults-timeout-duration", "spec.defaults.firstTokenTimeout"},
		}},

		// provider/pricing-decimal
		{name: "pricing decimals", mutate: func(p *v1alpha1.Provider) {
			p.Spec.Pricing = &v1alpha1.ProviderPricing{InputCostPer1K: "0.003", OutputCostPer1K: "15", CachedCostPer1K: "0"}
		}},
		{name: "pricing with a currency sign", mutate: func(p *v1alpha1.Provider) {
			p.Spec.Pricing = &v1alpha1.ProviderPricing{InputCostPer1K: "$0.003", OutputCostPer1K: "0.015"}
		}, want: []providerWant{{"provider/pricing-decimal", "spec.pricing.inputCostPer1K"}}},
		{name: "pricing with an exponent and a sign", mutate: func(p *v1alpha1.Provider) {
			p.Spec.Pricing = &v1alpha1.ProviderPricing{InputCostPer1K: "0.003", OutputCostPer1K: "1.5e-2", CachedCostPer1K: "-0.001"}
		}, want: []providerWant{
			{"provider/pricing-decimal", "spec.pricing.outputCostPer1K"},
			{"provider/pricing-decimal", "spec.pricing.cachedCostPer1K"},
		}},

		// provider/secret-found and provider/secret-key-found
		{name: "Secret missing", facts: providerWithSecrets(nil),
			want: []providerWant{{"provider/secret-found", "spec.credential.secretRef.name"}}},
		{name: "Secret in another namespace only", facts: providerWithSecrets(map[string][]string{
			"other/anthropic-credentials": {"ANTHROPIC_API_KEY"},
		}), want: []providerWant{{"provider/secret-found", "spec.credential.secretRef.name"}}},
		{name: "auto-detect falls back to api-key", facts: providerWithSecrets(map[string][]string{
			providerTestNamespace + "/anthropic-credentials": {"api-key"},
		})},
		{name: "auto-detect finds no key for the type", facts: providerWithSecrets(map[string][]string{
			providerTestNamespace + "/anthropic-credentials": {"OPENAI_API_KEY", "token"},
		}), want: []providerWant{{"provider/secret-key-found", "spec.credential.secretRef.key"}}},
		{name: "explicit key present", mutate: func(p *v1alpha1.Provider) {
			p.Spec.Credential.SecretRef.Key = "my-key"
		}, facts: providerWithSecrets(map[string][]string{
			providerTestNamespace + "/anthropic-credentials": {"my-key"},
		})},
		{name: "explicit key missing: no other key is tried", mutate: func(p *v1alpha1.Provider) {
			p.Spec.Credential.SecretRef.Key = "my-key"
		}, want: []providerWant{{"provider/secret-key-found", "spec.credential.secretRef.key"}}},
		{name: "envVar credential needs no Secret", mutate: providerEnvVar("API_KEY"), facts: providerWithSecrets(nil)},

		// provider/placeholder-credential: the value is matched through Facts.
		{name: "a real-looking key is no placeholder", facts: providerTestFacts{
			secrets: map[string][]string{providerTestNamespace + "/anthropic-credentials": {"ANTHROPIC_API_KEY"}},
			values:  map[string]string{providerTestNamespace + "/anthropic-credentials/ANTHROPIC_API_KEY": "sk-ant-api03-Zq8vN3kR2mT7pL1x"},
		}},
		{name: "a dev-sample placeholder key", facts: providerTestFacts{
			secrets: map[string][]string{providerTestNamespace + "/anthropic-credentials": {"ANTHROPIC_API_KEY"}},
			values:  map[string]string{providerTestNamespace + "/anthropic-credentials/ANTHROPIC_API_KEY": "sk-ant-api03-..."},
		}, want: []providerWant{{"provider/placeholder-credential", "spec.credential.secretRef"}}},

		// provider/credential-required
		{name: "claude without a credential", mutate: func(p *v1alpha1.Provider) { p.Spec.Credential = nil },
			want: []providerWant{{"provider/credential-required", "spec.credential"}}},
		{name: "vllm without a credential (auth via headers)", mutate: func(p *v1alpha1.Provider) {
			p.Spec.Type, p.Spec.Credential = v1alpha1.ProviderTypeVLLM, nil
		}},
		{name: "mock without a credential", mutate: func(p *v1alpha1.Provider) {
			p.Spec.Type, p.Spec.Model, p.Spec.Credential = v1alpha1.ProviderTypeMock, "", nil
		}, facts: providerWithSecrets(nil)},
	}

	ruleTable[*v1alpha1.Provider]{kind: "Provider", prefix: "provider/", base: providerBase, facts: func() Facts { return providerBaseFacts() }}.run(t, cases)
}

// TestProviderRuleMetadata pins what each Go rule reports and when it runs.
func TestProviderRuleMetadata(t *testing.T) {
	want := map[string]struct {
		stage     Stage
		severity  Severity
		condition string
		reason    string
	}{
		"provider/base-url":                  {StageAdmission, SeverityDeny, "", ""},
		"provider/base-url-plain-http":       {StageAdmission, SeverityWarn, "", ""},
		"provider/credential-env-var-name":   {StageAdmission, SeverityWarn, "CredentialConfigured", "InvalidEnvVar"},
		"provider/credential-required":       {StageAdmission, SeverityWarn, "CredentialConfigured", "CredentialMissing"},
		"provider/placeholder-credential":    {StageReconcile, SeverityWarn, "CredentialConfigured", "PlaceholderCredential"},
		"provider/credential-file-path":      {StageAdmission, SeverityWarn, "CredentialConfigured", "InvalidFilePath"},
		"provider/defaults-timeout-duration": {StageAdmission, SeverityDeny, "", ""},
		"provider/pricing-decimal":           {StageAdmission, SeverityDeny, "", ""},
		"provider/secret-found":              {StageReconcile, SeverityWarn, "SecretFound", "SecretNotFound"},
		"provider/secret-key-found":          {StageReconcile, SeverityWarn, "SecretFound", "SecretKeyMissing"},
		"provider/auth-secret-found":         {StageReconcile, SeverityWarn, "AuthConfigured", "SecretNotFound"},
		"provider/auth-secret-keys-found":    {StageReconcile, SeverityWarn, "AuthConfigured", "SecretKeyMissing"},
	}
	for id, w := range want {
		r, ok := Default.Lookup(id)
		if !ok {
			t.Errorf("%s not registered", id)
			continue
		}
		if r.Source != SourceGo || r.Stage != w.stage || r.Severity != w.severity || r.Condition != w.condition || r.Reason != w.reason {
			t.Errorf("%s = {%s %s %s %s %s}, want {go %s %s %s %s}", id, r.Source, r.Stage, r.Severity, r.Condition, r.Reason,
				w.stage, w.severity, w.condition, w.reason)
		}
	}
	for _, r := range Default.Rules() {
		if strings.HasPrefix(r.ID, "provider/") && r.Source == SourceGo {
			if _, ok := want[r.ID]; !ok {
				t.Errorf("Go rule %s has no metadata expectation here", r.ID)
			}
		}
	}

	// Findings carry the rule's condition and reason; reconcile rules do not
	// run when only admission is asked for.
	p := providerBase()
	p.Spec.Credential = &v1alpha1.ProviderCredential{EnvVar: "BAD-NAME"}
	found := Default.Evaluate("Provider", Input{Object: p}, Options{})
	if len(found) != 1 || found[0].Condition != "CredentialConfigured" || found[0].Reason != "InvalidEnvVar" || found[0].Severity != SeverityWarn {
		t.Errorf("envVar findings = %+v", found)
	}
	missing := Default.Evaluate("Provider", Input{Object: providerBase()}, Options{Stages: []Stage{StageAdmission}})
	if len(missing) != 0 {
		t.Errorf("admission-only evaluation of a Provider whose Secret is unknown = %v, want none", missing)
	}
	missing = Default.Evaluate("Provider", Input{Object: providerBase()}, Options{Stages: []Stage{StageReconcile}})
	if len(missing) != 1 || missing[0].RuleID != "provider/secret-found" || missing[0].Reason != "SecretNotFound" {
		t.Errorf("reconcile evaluation with no Secret = %v, want provider/secret-found", missing)
	}
}

// TestProviderSchemaFindingCarriesCondition: a schema rule with a spec-named
// condition reports it (a model-less Provider that predates the CEL rule
// reports ModelValid=False, ModelMissing).
func TestProviderSchemaFindingCarriesCondition(t *testing.T) {
	sv, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	p := providerBase()
	p.Spec.Model = ""
	res, err := ValidateSchema(context.Background(), sv, toUnstructured(t, p), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 {
		t.Fatalf("findings = %v, want one", res.Findings)
	}
	f := res.Findings[0]
	if f.RuleID != "provider/model-required" || f.Field != "spec.model" || f.Condition != "ModelValid" || f.Reason != "ModelMissing" {
		t.Errorf("finding = %+v", f)
	}
}

func TestProviderSecretKey(t *testing.T) {
	cases := []struct {
		typ        v1alpha1.ProviderType
		key        string // spec.credential.secretRef.key
		keys       []string
		want       string
		ok         bool
		candidates []string
	}{
		{typ: "claude", keys: []string{"api-key", "CLAUDE_API_KEY", "ANTHROPIC_API_KEY"}, want: "ANTHROPIC_API_KEY", ok: true,
			candidates: []string{"ANTHROPIC_API_KEY", "CLAUDE_API_KEY", "api-key"}},
		{typ: "claude", keys: []string{"api-key", "CLAUDE_API_KEY"}, want: "CLAUDE_API_KEY", ok: true,
			candidates: []string{"ANTHROPIC_API_KEY", "CLAUDE_API_KEY", "api-key"}},
		{typ: "claude", keys: []string{"api-key"}, want: "api-key", ok: true,
			candidates: []string{"ANTHROPIC_API_KEY", "CLAUDE_API_KEY", "api-key"}},
		{typ: "claude", keys: []string{"OPENAI_API_KEY"},
			candidates: []string{"ANTHROPIC_API_KEY", "CLAUDE_API_KEY", "api-key"}},
		{typ: "openai", keys: []string{"api-key", "OPENAI_TOKEN"}, want: "OPENAI_TOKEN", ok: true,
			candidates: []string{"OPENAI_API_KEY", "OPENAI_TOKEN", "api-key"}},
		{typ: "openai", keys: []string{"OPENAI_TOKEN", "OPENAI_API_KEY"}, want: "OPENAI_API_KEY", ok: true,
			candidates: []string{"OPENAI_API_KEY", "OPENAI_TOKEN", "api-key"}},
		{typ: "openai", keys: []string{"ANTHROPIC_API_KEY"},
			candidates: []string{"OPENAI_API_KEY", "OPENAI_TOKEN", "api-key"}},
		{typ: "gemini", keys: []string{"GOOGLE_API_KEY", "GEMINI_API_KEY"}, want: "GEMINI_API_KEY", ok: true,
			candidates: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "api-key"}},
		{typ: "gemini", keys: []string{"api-key", "GOOGLE_API_KEY"}, want: "GOOGLE_API_KEY", ok: true,
			candidates: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "api-key"}},
		{typ: "voyageai", keys: []string{"api-key", "VOYAGE_API_KEY"}, want: "VOYAGE_API_KEY", ok: true,
			candidates: []string{"VOYAGE_API_KEY", "api-key"}},
		{typ: "voyageai", keys: []string{"OPENAI_API_KEY"}, candidates: []string{"VOYAGE_API_KEY", "api-key"}},
		{typ: "cohere", keys: []string{"api-key", "COHERE_API_KEY"}, want: "COHERE_API_KEY", ok: true,
			candidates: []string{"COHERE_API_KEY", "api-key"}},
		{typ: "cohere", keys: []string{"api-key"}, want: "api-key", ok: true, candidates: []string{"COHERE_API_KEY", "api-key"}},
		{typ: "huggingface", keys: []string{"api-key", "HF_TOKEN"}, want: "HF_TOKEN", ok: true,
			candidates: []string{"HF_TOKEN", "api-key"}},
		{typ: "huggingface", keys: []string{"HUGGINGFACE_TOKEN"}, candidates: []string{"HF_TOKEN", "api-key"}},
		// Any other type tries api-key only: another vendor's key is never sent.
		{typ: "ollama", keys: []string{"OPENAI_API_KEY", "api-key"}, want: "api-key", ok: true, candidates: []string{"api-key"}},
		{typ: "vllm", keys: []string{"OPENAI_API_KEY"}, candidates: []string{"api-key"}},
		{typ: "mock", keys: []string{"api-key"}, want: "api-key", ok: true, candidates: []string{"api-key"}},
		{typ: "cartesia", keys: []string{"CARTESIA_API_KEY"}, candidates: []string{"api-key"}},
		{typ: "elevenlabs", keys: []string{"api-key"}, want: "api-key", ok: true, candidates: []string{"api-key"}},
		{typ: "imagen", keys: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}, candidates: []string{"api-key"}},
		// An explicit key is used exactly.
		{typ: "claude", key: "my-key", keys: []string{"ANTHROPIC_API_KEY", "my-key"}, want: "my-key", ok: true,
			candidates: []string{"my-key"}},
		{typ: "claude", key: "my-key", keys: []string{"ANTHROPIC_API_KEY", "api-key"}, candidates: []string{"my-key"}},
		{typ: "vllm", key: "TOKEN", keys: []string{"TOKEN"}, want: "TOKEN", ok: true, candidates: []string{"TOKEN"}},
		{typ: "openai", keys: nil, candidates: []string{"OPENAI_API_KEY", "OPENAI_TOKEN", "api-key"}},
	}
	for _, tc := range cases {
		name := string(tc.typ) + "/" + tc.key + "/" + strings.Join(tc.keys, ",")
		t.Run(name, func(t *testing.T) {
			p := providerBase()
			p.Spec.Type = tc.typ
			p.Spec.Credential.SecretRef.Key = tc.key
			key, ok, candidates := ProviderSecretKey(p, tc.keys)
			if key != tc.want || ok != tc.ok || !slices.Equal(candidates, tc.candidates) {
				t.Errorf("ProviderSecretKey = (%q, %v, %v), want (%q, %v, %v)", key, ok, candidates, tc.want, tc.ok, tc.candidates)
			}
		})
	}

	t.Run("every type is covered", func(t *testing.T) {
		tested := map[v1alpha1.ProviderType]bool{}
		for _, tc := range cases {
			tested[tc.typ] = true
		}
		for _, typ := range []v1alpha1.ProviderType{"claude", "openai", "gemini", "vllm", "voyageai", "cohere", "cartesia",
			"elevenlabs", "imagen", "huggingface", "ollama", "mock"} {
			if !tested[typ] {
				t.Errorf("type %s has no ProviderSecretKey case", typ)
			}
		}
	})

	t.Run("no credential block: the type's keys", func(t *testing.T) {
		p := providerBase()
		p.Spec.Credential = nil
		key, ok, _ := ProviderSecretKey(p, []string{"CLAUDE_API_KEY"})
		if key != "CLAUDE_API_KEY" || !ok {
			t.Errorf("got (%q, %v)", key, ok)
		}
	})

	t.Run("nil provider", func(t *testing.T) {
		key, ok, candidates := ProviderSecretKey(nil, []string{"api-key"})
		if key != "" || ok || candidates != nil {
			t.Errorf("got (%q, %v, %v)", key, ok, candidates)
		}
	})

	t.Run("candidates are the caller's own", func(t *testing.T) {
		_, _, c := ProviderSecretKey(providerBase(), nil)
		c[0] = "CHANGED"
		_, _, again := ProviderSecretKey(providerBase(), nil)
		if again[0] != "ANTHROPIC_API_KEY" {
			t.Errorf("modifying returned candidates changed the table: %v", again)
		}
	})
}
