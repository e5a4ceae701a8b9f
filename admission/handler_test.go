package admission_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/admission"
	"github.com/altairalabs/omnia/rules"
)

// Rule IDs the tests drive.
const (
	ruleReservedEnv      = "agentruntime/reserved-env-key"
	ruleStreamInactivity = "agentruntime/stream-inactivity-timeout"
	ruleDeprecatedA2A    = "agentruntime/deprecated-a2a-clients"
	ruleA2AExclusive     = "agentruntime/a2a-clients-exclusive"
)

// agentYAML is a clean agent-mode AgentRuntime; the table appends to its spec.
const agentYAML = `
apiVersion: omnia.altairalabs.ai/v1alpha1
kind: AgentRuntime
metadata:
  name: support
  namespace: agents
spec:
  promptPackRef:
    name: support
  providers:
  - name: default
    providerRef:
      name: claude
`

// agent returns the clean agent with the given facades and extra spec YAML
// (indented two spaces, under spec).
func agent(tb testing.TB, facades, extra string) []byte {
	tb.Helper()
	if facades == "" {
		facades = "  - type: websocket\n"
	}
	return manifest(tb, agentYAML+"  facades:\n"+facades+extra)
}

// The objects of the table.
const (
	// Two reserved keys in runtime.extraEnv (two findings of one rule) and a
	// stream-inactivity timeout below 120s in the primary facade (a second
	// rule): three deny findings.
	threeDenialsFacades = `  - type: websocket
    extraEnv:
    - name: OMNIA_RUNTIME_STREAM_INACTIVITY_TIMEOUT
      value: 30s
`
	threeDenialsExtra = `  runtime:
    extraEnv:
    - name: OMNIA_PACK_MODE
      value: compile
    - name: OMNIA_IDLE_TIMEOUT
      value: 5m
`
	reservedEnvExtra = `  runtime:
    extraEnv:
    - name: OMNIA_PACK_MODE
      value: compile
`
	// The deprecated facades[].a2a.clients list alone: a warn finding.
	deprecatedA2AFacades = `  - type: websocket
  - type: a2a
    a2a:
      clients:
      - name: helper
        url: https://helper.example.com
`
	// Both spellings: the exclusive rule (deny).
	bothA2AExtra = `  a2aClients:
  - name: other
    url: https://other.example.com
`
)

// cause is the field and rule a status cause must carry.
type cause struct{ field, rule string }

type handlerCase struct {
	name string
	// configure adjusts the handler configuration (mode, labels, severity).
	configure func(*admission.Config)
	req       reviewRequest

	wantAllowed bool
	wantCode    int32 // result code when refused
	// wantCauses lists every status cause of a refusal, in order.
	wantCauses []cause
	// wantWarnings lists the rule IDs the warnings carry, in order; nil
	// means no warnings.
	wantWarnings []string
	// wantAudit lists the audit annotation keys; nil means none.
	wantAudit []string
	// wantErrorText is a substring of an error response's message.
	wantErrorText string
	// wantDecision is the one decision the request counts (kind
	// AgentRuntime); no other decision series may exist.
	wantDecision string
	// wantCounts are the finding counter's series, "rule|outcome" → value
	// (kind AgentRuntime); every other series must be absent.
	wantCounts map[string]float64
}

