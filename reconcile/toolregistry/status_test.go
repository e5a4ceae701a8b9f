package toolregistry

import (
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/prober"
	"github.com/altairalabs/omnia/rules"
)

var (
	t0   = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	now0 = metav1.NewTime(t0)
)

func tool(handler, name string, st v1alpha1.ToolRegistryToolStatus, errText string) v1alpha1.ToolRegistryDiscoveredTool {
	return v1alpha1.ToolRegistryDiscoveredTool{HandlerName: handler, Name: name, Status: st, Error: errText}
}

const (
	avail   = v1alpha1.ToolRegistryToolStatusAvailable
	unavail = v1alpha1.ToolRegistryToolStatusUnavailable
	unknown = v1alpha1.ToolRegistryToolStatusUnknown
)

func cond(st *v1alpha1.ToolRegistryStatus, t string) *metav1.Condition {
	return meta.FindStatusCondition(st.Conditions, t)
}

// wantCond checks a condition's status, reason and that its message holds
// every fragment.
func wantCond(t *testing.T, st *v1alpha1.ToolRegistryStatus, typ string, status metav1.ConditionStatus, reason string, fragments ...string) {
	t.Helper()
	c := cond(st, typ)
	if c == nil {
		t.Fatalf("%s absent, want %s/%s", typ, status, reason)
	}
	if c.Status != status || c.Reason != reason {
		t.Errorf("%s = %s/%s (%q), want %s/%s", typ, c.Status, c.Reason, c.Message, status, reason)
	}
	for _, f := range fragments {
		if !strings.Contains(c.Message, f) {
			t.Errorf("%s message %q lacks %q", typ, c.Message, f)
		}
	}
}

func TestSetHandlersValidCondition(t *testing.T) {
	metadata := rules.Finding{RuleID: "toolregistry/mcp-endpoint-metadata-address", Field: "spec.handlers[0].mcpConfig.endpoint",
		Condition: v1alpha1.ToolRegistryConditionHandlersValid, Reason: v1alpha1.ToolRegistryReasonValidationFailed, Message: "host 169.254.169.254 is a link-local or cloud-metadata address"}
	noReason := rules.Finding{RuleID: "toolregistry/tool-required", Field: "spec.handlers[1].tool", Message: "tool is required"}
	cases := []struct {
		name      string
		findings  []rules.Finding
		status    metav1.ConditionStatus
		reason    string
		fragments []string
	}{
		{"valid", nil, metav1.ConditionTrue, v1alpha1.ToolRegistryReasonHandlersValid, []string{"all 2 handlers passed validation"}},
		{"finding with the rule's reason", []rules.Finding{metadata}, metav1.ConditionFalse, v1alpha1.ToolRegistryReasonValidationFailed,
			[]string{"[toolregistry/mcp-endpoint-metadata-address] spec.handlers[0].mcpConfig.endpoint: host 169.254.169.254"}},
		{"finding without a reason falls back, every finding listed", []rules.Finding{noReason, metadata}, metav1.ConditionFalse, v1alpha1.ToolRegistryReasonValidationFailed,
			[]string{"[toolregistry/tool-required] spec.handlers[1].tool: tool is required", "; [toolregistry/mcp-endpoint-metadata-address]"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := &v1alpha1.ToolRegistryStatus{}
			setHandlersValidCondition(st, c.findings, 2, 3, now0)
			wantCond(t, st, v1alpha1.ToolRegistryConditionHandlersValid, c.status, c.reason, c.fragments...)
			if got := cond(st, v1alpha1.ToolRegistryConditionHandlersValid); got.ObservedGeneration != 3 || !got.LastTransitionTime.Equal(&now0) {
				t.Errorf("generation/time = %d/%v", got.ObservedGeneration, got.LastTransitionTime)
			}
		})
	}
	t.Run("keeps lastTransitionTime while the status holds", func(t *testing.T) {
		st := &v1alpha1.ToolRegistryStatus{}
		setHandlersValidCondition(st, []rules.Finding{metadata}, 1, 1, now0)
		later := metav1.NewTime(t0.Add(time.Hour))
		setHandlersValidCondition(st, []rules.Finding{metadata, noReason}, 1, 2, later)
		if c := cond(st, v1alpha1.ToolRegistryConditionHandlersValid); !c.LastTransitionTime.Equal(&now0) {
			t.Errorf("lastTransitionTime moved to %v", c.LastTransitionTime)
		}
		setHandlersValidCondition(st, nil, 1, 3, later)
		if c := cond(st, v1alpha1.ToolRegistryConditionHandlersValid); !c.LastTransitionTime.Equal(&later) {
			t.Errorf("lastTransitionTime = %v after the flip, want %v", c.LastTransitionTime, later)
		}
	})
}

func TestSetToolsDiscoveredCondition(t *testing.T) {
	cases := []struct {
		name                       string
		tools, withTools, handlers int
		status                     metav1.ConditionStatus
		reason, message            string
	}{
		{"none", 0, 0, 1, metav1.ConditionFalse, v1alpha1.ToolRegistryReasonNoToolsDiscovered, "no tool discovered from 1 handler"},
		{"every handler", 4, 4, 4, metav1.ConditionTrue, v1alpha1.ToolRegistryReasonToolsDiscovered, "4 tools discovered from 4 handlers"},
		{"one tool", 1, 1, 1, metav1.ConditionTrue, v1alpha1.ToolRegistryReasonToolsDiscovered, "1 tool discovered from 1 handler"},
		{"some handlers yield none", 2, 2, 3, metav1.ConditionTrue, v1alpha1.ToolRegistryReasonToolsDiscovered, "2 tools discovered from 2 of 3 handlers"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := &v1alpha1.ToolRegistryStatus{}
			setToolsDiscoveredCondition(st, c.tools, c.withTools, c.handlers, 1, now0)
			wantCond(t, st, v1alpha1.ToolRegistryConditionToolsDiscovered, c.status, c.reason)
			if m := cond(st, v1alpha1.ToolRegistryConditionToolsDiscovered).Message; m != c.message {
				t.Errorf("message = %q, want %q", m, c.message)
			}
		})
	}
}

