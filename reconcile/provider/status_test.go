package provider

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
)

// testFacts answers Secret lookups from a map keyed by Secret name, and
// value predicates from values keyed by "<secret>/<key>".
type testFacts struct {
	rules.NoFacts
	secrets map[string][]string
	values  map[string][]byte
}

func (f testFacts) SecretValueMatches(_, name, key string, match func([]byte) (string, bool)) (string, bool) {
	v, ok := f.values[name+"/"+key]
	if !ok {
		return "", false
	}
	return match(v)
}

func (f testFacts) SecretKeys(_, name string) ([]string, bool) {
	keys, ok := f.secrets[name]
	return keys, ok
}

var t0 = metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))

func at(d time.Duration) metav1.Time { return metav1.NewTime(t0.Add(d)) }

// claude is a valid claude Provider reading its key from Secret "creds".
func claude(mutate ...func(*v1alpha1.Provider)) *v1alpha1.Provider {
	p := &v1alpha1.Provider{
		ObjectMeta: metav1.ObjectMeta{Name: "claude", Namespace: "agents", Generation: 3},
		Spec: v1alpha1.ProviderSpec{
			Type:       v1alpha1.ProviderTypeClaude,
			Role:       v1alpha1.ProviderRoleLLM,
			Model:      "claude-sonnet-4-20250514",
			Credential: &v1alpha1.ProviderCredential{SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: "creds"}},
		},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

func withCredential(c *v1alpha1.ProviderCredential) func(*v1alpha1.Provider) {
	return func(p *v1alpha1.Provider) { p.Spec.Credential = c }
}

func withBedrock(p *v1alpha1.Provider) {
	p.Spec.Credential = nil
	p.Spec.Platform = &v1alpha1.ProviderPlatform{Type: v1alpha1.ProviderPlatformTypeBedrock, Region: "us-east-1"}
	p.Spec.Auth = &v1alpha1.ProviderAuth{Type: v1alpha1.ProviderAuthTypeWorkloadIdentity}
}

// findings evaluates the real rules on p with the given Secrets.
func findings(t *testing.T, p *v1alpha1.Provider, secrets map[string][]string) findingGroups {
	t.Helper()
	return findingsWith(t, p, testFacts{secrets: secrets})
}

func findingsWith(t *testing.T, p *v1alpha1.Provider, facts testFacts) findingGroups {
	t.Helper()
	sv, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Evaluate(context.Background(), sv, p, facts)
	if err != nil {
		t.Fatal(err)
	}
	return groupFindings(fs)
}

var credsWithKey = map[string][]string{"creds": {"ANTHROPIC_API_KEY"}}

type wantCond struct {
	absent bool
	status metav1.ConditionStatus
	reason string
	msg    []string // substrings of the message
}

func checkCond(t *testing.T, conds []metav1.Condition, typ string, w wantCond) {
	t.Helper()
	c := meta.FindStatusCondition(conds, typ)
	if w.absent {
		if c != nil {
			t.Fatalf("%s should be absent, got %+v", typ, *c)
		}
		return
	}
	if c == nil {
		t.Fatalf("%s missing from %+v", typ, conds)
	}
	if c.Status != w.status || c.Reason != w.reason {
		t.Fatalf("%s = %s/%s (%s), want %s/%s", typ, c.Status, c.Reason, c.Message, w.status, w.reason)
	}
	for _, m := range w.msg {
		if !strings.Contains(c.Message, m) {
			t.Fatalf("%s message %q lacks %q", typ, c.Message, m)
		}
	}
	if c.LastTransitionTime.IsZero() {
		t.Fatalf("%s has no lastTransitionTime", typ)
	}
}

// stale is a status holding every condition, to prove a setter removes its
// condition where the spec says it is not set.
func stale() v1alpha1.ProviderStatus {
	var st v1alpha1.ProviderStatus
	for _, typ := range []string{v1alpha1.ProviderConditionSecretFound, v1alpha1.ProviderConditionCredentialConfigured, v1alpha1.ProviderConditionCredentialValid, v1alpha1.ProviderConditionEndpointReachable, v1alpha1.ProviderConditionAuthConfigured} {
		st.Conditions = append(st.Conditions, metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: "Stale", LastTransitionTime: t0})
	}
	return st
}

