package workload

import (
	"slices"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func TestFacadePorts(t *testing.T) {
	ws := v1alpha1.AgentRuntimeFacadeTypeWebSocket
	a2a := v1alpha1.AgentRuntimeFacadeTypeA2A
	rest := v1alpha1.AgentRuntimeFacadeTypeREST
	mcp := v1alpha1.AgentRuntimeFacadeTypeMCP
	custom := v1alpha1.AgentRuntimeFacadeTypeCustom
	cases := []struct {
		name    string
		facades []v1alpha1.AgentRuntimeFacade
		want    []string
	}{
		{"websocket defaults", []v1alpha1.AgentRuntimeFacade{{Type: ws}},
			[]string{"facade:8080", "facade-mgmt:18080"}},
		{"unset type is websocket", []v1alpha1.AgentRuntimeFacade{{}},
			[]string{"facade:8080", "facade-mgmt:18080"}},
		{"websocket on its own port", []v1alpha1.AgentRuntimeFacade{{Type: ws, Port: ptr.To[int32](3000)}},
			[]string{"facade:3000", "facade-mgmt:18080"}},
		{"websocket + a2a: a2a on 9999 with its twin on 19999", []v1alpha1.AgentRuntimeFacade{{Type: ws}, {Type: a2a}},
			[]string{"facade:8080", "a2a:9999", "facade-mgmt:18080", "a2a-mgmt:19999"}},
		{"secondary a2a port from a2a.port, facades[].port ignored", []v1alpha1.AgentRuntimeFacade{{Type: ws}, {Type: a2a, Port: ptr.To[int32](7000), A2A: &v1alpha1.AgentRuntimeFacadeA2A{Port: ptr.To[int32](9000)}}},
			[]string{"facade:8080", "a2a:9000", "facade-mgmt:18080", "a2a-mgmt:19999"}},
		{"a2a alone is the primary listener on its own port", []v1alpha1.AgentRuntimeFacade{{Type: a2a, A2A: &v1alpha1.AgentRuntimeFacadeA2A{Port: ptr.To[int32](9000)}}},
			[]string{"facade:8080", "a2a-mgmt:19999"}},
		{"rest + mcp", []v1alpha1.AgentRuntimeFacade{{Type: rest}, {Type: mcp}},
			[]string{"facade:8080", "mcp:9998", "facade-mgmt:18080", "mcp-mgmt:19998"}},
		{"mcp.port", []v1alpha1.AgentRuntimeFacade{{Type: rest}, {Type: mcp, MCP: &v1alpha1.AgentRuntimeFacadeMCP{Port: ptr.To[int32](7777)}}},
			[]string{"mcp:7777", "facade:8080", "facade-mgmt:18080", "mcp-mgmt:19998"}},
		{"managementPlane false: no twin", []v1alpha1.AgentRuntimeFacade{{Type: ws}, {Type: a2a, ManagementPlane: ptr.To(false)}},
			[]string{"facade:8080", "a2a:9999", "facade-mgmt:18080"}},
		{"dataPlane false: twin only", []v1alpha1.AgentRuntimeFacade{{Type: ws, DataPlane: ptr.To(false)}},
			[]string{"facade-mgmt:18080"}},
		{"dataPlane false on the secondary leaves the primary", []v1alpha1.AgentRuntimeFacade{{Type: ws}, {Type: a2a, DataPlane: ptr.To(false)}},
			[]string{"facade:8080", "facade-mgmt:18080", "a2a-mgmt:19999"}},
		{"custom: data port, no management twin", []v1alpha1.AgentRuntimeFacade{{Type: custom, Image: "me/facade:1"}},
			[]string{"facade:8080"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ar := agent(func(ar *v1alpha1.AgentRuntime) { ar.Spec.Facades = tc.facades })
			if got := portNames(FacadePorts(ar)); !slices.Equal(got, tc.want) {
				t.Errorf("FacadePorts = %v, want %v", got, tc.want)
			}
			// The Service carries exactly these ports, by the same names.
			var svc []string
			for _, p := range Service(ar).Spec.Ports {
				if p.TargetPort.StrVal != p.Name {
					t.Errorf("Service port %s targets %q", p.Name, p.TargetPort.StrVal)
				}
				svc = append(svc, p.Name+":"+itoa(p.Port))
			}
			if !slices.Equal(svc, tc.want) {
				t.Errorf("Service ports = %v, want %v", svc, tc.want)
			}
			// The facade container carries them plus its health port, and
			// is told each one to bind.
			pod, _ := mustDeployment(t, ar, resolved())
			f := container(t, pod, ContainerFacade)
			for _, p := range FacadePorts(ar) {
				if v, ok := literal(f, PortEnvName(p.Name)); !ok || v != itoa(p.Port) {
					t.Errorf("facade %s = %q, want %d", PortEnvName(p.Name), v, p.Port)
				}
			}
			if len(f.Ports) != len(tc.want)+1 {
				t.Errorf("facade container ports = %v", f.Ports)
			}
		})
	}
}

func TestManagementEndpoints(t *testing.T) {
	ar := agent(func(ar *v1alpha1.AgentRuntime) {
		ar.Spec.Facades = []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}, {Type: v1alpha1.AgentRuntimeFacadeTypeA2A, ManagementPlane: ptr.To(false)}}
	})
	got := ManagementEndpoints(ar)
	if got == nil || got.WS != "support.team-a.svc.cluster.local:18080" || got.A2A != "" || got.MCP != "" {
		t.Errorf("ManagementEndpoints = %+v", got)
	}
	ar.Spec.Facades = []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, ManagementPlane: ptr.To(false)}}
	if got := ManagementEndpoints(ar); got != nil {
		t.Errorf("ManagementEndpoints with no twin = %+v, want nil", got)
	}
}