func TestSetDegradedCondition(t *testing.T) {
	mixed := []v1alpha1.ToolRegistryDiscoveredTool{tool("a", "a", avail, ""), tool("b", "b", unavail, "TCP connect failed: refused")}
	cases := []struct {
		name      string
		phase     v1alpha1.ToolRegistryPhase
		tools     []v1alpha1.ToolRegistryDiscoveredTool
		status    metav1.ConditionStatus
		reason    string
		fragments []string
	}{
		{"degraded", v1alpha1.ToolRegistryPhaseDegraded, mixed, metav1.ConditionTrue, v1alpha1.ToolRegistryReasonSomeToolsUnavailable,
			[]string{"1 of 2 tools unreachable: b/b (TCP connect failed: refused)"}},
		{"ready", v1alpha1.ToolRegistryPhaseReady, mixed[:1], metav1.ConditionFalse, v1alpha1.ToolRegistryReasonAllToolsAvailable, []string{"every tool is available"}},
		{"failed", v1alpha1.ToolRegistryPhaseFailed, mixed[1:], metav1.ConditionFalse, v1alpha1.ToolRegistryReasonAllToolsAvailable, []string{"the phase is Failed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := &v1alpha1.ToolRegistryStatus{}
			setDegradedCondition(st, c.phase, c.tools, 1, now0)
			wantCond(t, st, v1alpha1.ToolRegistryConditionDegraded, c.status, c.reason, c.fragments...)
		})
	}
}

func TestSetReadyCondition(t *testing.T) {
	valid := metav1.Condition{Type: v1alpha1.ToolRegistryConditionHandlersValid, Status: metav1.ConditionTrue, Reason: v1alpha1.ToolRegistryReasonHandlersValid}
	invalid := metav1.Condition{Type: v1alpha1.ToolRegistryConditionHandlersValid, Status: metav1.ConditionFalse, Reason: v1alpha1.ToolRegistryReasonValidationFailed, Message: "[r] f: bad"}
	cases := []struct {
		name          string
		handlersValid metav1.Condition
		tools         []v1alpha1.ToolRegistryDiscoveredTool
		probing       bool
		status        metav1.ConditionStatus
		reason        string
		fragments     []string
	}{
		{"validation failed", invalid, []v1alpha1.ToolRegistryDiscoveredTool{tool("a", "a", unknown, "")}, false,
			metav1.ConditionFalse, v1alpha1.ToolRegistryReasonValidationFailed, []string{"HandlersValid: [r] f: bad"}},
		{"no tools", valid, nil, false, metav1.ConditionFalse, v1alpha1.ToolRegistryReasonNoToolsAvailable, []string{"no tool was discovered"}},
		{"none reachable", valid, []v1alpha1.ToolRegistryDiscoveredTool{tool("a", "a", unavail, "TCP connect failed: x")}, true,
			metav1.ConditionFalse, v1alpha1.ToolRegistryReasonNoToolsAvailable, []string{"none of the 1 tool is reachable: a/a (TCP connect failed: x)"}},
		{"config-level", valid, []v1alpha1.ToolRegistryDiscoveredTool{tool("a", "a", avail, ""), tool("b", "b", avail, "")}, false,
			metav1.ConditionTrue, v1alpha1.ToolRegistryReasonToolsDiscovered, []string{"2 tools available", "spec.probe is off"}},
		{"some reachable", valid, []v1alpha1.ToolRegistryDiscoveredTool{tool("a", "a", avail, ""), tool("b", "b", unavail, "x")}, true,
			metav1.ConditionTrue, v1alpha1.ToolRegistryReasonToolsDiscovered, []string{"1 of 2 tools reachable"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := &v1alpha1.ToolRegistryStatus{Conditions: []metav1.Condition{c.handlersValid}}
			setReadyCondition(st, c.tools, c.probing, 1, now0)
			wantCond(t, st, v1alpha1.ToolRegistryConditionReady, c.status, c.reason, c.fragments...)
		})
	}
}

func TestSetPolicyBoundCondition(t *testing.T) {
	cases := []struct {
		name      string
		policy    policyState
		absent    bool
		status    metav1.ConditionStatus
		reason    string
		fragments []string
	}{
		{"CRD not installed", policyState{}, true, "", "", nil},
		{"no policy", policyState{installed: true}, false, metav1.ConditionFalse, v1alpha1.ToolRegistryReasonNoPolicySelectsRegistry,
			[]string{"spec.selector.registry: tools", "deniedBy=no-matching-permit"}},
		{"one policy", policyState{installed: true, names: []string{"calculator-policy"}}, false, metav1.ConditionTrue, v1alpha1.ToolRegistryReasonPolicySelectsRegistry,
			[]string{"selected by 1 ToolPolicy(s): [calculator-policy]"}},
		{"two policies", policyState{installed: true, names: []string{"a", "b"}}, false, metav1.ConditionTrue, v1alpha1.ToolRegistryReasonPolicySelectsRegistry,
			[]string{"selected by 2 ToolPolicy(s): [a b]"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Start from a stale True, so "absent" proves removal.
			st := &v1alpha1.ToolRegistryStatus{Conditions: []metav1.Condition{{Type: v1alpha1.ToolRegistryConditionPolicyBound, Status: metav1.ConditionTrue, Reason: v1alpha1.ToolRegistryReasonPolicySelectsRegistry}}}
			setPolicyBoundCondition(st, c.policy, "tools", 1, now0)
			if c.absent {
				if got := cond(st, v1alpha1.ToolRegistryConditionPolicyBound); got != nil {
					t.Fatalf("PolicyBound = %+v, want absent", got)
				}
				return
			}
			wantCond(t, st, v1alpha1.ToolRegistryConditionPolicyBound, c.status, c.reason, c.fragments...)
		})
	}
}