func TestSetSecretFoundCondition(t *testing.T) {
	tests := []struct {
		name    string
		p       *v1alpha1.Provider
		secrets map[string][]string
		key     string
		want    wantCond
	}{
		{name: "no secretRef: absent", p: claude(withCredential(&v1alpha1.ProviderCredential{EnvVar: "ANTHROPIC_API_KEY"})), want: wantCond{absent: true}},
		{name: "no credential: absent", p: claude(withCredential(nil)), want: wantCond{absent: true}},
		{name: "Secret and key found", p: claude(), secrets: credsWithKey, key: "ANTHROPIC_API_KEY",
			want: wantCond{status: metav1.ConditionTrue, reason: v1alpha1.ProviderReasonSecretKeyFound, msg: []string{`"creds"`, `"ANTHROPIC_API_KEY"`}}},
		{name: "SecretNotFound", p: claude(),
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonSecretNotFound, msg: []string{"[provider/secret-found]", `"creds"`}}},
		{name: "SecretKeyMissing: none of the type's keys", p: claude(), secrets: map[string][]string{"creds": {"OPENAI_API_KEY"}},
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonSecretKeyMissing, msg: []string{"ANTHROPIC_API_KEY, CLAUDE_API_KEY, api-key"}}},
		{name: "SecretKeyMissing: explicit key used exactly",
			p:       claude(withCredential(&v1alpha1.ProviderCredential{SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: "creds", Key: "token"}})),
			secrets: credsWithKey,
			want:    wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonSecretKeyMissing, msg: []string{`no key "token"`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := stale()
			setSecretFoundCondition(&st, tt.p, findings(t, tt.p, tt.secrets).secretFound, tt.key, t0)
			checkCond(t, st.Conditions, v1alpha1.ProviderConditionSecretFound, tt.want)
		})
	}
}

func TestSetCredentialConfiguredCondition(t *testing.T) {
	tests := []struct {
		name    string
		p       *v1alpha1.Provider
		secrets map[string][]string
		values  map[string][]byte // "<secret>/<key>" -> value
		key     string
		want    wantCond
	}{
		{name: "no credential on a type that needs none: absent", p: claude(withCredential(nil), func(p *v1alpha1.Provider) { p.Spec.Type = v1alpha1.ProviderTypeOllama }),
			want: wantCond{absent: true}},
		{name: "no credential on claude: CredentialMissing", p: claude(withCredential(nil)),
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonCredentialMissing, msg: []string{"[provider/credential-required]"}}},
		{name: "secretRef: the key found is named", p: claude(), secrets: credsWithKey, key: "ANTHROPIC_API_KEY",
			want: wantCond{status: metav1.ConditionTrue, reason: v1alpha1.ProviderReasonSecretRefConfigured, msg: []string{`key "ANTHROPIC_API_KEY"`, `Secret "creds"`}}},
		{name: "PlaceholderCredential", p: claude(), secrets: credsWithKey, key: "ANTHROPIC_API_KEY", values: map[string][]byte{"creds/ANTHROPIC_API_KEY": []byte("  ")},
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonPlaceholderCredential, msg: []string{`"ANTHROPIC_API_KEY"`, "pattern empty"}}},
		{name: "Secret missing: SecretNotFound", p: claude(),
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonSecretNotFound}},
		{name: "key missing: SecretKeyMissing", p: claude(), secrets: map[string][]string{"creds": {"x"}},
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonSecretKeyMissing}},
		{name: "EnvVarConfigured", p: claude(withCredential(&v1alpha1.ProviderCredential{EnvVar: "ANTHROPIC_API_KEY"})),
			want: wantCond{status: metav1.ConditionTrue, reason: v1alpha1.ProviderReasonEnvVarConfigured, msg: []string{"ANTHROPIC_API_KEY"}}},
		{name: "InvalidEnvVar", p: claude(withCredential(&v1alpha1.ProviderCredential{EnvVar: "MY-KEY"})),
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonInvalidEnvVar, msg: []string{"[provider/credential-env-var-name]"}}},
		{name: "FilePathConfigured", p: claude(withCredential(&v1alpha1.ProviderCredential{FilePath: "/var/secrets/api-key"})),
			want: wantCond{status: metav1.ConditionTrue, reason: v1alpha1.ProviderReasonFilePathConfigured, msg: []string{"/var/secrets/api-key"}}},
		{name: "InvalidFilePath", p: claude(withCredential(&v1alpha1.ProviderCredential{FilePath: "secrets/key"})),
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonInvalidFilePath, msg: []string{"[provider/credential-file-path]"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := stale()
			setCredentialConfiguredCondition(&st, tt.p, findingsWith(t, tt.p, testFacts{secrets: tt.secrets, values: tt.values}), tt.key, t0)
			checkCond(t, st.Conditions, v1alpha1.ProviderConditionCredentialConfigured, tt.want)
		})
	}
}

