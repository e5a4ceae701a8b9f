package admission_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	admissionv1 "k8s.io/api/admission/v1"

	"github.com/altairalabs/omnia/admission"
)

// withMeta returns obj (JSON) with its metadata changed by mutate.
func withMeta(tb testing.TB, obj []byte, mutate func(meta map[string]any)) []byte {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal(obj, &m); err != nil {
		tb.Fatal(err)
	}
	meta, _ := m["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		m["metadata"] = meta
	}
	mutate(meta)
	out, err := json.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// streamInactivityFacades sets a stream-inactivity timeout below 120s in the
// primary facade: a deny finding with no ratchet of its own.
const streamInactivityFacades = `  - type: websocket
    extraEnv:
    - name: OMNIA_RUNTIME_STREAM_INACTIVITY_TIMEOUT
      value: 30s
`

// TestHandlerRatchetsUpdates: on UPDATE only findings the stored object does
// not already have (same rule ID and field) refuse; an update leaving spec
// unchanged, or made to a Terminating object, is never refused; what the
// ratchet lets through is still reported, as a warning.
func TestHandlerRatchetsUpdates(t *testing.T) {
	stored := agent(t, streamInactivityFacades, "")
	labelled := withMeta(t, stored, func(m map[string]any) { m["labels"] = map[string]any{"team": "support"} })
	finalized := withMeta(t, stored, func(m map[string]any) {
		m["finalizers"] = []any{"example.com/hold"}
		m["deletionTimestamp"] = "2026-11-30T00:00:00Z"
	})
	finalizerRemoved := withMeta(t, stored, func(m map[string]any) { m["deletionTimestamp"] = "2026-11-30T00:00:00Z" })
	// A spec edit that keeps the old finding and adds none.
	otherPack := manifest(t, strings.Replace(agentYAML, "promptPackRef:\n    name: support", "promptPackRef:\n    name: helpdesk", 1)+"  facades:\n"+streamInactivityFacades)
	// A spec edit that adds a reserved key beside the old finding.
	addsReserved := agent(t, streamInactivityFacades, reservedEnvExtra)
	fixed := agent(t, "", "")
	update := func(object, old []byte) reviewRequest {
		return reviewRequest{op: admissionv1.Update, namespace: "agents", name: "support", object: object, old: old}
	}
	mode := func(m admission.Mode) func(*admission.Config) { return func(c *admission.Config) { c.Mode = m } }

	runHandlerCases(t, []handlerCase{
		{
			name:         "the same object created is refused (the finding denies)",
			req:          reviewRequest{namespace: "agents", name: "support", object: stored},
			wantCode:     http.StatusUnprocessableEntity,
			wantCauses:   []cause{{"spec.facades[0].extraEnv[0].value", ruleStreamInactivity}},
			wantDecision: admission.OutcomeDenied,
			wantCounts:   map[string]float64{ruleStreamInactivity + "|denied": 1},
		},
		{
			name:         "a label change is admitted, the old finding reported as a warning",
			req:          update(labelled, stored),
			wantAllowed:  true,
			wantWarnings: []string{ruleStreamInactivity},
			wantDecision: admission.OutcomeWarned,
			wantCounts:   map[string]float64{ruleStreamInactivity + "|ratcheted": 1},
		},
		{
			name:         "finalizer removal on a Terminating object is admitted",
			req:          update(finalizerRemoved, finalized),
			wantAllowed:  true,
			wantWarnings: []string{ruleStreamInactivity},
			wantDecision: admission.OutcomeWarned,
			wantCounts:   map[string]float64{ruleStreamInactivity + "|ratcheted": 1},
		},
		{
			name:         "a spec edit keeping the old finding and adding none is admitted",
			req:          update(otherPack, stored),
			wantAllowed:  true,
			wantWarnings: []string{ruleStreamInactivity},
			wantDecision: admission.OutcomeWarned,
			wantCounts:   map[string]float64{ruleStreamInactivity + "|ratcheted": 1},
		},
		{
			name:         "a new violation is refused, and only it",
			req:          update(addsReserved, stored),
			wantCode:     http.StatusUnprocessableEntity,
			wantCauses:   []cause{{"spec.runtime.extraEnv[0].name", ruleReservedEnv}},
			wantWarnings: []string{ruleStreamInactivity},
			wantDecision: admission.OutcomeDenied,
			wantCounts:   map[string]float64{ruleReservedEnv + "|denied": 1, ruleStreamInactivity + "|ratcheted": 1},
		},
		{
			name:         "fixing the old finding is admitted clean",
			req:          update(fixed, stored),
			wantAllowed:  true,
			wantDecision: admission.OutcomeAllowed,
		},
		{
			name:         "the violation added to a clean object is refused",
			req:          update(stored, fixed),
			wantCode:     http.StatusUnprocessableEntity,
			wantCauses:   []cause{{"spec.facades[0].extraEnv[0].value", ruleStreamInactivity}},
			wantDecision: admission.OutcomeDenied,
			wantCounts:   map[string]float64{ruleStreamInactivity + "|denied": 1},
		},
		{
			name:         "mode warn: a ratcheted finding counts as warned",
			configure:    mode(admission.ModeWarn),
			req:          update(labelled, stored),
			wantAllowed:  true,
			wantWarnings: []string{ruleStreamInactivity},
			wantDecision: admission.OutcomeWarned,
			wantCounts:   map[string]float64{ruleStreamInactivity + "|warned": 1},
		},
		{
			name:         "mode audit: a ratcheted finding is audited",
			configure:    mode(admission.ModeAudit),
			req:          update(labelled, stored),
			wantAllowed:  true,
			wantAudit:    []string{"finding-agentruntime.stream-inactivity-timeout"},
			wantDecision: admission.OutcomeAudited,
			wantCounts:   map[string]float64{ruleStreamInactivity + "|audited": 1},
		},
	})

	t.Run("a ratcheted warning says why it was not refused", func(t *testing.T) {
		h := httpHandler(t, "AgentRuntime", newConfig(prometheus.NewRegistry()))
		_, raw := serve(h, reviewBody(t, update(labelled, stored)))
		resp, err := decodeResponse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Warnings) != 1 || !strings.HasPrefix(resp.Warnings[0], "["+ruleStreamInactivity+"] spec.facades[0].extraEnv[0].value: ") ||
			!strings.HasSuffix(resp.Warnings[0], admission.RatchetedSuffix) {
			t.Errorf("warnings %q, want one [%s] warning ending %q", resp.Warnings, ruleStreamInactivity, admission.RatchetedSuffix)
		}
	})
}