func TestSetFindingsCondition(t *testing.T) {
	f := rules.Finding{RuleID: "toolregistry/sandbox-declared", Field: "spec.handlers[0].sandbox.name", Condition: v1alpha1.ToolRegistryConditionSandboxesValid,
		Reason: v1alpha1.ToolRegistryReasonSandboxNotDeclared, Message: "sandbox box is not declared"}
	st := &v1alpha1.ToolRegistryStatus{}
	setFindingsCondition(st, v1alpha1.ToolRegistryConditionSandboxesValid, []rules.Finding{f}, true, v1alpha1.ToolRegistryReasonSandboxesValid, "ok", 1, now0)
	wantCond(t, st, v1alpha1.ToolRegistryConditionSandboxesValid, metav1.ConditionFalse, v1alpha1.ToolRegistryReasonSandboxNotDeclared,
		"[toolregistry/sandbox-declared] spec.handlers[0].sandbox.name: sandbox box is not declared")
	setFindingsCondition(st, v1alpha1.ToolRegistryConditionSandboxesValid, nil, true, v1alpha1.ToolRegistryReasonSandboxesValid, "all valid", 2, now0)
	wantCond(t, st, v1alpha1.ToolRegistryConditionSandboxesValid, metav1.ConditionTrue, v1alpha1.ToolRegistryReasonSandboxesValid, "all valid")
	setFindingsCondition(st, v1alpha1.ToolRegistryConditionSandboxesValid, nil, false, v1alpha1.ToolRegistryReasonSandboxesValid, "", 3, now0)
	if c := cond(st, v1alpha1.ToolRegistryConditionSandboxesValid); c != nil {
		t.Errorf("SandboxesValid = %+v with no sandbox and no finding, want absent", c)
	}
}

// TestValidConditionsTrue: SandboxesValid and HandlerConnectionsValid are
// True with the spec's reasons when what they check is valid, and absent
// when the registry has nothing for them to check (toolregistry.md#conditions).
func TestValidConditionsTrue(t *testing.T) {
	onSandbox := func() v1alpha1.ToolRegistryHandler {
		h := mcpHandler("box", "/sse")
		h.Sandbox = &v1alpha1.ToolRegistryHandlerSandbox{Name: "dev", Port: "mcp"}
		h.MCPConfig.ToolFilter = &v1alpha1.ToolRegistryMCPToolFilter{Allowlist: []string{"Read"}}
		return h
	}
	withConnection := func(endpoint string) v1alpha1.ToolRegistryHandler {
		h := httpHandler("crm", endpoint)
		h.Auth = &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeBearer,
			ConnectionRef: &v1alpha1.ToolRegistryConnectionKeyRef{Name: "crm-shared", Key: "token"}}
		return h
	}
	cases := []struct {
		name                 string
		tr                   *v1alpha1.ToolRegistry
		sandboxes, handlerCx metav1.ConditionStatus // "" for absent
		sandboxesReason      string
		handlerCxReason      string
	}{
		{name: "neither applies", tr: registry(httpHandler("calc", "https://api.example.com/calc"))},
		{name: "a declared sandbox with its handler", tr: func() *v1alpha1.ToolRegistry {
			tr := registry(onSandbox())
			tr.Spec.Sandboxes = []v1alpha1.ToolRegistrySandbox{{Name: "dev"}}
			return tr
		}(), sandboxes: metav1.ConditionTrue, sandboxesReason: v1alpha1.ToolRegistryReasonSandboxesValid},
		{name: "a handler on an undeclared sandbox", tr: registry(onSandbox()),
			sandboxes: metav1.ConditionFalse, sandboxesReason: v1alpha1.ToolRegistryReasonSandboxNotDeclared},
		{name: "a connectionRef handler on https:443", tr: registry(withConnection("https://crm.example.com/v1/lookup")),
			handlerCx: metav1.ConditionTrue, handlerCxReason: v1alpha1.ToolRegistryReasonHandlerConnectionsValid},
		{name: "a connectionRef handler on plain http", tr: registry(withConnection("http://crm.example.com/v1/lookup")),
			handlerCx: metav1.ConditionFalse, handlerCxReason: v1alpha1.ToolRegistryReasonConnectionHostNotCovered},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := evaluate(tc.tr, policyState{}, nil, t0)
			for _, c := range []struct {
				typ    string
				status metav1.ConditionStatus
				reason string
			}{
				{v1alpha1.ToolRegistryConditionSandboxesValid, tc.sandboxes, tc.sandboxesReason},
				{v1alpha1.ToolRegistryConditionHandlerConnectionsValid, tc.handlerCx, tc.handlerCxReason},
			} {
				if c.status == "" {
					if got := cond(&st, c.typ); got != nil {
						t.Errorf("%s = %+v, want absent", c.typ, got)
					}
					continue
				}
				wantCond(t, &st, c.typ, c.status, c.reason)
			}
		})
	}
}