func TestSetCredentialValidCondition(t *testing.T) {
	vllm := func(p *v1alpha1.Provider) {
		p.Spec.Type = v1alpha1.ProviderTypeVLLM
		p.Spec.BaseURL = "http://vllm:8000"
	}
	platformWithCredential := func(p *v1alpha1.Provider) {
		withBedrock(p)
		p.Spec.Credential = &v1alpha1.ProviderCredential{SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: "creds"}}
	}
	tests := []struct {
		name    string
		p       *v1alpha1.Provider
		usable  bool
		outcome *ProbeOutcome
		want    wantCond
	}{
		{name: "no credential: absent", p: claude(withCredential(nil)), want: wantCond{absent: true}},
		{name: "envVar: ValidationNotSupported", p: claude(withCredential(&v1alpha1.ProviderCredential{EnvVar: "K"})),
			want: wantCond{status: metav1.ConditionUnknown, reason: v1alpha1.ProviderReasonValidationNotSupported}},
		{name: "filePath: ValidationNotSupported", p: claude(withCredential(&v1alpha1.ProviderCredential{FilePath: "/k"})),
			want: wantCond{status: metav1.ConditionUnknown, reason: v1alpha1.ProviderReasonValidationNotSupported}},
		{name: "type without a probe: ValidationNotSupported", p: claude(vllm), usable: true,
			want: wantCond{status: metav1.ConditionUnknown, reason: v1alpha1.ProviderReasonValidationNotSupported, msg: []string{"vllm"}}},
		{name: "platform-hosted: ValidationNotSupported", p: claude(platformWithCredential), usable: true,
			want: wantCond{status: metav1.ConditionUnknown, reason: v1alpha1.ProviderReasonValidationNotSupported}},
		{name: "credential not usable: absent", p: claude(), usable: false, want: wantCond{absent: true}},
		{name: "CredentialAccepted on 200", p: claude(), usable: true, outcome: &ProbeOutcome{StatusCode: 200, Detail: "GET x answered HTTP 200"},
			want: wantCond{status: metav1.ConditionTrue, reason: v1alpha1.ProviderReasonCredentialAccepted, msg: []string{"HTTP 200"}}},
		{name: "CredentialRejected on 401", p: claude(), usable: true, outcome: &ProbeOutcome{StatusCode: 401, Detail: "GET x answered HTTP 401"},
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonCredentialRejected, msg: []string{"HTTP 401"}}},
		{name: "CredentialRejected on 403", p: claude(), usable: true, outcome: &ProbeOutcome{StatusCode: 403, Detail: "GET x answered HTTP 403"},
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonCredentialRejected}},
		{name: "CredentialValidationError on 500", p: claude(), usable: true, outcome: &ProbeOutcome{StatusCode: 500, Detail: "GET x answered HTTP 500"},
			want: wantCond{status: metav1.ConditionUnknown, reason: v1alpha1.ProviderReasonCredentialValidationError, msg: []string{"HTTP 500"}}},
		{name: "CredentialValidationError on a timeout", p: claude(), usable: true, outcome: &ProbeOutcome{Failure: v1alpha1.ProviderReasonProbeTimeout, Detail: "deadline"},
			want: wantCond{status: metav1.ConditionUnknown, reason: v1alpha1.ProviderReasonCredentialValidationError}},
		{name: "withheld by the egress policy: its reason", p: claude(), usable: true,
			outcome: &ProbeOutcome{Withheld: v1alpha1.ProviderReasonCredentialProbeHostNotAllowed, Detail: "the credential is not sent: evil.example:443 is neither"},
			want:    wantCond{status: metav1.ConditionUnknown, reason: v1alpha1.ProviderReasonCredentialProbeHostNotAllowed, msg: []string{"evil.example:443"}}},
		{name: "egress off", p: claude(), usable: true, outcome: &ProbeOutcome{Withheld: v1alpha1.ProviderReasonCredentialProbeDisabled, Detail: "off"},
			want: wantCond{status: metav1.ConditionUnknown, reason: v1alpha1.ProviderReasonCredentialProbeDisabled}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := stale()
			setCredentialValidCondition(&st, tt.p, tt.usable, tt.outcome, t0)
			checkCond(t, st.Conditions, v1alpha1.ProviderConditionCredentialValid, tt.want)
		})
	}
}