// TestHandlerNamespaceMode: a namespace label may only make enforcement
// stricter (enforce > warn > audit) unless downgrades are allowed.
func TestHandlerNamespaceMode(t *testing.T) {
	reserved := agent(t, "", reservedEnvExtra)
	configure := func(global admission.Mode, label string, allowDowngrade bool) func(*admission.Config) {
		return func(c *admission.Config) {
			c.Mode = global
			c.AllowNamespaceDowngrade = allowDowngrade
			c.NamespaceLabels = func(_ context.Context, _ string) (map[string]string, error) {
				return map[string]string{admission.NamespaceModeLabel: label}, nil
			}
		}
	}
	req := reviewRequest{namespace: "team", name: "support", object: reserved}
	refused := handlerCase{
		req:          req,
		wantCode:     http.StatusUnprocessableEntity,
		wantCauses:   []cause{{"spec.runtime.extraEnv[0].name", ruleReservedEnv}},
		wantDecision: admission.OutcomeDenied,
		wantCounts:   map[string]float64{ruleReservedEnv + "|denied": 1},
	}
	warned := handlerCase{
		req:          req,
		wantAllowed:  true,
		wantWarnings: []string{ruleReservedEnv},
		wantDecision: admission.OutcomeWarned,
		wantCounts:   map[string]float64{ruleReservedEnv + "|warned": 1},
	}
	audited := handlerCase{
		req:          req,
		wantAllowed:  true,
		wantAudit:    []string{"finding-agentruntime.reserved-env-key"},
		wantDecision: admission.OutcomeAudited,
		wantCounts:   map[string]float64{ruleReservedEnv + "|audited": 1},
	}
	named := func(tc handlerCase, name string, cfg func(*admission.Config)) handlerCase {
		tc.name, tc.configure = name, cfg
		return tc
	}
	runHandlerCases(t, []handlerCase{
		named(refused, "global enforce, label warn: the label cannot downgrade", configure(admission.ModeEnforce, "warn", false)),
		named(refused, "global enforce, label audit: the label cannot downgrade", configure(admission.ModeEnforce, "audit", false)),
		named(warned, "global warn, label audit: the label cannot downgrade", configure(admission.ModeWarn, "audit", false)),
		named(refused, "global audit, label enforce: stricter is always honoured", configure(admission.ModeAudit, "enforce", false)),
		named(warned, "global audit, label warn: stricter is always honoured", configure(admission.ModeAudit, "warn", false)),
		named(refused, "global enforce, label enforce", configure(admission.ModeEnforce, "enforce", false)),
		named(warned, "global enforce, label warn, downgrade allowed", configure(admission.ModeEnforce, "warn", true)),
		named(audited, "global enforce, label audit, downgrade allowed", configure(admission.ModeEnforce, "audit", true)),
	})
}