// TestAdvisoryFindingsNeverFailTheRegistry: a client handler with auth, or
// another type's config block on a non-platform handler, is an admission
// warning; HandlersValid stays True and the phase Ready.
func TestAdvisoryFindingsNeverFailTheRegistry(t *testing.T) {
	clientWithAuth := v1alpha1.ToolRegistryHandler{Name: "geo", Type: "client", Tool: toolDef("get_location"),
		Auth: &v1alpha1.ToolRegistryHandlerAuth{Type: v1alpha1.ToolRegistryAuthTypeBearer,
			SecretRef: &v1alpha1.ToolRegistrySecretKeyRef{Name: "creds", Key: "token"}}}
	httpWithMCP := httpHandler("calc", "https://api.example.com/calc")
	httpWithMCP.MCPConfig = &v1alpha1.ToolRegistryMCPConfig{Transport: "sse", Endpoint: "http://mcp:8080/sse"}
	for name, tr := range map[string]*v1alpha1.ToolRegistry{
		"client handler with auth":     registry(clientWithAuth),
		"http handler with mcpConfig":  registry(httpWithMCP),
		"client handler with auth: {}": registry(v1alpha1.ToolRegistryHandler{Name: "geo", Type: "client", Tool: toolDef("get_location"), Auth: &v1alpha1.ToolRegistryHandlerAuth{}}),
	} {
		t.Run(name, func(t *testing.T) {
			st := evaluate(tr, policyState{}, nil, t0)
			if st.Phase != v1alpha1.ToolRegistryPhaseReady {
				t.Errorf("phase = %s, want Ready", st.Phase)
			}
			wantCond(t, &st, v1alpha1.ToolRegistryConditionHandlersValid, metav1.ConditionTrue, v1alpha1.ToolRegistryReasonHandlersValid)
			wantCond(t, &st, v1alpha1.ToolRegistryConditionReady, metav1.ConditionTrue, v1alpha1.ToolRegistryReasonToolsDiscovered)
		})
	}
}

func TestFindingsFor(t *testing.T) {
	fs := []rules.Finding{
		{RuleID: "a", Condition: "", Severity: rules.SeverityDeny},
		{RuleID: "advisory", Condition: "", Severity: rules.SeverityWarn},
		{RuleID: "b", Condition: v1alpha1.ToolRegistryConditionHandlersValid},
		{RuleID: "c", Condition: v1alpha1.ToolRegistryConditionSandboxesValid},
		{RuleID: "d", Condition: v1alpha1.ToolRegistryConditionHandlerConnectionsValid},
	}
	ids := func(fs []rules.Finding) string {
		var s []string
		for _, f := range fs {
			s = append(s, f.RuleID)
		}
		return strings.Join(s, ",")
	}
	for ct, want := range map[string]string{
		v1alpha1.ToolRegistryConditionHandlersValid:           "a,b",
		v1alpha1.ToolRegistryConditionSandboxesValid:          "c",
		v1alpha1.ToolRegistryConditionHandlerConnectionsValid: "d",
	} {
		if got := ids(findingsFor(fs, ct)); got != want {
			t.Errorf("findingsFor(%s) = %s, want %s", ct, got, want)
		}
	}
	inv := invalidHandlers([]rules.Finding{{Field: "spec.handlers[2].tool"}, {Field: "spec.handlers[10].mcpConfig.endpoint"}, {Field: "spec.probe.interval"}})
	if len(inv) != 2 || !inv[2] || !inv[10] {
		t.Errorf("invalidHandlers = %v, want {2, 10}", inv)
	}
}

func TestPhaseOf(t *testing.T) {
	cases := []struct {
		name  string
		valid bool
		tools []v1alpha1.ToolRegistryDiscoveredTool
		want  v1alpha1.ToolRegistryPhase
	}{
		{"validation failed", false, []v1alpha1.ToolRegistryDiscoveredTool{tool("a", "a", avail, "")}, v1alpha1.ToolRegistryPhaseFailed},
		{"no tools", true, nil, v1alpha1.ToolRegistryPhaseFailed},
		{"none reachable", true, []v1alpha1.ToolRegistryDiscoveredTool{tool("a", "a", unavail, "")}, v1alpha1.ToolRegistryPhaseFailed},
		{"some reachable", true, []v1alpha1.ToolRegistryDiscoveredTool{tool("a", "a", avail, ""), tool("b", "b", unavail, "")}, v1alpha1.ToolRegistryPhaseDegraded},
		{"all available", true, []v1alpha1.ToolRegistryDiscoveredTool{tool("a", "a", avail, ""), tool("b", "b", avail, "")}, v1alpha1.ToolRegistryPhaseReady},
		{"a first probe pending", true, []v1alpha1.ToolRegistryDiscoveredTool{tool("a", "a", avail, ""), tool("b", "b", unknown, NotProbedYet)}, v1alpha1.ToolRegistryPhasePending},
		{"a first probe pending, validation failed", false, []v1alpha1.ToolRegistryDiscoveredTool{tool("b", "b", unknown, NotProbedYet)}, v1alpha1.ToolRegistryPhaseFailed},
	}
	for _, c := range cases {
		if got := phaseOf(c.valid, c.tools); got != c.want {
			t.Errorf("%s: phase = %s, want %s", c.name, got, c.want)
		}
	}
}