func TestHandler(t *testing.T) {
	clean := agent(t, "", "")
	threeDenials := agent(t, threeDenialsFacades, threeDenialsExtra)
	reserved := agent(t, "", reservedEnvExtra)
	deprecated := agent(t, deprecatedA2AFacades, "")
	// The reserved key alongside the deprecated list: one denial, one warning.
	reservedAndDeprecated := agent(t, deprecatedA2AFacades, reservedEnvExtra)
	bothA2A := agent(t, deprecatedA2AFacades, bothA2AExtra)
	labels := func(byNS map[string]map[string]string) func(*admission.Config) {
		return func(c *admission.Config) {
			c.NamespaceLabels = func(_ context.Context, ns string) (map[string]string, error) {
				l, ok := byNS[ns]
				if !ok {
					return nil, errors.New("namespace " + ns + " not found")
				}
				return l, nil
			}
		}
	}
	mode := func(m admission.Mode) func(*admission.Config) {
		return func(c *admission.Config) { c.Mode = m }
	}

	threeCauses := []cause{
		{"spec.facades[0].extraEnv[0].value", ruleStreamInactivity},
		{"spec.runtime.extraEnv[0].name", ruleReservedEnv},
		{"spec.runtime.extraEnv[1].name", ruleReservedEnv},
	}
	threeCounts := map[string]float64{ruleReservedEnv + "|denied": 2, ruleStreamInactivity + "|denied": 1}

	cases := []handlerCase{
		{
			name:         "clean object allowed",
			req:          reviewRequest{namespace: "agents", name: "support", object: clean},
			wantAllowed:  true,
			wantDecision: admission.OutcomeAllowed,
		},
		{
			name:         "deny finding refused with its rule ID and field",
			req:          reviewRequest{namespace: "agents", name: "support", object: reserved},
			wantCode:     http.StatusUnprocessableEntity,
			wantCauses:   []cause{{"spec.runtime.extraEnv[0].name", ruleReservedEnv}},
			wantDecision: admission.OutcomeDenied,
			wantCounts:   map[string]float64{ruleReservedEnv + "|denied": 1},
		},
		{
			name:         "every field error listed, not only the first",
			req:          reviewRequest{namespace: "agents", name: "support", object: threeDenials},
			wantCode:     http.StatusUnprocessableEntity,
			wantCauses:   threeCauses,
			wantDecision: admission.OutcomeDenied,
			wantCounts:   threeCounts,
		},
		{
			name:         "warn finding allowed with a warning carrying the rule ID",
			req:          reviewRequest{namespace: "agents", name: "support", object: deprecated},
			wantAllowed:  true,
			wantWarnings: []string{ruleDeprecatedA2A},
			wantDecision: admission.OutcomeWarned,
			wantCounts:   map[string]float64{ruleDeprecatedA2A + "|warned": 1},
		},
		{
			name:         "a refusal still carries the warn findings as warnings",
			req:          reviewRequest{namespace: "agents", name: "support", object: reservedAndDeprecated},
			wantCode:     http.StatusUnprocessableEntity,
			wantCauses:   []cause{{"spec.runtime.extraEnv[0].name", ruleReservedEnv}},
			wantWarnings: []string{ruleDeprecatedA2A},
			wantDecision: admission.OutcomeDenied,
			wantCounts:   map[string]float64{ruleReservedEnv + "|denied": 1, ruleDeprecatedA2A + "|warned": 1},
		},
		{
			name:         "both a2a client lists refused, the deprecation not warned twice",
			req:          reviewRequest{namespace: "agents", name: "support", object: bothA2A},
			wantCode:     http.StatusUnprocessableEntity,
			wantCauses:   []cause{{"spec.facades[1].a2a.clients", ruleA2AExclusive}},
			wantDecision: admission.OutcomeDenied,
			wantCounts:   map[string]float64{ruleA2AExclusive + "|denied": 1},
		},
		{
			name:         "dry-run refused the same way",
			req:          reviewRequest{namespace: "agents", name: "support", object: threeDenials, dryRun: true},
			wantCode:     http.StatusUnprocessableEntity,
			wantCauses:   threeCauses,
			wantDecision: admission.OutcomeDenied,
			wantCounts:   threeCounts,
		},
		{
			name:         "dry-run warned the same way",
			req:          reviewRequest{namespace: "agents", name: "support", object: deprecated, dryRun: true},
			wantAllowed:  true,
			wantWarnings: []string{ruleDeprecatedA2A},
			wantDecision: admission.OutcomeWarned,
			wantCounts:   map[string]float64{ruleDeprecatedA2A + "|warned": 1},
		},
		{
			name:         "mode warn turns every denial into a warning",
			configure:    mode(admission.ModeWarn),
			req:          reviewRequest{namespace: "agents", name: "support", object: threeDenials},
			wantAllowed:  true,
			wantWarnings: []string{ruleStreamInactivity, ruleReservedEnv, ruleReservedEnv},
			wantDecision: admission.OutcomeWarned,
			wantCounts:   map[string]float64{ruleReservedEnv + "|warned": 2, ruleStreamInactivity + "|warned": 1},
		},
		{
			name:         "mode audit allows silently with audit annotations",
			configure:    mode(admission.ModeAudit),
			req:          reviewRequest{namespace: "agents", name: "support", object: reservedAndDeprecated},
			wantAllowed:  true,
			wantAudit:    []string{"finding-agentruntime.deprecated-a2a-clients", "finding-agentruntime.reserved-env-key"},
			wantDecision: admission.OutcomeAudited,
			wantCounts:   map[string]float64{ruleReservedEnv + "|audited": 1, ruleDeprecatedA2A + "|audited": 1},
		},
		{
			name:         "mode audit on a clean object: no annotations",
			configure:    mode(admission.ModeAudit),
			req:          reviewRequest{namespace: "agents", name: "support", object: clean},
			wantAllowed:  true,
			wantDecision: admission.OutcomeAllowed,
		},
		{
			name: "namespace label warn overrides global enforce when downgrades are allowed",
			configure: func(c *admission.Config) {
				c.AllowNamespaceDowngrade = true
				labels(map[string]map[string]string{"lenient": {admission.NamespaceModeLabel: "warn"}})(c)
			},
			req:          reviewRequest{namespace: "lenient", name: "support", object: reserved},
			wantAllowed:  true,
			wantWarnings: []string{ruleReservedEnv},
			wantDecision: admission.OutcomeWarned,
			wantCounts:   map[string]float64{ruleReservedEnv + "|warned": 1},
		},
		{
			name: "namespace label audit overrides global enforce when downgrades are allowed",
			configure: func(c *admission.Config) {
				c.AllowNamespaceDowngrade = true
				labels(map[string]map[string]string{"quiet": {admission.NamespaceModeLabel: "audit"}})(c)
			},
			req:          reviewRequest{namespace: "quiet", name: "support", object: reserved},
			wantAllowed:  true,
			wantAudit:    []string{"finding-agentruntime.reserved-env-key"},
			wantDecision: admission.OutcomeAudited,
			wantCounts:   map[string]float64{ruleReservedEnv + "|audited": 1},
		},
		{
			name: "namespace label enforce overrides global warn",
			configure: func(c *admission.Config) {
				c.Mode = admission.ModeWarn
				labels(map[string]map[string]string{"strict": {admission.NamespaceModeLabel: "enforce"}})(c)
			},
			req:          reviewRequest{namespace: "strict", name: "support", object: reserved},
			wantCode:     http.StatusUnprocessableEntity,
			wantCauses:   []cause{{"spec.runtime.extraEnv[0].name", ruleReservedEnv}},
			wantDecision: admission.OutcomeDenied,
			wantCounts:   map[string]float64{ruleReservedEnv + "|denied": 1},
		},
		{
			name:         "an unknown label value keeps the global mode",
			configure:    labels(map[string]map[string]string{"typo": {admission.NamespaceModeLabel: "off"}}),
			req:          reviewRequest{namespace: "typo", name: "support", object: reserved},
			wantCode:     http.StatusUnprocessableEntity,
			wantCauses:   []cause{{"spec.runtime.extraEnv[0].name", ruleReservedEnv}},
			wantDecision: admission.OutcomeDenied,
			wantCounts:   map[string]float64{ruleReservedEnv + "|denied": 1},
		},
		{
			name:         "a failed namespace lookup keeps the global mode",
			configure:    labels(map[string]map[string]string{}),
			req:          reviewRequest{namespace: "agents", name: "support", object: reserved},
			wantCode:     http.StatusUnprocessableEntity,
			wantCauses:   []cause{{"spec.runtime.extraEnv[0].name", ruleReservedEnv}},
			wantDecision: admission.OutcomeDenied,
			wantCounts:   map[string]float64{ruleReservedEnv + "|denied": 1},
		},
		{
			name: "severity override raises a warn rule to deny",
			configure: func(c *admission.Config) {
				c.Severity = map[string]rules.Severity{ruleDeprecatedA2A: rules.SeverityDeny}
			},
			req:          reviewRequest{namespace: "agents", name: "support", object: deprecated},
			wantCode:     http.StatusUnprocessableEntity,
			wantCauses:   []cause{{"spec.facades[1].a2a.clients", ruleDeprecatedA2A}},
			wantDecision: admission.OutcomeDenied,
			wantCounts:   map[string]float64{ruleDeprecatedA2A + "|denied": 1},
		},
		{
			name: "severity override lowers a deny rule to warn",
			configure: func(c *admission.Config) {
				c.Severity = map[string]rules.Severity{ruleReservedEnv: rules.SeverityWarn}
			},
			req:          reviewRequest{namespace: "agents", name: "support", object: reserved},
			wantAllowed:  true,
			wantWarnings: []string{ruleReservedEnv},
			wantDecision: admission.OutcomeWarned,
			wantCounts:   map[string]float64{ruleReservedEnv + "|warned": 1},
		},
		{
			name:         "update keeping a reserved key the old object already had is allowed",
			req:          reviewRequest{op: admissionv1.Update, namespace: "agents", name: "support", object: reserved, old: reserved},
			wantAllowed:  true,
			wantDecision: admission.OutcomeAllowed,
		},
		{
			name:         "update adding a reserved key is refused",
			req:          reviewRequest{op: admissionv1.Update, namespace: "agents", name: "support", object: reserved, old: clean},
			wantCode:     http.StatusUnprocessableEntity,
			wantCauses:   []cause{{"spec.runtime.extraEnv[0].name", ruleReservedEnv}},
			wantDecision: admission.OutcomeDenied,
			wantCounts:   map[string]float64{ruleReservedEnv + "|denied": 1},
		},
		{
			name: "update adding a second reserved key refuses only the new one",
			req: reviewRequest{op: admissionv1.Update, namespace: "agents", name: "support",
				object: agent(t, threeDenialsFacades, threeDenialsExtra), old: reserved},
			wantCode: http.StatusUnprocessableEntity,
			wantCauses: []cause{
				{"spec.facades[0].extraEnv[0].value", ruleStreamInactivity},
				{"spec.runtime.extraEnv[1].name", ruleReservedEnv},
			},
			wantDecision: admission.OutcomeDenied,
			wantCounts:   map[string]float64{ruleReservedEnv + "|denied": 1, ruleStreamInactivity + "|denied": 1},
		},
		{
			name:         "delete allowed",
			req:          reviewRequest{op: admissionv1.Delete, namespace: "agents", name: "support", old: reserved},
			wantAllowed:  true,
			wantDecision: admission.OutcomeAllowed,
			wantCounts:   map[string]float64{},
		},
		{
			name:          "a Provider review sent to the AgentRuntime handler",
			req:           reviewRequest{kind: "Provider", namespace: "agents", name: "claude", object: manifest(t, "apiVersion: omnia.altairalabs.ai/v1alpha1\nkind: Provider\nmetadata: {name: claude}\nspec: {type: mock}\n")},
			wantCode:      http.StatusBadRequest,
			wantErrorText: "validates omnia.altairalabs.ai AgentRuntime, not omnia.altairalabs.ai Provider",
			wantDecision:  admission.OutcomeError,
		},
		{
			name:          "a core Pod review",
			req:           reviewRequest{group: "core", kind: "Pod", namespace: "agents", name: "web", object: []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"}}`)},
			wantCode:      http.StatusBadRequest,
			wantErrorText: "AgentRuntime, not  Pod",
			wantDecision:  admission.OutcomeError,
		},
		{
			name:          "an AgentRuntime kind from another group",
			req:           reviewRequest{group: "example.com", kind: "AgentRuntime", namespace: "agents", name: "support", object: clean},
			wantCode:      http.StatusBadRequest,
			wantErrorText: "not example.com AgentRuntime",
			wantDecision:  admission.OutcomeError,
		},
		{
			name:          "object JSON that does not fit the type",
			req:           reviewRequest{namespace: "agents", name: "support", object: []byte(`{"apiVersion":"omnia.altairalabs.ai/v1alpha1","kind":"AgentRuntime","metadata":{"name":"support"},"spec":{"facades":"websocket"}}`)},
			wantCode:      http.StatusBadRequest,
			wantErrorText: "decoding the AgentRuntime in the request",
			wantDecision:  admission.OutcomeError,
		},
		{
			name:          "a Provider object inside an AgentRuntime review",
			req:           reviewRequest{namespace: "agents", name: "claude", object: manifest(t, "apiVersion: omnia.altairalabs.ai/v1alpha1\nkind: Provider\nmetadata: {name: claude}\nspec: {type: mock}\n")},
			wantCode:      http.StatusBadRequest,
			wantErrorText: "decoding the AgentRuntime in the request",
			wantDecision:  admission.OutcomeError,
		},
		{
			name:          "a create without an object",
			req:           reviewRequest{namespace: "agents", name: "support"},
			wantCode:      http.StatusBadRequest,
			wantErrorText: "decoding the AgentRuntime in the request",
			wantDecision:  admission.OutcomeError,
		},
		{
			name:          "an update whose old object does not fit the type",
			req:           reviewRequest{op: admissionv1.Update, namespace: "agents", name: "support", object: clean, old: []byte(`{"spec":{"facades":[{"type":7}]}}`)},
			wantCode:      http.StatusBadRequest,
			wantErrorText: "decoding the stored AgentRuntime in the request",
			wantDecision:  admission.OutcomeError,
		},
	}

	runHandlerCases(t, cases)
}

// runHandlerCases sends each case's review through a fresh AgentRuntime
// handler and checks the answer and the metrics.
func runHandlerCases(t *testing.T, cases []handlerCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			cfg := newConfig(reg)
			if tc.configure != nil {
				tc.configure(cfg)
			}
			h := httpHandler(t, "AgentRuntime", cfg)
			status, raw := serve(h, reviewBody(t, tc.req))
			if status != http.StatusOK {
				t.Fatalf("HTTP status %d, want 200 (the API server expects a review back):\n%s", status, raw)
			}
			resp, err := decodeResponse(raw)
			if err != nil {
				t.Fatal(err)
			}
			if resp.UID != "705ab4f5-6393-11e8-b7cc-42010a800002" {
				t.Errorf("response UID %q does not echo the request's", resp.UID)
			}
			checkResponse(t, tc, resp, raw)
			checkDecisions(t, cfg.Metrics, map[string]float64{tc.wantDecision: 1})
			checkCounts(t, cfg.Metrics, tc.wantCounts)
			if got := histogramCount(t, reg, "AgentRuntime"); got != 1 {
				t.Errorf("latency histogram observed %d times, want 1", got)
			}
		})
	}
}

