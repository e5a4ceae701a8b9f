package rules

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func TestAgentRuntimeFacadeBlockType(t *testing.T) {
	port := int32(9100)
	store := &v1alpha1.AgentRuntimeA2ATaskStore{Type: v1alpha1.AgentRuntimeA2ATaskStoreRedis, RedisURL: "redis://r:6379"}
	cases := []struct {
		name    string
		facades []v1alpha1.AgentRuntimeFacade
		want    []string // fields warned
	}{
		{"each block on its own type", []v1alpha1.AgentRuntimeFacade{
			{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket},
			{Type: v1alpha1.AgentRuntimeFacadeTypeA2A, A2A: &v1alpha1.AgentRuntimeFacadeA2A{TaskStore: store}},
			{Type: v1alpha1.AgentRuntimeFacadeTypeMCP, MCP: &v1alpha1.AgentRuntimeFacadeMCP{Port: &port}},
		}, nil},
		{"a2a and mcp blocks on a websocket facade", []v1alpha1.AgentRuntimeFacade{
			{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, A2A: &v1alpha1.AgentRuntimeFacadeA2A{TaskStore: store}, MCP: &v1alpha1.AgentRuntimeFacadeMCP{Port: &port}},
		}, []string{"spec.facades[0].a2a", "spec.facades[0].mcp"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ar := &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "n"}, Spec: v1alpha1.AgentRuntimeSpec{Facades: tc.facades}}
			var got []string
			for _, f := range Default.Evaluate(kindAgentRuntime, Input{Object: ar, Facts: NoFacts{}}, Options{}) {
				if f.RuleID == "agentruntime/facade-block-type" {
					got = append(got, f.Field)
				}
			}
			if len(got) != len(tc.want) || (len(got) > 0 && (got[0] != tc.want[0] || got[1] != tc.want[1])) {
				t.Errorf("warned %v, want %v", got, tc.want)
			}
			// The ignored block is invisible to the readers.
			for i := range tc.facades {
				f := &tc.facades[i]
				if (AgentRuntimeFacadeA2A(f) != nil) != (f.Type == v1alpha1.AgentRuntimeFacadeTypeA2A && f.A2A != nil) ||
					(AgentRuntimeFacadeMCP(f) != nil) != (f.Type == v1alpha1.AgentRuntimeFacadeTypeMCP && f.MCP != nil) {
					t.Errorf("facade %d (%s): a block read off its type", i, f.Type)
				}
			}
		})
	}
}
