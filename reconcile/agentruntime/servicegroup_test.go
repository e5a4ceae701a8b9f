package agentruntime

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// TestResolveServiceEndpoints: the agent's service group's external
// session-api reaches the pod, its memory-api only with memory enabled;
// another group, a disabled block, a managed block (no url) or no
// Workspace give none.
func TestResolveServiceEndpoints(t *testing.T) {
	ws := &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: "w"}, Spec: v1alpha1.WorkspaceSpec{Services: []v1alpha1.WorkspaceServiceGroup{
		{Name: "default", Session: &v1alpha1.WorkspaceServiceBlock{URL: "http://session.svc:8080"}, Memory: &v1alpha1.WorkspaceServiceBlock{URL: "http://memory.svc:8080"}},
		{Name: "off", Session: &v1alpha1.WorkspaceServiceBlock{Enabled: ptr.To(false)}},
		{Name: "external", Session: &v1alpha1.WorkspaceServiceBlock{Enabled: ptr.To(false), URL: "http://external.svc"}},
		{Name: "managed", Session: &v1alpha1.WorkspaceServiceBlock{Enabled: ptr.To(true)}},
	}}}
	memory := func(a *v1alpha1.AgentRuntime) { a.Spec.Memory = &v1alpha1.AgentRuntimeMemory{Enabled: true} }
	group := func(g string) func(*v1alpha1.AgentRuntime) {
		return func(a *v1alpha1.AgentRuntime) { a.Spec.ServiceGroup = g }
	}
	for _, tc := range []struct {
		name            string
		ws              *v1alpha1.Workspace
		mut             []func(*v1alpha1.AgentRuntime)
		session, memory string
	}{
		{"default group with memory", ws, []func(*v1alpha1.AgentRuntime){memory}, "http://session.svc:8080", "http://memory.svc:8080"},
		{"default group, memory off", ws, nil, "http://session.svc:8080", ""},
		{"disabled session block", ws, []func(*v1alpha1.AgentRuntime){group("off")}, "", ""},
		{"external url with enabled false: the url is the service, as SessionRecording reads it", ws, []func(*v1alpha1.AgentRuntime){group("external")}, "http://external.svc", ""},
		{"managed session block", ws, []func(*v1alpha1.AgentRuntime){group("managed")}, "", ""},
		{"unknown group", ws, []func(*v1alpha1.AgentRuntime){group("nope"), memory}, "", ""},
		{"no Workspace", nil, []func(*v1alpha1.AgentRuntime){memory}, "", ""},
	} {
		res := workload.Resolved{SessionAPIURL: "stale", MemoryAPIURL: "stale"}
		ar := agent(tc.mut...)
		resolveServiceEndpoints(ar, tc.ws, &res)
		if res.SessionAPIURL != tc.session || res.MemoryAPIURL != tc.memory {
			t.Errorf("%s: session %q memory %q, want %q %q", tc.name, res.SessionAPIURL, res.MemoryAPIURL, tc.session, tc.memory)
		}
		// An external url the pod gets is one SessionRecording reports.
		if rec := sessionRecordingCondition(ar, tc.ws, 1); res.SessionAPIURL != "" && rec.Status != metav1.ConditionTrue {
			t.Errorf("%s: the pod gets a session-api SessionRecording says is not there (%s)", tc.name, rec.Reason)
		}
	}
}