func TestSetEndpointReachableCondition(t *testing.T) {
	tests := []struct {
		name    string
		outcome *ProbeOutcome
		want    wantCond
	}{
		{name: "nothing to probe: absent", want: wantCond{absent: true}},
		{name: "HTTP 404 is reachable", outcome: &ProbeOutcome{StatusCode: 404, Detail: "GET x answered HTTP 404"},
			want: wantCond{status: metav1.ConditionTrue, reason: v1alpha1.ProviderReasonEndpointResponded, msg: []string{"404"}}},
		{name: "ConnectionFailed", outcome: &ProbeOutcome{Failure: v1alpha1.ProviderReasonConnectionFailed, Detail: "connection refused"},
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonConnectionFailed, msg: []string{"connection refused"}}},
		{name: "DNSLookupFailed", outcome: &ProbeOutcome{Failure: v1alpha1.ProviderReasonDNSLookupFailed, Detail: "no such host"},
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonDNSLookupFailed}},
		{name: "ProbeTimeout", outcome: &ProbeOutcome{Failure: v1alpha1.ProviderReasonProbeTimeout, Detail: "deadline exceeded"},
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonProbeTimeout}},
		{name: "InvalidEndpoint", outcome: &ProbeOutcome{Failure: v1alpha1.ProviderReasonInvalidEndpoint, Detail: "not a URL"},
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonInvalidEndpoint}},
		{name: "AddressNotAllowed", outcome: &ProbeOutcome{Failure: v1alpha1.ProviderReasonAddressNotAllowed, Detail: "address 169.254.169.254:80 is not dialled"},
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonAddressNotAllowed}},
		{name: "withheld: Unknown with the policy's reason", outcome: &ProbeOutcome{Withheld: v1alpha1.ProviderReasonCredentialProbeInsecure, Detail: "not checked"},
			want: wantCond{status: metav1.ConditionUnknown, reason: v1alpha1.ProviderReasonCredentialProbeInsecure}},
		{name: "egress off", outcome: &ProbeOutcome{Withheld: v1alpha1.ProviderReasonEndpointProbeDisabled, Detail: "off"},
			want: wantCond{status: metav1.ConditionUnknown, reason: v1alpha1.ProviderReasonEndpointProbeDisabled}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := stale()
			setEndpointReachableCondition(&st, 1, tt.outcome, t0)
			checkCond(t, st.Conditions, v1alpha1.ProviderConditionEndpointReachable, tt.want)
		})
	}

	t.Run("lastTransitionTime records when failures began", func(t *testing.T) {
		var st v1alpha1.ProviderStatus
		setEndpointReachableCondition(&st, 1, &ProbeOutcome{Failure: v1alpha1.ProviderReasonConnectionFailed, Detail: "refused"}, t0)
		setEndpointReachableCondition(&st, 1, &ProbeOutcome{Failure: v1alpha1.ProviderReasonProbeTimeout, Detail: "timeout"}, at(time.Minute))
		c := meta.FindStatusCondition(st.Conditions, v1alpha1.ProviderConditionEndpointReachable)
		if !c.LastTransitionTime.Equal(&t0) || c.Reason != v1alpha1.ProviderReasonProbeTimeout {
			t.Fatalf("got %+v", *c)
		}
	})
}

// TestSetPendingCondition: before a probe's first result, the condition
// stored for this generation stands (a restart or a Secret edit does not
// turn a rejected credential Unknown, nor restart the endpoint grace); one
// from another generation, or none, becomes Unknown/ProbePending.
func TestSetPendingCondition(t *testing.T) {
	failing := metav1.Condition{Type: v1alpha1.ProviderConditionEndpointReachable, Status: metav1.ConditionFalse, Reason: v1alpha1.ProviderReasonConnectionFailed, ObservedGeneration: 2, LastTransitionTime: t0}
	tests := []struct {
		name   string
		stored []metav1.Condition
		want   wantCond
	}{
		{"none stored", nil, wantCond{status: metav1.ConditionUnknown, reason: v1alpha1.ProviderReasonProbePending, msg: []string{"not been probed yet"}}},
		{"stored for this generation", []metav1.Condition{failing}, wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonConnectionFailed}},
		{"stored for another generation", []metav1.Condition{func() metav1.Condition { c := failing; c.ObservedGeneration = 1; return c }()},
			wantCond{status: metav1.ConditionUnknown, reason: v1alpha1.ProviderReasonProbePending}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := v1alpha1.ProviderStatus{Conditions: tt.stored}
			setPendingCondition(&st, v1alpha1.ProviderConditionEndpointReachable, 2, "the endpoint has not been probed yet", at(time.Minute))
			checkCond(t, st.Conditions, v1alpha1.ProviderConditionEndpointReachable, tt.want)
			if c := meta.FindStatusCondition(st.Conditions, v1alpha1.ProviderConditionEndpointReachable); tt.name == "stored for this generation" && !c.LastTransitionTime.Equal(&t0) {
				t.Errorf("lastTransitionTime moved to %v", c.LastTransitionTime)
			}
		})
	}
}

