package rules

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules/schema"
)

// exposeTestFacts are the agent tests' base facts plus the operator's
// exposure base domain and the Workspaces, by the namespace they own.
type exposeTestFacts struct {
	agentRuntimeTestFacts
	base       string
	workspaces map[string]*v1alpha1.Workspace
}

func (f exposeTestFacts) ExposureBaseDomain() string { return f.base }

func (f exposeTestFacts) Workspace(namespace string) (*v1alpha1.Workspace, bool) {
	ws, ok := f.workspaces[namespace]
	return ws, ok
}

// exposeWorkspace is the Workspace of namespace granting suffixes.
func exposeWorkspace(namespace string, suffixes ...string) *v1alpha1.Workspace {
	return &v1alpha1.Workspace{
		ObjectMeta: metav1.ObjectMeta{Name: "ws-" + namespace},
		Spec: v1alpha1.WorkspaceSpec{Namespace: v1alpha1.WorkspaceNamespace{Name: namespace},
			Exposure: &v1alpha1.WorkspaceExposure{AllowedHostSuffixes: suffixes}},
	}
}

// exposeFacts: base domain example.com; the agents' namespace's Workspace
// grants shop.example.org.
func exposeFacts(base string, workspaces ...*v1alpha1.Workspace) Facts {
	f := exposeTestFacts{agentRuntimeTestFacts: agentRuntimeBaseFacts(), base: base, workspaces: map[string]*v1alpha1.Workspace{}}
	for _, ws := range workspaces {
		f.workspaces[ws.Spec.Namespace.Name] = ws
	}
	return f
}

func exposeHostOn(host string) *v1alpha1.AgentRuntimeFacadeExpose {
	return &v1alpha1.AgentRuntimeFacadeExpose{Enabled: true, Host: host}
}

// TestAgentRuntimeExposeHostWildcardRule: a wildcard anywhere in an exposed
// facade's expose.host is refused; the object alone decides.
func TestAgentRuntimeExposeHostWildcardRule(t *testing.T) {
	const id = AgentRuntimeExposeHostWildcardID
	ruleTable[*v1alpha1.AgentRuntime]{kind: kindAgentRuntime, prefix: id, base: agentRuntimeBase,
		facts: func() Facts { return agentRuntimeBaseFacts() }}.run(t, []ruleCase[*v1alpha1.AgentRuntime]{
		{name: "accepted: default hosts", mutate: agentRuntimeExposed(exposeHostOn(""), exposeHostOn(""))},
		{name: "accepted: one named host", mutate: agentRuntimeExposed(exposeHostOn("chat.agents.example.com"), nil)},
		{name: "accepted: a wildcard on a facade that is not exposed",
			mutate: agentRuntimeExposed(&v1alpha1.AgentRuntimeFacadeExpose{Host: "*.example.com"}, nil)},
		{name: "accepted: a wildcard on a facade without a data plane", mutate: func(ar *v1alpha1.AgentRuntime) {
			agentRuntimeExposed(nil, exposeHostOn("*.example.com"))(ar)
			ar.Spec.Facades[1].DataPlane = ptr.To(false)
		}},
		{name: "rejected: a leading wildcard over the base domain",
			mutate: agentRuntimeExposed(exposeHostOn("*.example.com"), nil),
			want:   []ruleWant{{id, "spec.facades[0].expose.host"}}},
		{name: "rejected: a wildcard inside a label, on the secondary facade",
			mutate: agentRuntimeExposed(exposeHostOn(""), exposeHostOn("a*.agents.example.com")),
			want:   []ruleWant{{id, "spec.facades[1].expose.host"}}},
		{name: "rejected: a bare wildcard", mutate: agentRuntimeExposed(exposeHostOn("*"), nil),
			want: []ruleWant{{id, "spec.facades[0].expose.host"}}},
		{name: "ratchet: an update keeping the wildcard is reported, not refused",
			mutate: agentRuntimeExposed(exposeHostOn("*.example.com"), nil),
			old:    agentRuntimeExposed(exposeHostOn("*.example.com"), nil),
			want:   []ruleWant{{id, "spec.facades[0].expose.host"}}},
	})
}

