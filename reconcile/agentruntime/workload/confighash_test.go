package workload

import (
	"testing"

	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Fields the pods read at start roll them (the hash moves); the replica
// count and the rollout do not; a podOverrides annotation cannot pin it.
func TestConfigHash(t *testing.T) {
	base := agent()
	cases := []struct {
		name  string
		mut   func(*v1alpha1.AgentRuntime)
		rolls bool
	}{
		{"rateLimit", func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.RateLimit = &v1alpha1.AgentRuntimeRateLimit{MaxInvocationsPerMinute: ptr.To[int32](60)}
		}, true},
		{"memory", func(ar *v1alpha1.AgentRuntime) { ar.Spec.Memory = &v1alpha1.AgentRuntimeMemory{Enabled: true} }, true},
		{"replicas", func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](5)}
		}, false},
		{"autoscaling", func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Autoscaling: &v1alpha1.AgentRuntimeAutoscaling{Enabled: true}}
		}, false},
		{"podOverrides annotation of the same key", func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.PodOverrides = &v1alpha1.PodOverrides{Annotations: map[string]string{ConfigHashAnnotation: "pinned"}}
		}, true},
	}
	d0, _, _ := Deployment(base, resolved())
	h0 := d0.Spec.Template.Annotations[ConfigHashAnnotation]
	if h0 == "" || h0 != ConfigHash(base) {
		t.Fatalf("pod template hash %q, want ConfigHash %q", h0, ConfigHash(base))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ar := agent(tc.mut)
			d, _, err := Deployment(ar, resolved())
			if err != nil {
				t.Fatal(err)
			}
			h := d.Spec.Template.Annotations[ConfigHashAnnotation]
			if h == "pinned" {
				t.Fatal("a podOverrides annotation pinned the config hash")
			}
			if rolled := h != h0; rolled != tc.rolls {
				t.Errorf("hash changed = %v, want %v", rolled, tc.rolls)
			}
		})
	}
}