func TestSetAuthConfiguredCondition(t *testing.T) {
	tests := []struct {
		name     string
		p        *v1alpha1.Provider
		findings []rules.Finding
		want     wantCond
	}{
		{name: "not platform-hosted: absent", p: claude(), want: wantCond{absent: true}},
		{name: "platform-hosted", p: claude(withBedrock),
			want: wantCond{status: metav1.ConditionTrue, reason: v1alpha1.ProviderReasonPlatformAuthConfigured, msg: []string{"workloadIdentity", "bedrock"}}},
		{name: "a platform or auth finding: InvalidAuth", p: claude(withBedrock),
			findings: []rules.Finding{{RuleID: "provider/platform-auth", Field: "spec.auth.type", Message: "not allowed"}},
			want:     wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonInvalidAuth, msg: []string{"[provider/platform-auth] spec.auth.type"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := stale()
			setAuthConfiguredCondition(&st, tt.p, groupFindings(tt.findings).authConfigured, t0)
			checkCond(t, st.Conditions, v1alpha1.ProviderConditionAuthConfigured, tt.want)
		})
	}
}

func TestSetModelValidCondition(t *testing.T) {
	noModel := func(p *v1alpha1.Provider) { p.Spec.Model = "" }
	mock := func(p *v1alpha1.Provider) {
		p.Spec.Type = v1alpha1.ProviderTypeMock
		p.Spec.Credential = nil
		p.Spec.Model = ""
	}
	openaiEmbedding := func(p *v1alpha1.Provider) {
		p.Spec.Type, p.Spec.Role, p.Spec.Model = v1alpha1.ProviderTypeOpenAI, v1alpha1.ProviderRoleEmbedding, ""
	}
	tests := []struct {
		name string
		p    *v1alpha1.Provider
		want wantCond
	}{
		{name: "ModelSet", p: claude(), want: wantCond{status: metav1.ConditionTrue, reason: v1alpha1.ProviderReasonModelSet, msg: []string{"claude-sonnet-4-20250514"}}},
		{name: "mock needs none", p: claude(mock), want: wantCond{status: metav1.ConditionTrue, reason: v1alpha1.ProviderReasonModelNotRequired}},
		{name: "ModelMissing suggests the type's models", p: claude(noModel),
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonModelMissing, msg: []string{"[provider/model-required] spec.model", "claude-sonnet-4-20250514"}}},
		{name: "ModelMissing suggests the role's models", p: claude(openaiEmbedding),
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonModelMissing, msg: []string{"text-embedding-3-small"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := stale()
			setModelValidCondition(&st, tt.p, findings(t, tt.p, credsWithKey).modelValid, t0)
			checkCond(t, st.Conditions, v1alpha1.ProviderConditionModelValid, tt.want)
		})
	}
}

func cond(typ string, status metav1.ConditionStatus, reason string, since metav1.Time) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: reason + " message", LastTransitionTime: since}
}