func checkResponse(t *testing.T, tc handlerCase, resp *admissionv1.AdmissionResponse, raw []byte) {
	t.Helper()
	if resp.Allowed != tc.wantAllowed {
		t.Fatalf("allowed = %v, want %v:\n%s", resp.Allowed, tc.wantAllowed, raw)
	}
	if !tc.wantAllowed {
		if resp.Result.Code != tc.wantCode {
			t.Errorf("result code %d, want %d", resp.Result.Code, tc.wantCode)
		}
		if tc.wantErrorText != "" && !strings.Contains(resp.Result.Message, tc.wantErrorText) {
			t.Errorf("message %q does not contain %q", resp.Result.Message, tc.wantErrorText)
		}
	}
	checkCauses(t, resp, tc.wantCauses)
	var warned []string
	for _, w := range resp.Warnings {
		warned = append(warned, warningRule(t, w))
	}
	if !slices.Equal(warned, tc.wantWarnings) {
		t.Errorf("warnings carry rules %v, want %v:\n%s", warned, tc.wantWarnings, strings.Join(resp.Warnings, "\n"))
	}
	var audit []string
	for k, v := range resp.AuditAnnotations {
		audit = append(audit, k)
		if !strings.HasPrefix(v, "spec.") {
			t.Errorf("audit annotation %s = %q does not start with the field", k, v)
		}
	}
	slices.Sort(audit)
	if !slices.Equal(audit, tc.wantAudit) {
		t.Errorf("audit annotations %v, want %v", audit, tc.wantAudit)
	}
}