func TestToolStatuses(t *testing.T) {
	net := func(h int, name, addr string) resolvedTool {
		return resolvedTool{tool: v1alpha1.ToolRegistryDiscoveredTool{HandlerName: name, Name: name, Endpoint: "http://" + addr}, handler: h, network: true, dialAddr: addr}
	}
	client := resolvedTool{tool: v1alpha1.ToolRegistryDiscoveredTool{HandlerName: "geo", Name: "geo", Endpoint: ClientEndpoint}, handler: 3}
	// An endpoint with no address fails toolregistry/endpoint-address, so its
	// handler is invalid: never dialled, Unknown like any invalid handler.
	bad := resolvedTool{tool: v1alpha1.ToolRegistryDiscoveredTool{HandlerName: "bad", Name: "bad", Endpoint: "http:"}, handler: 4, network: true}
	tools := []resolvedTool{net(0, "up", "up:1"), net(1, "down", "down:1"), net(2, "meta", "169.254.169.254:80"), client, bad}
	invalid := map[int]bool{2: true, 4: true}
	earlier := metav1.NewTime(t0.Add(-10 * time.Second))
	on := probeSettings{enabled: true, interval: time.Minute, timeout: time.Second}

	t.Run("config-level without probing", func(t *testing.T) {
		got := toolStatuses(tools, invalid, probeSettings{}, nil, nil)
		want := []v1alpha1.ToolRegistryToolStatus{avail, avail, unknown, avail, unknown}
		for i, w := range want {
			if got[i].Status != w || got[i].LastChecked != nil {
				t.Errorf("tool %s = %s (lastChecked %v), want %s unchecked", got[i].Name, got[i].Status, got[i].LastChecked, w)
			}
		}
		if !strings.Contains(got[2].Error, "failed validation") {
			t.Errorf("invalid handler's tool error = %q", got[2].Error)
		}
	})
	t.Run("a probe round", func(t *testing.T) {
		results := resultsAt(map[string]error{"up:1": nil, "down:1": errors.New("dial tcp down:1: connect: connection refused")}, now0.Time.Add(300*time.Millisecond))
		got := toolStatuses(tools, invalid, on, nil, results)
		want := []struct {
			st      v1alpha1.ToolRegistryToolStatus
			err     string
			checked bool
		}{
			{avail, "", true},
			{unavail, "TCP connect failed: dial tcp down:1: connect: connection refused", true},
			{unknown, "handler meta failed validation: see the HandlersValid condition", false},
			{avail, "", false},
			{unknown, "handler bad failed validation: see the HandlersValid condition", false},
		}
		for i, w := range want {
			if got[i].Status != w.st || got[i].Error != w.err || (got[i].LastChecked != nil) != w.checked {
				t.Errorf("tool %s = %s %q checked %v, want %+v", got[i].Name, got[i].Status, got[i].Error, got[i].LastChecked, w)
			}
			if w.checked && !got[i].LastChecked.Equal(&now0) {
				t.Errorf("tool %s lastChecked = %v, want now", got[i].Name, got[i].LastChecked)
			}
		}
	})
	t.Run("before the prober has a result the stored one stands", func(t *testing.T) {
		prev := tool("down", "down", unavail, "TCP connect failed: old")
		prev.Endpoint, prev.LastChecked = "http://down:1", &earlier
		previous := map[string]v1alpha1.ToolRegistryDiscoveredTool{toolKey(&prev): prev}
		got := toolStatuses([]resolvedTool{net(1, "down", "down:1")}, nil, on, previous, nil)
		if got[0].Status != unavail || got[0].Error != "TCP connect failed: old" || !got[0].LastChecked.Equal(&earlier) {
			t.Errorf("carried tool = %+v", got[0])
		}
		// The prober's result wins over the stored one.
		got = toolStatuses([]resolvedTool{net(1, "down", "down:1")}, nil, on, previous, resultsAt(map[string]error{"down:1": nil}, now0.Time))
		if got[0].Status != avail || !got[0].LastChecked.Equal(&now0) {
			t.Errorf("tool with a new result = %+v", got[0])
		}
	})
	t.Run("never probed: Unknown, not probed yet", func(t *testing.T) {
		got := toolStatuses([]resolvedTool{net(0, "up", "up:1")}, nil, on, nil, nil)
		if got[0].Status != unknown || got[0].Error != NotProbedYet || got[0].LastChecked != nil {
			t.Errorf("unprobed tool = %+v", got[0])
		}
	})
}

