package merge

import (
	"testing"

	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/deploy/intent"
)

func TestOptionsFor(t *testing.T) {
	cases := []struct {
		name  string
		agent intent.Agent
		want  Options
	}{
		{name: "nothing said", agent: intent.Agent{}, want: Options{}},
		{name: "preserveUnset false", agent: intent.Agent{PreserveUnset: ptr.To(false)}, want: Options{}},
		{name: "preserveUnset true", agent: intent.Agent{PreserveUnset: ptr.To(true)}, want: Options{PreserveUnset: true}},
		{name: "an empty rollout block is a block", agent: intent.Agent{Rollout: &intent.Rollout{}}, want: Options{RolloutBlock: true}},
		{name: "idle timeout", agent: intent.Agent{IdleTimeout: "30m"}, want: Options{IdleTimeout: "30m"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := OptionsFor(tc.agent); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