// checkCauses asserts a refusal lists every field error: one status cause
// per deny finding, each with its field and "[rule] message", and the
// message names every one.
func checkCauses(t *testing.T, resp *admissionv1.AdmissionResponse, want []cause) {
	t.Helper()
	if len(want) == 0 {
		if resp.Result != nil && resp.Result.Details != nil && len(resp.Result.Details.Causes) > 0 {
			t.Errorf("unexpected causes %+v", resp.Result.Details.Causes)
		}
		return
	}
	if resp.Result.Reason != metav1.StatusReasonInvalid {
		t.Errorf("reason %q, want Invalid", resp.Result.Reason)
	}
	d := resp.Result.Details
	if d == nil || d.Kind != "AgentRuntime" || d.Group != omniaGroup || d.Name != "support" {
		t.Fatalf("details %+v do not name the AgentRuntime support", d)
	}
	var got []cause
	for _, c := range d.Causes {
		rule := strings.TrimPrefix(strings.SplitN(c.Message, "]", 2)[0], "[")
		got = append(got, cause{c.Field, rule})
		if c.Type != metav1.CauseTypeFieldValueInvalid {
			t.Errorf("cause %s has type %q", c.Field, c.Type)
		}
		if !strings.HasPrefix(c.Message, "["+rule+"] ") || len(c.Message) < len(rule)+20 {
			t.Errorf("cause %s message %q: want [rule] and a message saying how to fix it", c.Field, c.Message)
		}
		if !strings.Contains(resp.Result.Message, "["+rule+"] "+c.Field+": ") {
			t.Errorf("message %q does not list %s (%s)", resp.Result.Message, c.Field, rule)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("causes %+v, want %+v", got, want)
	}
}

// warningRule returns the rule ID a warning starts with ("[id] field: …").
func warningRule(t *testing.T, w string) string {
	t.Helper()
	if !strings.HasPrefix(w, "[") || !strings.Contains(w, "] spec.") {
		t.Errorf("warning %q does not start with [rule] field", w)
		return w
	}
	return strings.TrimPrefix(strings.SplitN(w, "]", 2)[0], "[")
}

// checkCounts asserts the finding counter holds exactly the want series for
// kind AgentRuntime ("rule|outcome" → value).
func checkCounts(t *testing.T, m *admission.Metrics, want map[string]float64) {
	t.Helper()
	for key, v := range want {
		rule, outcome, _ := strings.Cut(key, "|")
		if got := testutil.ToFloat64(m.Findings.WithLabelValues("AgentRuntime", rule, outcome)); got != v {
			t.Errorf("omnia_admission_findings_total{kind=AgentRuntime,rule=%s,outcome=%s} = %v, want %v", rule, outcome, got, v)
		}
	}
	if n := testutil.CollectAndCount(m.Findings, "omnia_admission_findings_total"); n != len(want) {
		t.Errorf("finding counter has %d series, want %d (%v)", n, len(want), want)
	}
}

// checkDecisions asserts the decision counter holds exactly the want series
// for kind AgentRuntime (outcome → value).
func checkDecisions(t *testing.T, m *admission.Metrics, want map[string]float64) {
	t.Helper()
	for outcome, v := range want {
		if got := testutil.ToFloat64(m.Decisions.WithLabelValues("AgentRuntime", outcome)); got != v {
			t.Errorf("omnia_admission_decisions_total{kind=AgentRuntime,outcome=%s} = %v, want %v", outcome, got, v)
		}
	}
	if n := testutil.CollectAndCount(m.Decisions, "omnia_admission_decisions_total"); n != len(want) {
		t.Errorf("decision counter has %d series, want %d (%v)", n, len(want), want)
	}
}

// histogramCount returns how many latencies the histogram observed for kind.
func histogramCount(t *testing.T, reg *prometheus.Registry, kind string) uint64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "omnia_admission_duration_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "kind" && l.GetValue() == kind {
					return m.GetHistogram().GetSampleCount()
				}
			}
		}
	}
	return 0
}