func TestSetReadyConditionAndPhase(t *testing.T) {
	const grace = 5 * time.Minute
	ok := []metav1.Condition{
		cond(v1alpha1.ProviderConditionCredentialValid, metav1.ConditionTrue, v1alpha1.ProviderReasonCredentialAccepted, t0),
		cond(v1alpha1.ProviderConditionCredentialConfigured, metav1.ConditionTrue, v1alpha1.ProviderReasonSecretRefConfigured, t0),
		cond(v1alpha1.ProviderConditionModelValid, metav1.ConditionTrue, v1alpha1.ProviderReasonModelSet, t0),
	}
	with := func(extra ...metav1.Condition) []metav1.Condition {
		out := append([]metav1.Condition(nil), ok...)
		for _, e := range extra {
			if c := meta.FindStatusCondition(out, e.Type); c != nil {
				*c = e
			} else {
				out = append(out, e)
			}
		}
		return out
	}
	endpointDown := cond(v1alpha1.ProviderConditionEndpointReachable, metav1.ConditionFalse, v1alpha1.ProviderReasonConnectionFailed, t0)
	tests := []struct {
		name      string
		conds     []metav1.Condition
		other     []rules.Finding
		now       metav1.Time
		want      wantCond
		wantPhase v1alpha1.ProviderPhase
	}{
		{name: "all True: ProviderReady", conds: with(cond(v1alpha1.ProviderConditionEndpointReachable, metav1.ConditionTrue, v1alpha1.ProviderReasonEndpointResponded, t0)),
			want: wantCond{status: metav1.ConditionTrue, reason: v1alpha1.ProviderReasonProviderReady}, wantPhase: v1alpha1.ProviderPhaseReady},
		{name: "no credential conditions (mock): ProviderReady", conds: []metav1.Condition{cond(v1alpha1.ProviderConditionModelValid, metav1.ConditionTrue, v1alpha1.ProviderReasonModelNotRequired, t0)},
			want: wantCond{status: metav1.ConditionTrue, reason: v1alpha1.ProviderReasonProviderReady}, wantPhase: v1alpha1.ProviderPhaseReady},
		{name: "CredentialValid Unknown (envVar) does not block", conds: with(cond(v1alpha1.ProviderConditionCredentialValid, metav1.ConditionUnknown, v1alpha1.ProviderReasonValidationNotSupported, t0)),
			want: wantCond{status: metav1.ConditionTrue, reason: v1alpha1.ProviderReasonProviderReady}, wantPhase: v1alpha1.ProviderPhaseReady},
		{name: "CredentialRejected", conds: with(cond(v1alpha1.ProviderConditionCredentialValid, metav1.ConditionFalse, v1alpha1.ProviderReasonCredentialRejected, t0)),
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonCredentialRejected, msg: []string{"CredentialValid: "}}, wantPhase: v1alpha1.ProviderPhaseError},
		{name: "CredentialConfigured False: SecretNotFound", conds: with(cond(v1alpha1.ProviderConditionCredentialConfigured, metav1.ConditionFalse, v1alpha1.ProviderReasonSecretNotFound, t0)),
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonSecretNotFound}, wantPhase: v1alpha1.ProviderPhaseError},
		{name: "PlaceholderCredential", conds: with(cond(v1alpha1.ProviderConditionCredentialConfigured, metav1.ConditionFalse, v1alpha1.ProviderReasonPlaceholderCredential, t0)),
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonPlaceholderCredential}, wantPhase: v1alpha1.ProviderPhaseError},
		{name: "ModelMissing", conds: with(cond(v1alpha1.ProviderConditionModelValid, metav1.ConditionFalse, v1alpha1.ProviderReasonModelMissing, t0)),
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonModelMissing}, wantPhase: v1alpha1.ProviderPhaseError},
		{name: "AuthConfigured False", conds: with(cond(v1alpha1.ProviderConditionAuthConfigured, metav1.ConditionFalse, v1alpha1.ProviderReasonInvalidAuth, t0)),
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonInvalidAuth}, wantPhase: v1alpha1.ProviderPhaseError},
		{name: "first failing in order: CredentialValid before ModelValid",
			conds: with(cond(v1alpha1.ProviderConditionModelValid, metav1.ConditionFalse, v1alpha1.ProviderReasonModelMissing, t0), cond(v1alpha1.ProviderConditionCredentialValid, metav1.ConditionFalse, v1alpha1.ProviderReasonCredentialRejected, t0)),
			want:  wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonCredentialRejected}, wantPhase: v1alpha1.ProviderPhaseError},
		{name: "a finding naming no condition: InvalidSpec", conds: ok,
			other: []rules.Finding{{RuleID: "provider/defaults-timeout-duration", Field: "spec.defaults.requestTimeout", Message: "must be a Go duration"}},
			want:  wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonInvalidSpec, msg: []string{"[provider/defaults-timeout-duration]"}}, wantPhase: v1alpha1.ProviderPhaseError},
		{name: "endpoint failing 1m: EndpointProbeFailing", conds: with(endpointDown), now: at(time.Minute),
			want:      wantCond{status: metav1.ConditionTrue, reason: v1alpha1.ProviderReasonEndpointProbeFailing, msg: []string{v1alpha1.ProviderReasonConnectionFailed, "since 2026-01-02T03:04:05Z"}},
			wantPhase: v1alpha1.ProviderPhaseReady},
		{name: "endpoint failing exactly 5m: still in grace", conds: with(endpointDown), now: at(grace),
			want: wantCond{status: metav1.ConditionTrue, reason: v1alpha1.ProviderReasonEndpointProbeFailing}, wantPhase: v1alpha1.ProviderPhaseReady},
		{name: "endpoint failing more than 5m: Unavailable", conds: with(endpointDown), now: at(grace + time.Second),
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonConnectionFailed, msg: []string{"EndpointReachable: "}}, wantPhase: v1alpha1.ProviderPhaseUnavailable},
		{name: "a configuration error wins over an unavailable endpoint",
			conds: with(endpointDown, cond(v1alpha1.ProviderConditionCredentialValid, metav1.ConditionFalse, v1alpha1.ProviderReasonCredentialRejected, t0)), now: at(time.Hour),
			want: wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonCredentialRejected}, wantPhase: v1alpha1.ProviderPhaseError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := tt.now
			if now.IsZero() {
				now = t0
			}
			st := v1alpha1.ProviderStatus{Conditions: tt.conds}
			setReadyCondition(&st, 1, tt.other, now, grace)
			checkCond(t, st.Conditions, v1alpha1.ProviderConditionReady, tt.want)
			setPhase(&st, 1, tt.other, now, grace)
			if st.Phase != tt.wantPhase {
				t.Fatalf("phase %s, want %s", st.Phase, tt.wantPhase)
			}
		})
	}
}