// TestAgentRuntimeExposeHostOutsideNamespaceDomainRule: with the operator's
// base domain example.com, an agent of namespace "agents" may claim hosts
// under agents.example.com and under what its Workspace grants, nothing
// else: not another namespace's default host, not the base domain, not a
// look-alike suffix.
func TestAgentRuntimeExposeHostOutsideNamespaceDomainRule(t *testing.T) {
	const id = AgentRuntimeExposeHostOutsideNamespaceDomainID
	granted := exposeWorkspace(agentRuntimeTestNamespace, "shop.example.org")
	ruleTable[*v1alpha1.AgentRuntime]{kind: kindAgentRuntime, prefix: id, base: agentRuntimeBase,
		facts: func() Facts { return exposeFacts("example.com") }}.run(t, []ruleCase[*v1alpha1.AgentRuntime]{
		{name: "accepted: default hosts (under agents.example.com)", mutate: agentRuntimeExposed(exposeHostOn(""), exposeHostOn(""))},
		{name: "accepted: a host below the namespace's domain",
			mutate: agentRuntimeExposed(exposeHostOn("chat.agents.example.com"), exposeHostOn("a.b.agents.example.com"))},
		{name: "accepted: the namespace's domain itself", mutate: agentRuntimeExposed(exposeHostOn("agents.example.com"), nil)},
		{name: "accepted: case and a trailing dot ignored", mutate: agentRuntimeExposed(exposeHostOn("Chat.Agents.Example.COM."), nil)},
		{name: "accepted: a host the Workspace grants, and below it", facts: exposeFacts("example.com", granted),
			mutate: agentRuntimeExposed(exposeHostOn("shop.example.org"), exposeHostOn("api.shop.example.org"))},
		{name: "accepted: a host outside, on a facade that is not exposed",
			mutate: agentRuntimeExposed(&v1alpha1.AgentRuntimeFacadeExpose{Host: "support-agent.billing.example.com"}, nil)},
		{name: "accepted: no base domain (exposure off): not judged", facts: exposeFacts(""),
			mutate: agentRuntimeExposed(exposeHostOn("support-agent.billing.example.com"), nil)},
		{name: "accepted: a wildcard is expose-host-wildcard's alone", mutate: agentRuntimeExposed(exposeHostOn("*.example.com"), nil)},
		{name: "rejected: another namespace's default host",
			mutate: agentRuntimeExposed(exposeHostOn("support-agent.billing.example.com"), nil),
			want:   []ruleWant{{id, "spec.facades[0].expose.host"}}},
		{name: "rejected: the base domain itself", mutate: agentRuntimeExposed(nil, exposeHostOn("example.com")),
			want: []ruleWant{{id, "spec.facades[1].expose.host"}}},
		{name: "rejected: a look-alike of the namespace's domain", mutate: agentRuntimeExposed(exposeHostOn("xagents.example.com"), nil),
			want: []ruleWant{{id, "spec.facades[0].expose.host"}}},
		{name: "rejected: the namespace's domain under another domain",
			mutate: agentRuntimeExposed(exposeHostOn("agents.example.com.evil.test"), nil),
			want:   []ruleWant{{id, "spec.facades[0].expose.host"}}},
		{name: "rejected: a look-alike of a granted domain", facts: exposeFacts("example.com", granted),
			mutate: agentRuntimeExposed(exposeHostOn("myshop.example.org"), nil),
			want:   []ruleWant{{id, "spec.facades[0].expose.host"}}},
		{name: "rejected: another namespace's grant is not this one's",
			facts:  exposeFacts("example.com", exposeWorkspace("billing", "shop.example.org")),
			mutate: agentRuntimeExposed(exposeHostOn("shop.example.org"), nil),
			want:   []ruleWant{{id, "spec.facades[0].expose.host"}}},
		{name: "ratchet: an update keeping the host is reported, not refused",
			mutate: agentRuntimeExposed(exposeHostOn("support-agent.billing.example.com"), nil),
			old:    agentRuntimeExposed(exposeHostOn("support-agent.billing.example.com"), nil),
			want:   []ruleWant{{id, "spec.facades[0].expose.host"}}},
	})
}

