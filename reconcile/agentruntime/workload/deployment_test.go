package workload

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func TestDeploymentReplicas(t *testing.T) {
	hpa := &v1alpha1.AgentRuntimeAutoscaling{Enabled: true}
	keda := &v1alpha1.AgentRuntimeAutoscaling{Enabled: true, Type: "keda"}
	cases := []struct {
		name    string
		runtime *v1alpha1.AgentRuntimeRuntime
		r       func(*Resolved)
		want    *int32
	}{
		{"default 1", nil, nil, ptr.To[int32](1)},
		{"runtime.replicas", &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](3)}, nil, ptr.To[int32](3)},
		{"zero is allowed", &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](0)}, nil, ptr.To[int32](0)},
		{"hpa owns replicas", &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](3), Autoscaling: hpa}, nil, nil},
		{"disabled autoscaling is static", &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](3), Autoscaling: &v1alpha1.AgentRuntimeAutoscaling{}}, nil, ptr.To[int32](3)},
		{"keda without KEDA is static", &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](2), Autoscaling: keda}, func(r *Resolved) { r.KEDAUnavailable = true }, ptr.To[int32](2)},
		{"workspace default autoscaling applies when the agent sets none", nil, func(r *Resolved) { r.DefaultAutoscaling = hpa }, nil},
		{"the agent's own autoscaling beats the workspace default", &v1alpha1.AgentRuntimeRuntime{Autoscaling: &v1alpha1.AgentRuntimeAutoscaling{}}, func(r *Resolved) { r.DefaultAutoscaling = hpa }, ptr.To[int32](1)},
		{"clamped to the quota cap", &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](10)}, func(r *Resolved) { r.ReplicaCap = ptr.To[int32](4) }, ptr.To[int32](4)},
		{"capabilities unsatisfied: zero, even with an autoscaler", &v1alpha1.AgentRuntimeRuntime{Autoscaling: hpa}, func(r *Resolved) { r.ScaleToZero = true }, ptr.To[int32](0)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ar := agent(func(ar *v1alpha1.AgentRuntime) { ar.Spec.Runtime = tc.runtime })
			r := resolved()
			if tc.r != nil {
				tc.r(&r)
			}
			d, _, err := Deployment(ar, r)
			if err != nil {
				t.Fatal(err)
			}
			got := d.Spec.Replicas
			if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
				t.Errorf("replicas = %v, want %v", ptrStr(got), ptrStr(tc.want))
			}
		})
	}
}

func ptrStr(p *int32) string {
	if p == nil {
		return "unset"
	}
	return itoa(*p)
}

func TestDefaultResources(t *testing.T) {
	pod, _ := mustDeployment(t, agent(), resolved())
	for _, tc := range []struct {
		container, cpu, memory string
	}{
		{ContainerFacade, "100m", "128Mi"},
		{ContainerRuntime, "100m", "256Mi"},
		{ContainerPolicyBroker, "50m", "64Mi"},
	} {
		c := container(t, pod, tc.container)
		cpu, mem := c.Resources.Requests[corev1.ResourceCPU], c.Resources.Requests[corev1.ResourceMemory]
		if cpu.Cmp(resource.MustParse(tc.cpu)) != 0 || mem.Cmp(resource.MustParse(tc.memory)) != 0 {
			t.Errorf("%s requests = %s/%s, want %s/%s", tc.container, cpu.String(), mem.String(), tc.cpu, tc.memory)
		}
		if len(c.Resources.Limits) != 0 {
			t.Errorf("%s has limits %v; the spec sets none", tc.container, c.Resources.Limits)
		}
	}
}

func TestTerminationGracePeriod(t *testing.T) {
	for _, tc := range []struct {
		drain string
		want  int64
	}{{"", 60}, {"45s", 75}, {"10m", 630}, {"1h", 630}, {"bogus", 60}} {
		ar := agent(func(ar *v1alpha1.AgentRuntime) { ar.Spec.Facades[0].DrainTimeout = tc.drain })
		pod, _ := mustDeployment(t, ar, resolved())
		if got := *pod.TerminationGracePeriodSeconds; got != tc.want {
			t.Errorf("drainTimeout %q: terminationGracePeriodSeconds = %d, want %d", tc.drain, got, tc.want)
		}
	}
	// A custom primary's drainTimeout still sets it.
	ar := agent(func(ar *v1alpha1.AgentRuntime) {
		ar.Spec.Facades = []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeCustom, Image: "me/f:1", DrainTimeout: "90s"}}
	})
	pod, _ := mustDeployment(t, ar, resolved())
	if got := *pod.TerminationGracePeriodSeconds; got != 120 {
		t.Errorf("custom: terminationGracePeriodSeconds = %d, want 120", got)
	}
	if f := container(t, pod, ContainerFacade); f.Image != "me/f:1" || f.ReadinessProbe != nil {
		t.Errorf("custom facade image %q, probe %v", f.Image, f.ReadinessProbe)
	}
}

func TestFacadeImageOverride(t *testing.T) {
	ar := agent(func(ar *v1alpha1.AgentRuntime) { ar.Spec.Facades[0].Image = "me/facade:2" })
	pod, _ := mustDeployment(t, ar, resolved())
	if f := container(t, pod, ContainerFacade); f.Image != "me/facade:2" {
		t.Errorf("facade image = %q, want the primary's override", f.Image)
	}
}

// Port names and numbers are unique across the pod: the API server only
// warns about a duplicate name, but a probe or Service naming it then
// reaches the first container's port, not its own.
func TestPodPortsUnique(t *testing.T) {
	ar := agent(func(ar *v1alpha1.AgentRuntime) {
		ar.Spec.Facades = append(ar.Spec.Facades, v1alpha1.AgentRuntimeFacade{Type: v1alpha1.AgentRuntimeFacadeTypeA2A})
	})
	pod, _ := mustDeployment(t, ar, resolved())
	names, numbers := map[string]string{}, map[int32]string{}
	for _, c := range pod.Containers {
		for _, p := range c.Ports {
			if other, dup := names[p.Name]; dup {
				t.Errorf("port name %q in %s and %s", p.Name, other, c.Name)
			}
			if other, dup := numbers[p.ContainerPort]; dup {
				t.Errorf("port %d in %s and %s", p.ContainerPort, other, c.Name)
			}
			names[p.Name], numbers[p.ContainerPort] = c.Name, c.Name
		}
		for _, pr := range []*corev1.Probe{c.ReadinessProbe, c.LivenessProbe} {
			if pr != nil && pr.HTTPGet != nil {
				found := false
				for _, p := range c.Ports {
					found = found || p.Name == pr.HTTPGet.Port.StrVal
				}
				if !found {
					t.Errorf("%s probes port %q it does not declare", c.Name, pr.HTTPGet.Port.StrVal)
				}
			}
		}
	}
}