// TestComputeStatusGrace walks the endpoint grace with a moving clock: Ready
// stays True (EndpointProbeFailing) for 5 minutes of failures, then the
// Provider is Unavailable, and it recovers when the endpoint answers.
func TestComputeStatusGrace(t *testing.T) {
	p := claude(func(p *v1alpha1.Provider) {
		p.Spec.Type = v1alpha1.ProviderTypeOllama
		p.Spec.Credential = nil
		p.Spec.Model = "llama3:8b"
	})
	obs := func(endpoint ProbeOutcome) observation {
		return observation{findings: nil, endpoint: &endpoint}
	}
	up := ProbeOutcome{StatusCode: 200, Detail: "GET x answered HTTP 200"}
	down := ProbeOutcome{Failure: v1alpha1.ProviderReasonConnectionFailed, Detail: "connection refused"}

	step := func(d time.Duration, o ProbeOutcome, wantReady metav1.ConditionStatus, wantReason string, wantPhase v1alpha1.ProviderPhase) {
		t.Helper()
		p.Status = computeStatus(p, obs(o), at(d), 5*time.Minute)
		c := meta.FindStatusCondition(p.Status.Conditions, v1alpha1.ProviderConditionReady)
		if c.Status != wantReady || c.Reason != wantReason || p.Status.Phase != wantPhase {
			t.Fatalf("at +%s: Ready %s/%s phase %s; want %s/%s %s", d, c.Status, c.Reason, p.Status.Phase, wantReady, wantReason, wantPhase)
		}
	}
	step(0, up, metav1.ConditionTrue, v1alpha1.ProviderReasonProviderReady, v1alpha1.ProviderPhaseReady)
	step(time.Minute, down, metav1.ConditionTrue, v1alpha1.ProviderReasonEndpointProbeFailing, v1alpha1.ProviderPhaseReady)
	step(3*time.Minute, down, metav1.ConditionTrue, v1alpha1.ProviderReasonEndpointProbeFailing, v1alpha1.ProviderPhaseReady)
	step(6*time.Minute, down, metav1.ConditionTrue, v1alpha1.ProviderReasonEndpointProbeFailing, v1alpha1.ProviderPhaseReady)
	step(6*time.Minute+time.Second, down, metav1.ConditionFalse, v1alpha1.ProviderReasonConnectionFailed, v1alpha1.ProviderPhaseUnavailable)
	step(7*time.Minute, up, metav1.ConditionTrue, v1alpha1.ProviderReasonProviderReady, v1alpha1.ProviderPhaseReady)
	// A new outage starts a new grace.
	step(8*time.Minute, down, metav1.ConditionTrue, v1alpha1.ProviderReasonEndpointProbeFailing, v1alpha1.ProviderPhaseReady)
}

// TestComputeStatusStable: computing again from an unchanged observation
// changes nothing, so the controller writes nothing.
func TestComputeStatusStable(t *testing.T) {
	p := claude(func(p *v1alpha1.Provider) { p.Spec.BaseURL = "http://vendor" })
	sv, _ := schema.Default()
	fs, _ := Evaluate(context.Background(), sv, p, testFacts{secrets: credsWithKey})
	o := observation{
		findings:   fs,
		secretKey:  "ANTHROPIC_API_KEY",
		credential: &ProbeOutcome{StatusCode: 200, Detail: "ok"},
		endpoint:   &ProbeOutcome{Failure: v1alpha1.ProviderReasonConnectionFailed, Detail: "refused"},
	}
	p.Status = computeStatus(p, o, t0, 5*time.Minute)
	again := computeStatus(p, o, at(time.Minute), 5*time.Minute)
	if !equality.Semantic.DeepEqual(p.Status, again) {
		t.Fatalf("status changed:\n%+v\n%+v", p.Status, again)
	}
	if p.Status.ObservedGeneration != 3 {
		t.Fatalf("observedGeneration %d", p.Status.ObservedGeneration)
	}
	for _, c := range p.Status.Conditions {
		if c.ObservedGeneration != 3 {
			t.Fatalf("%s observedGeneration %d", c.Type, c.ObservedGeneration)
		}
	}
}