// TestHandlerExcludedNamespace: requests in the excluded namespace are
// admitted without evaluation and counted; others are judged.
func TestHandlerExcludedNamespace(t *testing.T) {
	reserved := agent(t, "", reservedEnvExtra)
	exclude := func(c *admission.Config) { c.ExcludedNamespace = "platform-ops" }
	runHandlerCases(t, []handlerCase{
		{
			name:         "a request in the excluded namespace is admitted unevaluated",
			configure:    exclude,
			req:          reviewRequest{namespace: "platform-ops", name: "support", object: reserved},
			wantAllowed:  true,
			wantDecision: admission.OutcomeExcluded,
		},
		{
			name:         "an update in the excluded namespace is admitted unevaluated",
			configure:    exclude,
			req:          reviewRequest{op: admissionv1.Update, namespace: "platform-ops", name: "support", object: reserved, old: agent(t, "", "")},
			wantAllowed:  true,
			wantDecision: admission.OutcomeExcluded,
		},
		{
			name:         "a request in another namespace is judged",
			configure:    exclude,
			req:          reviewRequest{namespace: "omnia-system", name: "support", object: reserved},
			wantCode:     http.StatusUnprocessableEntity,
			wantCauses:   []cause{{"spec.runtime.extraEnv[0].name", ruleReservedEnv}},
			wantDecision: admission.OutcomeDenied,
			wantCounts:   map[string]float64{ruleReservedEnv + "|denied": 1},
		},
		{
			name:         "no excluded namespace: every namespace is judged",
			req:          reviewRequest{namespace: "platform-ops", name: "support", object: reserved},
			wantCode:     http.StatusUnprocessableEntity,
			wantCauses:   []cause{{"spec.runtime.extraEnv[0].name", ruleReservedEnv}},
			wantDecision: admission.OutcomeDenied,
			wantCounts:   map[string]float64{ruleReservedEnv + "|denied": 1},
		},
	})
}

// TestHandlerWatchedNamespaces: with --watch-namespaces, a request in a
// namespace outside the list is admitted unevaluated (another installation
// owns it); one inside is judged, and so is a request with no namespace
// (cluster-scoped kinds are always validated).
func TestHandlerWatchedNamespaces(t *testing.T) {
	reserved := agent(t, "", reservedEnvExtra)
	watch := func(c *admission.Config) { c.WatchedNamespaces = []string{"omnia-system", "team-a"} }
	judged := func(name, ns string) handlerCase {
		return handlerCase{
			name:         name,
			configure:    watch,
			req:          reviewRequest{namespace: ns, name: "support", object: reserved},
			wantCode:     http.StatusUnprocessableEntity,
			wantCauses:   []cause{{"spec.runtime.extraEnv[0].name", ruleReservedEnv}},
			wantDecision: admission.OutcomeDenied,
			wantCounts:   map[string]float64{ruleReservedEnv + "|denied": 1},
		}
	}
	runHandlerCases(t, []handlerCase{
		{
			name:         "a request in an unwatched namespace is admitted unevaluated",
			configure:    watch,
			req:          reviewRequest{namespace: "team-b", name: "support", object: reserved},
			wantAllowed:  true,
			wantDecision: admission.OutcomeExcluded,
		},
		judged("a request in a watched namespace is judged", "team-a"),
		judged("a request with no namespace is judged", ""),
	})
}

// TestHandlerUpdateOfTwoLargeObjects: an UPDATE carries the new and the
// stored object; with both near the API server's 3 MiB request limit the
// review is still read and judged.
func TestHandlerUpdateOfTwoLargeObjects(t *testing.T) {
	blob := strings.Repeat("x", 3<<20-4096)
	big := func(obj []byte) []byte {
		return withMeta(t, obj, func(m map[string]any) {
			m["annotations"] = map[string]any{"example.com/blob": blob}
		})
	}
	body := reviewBody(t, reviewRequest{op: admissionv1.Update, namespace: "agents", name: "support",
		object: big(agent(t, "", reservedEnvExtra)), old: big(agent(t, "", ""))})
	if len(body) <= 6<<20-16<<10 || len(body) >= admission.MaxReviewBytes {
		t.Fatalf("review of %d bytes: want two objects near 3 MiB each, under the limit", len(body))
	}
	cfg := newConfig(prometheus.NewRegistry())
	status, raw := serve(httpHandler(t, "AgentRuntime", cfg), body)
	if status != http.StatusOK {
		t.Fatalf("HTTP %d", status)
	}
	resp, err := decodeResponse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Allowed || resp.Result.Code != http.StatusUnprocessableEntity || resp.Result.Details == nil ||
		len(resp.Result.Details.Causes) != 1 || resp.Result.Details.Causes[0].Field != "spec.runtime.extraEnv[0].name" {
		t.Errorf("a %d-byte update was not judged: %+v", len(body), resp.Result)
	}
}