// TestAgentRuntimeExposeHostRulesAtAdmission: the webhook's view. The
// wildcard rule runs on the object alone; the domain rule runs only with
// the rules marked AdmissionFacts (the webhook's cluster facts) and then
// denies; the update ratchet lets an object already in that state through.
func TestAgentRuntimeExposeHostRulesAtAdmission(t *testing.T) {
	ar := agentRuntimeBase()
	agentRuntimeExposed(exposeHostOn("support-agent.billing.example.com"), exposeHostOn("*.example.com"))(ar)
	facts := exposeFacts("example.com")
	ids := func(fs []Finding) []string {
		var out []string
		for _, f := range fs {
			if strings.HasPrefix(f.RuleID, "agentruntime/expose-host") {
				out = append(out, f.RuleID+" "+f.Field+" "+string(f.Severity)+" "+f.Reason)
			}
		}
		slices.Sort(out)
		return out
	}
	objectOnly := Default.Evaluate(kindAgentRuntime, Input{Object: ar, Facts: facts}, Options{Stages: []Stage{StageAdmission}})
	if got, want := ids(objectOnly), []string{
		"agentruntime/expose-host-wildcard spec.facades[1].expose.host deny ExposeHostWildcard",
	}; !slices.Equal(got, want) {
		t.Errorf("admission stage alone: %v, want %v", got, want)
	}
	webhook := Options{Stages: []Stage{StageAdmission}, AdmissionFacts: true}
	if got, want := ids(Default.Evaluate(kindAgentRuntime, Input{Object: ar, Facts: facts}, webhook)), []string{
		"agentruntime/expose-host-outside-namespace-domain spec.facades[0].expose.host deny ExposeHostNotAllowed",
		"agentruntime/expose-host-wildcard spec.facades[1].expose.host deny ExposeHostWildcard",
	}; !slices.Equal(got, want) {
		t.Errorf("with the webhook's cluster facts: %v, want %v", got, want)
	}
	// rules.FullUpdate (omniactl check, the deploy API) gives the same.
	sv, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	full, err := FullUpdate(context.Background(), sv, Default, toUnstructured(t, ar), nil, facts, webhook)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(full), ids(Default.Evaluate(kindAgentRuntime, Input{Object: ar, Facts: facts}, webhook)); !slices.Equal(got, want) {
		t.Errorf("rules.FullUpdate: %v, want %v", got, want)
	}
	// An update that changes the spec but keeps both hosts is ratcheted
	// field by field: reported, not refused.
	prev := ar.DeepCopy()
	prev.Spec.PromptPackRef.Name = "edge"
	ratcheted := Ratchet(Default.Evaluate(kindAgentRuntime, Input{Object: ar, Old: prev, Facts: facts}, webhook),
		Default.Evaluate(kindAgentRuntime, Input{Object: prev, Facts: facts}, webhook))
	if len(ids(ratcheted)) != 2 {
		t.Fatalf("ratcheted findings %v, want both host findings", ids(ratcheted))
	}
	for _, f := range ratcheted {
		if strings.HasPrefix(f.RuleID, "agentruntime/expose-host") && f.Severity != SeverityWarn {
			t.Errorf("%s on an unchanged update: severity %s, want warn (ratcheted)", f.RuleID, f.Severity)
		}
	}
}

// TestAgentRuntimeExposeHostAllowed: whole labels only, the namespace's
// domain and the Workspace's grants, never a wildcard.
func TestAgentRuntimeExposeHostAllowed(t *testing.T) {
	ws := exposeWorkspace("a", "shop.example.org", "Partner.Example.NET.")
	for _, tc := range []struct {
		ns, host, base string
		ws             *v1alpha1.Workspace
		want           bool
	}{
		{"a", "x.a.example.com", "example.com", nil, true},
		{"a", "a.example.com", "example.com", nil, true},
		{"a", "x.b.example.com", "example.com", nil, false},
		{"a", "b.example.com", "example.com", nil, false},
		{"a", "xa.example.com", "example.com", nil, false},
		{"a", "example.com", "example.com", nil, false},
		{"a", "*.a.example.com", "example.com", nil, false},
		{"a", "", "example.com", nil, false},
		{"a", "shop.example.org", "example.com", ws, true},
		{"a", "x.shop.example.org", "example.com", ws, true},
		{"a", "myshop.example.org", "example.com", ws, false},
		{"a", "example.org", "example.com", ws, false},
		{"a", "api.partner.example.net", "example.com", ws, true},
		{"a", "shop.example.org", "", ws, true},
		{"a", "x.a.example.com", "", ws, false},
		{"a", "x.a.example.com", "", nil, false},
		{"", "x.example.com", "example.com", nil, false},
	} {
		if got := AgentRuntimeExposeHostAllowed(tc.ns, tc.host, tc.base, tc.ws); got != tc.want {
			t.Errorf("AgentRuntimeExposeHostAllowed(%q, %q, %q, grants %v) = %v, want %v",
				tc.ns, tc.host, tc.base, workspaceAllowedHostSuffixes(tc.ws), got, tc.want)
		}
	}
}