// TestComputeStatusKinds checks which conditions each kind of Provider gets.
func TestComputeStatusKinds(t *testing.T) {
	all := []string{v1alpha1.ProviderConditionReady, v1alpha1.ProviderConditionSecretFound, v1alpha1.ProviderConditionCredentialConfigured, v1alpha1.ProviderConditionCredentialValid, v1alpha1.ProviderConditionEndpointReachable, v1alpha1.ProviderConditionAuthConfigured, v1alpha1.ProviderConditionModelValid}
	tests := []struct {
		name string
		p    *v1alpha1.Provider
		want []string
	}{
		{"claude with a secretRef", claude(), []string{v1alpha1.ProviderConditionReady, v1alpha1.ProviderConditionSecretFound, v1alpha1.ProviderConditionCredentialConfigured, v1alpha1.ProviderConditionCredentialValid, v1alpha1.ProviderConditionEndpointReachable, v1alpha1.ProviderConditionModelValid}},
		{"claude with an envVar", claude(withCredential(&v1alpha1.ProviderCredential{EnvVar: "K"})),
			[]string{v1alpha1.ProviderConditionReady, v1alpha1.ProviderConditionCredentialConfigured, v1alpha1.ProviderConditionCredentialValid, v1alpha1.ProviderConditionEndpointReachable, v1alpha1.ProviderConditionModelValid}},
		{"mock", claude(func(p *v1alpha1.Provider) { p.Spec.Type = v1alpha1.ProviderTypeMock; p.Spec.Credential = nil }),
			[]string{v1alpha1.ProviderConditionReady, v1alpha1.ProviderConditionModelValid}},
		{"bedrock", claude(withBedrock), []string{v1alpha1.ProviderConditionReady, v1alpha1.ProviderConditionAuthConfigured, v1alpha1.ProviderConditionModelValid}},
		{"openai tts", claude(func(p *v1alpha1.Provider) {
			p.Spec.Type = v1alpha1.ProviderTypeOpenAI
			p.Spec.Role = v1alpha1.ProviderRoleTTS
		}),
			[]string{v1alpha1.ProviderConditionReady, v1alpha1.ProviderConditionSecretFound, v1alpha1.ProviderConditionCredentialConfigured, v1alpha1.ProviderConditionCredentialValid, v1alpha1.ProviderConditionModelValid}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			secrets := map[string][]string{"creds": {"ANTHROPIC_API_KEY", "OPENAI_API_KEY"}}
			sv, _ := schema.Default()
			fs, err := Evaluate(context.Background(), sv, tt.p, testFacts{secrets: secrets})
			if err != nil {
				t.Fatal(err)
			}
			o := observation{findings: fs, secretKey: "ANTHROPIC_API_KEY", credential: &ProbeOutcome{StatusCode: 200}}
			if _, ok := EndpointFor(tt.p, DefaultEndpoints); ok {
				o.endpoint = &ProbeOutcome{StatusCode: 200}
			}
			st := computeStatus(tt.p, o, t0, 5*time.Minute)
			for _, typ := range all {
				want := false
				for _, w := range tt.want {
					want = want || w == typ
				}
				if got := meta.FindStatusCondition(st.Conditions, typ) != nil; got != want {
					t.Errorf("%s present=%v, want %v", typ, got, want)
				}
			}
			if st.Phase != v1alpha1.ProviderPhaseReady {
				t.Errorf("phase %s: %+v", st.Phase, st.Conditions)
			}
		})
	}
}

// TestGroupFindingsBaseURL: provider/base-url (deny) makes Ready False;
// provider/base-url-plain-http only warns and sets no condition, so an
// in-cluster http endpoint stays usable.
func TestGroupFindingsBaseURL(t *testing.T) {
	base := func(u string) func(*v1alpha1.Provider) { return func(p *v1alpha1.Provider) { p.Spec.BaseURL = u } }
	g := findings(t, claude(base("http://vllm.models.svc.cluster.local:8000/v1")), credsWithKey)
	if len(g.other) != 0 {
		t.Errorf("plain http: findings %v make Ready False", g.other)
	}
	g = findings(t, claude(base("http://metadata.google.internal/computeMetadata/v1/")), credsWithKey)
	if len(g.other) != 1 || g.other[0].RuleID != "provider/base-url" {
		t.Errorf("metadata host: Ready findings %v, want provider/base-url", g.other)
	}
	var st v1alpha1.ProviderStatus
	setReadyCondition(&st, 1, g.other, t0, time.Minute)
	checkCond(t, st.Conditions, v1alpha1.ProviderConditionReady, wantCond{status: metav1.ConditionFalse, reason: v1alpha1.ProviderReasonInvalidSpec, msg: []string{"[provider/base-url] spec.baseURL"}})
}