func TestTransitionEvents(t *testing.T) {
	c := func(typ string, s metav1.ConditionStatus, reason string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: s, Reason: reason, Message: "m"}
	}
	hvTrue := c(v1alpha1.ToolRegistryConditionHandlersValid, metav1.ConditionTrue, v1alpha1.ToolRegistryReasonHandlersValid)
	hvFalse := c(v1alpha1.ToolRegistryConditionHandlersValid, metav1.ConditionFalse, v1alpha1.ToolRegistryReasonValidationFailed)
	degTrue := c(v1alpha1.ToolRegistryConditionDegraded, metav1.ConditionTrue, v1alpha1.ToolRegistryReasonSomeToolsUnavailable)
	degFalse := c(v1alpha1.ToolRegistryConditionDegraded, metav1.ConditionFalse, v1alpha1.ToolRegistryReasonAllToolsAvailable)
	cases := []struct {
		name     string
		old, new []metav1.Condition
		want     []conditionEvent
	}{
		{"appears good: nothing", nil, []metav1.Condition{hvTrue, degFalse}, nil},
		{"appears bad: warning", nil, []metav1.Condition{hvFalse}, []conditionEvent{{"Warning", v1alpha1.ToolRegistryReasonValidationFailed, "HandlersValid is False: m"}}},
		{"turns bad: warning", []metav1.Condition{hvTrue}, []metav1.Condition{hvFalse}, []conditionEvent{{"Warning", v1alpha1.ToolRegistryReasonValidationFailed, "HandlersValid is False: m"}}},
		{"recovers: normal", []metav1.Condition{hvFalse}, []metav1.Condition{hvTrue}, []conditionEvent{{"Normal", v1alpha1.ToolRegistryReasonHandlersValid, "HandlersValid is True: m"}}},
		{"unchanged: nothing", []metav1.Condition{hvFalse}, []metav1.Condition{hvFalse}, nil},
		{"degraded turns true: warning", []metav1.Condition{degFalse}, []metav1.Condition{degTrue}, []conditionEvent{{"Warning", v1alpha1.ToolRegistryReasonSomeToolsUnavailable, "Degraded is True: m"}}},
		{"degraded clears: normal", []metav1.Condition{degTrue}, []metav1.Condition{degFalse}, []conditionEvent{{"Normal", v1alpha1.ToolRegistryReasonAllToolsAvailable, "Degraded is False: m"}}},
		{"removed: nothing", []metav1.Condition{hvFalse}, nil, nil},
	}
	for _, tc := range cases {
		got := transitionEvents(tc.old, tc.new)
		if len(got) != len(tc.want) {
			t.Errorf("%s: events = %+v, want %+v", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: event %d = %+v, want %+v", tc.name, i, got[i], tc.want[i])
			}
		}
	}
}

// resultsAt are prober results by address, stored at: a nil error is a
// connection, any other a failed dial.
func resultsAt(errs map[string]error, at time.Time) map[string]prober.Result {
	out := map[string]prober.Result{}
	for addr, err := range errs {
		r := prober.Result{At: at}
		if err != nil {
			r.Failure, r.Detail = FailureTCPConnect, err.Error()
		}
		out[addr] = r
	}
	return out
}

// evaluate computes a status the way Reconcile does, with the real catalog,
// without a cluster: policy and the prober's stored results (taken at now)
// are given.
func evaluate(tr *v1alpha1.ToolRegistry, policy policyState, results map[string]error, now time.Time) v1alpha1.ToolRegistryStatus {
	findings := rules.Default.Evaluate("ToolRegistry", rules.Input{Object: tr}, rules.Options{})
	in := statusInput{findings: findings, probe: probeSettingsOf(tr.Spec.Probe, DefaultProbeInterval, DefaultProbeTimeout), policy: policy, now: now}
	in.tools, in.handlersWithTools = discoverTools(tr)
	in.previous = previousResults(tr.Status.DiscoveredTools)
	in.results = resultsAt(results, now)
	return computeStatus(tr, in)
}

func registry(handlers ...v1alpha1.ToolRegistryHandler) *v1alpha1.ToolRegistry {
	tr := &v1alpha1.ToolRegistry{Spec: v1alpha1.ToolRegistrySpec{Handlers: handlers}}
	tr.Name, tr.Namespace, tr.Generation = "tools", "agents", 1
	return tr
}

func httpHandler(name, endpoint string) v1alpha1.ToolRegistryHandler {
	return v1alpha1.ToolRegistryHandler{Name: name, Type: "http", HTTPConfig: &v1alpha1.ToolRegistryHTTPConfig{Endpoint: endpoint}, Tool: toolDef(strings.ReplaceAll(name, "-", "_"))}
}

func mcpHandler(name, endpoint string) v1alpha1.ToolRegistryHandler {
	return v1alpha1.ToolRegistryHandler{Name: name, Type: "mcp", MCPConfig: &v1alpha1.ToolRegistryMCPConfig{Transport: "sse", Endpoint: endpoint}}
}