// TestAgentRuntimeExposeHostHolder: first come, first served among the
// agents granted the host; a refused claim, or an agent being deleted,
// holds nothing; ties go by namespace, then name.
func TestAgentRuntimeExposeHostHolder(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const host = "shop.example.org"
	claimant := func(ns, name string, at time.Duration, h string) v1alpha1.AgentRuntime {
		ar := agentRuntimeBase()
		ar.Namespace, ar.Name = ns, name
		ar.CreationTimestamp = metav1.NewTime(t0.Add(at))
		agentRuntimeExposed(exposeHostOn(h), nil)(ar)
		return *ar
	}
	deleting := func(a v1alpha1.AgentRuntime) v1alpha1.AgentRuntime {
		a.DeletionTimestamp = ptr.To(metav1.NewTime(t0.Add(time.Hour)))
		return a
	}
	// Namespaces a and b are both granted the host; c is not.
	facts := exposeFacts("example.com", exposeWorkspace("a", "example.org"), exposeWorkspace("b", host))
	me := claimant("b", "mine", time.Minute, host)
	for _, tc := range []struct {
		name   string
		others []v1alpha1.AgentRuntime
		want   string
	}{
		{"alone", []v1alpha1.AgentRuntime{me}, ""},
		{"an earlier agent granted the host holds it", []v1alpha1.AgentRuntime{me, claimant("a", "first", 0, host)}, "a/first"},
		{"a later agent does not", []v1alpha1.AgentRuntime{claimant("a", "later", time.Hour, host)}, ""},
		{"an earlier agent not granted the host holds nothing", []v1alpha1.AgentRuntime{claimant("c", "squatter", 0, host)}, ""},
		{"an earlier agent with a wildcard holds nothing", []v1alpha1.AgentRuntime{claimant("a", "wild", 0, "*.example.org")}, ""},
		{"an earlier agent on another host", []v1alpha1.AgentRuntime{claimant("a", "other", 0, "api.example.org")}, ""},
		{"an earlier agent being deleted holds nothing", []v1alpha1.AgentRuntime{deleting(claimant("a", "going", 0, host))}, ""},
		{"the earliest of several", []v1alpha1.AgentRuntime{claimant("b", "second", time.Second, host), claimant("a", "first", 0, host), me}, "a/first"},
		{"same second: the namespace first", []v1alpha1.AgentRuntime{claimant("a", "z", time.Minute, host)}, "a/z"},
		{"same second and namespace: the name", []v1alpha1.AgentRuntime{claimant("b", "aaa", time.Minute, host), claimant("b", "zzz", time.Minute, host)}, "b/aaa"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if h := AgentRuntimeExposeHostHolder(&me, host, "example.com", tc.others, facts); h != nil {
				got = h.Namespace + "/" + h.Name
			}
			if got != tc.want {
				t.Errorf("holder = %q, want %q", got, tc.want)
			}
		})
	}
	// The claims in order, as the controller hands a host over.
	var order []string
	for _, c := range AgentRuntimeExposeHostClaims(host, "example.com", []v1alpha1.AgentRuntime{
		claimant("b", "second", time.Second, host), claimant("c", "squatter", -time.Hour, host), claimant("a", "first", 0, host), me,
	}, facts) {
		order = append(order, c.Namespace+"/"+c.Name)
	}
	if want := []string{"a/first", "b/second", "b/mine"}; !slices.Equal(order, want) {
		t.Errorf("claims %v, want %v", order, want)
	}
}

// TestAgentRuntimeExposeHosts: what the controller's index keys an agent
// by: each distinct host of its exposed facades.
func TestAgentRuntimeExposeHosts(t *testing.T) {
	ar := agentRuntimeBase()
	agentRuntimeExposed(exposeHostOn(""), exposeHostOn("Support-Agent.agents.example.com"))(ar)
	if got, want := AgentRuntimeExposeHosts(ar, "example.com"), []string{"support-agent.agents.example.com"}; !slices.Equal(got, want) {
		t.Errorf("hosts %v, want %v", got, want)
	}
	agentRuntimeExposed(exposeHostOn(""), exposeHostOn(""))(ar)
	if got, want := AgentRuntimeExposeHosts(ar, "example.com"), []string{"support-agent.agents.example.com", "support-agent-a2a.agents.example.com"}; !slices.Equal(got, want) {
		t.Errorf("hosts %v, want %v", got, want)
	}
}