// TestHandlerMetricsAccumulate sends several requests through one handler and
// checks the counters add up per kind, rule and outcome.
func TestHandlerMetricsAccumulate(t *testing.T) {
	reg := prometheus.NewRegistry()
	cfg := newConfig(reg)
	h := httpHandler(t, "AgentRuntime", cfg)
	bodies := [][]byte{
		reviewBody(t, reviewRequest{namespace: "agents", name: "a", object: agent(t, "", "")}),
		reviewBody(t, reviewRequest{namespace: "agents", name: "a", object: agent(t, "", "")}),
		reviewBody(t, reviewRequest{namespace: "agents", name: "a", object: agent(t, "", reservedEnvExtra)}),
		reviewBody(t, reviewRequest{namespace: "agents", name: "a", object: agent(t, deprecatedA2AFacades, "")}),
		reviewBody(t, reviewRequest{namespace: "agents", name: "a", object: agent(t, threeDenialsFacades, threeDenialsExtra)}),
	}
	for _, b := range bodies {
		if status, raw := serve(h, b); status != http.StatusOK {
			t.Fatalf("HTTP %d: %s", status, raw)
		}
	}
	// One decision per request, however many findings it carries.
	checkDecisions(t, cfg.Metrics, map[string]float64{
		admission.OutcomeAllowed: 2,
		admission.OutcomeDenied:  2,
		admission.OutcomeWarned:  1,
	})
	checkCounts(t, cfg.Metrics, map[string]float64{
		ruleReservedEnv + "|denied":      3,
		ruleStreamInactivity + "|denied": 1,
		ruleDeprecatedA2A + "|warned":    1,
	})
	if got := histogramCount(t, reg, "AgentRuntime"); got != uint64(len(bodies)) {
		t.Errorf("latency histogram observed %d times, want %d", got, len(bodies))
	}
	// The series are those the operator's /metrics serves.
	if err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP omnia_admission_decisions_total Admission decisions, one per request, by kind and outcome (allowed, denied, warned, audited, error, excluded).
# TYPE omnia_admission_decisions_total counter
omnia_admission_decisions_total{kind="AgentRuntime",outcome="allowed"} 2
omnia_admission_decisions_total{kind="AgentRuntime",outcome="denied"} 2
omnia_admission_decisions_total{kind="AgentRuntime",outcome="warned"} 1
# HELP omnia_admission_findings_total Findings of admission requests by kind, rule ID and outcome (denied, warned, audited, ratcheted).
# TYPE omnia_admission_findings_total counter
omnia_admission_findings_total{kind="AgentRuntime",outcome="denied",rule="agentruntime/reserved-env-key"} 3
omnia_admission_findings_total{kind="AgentRuntime",outcome="denied",rule="agentruntime/stream-inactivity-timeout"} 1
omnia_admission_findings_total{kind="AgentRuntime",outcome="warned",rule="agentruntime/deprecated-a2a-clients"} 1
`), "omnia_admission_decisions_total", "omnia_admission_findings_total"); err != nil {
		t.Error(err)
	}
}

// TestHandlerServesEveryKind sends each spec example to its own kind's
// handler: every example is clean at admission.
func TestHandlerServesEveryKind(t *testing.T) {
	for _, ex := range examples(t) {
		t.Run(ex.kind+"/"+ex.name, func(t *testing.T) {
			cfg := newConfig(prometheus.NewRegistry())
			h := httpHandler(t, ex.kind, cfg)
			status, raw := serve(h, reviewBody(t, reviewRequest{kind: ex.kind, namespace: "agents", name: ex.name, object: ex.json}))
			if status != http.StatusOK {
				t.Fatalf("HTTP %d: %s", status, raw)
			}
			resp, err := decodeResponse(raw)
			if err != nil {
				t.Fatal(err)
			}
			if !resp.Allowed || len(resp.Warnings) > 0 {
				t.Errorf("spec example refused or warned: %s", raw)
			}
		})
	}
}

// TestHandlerBadInput sends what the API server never sends through a real
// HTTP server: each gets a clear AdmissionReview error (HTTP 200, allowed
// false, a status code and message), the server never panics, and a good
// request after each still works.
func TestHandlerBadInput(t *testing.T) {
	reg := prometheus.NewRegistry()
	cfg := newConfig(reg)
	var panics atomic.Int32
	var lastChunked atomic.Bool
	inner := httpHandler(t, "AgentRuntime", cfg)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lastChunked.Store(r.ContentLength == -1 && slices.Contains(r.TransferEncoding, "chunked"))
		defer func() {
			if p := recover(); p != nil {
				panics.Add(1)
				t.Errorf("handler panicked: %v", p)
				panic(p)
			}
		}()
		inner.ServeHTTP(w, r)
	}))
	defer srv.Close()

	good := reviewBody(t, reviewRequest{namespace: "agents", name: "support", object: agent(t, "", reservedEnvExtra)})
	// padded returns a good review followed by JSON whitespace up to n bytes.
	padded := func(n int) []byte {
		b := make([]byte, n)
		copy(b, good)
		for i := len(good); i < n; i++ {
			b[i] = ' '
		}
		return b
	}
	const limit = admission.MaxReviewBytes

	type badCase struct {
		name        string
		body        []byte
		contentType string // default application/json
		chunked     bool   // no Content-Length
		wantCode    int32
		wantText    string
	}
	cases := []badCase{
		{name: "not JSON", body: []byte("this is not an admission review"), wantCode: http.StatusBadRequest, wantText: "couldn't get version/kind"},
		{name: "truncated JSON", body: good[:len(good)/2], wantCode: http.StatusBadRequest},
		{name: "JSON of the wrong shape", body: []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":[1,2,3]}`), wantCode: http.StatusBadRequest},
		{name: "empty body", body: []byte{}, wantCode: http.StatusBadRequest, wantText: "request body is empty"},
		{name: "JSON null", body: []byte(`null`), wantCode: http.StatusBadRequest, wantText: "AdmissionReview has no request"},
		{name: "review without a request", body: []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`), wantCode: http.StatusBadRequest, wantText: "AdmissionReview has no request"},
		{name: "request naming no kind", body: []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"CREATE","object":{}}}`), wantCode: http.StatusBadRequest, wantText: "AdmissionReview has no request"},
		{name: "wrong content type", body: good, contentType: "text/plain", wantCode: http.StatusBadRequest, wantText: "expected application/json"},
		{name: "Provider review", body: reviewBody(t, reviewRequest{kind: "Provider", namespace: "agents", name: "p", object: []byte(`{"apiVersion":"omnia.altairalabs.ai/v1alpha1","kind":"Provider","spec":{"type":"mock"}}`)}), wantCode: http.StatusBadRequest, wantText: "not omnia.altairalabs.ai Provider"},
		{name: "Pod review", body: reviewBody(t, reviewRequest{group: "core", kind: "Pod", namespace: "agents", name: "p", object: []byte(`{"apiVersion":"v1","kind":"Pod"}`)}), wantCode: http.StatusBadRequest, wantText: "AgentRuntime, not  Pod"},
		{name: "object that does not fit the type", body: reviewBody(t, reviewRequest{namespace: "agents", name: "a", object: []byte(`{"spec":{"providers":{"default":1}}}`)}), wantCode: http.StatusBadRequest, wantText: "decoding the AgentRuntime"},
		{name: "at the limit with Content-Length", body: padded(limit), wantCode: http.StatusRequestEntityTooLarge, wantText: "smaller than 7340032 bytes"},
		{name: "at the limit chunked", body: padded(limit), chunked: true, wantCode: http.StatusRequestEntityTooLarge, wantText: "7340032 bytes"},
		{name: "far over the limit with Content-Length", body: padded(16 << 20), wantCode: http.StatusRequestEntityTooLarge, wantText: "smaller than 7340032 bytes"},
		{name: "far over the limit chunked", body: padded(16 << 20), chunked: true, wantCode: http.StatusRequestEntityTooLarge, wantText: "7340032 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, srv.URL, tc.body, tc.contentType, tc.chunked)
			if lastChunked.Load() != tc.chunked {
				t.Fatalf("request chunked = %v, want %v", lastChunked.Load(), tc.chunked)
			}
			if resp.Allowed {
				t.Fatalf("bad input allowed")
			}
			if resp.Result.Code != tc.wantCode {
				t.Errorf("code %d, want %d (%s)", resp.Result.Code, tc.wantCode, resp.Result.Message)
			}
			if !strings.Contains(resp.Result.Message, tc.wantText) {
				t.Errorf("message %q does not contain %q", resp.Result.Message, tc.wantText)
			}
			// A good request on the same server still works.
			after := post(t, srv.URL, good, "", false)

			if after.Allowed || len(after.Result.Details.Causes) != 1 || after.Result.Details.Causes[0].Field != "spec.runtime.extraEnv[0].name" {
				t.Errorf("the good request after bad input got %+v", after.Result)
			}
		})
	}

	// One byte under the limit a review is read and evaluated, either way it
	// arrives.
	for _, chunked := range []bool{false, true} {
		resp := post(t, srv.URL, padded(limit-1), "", chunked)
		if lastChunked.Load() != chunked {
			t.Fatalf("request chunked = %v, want %v", lastChunked.Load(), chunked)
		}
		if resp.Allowed || resp.Result.Code != http.StatusUnprocessableEntity {
			t.Errorf("a %d-byte review (chunked %v) was not evaluated: %+v", limit-1, chunked, resp.Result)
		}
	}
	if panics.Load() > 0 {
		t.Fatalf("%d panics", panics.Load())
	}
}

// post sends body to url over HTTP, chunked (no Content-Length) when asked,
// and returns the well-formed AdmissionReview response.
func post(t *testing.T, url string, body []byte, contentType string, chunked bool) *admissionv1.AdmissionResponse {
	t.Helper()
	var r io.Reader = strings.NewReader(string(body))
	if chunked {
		// A reader of unknown length: the client sends it chunked.
		r = io.MultiReader(strings.NewReader(string(body)))
	}
	req, err := http.NewRequest(http.MethodPost, url, r)
	if err != nil {
		t.Fatal(err)
	}
	if chunked {
		req.ContentLength = -1
	}
	if contentType == "" {
		contentType = "application/json"
	}
	req.Header.Set("Content-Type", contentType)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("HTTP status %d, want 200 with an AdmissionReview:\n%s", res.StatusCode, raw)
	}
	resp, err := decodeResponse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