func TestComputeStatus(t *testing.T) {
	t.Run("valid, config-level", func(t *testing.T) {
		tr := registry(httpHandler("calc", "https://api.example.com/calc"), mcpHandler("code", "http://mcp.tools:8080/sse"),
			v1alpha1.ToolRegistryHandler{Name: "geo", Type: "client", Tool: toolDef("get_location")})
		st := evaluate(tr, policyState{installed: true, names: []string{"p"}}, nil, t0)
		if st.Phase != v1alpha1.ToolRegistryPhaseReady || st.DiscoveredToolsCount != 3 || st.PolicyCount == nil || *st.PolicyCount != 1 ||
			st.ObservedGeneration != 1 || st.LastDiscoveryTime == nil || !strings.HasPrefix(st.ContentDigest, "sha256:") {
			t.Fatalf("status = %+v", st)
		}
		wantCond(t, &st, v1alpha1.ToolRegistryConditionReady, metav1.ConditionTrue, v1alpha1.ToolRegistryReasonToolsDiscovered)
		wantCond(t, &st, v1alpha1.ToolRegistryConditionHandlersValid, metav1.ConditionTrue, v1alpha1.ToolRegistryReasonHandlersValid)
		wantCond(t, &st, v1alpha1.ToolRegistryConditionToolsDiscovered, metav1.ConditionTrue, v1alpha1.ToolRegistryReasonToolsDiscovered, "3 tools discovered from 3 handlers")
		wantCond(t, &st, v1alpha1.ToolRegistryConditionDegraded, metav1.ConditionFalse, v1alpha1.ToolRegistryReasonAllToolsAvailable)
		wantCond(t, &st, v1alpha1.ToolRegistryConditionPolicyBound, metav1.ConditionTrue, v1alpha1.ToolRegistryReasonPolicySelectsRegistry, "[p]")
		if st.DiscoveredTools[2].Endpoint != ClientEndpoint {
			t.Errorf("client endpoint = %q", st.DiscoveredTools[2].Endpoint)
		}

		// Recomputed later from what was written, nothing changes.
		tr.Status = st
		again := evaluate(tr, policyState{installed: true, names: []string{"p"}}, nil, t0.Add(time.Hour))
		if !equality.Semantic.DeepEqual(again, st) {
			t.Errorf("second computation changed the status:\nwas %+v\nnow %+v", st, again)
		}
		// A new generation that changes a tool bumps lastDiscoveryTime and the digest.
		tr.Generation = 2
		tr.Spec.Handlers[0].Tool.Description = "calculates"
		third := evaluate(tr, policyState{installed: true, names: []string{"p"}}, nil, t0.Add(time.Hour))
		if third.ContentDigest == st.ContentDigest || !third.LastDiscoveryTime.Time.Equal(t0.Add(time.Hour)) {
			t.Errorf("after a spec change: digest %s (was %s), lastDiscoveryTime %v", third.ContentDigest, st.ContentDigest, third.LastDiscoveryTime)
		}
	})

	t.Run("an mcp endpoint at a cloud-metadata address fails validation and is never probed", func(t *testing.T) {
		tr := registry(mcpHandler("meta", "http://169.254.169.254/latest/meta-data"))
		on := true
		tr.Spec.Probe = &v1alpha1.ToolRegistryProbe{Enabled: &on}
		findings := rules.Default.Evaluate("ToolRegistry", rules.Input{Object: tr}, rules.Options{})
		tools, _ := discoverTools(tr)
		if got := probeTargets(tools, invalidHandlers(findingsFor(findings, v1alpha1.ToolRegistryConditionHandlersValid)), probeSettings{enabled: true}); len(got) != 0 {
			t.Fatalf("probe targets = %+v, want none", got)
		}
		st := evaluate(tr, policyState{}, nil, t0)
		if st.Phase != v1alpha1.ToolRegistryPhaseFailed || st.PolicyCount != nil || cond(&st, v1alpha1.ToolRegistryConditionPolicyBound) != nil {
			t.Fatalf("status = %+v", st)
		}
		wantCond(t, &st, v1alpha1.ToolRegistryConditionHandlersValid, metav1.ConditionFalse, v1alpha1.ToolRegistryReasonValidationFailed,
			"[toolregistry/mcp-endpoint-metadata-address] spec.handlers[0].mcpConfig.endpoint: host 169.254.169.254")
		wantCond(t, &st, v1alpha1.ToolRegistryConditionReady, metav1.ConditionFalse, v1alpha1.ToolRegistryReasonValidationFailed, "HandlersValid:")
		if st.DiscoveredTools[0].Status != unknown {
			t.Errorf("tool status = %s, want Unknown", st.DiscoveredTools[0].Status)
		}
	})

	t.Run("an endpoint with no address fails validation and is never probed", func(t *testing.T) {
		tr := registry(mcpHandler("noaddr", "http:"))
		on := true
		tr.Spec.Probe = &v1alpha1.ToolRegistryProbe{Enabled: &on}
		findings := rules.Default.Evaluate("ToolRegistry", rules.Input{Object: tr}, rules.Options{})
		tools, _ := discoverTools(tr)
		if got := probeTargets(tools, invalidHandlers(findingsFor(findings, v1alpha1.ToolRegistryConditionHandlersValid)), probeSettings{enabled: true}); len(got) != 0 {
			t.Fatalf("probe targets = %+v, want none", got)
		}
		st := evaluate(tr, policyState{}, nil, t0)
		if st.Phase != v1alpha1.ToolRegistryPhaseFailed {
			t.Fatalf("phase = %s, want Failed", st.Phase)
		}
		wantCond(t, &st, v1alpha1.ToolRegistryConditionHandlersValid, metav1.ConditionFalse, v1alpha1.ToolRegistryReasonValidationFailed,
			"[toolregistry/endpoint-address] spec.handlers[0].mcpConfig.endpoint:")
		if st.DiscoveredTools[0].Status != unknown {
			t.Errorf("tool status = %s, want Unknown", st.DiscoveredTools[0].Status)
		}
	})

	t.Run("retry backoff out of order fails validation", func(t *testing.T) {
		h := httpHandler("calc", "https://api.example.com/calc")
		h.HTTPConfig.RetryPolicy = &v1alpha1.ToolRegistryHTTPRetryPolicy{MaxAttempts: 3, InitialBackoff: "10s", MaxBackoff: "1s"}
		st := evaluate(registry(h), policyState{}, nil, t0)
		wantCond(t, &st, v1alpha1.ToolRegistryConditionHandlersValid, metav1.ConditionFalse, v1alpha1.ToolRegistryReasonValidationFailed, "[toolregistry/retry-backoff-order]")
		wantCond(t, &st, v1alpha1.ToolRegistryConditionReady, metav1.ConditionFalse, v1alpha1.ToolRegistryReasonValidationFailed)
		if st.Phase != v1alpha1.ToolRegistryPhaseFailed {
			t.Errorf("phase = %s", st.Phase)
		}
	})

	t.Run("a handler naming an undeclared sandbox sets SandboxesValid, not HandlersValid", func(t *testing.T) {
		h := mcpHandler("box", "/sse")
		h.Sandbox = &v1alpha1.ToolRegistryHandlerSandbox{Name: "nope", Port: "mcp"}
		h.MCPConfig.ToolFilter = &v1alpha1.ToolRegistryMCPToolFilter{Allowlist: []string{"Read"}}
		st := evaluate(registry(h), policyState{}, nil, t0)
		wantCond(t, &st, v1alpha1.ToolRegistryConditionSandboxesValid, metav1.ConditionFalse, v1alpha1.ToolRegistryReasonSandboxNotDeclared)
		wantCond(t, &st, v1alpha1.ToolRegistryConditionHandlersValid, metav1.ConditionTrue, v1alpha1.ToolRegistryReasonHandlersValid)
		if st.DiscoveredTools[0].Endpoint != "sandbox://nope/mcp/sse" {
			t.Errorf("endpoint = %q", st.DiscoveredTools[0].Endpoint)
		}
	})

	t.Run("probing, before the first results: Pending, Ready and Degraded Unknown", func(t *testing.T) {
		on := true
		tr := registry(httpHandler("a", "http://a:1/x"), httpHandler("b", "http://b:2/x"))
		tr.Spec.Probe = &v1alpha1.ToolRegistryProbe{Enabled: &on}
		st := evaluate(tr, policyState{}, map[string]error{"a:1": nil}, t0)
		if st.Phase != v1alpha1.ToolRegistryPhasePending {
			t.Fatalf("phase = %s, want Pending", st.Phase)
		}
		wantCond(t, &st, v1alpha1.ToolRegistryConditionReady, metav1.ConditionUnknown, v1alpha1.ToolRegistryReasonProbesPending, "1 of 2 tools not probed yet")
		wantCond(t, &st, v1alpha1.ToolRegistryConditionDegraded, metav1.ConditionUnknown, v1alpha1.ToolRegistryReasonProbesPending)
		if b := st.DiscoveredTools[1]; b.Status != unknown || b.Error != NotProbedYet || b.LastChecked != nil {
			t.Errorf("unprobed tool = %+v", b)
		}
	})

	t.Run("probing: Ready, Degraded, Failed; the digest ignores health", func(t *testing.T) {
		on := true
		tr := registry(httpHandler("a", "http://a:1/x"), httpHandler("b", "http://b:2/x"),
			v1alpha1.ToolRegistryHandler{Name: "geo", Type: "client", Tool: toolDef("get_location")})
		tr.Spec.Probe = &v1alpha1.ToolRegistryProbe{Enabled: &on, Interval: "30s", Timeout: "1s"}
		refused := errors.New("connection refused")

		up := evaluate(tr, policyState{}, map[string]error{"a:1": nil, "b:2": nil}, t0)
		if up.Phase != v1alpha1.ToolRegistryPhaseReady {
			t.Fatalf("phase = %s", up.Phase)
		}
		wantCond(t, &up, v1alpha1.ToolRegistryConditionReady, metav1.ConditionTrue, v1alpha1.ToolRegistryReasonToolsDiscovered, "3 of 3 tools reachable")
		if up.DiscoveredTools[2].LastChecked != nil || up.DiscoveredTools[2].Status != avail {
			t.Errorf("client tool = %+v, want Available and never probed", up.DiscoveredTools[2])
		}

		// Recomputed from the same results later, nothing changes.
		tr.Status = up
		if same := evaluate(tr, policyState{}, nil, t0.Add(29*time.Second)); !equality.Semantic.DeepEqual(same, up) {
			t.Errorf("status changed without a new result:\nwas %+v\nnow %+v", up, same)
		}

		half := evaluate(tr, policyState{}, map[string]error{"a:1": nil, "b:2": refused}, t0.Add(30*time.Second))
		if half.Phase != v1alpha1.ToolRegistryPhaseDegraded || half.ContentDigest != up.ContentDigest || !half.LastDiscoveryTime.Equal(up.LastDiscoveryTime) {
			t.Fatalf("phase %s digest %s (was %s) lastDiscoveryTime %v (was %v)", half.Phase, half.ContentDigest, up.ContentDigest, half.LastDiscoveryTime, up.LastDiscoveryTime)
		}
		wantCond(t, &half, v1alpha1.ToolRegistryConditionDegraded, metav1.ConditionTrue, v1alpha1.ToolRegistryReasonSomeToolsUnavailable, "b/b (TCP connect failed: connection refused)")
		wantCond(t, &half, v1alpha1.ToolRegistryConditionReady, metav1.ConditionTrue, v1alpha1.ToolRegistryReasonToolsDiscovered, "2 of 3 tools reachable")

		tr.Status = half
		tr.Spec.Handlers = tr.Spec.Handlers[:2] // without the client tool, nothing is reachable
		tr.Generation = 2
		down := evaluate(tr, policyState{}, map[string]error{"a:1": refused, "b:2": refused}, t0.Add(60*time.Second))
		if down.Phase != v1alpha1.ToolRegistryPhaseFailed {
			t.Fatalf("phase = %s", down.Phase)
		}
		wantCond(t, &down, v1alpha1.ToolRegistryConditionReady, metav1.ConditionFalse, v1alpha1.ToolRegistryReasonNoToolsAvailable, "none of the 2 tools is reachable")
		wantCond(t, &down, v1alpha1.ToolRegistryConditionDegraded, metav1.ConditionFalse, v1alpha1.ToolRegistryReasonAllToolsAvailable)
	})
}
