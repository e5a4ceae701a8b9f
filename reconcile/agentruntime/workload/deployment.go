package workload

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// Container names in the agent pod (rules names them: the Pod Security
// rule judges the same three containers).
const (
	ContainerFacade       = rules.AgentRuntimeContainerFacade
	ContainerRuntime      = rules.AgentRuntimeContainerRuntime
	ContainerPolicyBroker = rules.AgentRuntimeContainerPolicyBroker
)

// revisionHistoryLimit keeps three old ReplicaSets per agent instead of the
// Kubernetes default of ten: enough to roll back by hand, and a thousand
// agents do not leave ten thousand idle ReplicaSets behind.
const revisionHistoryLimit int32 = 3

// Deployment builds the agent's Deployment: one pod with the facade
// container (every facade of the agent in one process, or the custom
// facade's own image), the runtime container and the policy-broker
// sidecar, laid out as agentruntime.md describes.
//
// It also returns the reserved keys it dropped from facades[].extraEnv,
// runtime.extraEnv and podOverrides.extraEnv (in that order), for the
// ReservedEnvClean condition; and an error naming the field when the spec
// cannot be turned into a pod (a podOverrides.extraVolumes entry that is not
// a Volume).
//
// Replicas: ScaleToZero gives 0; an effective autoscaler leaves
// spec.replicas unset so the HPA or ScaledObject owns it; otherwise
// runtime.replicas (1), clamped to ReplicaCap.
func Deployment(ar *v1alpha1.AgentRuntime, r Resolved) (*appsv1.Deployment, []DroppedEnv, error) {
	facadeUser, runtimeUser, overrideUser, dropped := userEnv(ar)
	volumes, err := podVolumes(ar, &r)
	if err != nil {
		return nil, nil, err
	}
	ports := FacadePorts(ar)
	envFrom := extraEnvFrom(ar)

	facade := facadeContainer(ar, &r, ports)
	facade.Env = containerEnv(shadowReserved(facadeEnv(ar, &r, ports), envFrom), facadeUser, overrideUser)
	facade.EnvFrom = envFrom
	volumes = withJWKSVolume(volumes, &facade, &r)

	runtime := runtimeContainer(ar, &r)
	runtime.EnvFrom = extraEnvFrom(ar)
	runtime.Env = containerEnv(shadowReserved(runtimeEnv(ar, &r), runtime.EnvFrom), runtimeUser, overrideUser)

	broker := brokerContainer(ar, &r)

	var affinity *corev1.Affinity
	if rt := ar.Spec.Runtime; rt != nil && rt.Affinity != nil {
		affinity = rt.Affinity.DeepCopy()
	}
	pod := corev1.PodSpec{
		Containers:         []corev1.Container{facade, runtime, broker},
		Volumes:            volumes,
		ServiceAccountName: PodServiceAccountName(ar, &r),
		// The token is mounted in the facade only (VolumeFacadeToken):
		// the runtime container runs the tenant's image.
		AutomountServiceAccountToken:  ptr.To(false),
		EnableServiceLinks:            ptr.To(false),
		TerminationGracePeriodSeconds: ptr.To(terminationGracePeriod(ar)),
		NodeSelector:                  nodeSelector(ar),
		Tolerations:                   tolerations(ar),
		Affinity:                      affinity,
		ImagePullSecrets:              imagePullSecrets(ar),
		PriorityClassName:             priorityClassName(ar),
		RuntimeClassName:              runtimeClassName(ar, &r),
		RestartPolicy:                 corev1.RestartPolicyAlways,
		DNSPolicy:                     corev1.DNSClusterFirst,
		SchedulerName:                 corev1.DefaultSchedulerName,
		// The one definition the agentruntime/pod-security rule judges.
		SecurityContext: rules.AgentRuntimePodSecurityContext(),
	}

	maxSurge, maxUnavailable := intstr.FromString("25%"), intstr.FromInt32(0)
	d := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: appsv1.SchemeGroupVersion.String(), Kind: "Deployment"},
		ObjectMeta: ObjectMeta(ar, DeploymentName(ar)),
		Spec: appsv1.DeploymentSpec{
			Replicas: deploymentReplicas(ar, &r),
			Selector: &metav1.LabelSelector{MatchLabels: SelectorLabels(ar)},
			// Never below the desired count while a new version rolls out:
			// an agent keeps its live conversations' capacity.
			Strategy: appsv1.DeploymentStrategy{
				Type:          appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &maxSurge, MaxUnavailable: &maxUnavailable},
			},
			RevisionHistoryLimit: ptr.To(revisionHistoryLimit),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: stablePodLabels(ar), Annotations: podAnnotations(ar)},
				Spec:       pod,
			},
		},
	}
	// A rewritten async queue Secret copy rolls the pods (the controller's
	// async.go writes the copy and its digest).
	if h := asyncQueueHash(ar, &r); h != "" {
		d.Spec.Template.Annotations[AsyncQueueHashAnnotation] = h
	}
	return d, dropped, nil
}

// deploymentReplicas is the Deployment's spec.replicas (see Deployment).
func deploymentReplicas(ar *v1alpha1.AgentRuntime, r *Resolved) *int32 {
	if r.ScaleToZero {
		return ptr.To[int32](0)
	}
	if EffectiveAutoscaling(ar, r) != nil {
		return nil
	}
	n := int32(1)
	if rt := ar.Spec.Runtime; rt != nil && rt.Replicas != nil {
		n = *rt.Replicas
	}
	if r.ReplicaCap != nil && n > *r.ReplicaCap {
		n = *r.ReplicaCap
	}
	return &n
}

// userEnv is the user's environment per container, without reserved keys:
// the facades' extraEnv (CEL admits it only on the primary; every facade
// runs in the one facade container), runtime.extraEnv and
// podOverrides.extraEnv (facade and runtime, not policy-broker), and every
// reserved entry dropped from them.
func userEnv(ar *v1alpha1.AgentRuntime) (facade, runtime, overrides []corev1.EnvVar, dropped []DroppedEnv) {
	for i := range ar.Spec.Facades {
		kept, d := withoutReserved(field.NewPath("spec", "facades").Index(i).Child("extraEnv"), ar.Spec.Facades[i].ExtraEnv)
		facade = append(facade, kept...)
		dropped = append(dropped, d...)
	}
	if rt := ar.Spec.Runtime; rt != nil {
		kept, d := withoutReserved(field.NewPath("spec", "runtime", "extraEnv"), rt.ExtraEnv)
		runtime = kept
		dropped = append(dropped, d...)
	}
	if po := ar.Spec.PodOverrides; po != nil {
		kept, d := withoutReserved(field.NewPath("spec", "podOverrides", "extraEnv"), po.ExtraEnv)
		overrides = kept
		dropped = append(dropped, d...)
	}
	return facade, runtime, overrides, dropped
}

// Fixed resources the spec gives: the runtime's default requests (replaced
// by runtime.resources), and the facade's and policy broker's fixed
// requests. No limits: the spec names none, and a CPU limit throttles a
// streaming facade.
func requests(cpu, memory string) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(cpu),
		corev1.ResourceMemory: resource.MustParse(memory),
	}}
}

// facadeContainer is the facade container without its env. The image is a
// custom facade's own; else the primary facade's image override; else the
// operator's built-in facade image. A custom facade gets no probes: the
// operator does not know what a bring-your-own container serves.
func facadeContainer(ar *v1alpha1.AgentRuntime, r *Resolved, ports []FacadePort) corev1.Container {
	image := r.FacadeImage
	custom := false
	if pi := rules.AgentRuntimePrimaryFacade(ar.Spec.Facades); pi >= 0 {
		p := &ar.Spec.Facades[pi]
		custom = rules.AgentRuntimeFacadeType(p) == v1alpha1.AgentRuntimeFacadeTypeCustom
		if p.Image != "" {
			image = p.Image
		}
	}
	c := baseContainer(ContainerFacade, image)
	c.Ports = facadeContainerPorts(ports)
	c.Resources = requests("100m", "128Mi")
	c.VolumeMounts = facadeMounts(ar)
	if !custom {
		c.ReadinessProbe = httpProbe("/readyz", portNameFacadeHealth)
		c.LivenessProbe = httpProbe("/healthz", portNameFacadeHealth)
	}
	return c
}

// runtimeContainer is the runtime container without its env.
func runtimeContainer(ar *v1alpha1.AgentRuntime, r *Resolved) corev1.Container {
	c := baseContainer(ContainerRuntime, r.RuntimeImage)
	c.Ports = []corev1.ContainerPort{tcpPort(portNameRuntimeGRPC, RuntimeGRPCPort)}
	c.Resources = requests("100m", "256Mi")
	if rt := ar.Spec.Runtime; rt != nil && rt.Resources != nil {
		c.Resources = *rt.Resources.DeepCopy()
	}
	c.VolumeMounts = runtimeMounts(ar, r)
	c.ReadinessProbe = grpcProbe(RuntimeGRPCPort)
	c.LivenessProbe = grpcProbe(RuntimeGRPCPort)
	return c
}

// brokerContainer is the policy-broker sidecar. It is operator-injected, so
// no podOverrides container field reaches it; its environment is the
// agent's identity, its ports and the ToolRegistry its decisions are about.
func brokerContainer(ar *v1alpha1.AgentRuntime, r *Resolved) corev1.Container {
	c := baseContainer(ContainerPolicyBroker, r.PolicyBrokerImage)
	c.Ports = []corev1.ContainerPort{tcpPort(portNameBrokerGRPC, BrokerGRPCPort), tcpPort(portNameBrokerHealth, BrokerHealthPort)}
	e := identityEnv(ar)
	e.lit(EnvGRPCPort, strconv.Itoa(int(BrokerGRPCPort)))
	e.lit(EnvHealthPort, strconv.Itoa(int(BrokerHealthPort)))
	e.litIf(EnvToolRegistryName, r.ToolRegistryName)
	c.Env = e.sorted()
	c.Resources = requests("50m", "64Mi")
	c.ReadinessProbe = httpProbe("/readyz", portNameBrokerHealth)
	c.LivenessProbe = httpProbe("/healthz", portNameBrokerHealth)
	return c
}

// baseContainer holds what every container shares, with the API server's
// defaults written out (so a comparison with the applied object does not
// see a difference that is not one) and the restricted security context
// rules.AgentRuntimeContainerSecurityContext (no privilege escalation, no
// capabilities, a read-only root filesystem — a writable /tmp is mounted —
// non-root), the one the agentruntime/pod-security rule judges.
func baseContainer(name, image string) corev1.Container {
	return corev1.Container{
		Name:                     name,
		Image:                    image,
		ImagePullPolicy:          corev1.PullIfNotPresent,
		TerminationMessagePath:   corev1.TerminationMessagePathDefault,
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		SecurityContext:          rules.AgentRuntimeContainerSecurityContext(),
	}
}

func httpProbe(path, port string) *corev1.Probe {
	return probe(corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
		Path: path, Port: intstr.FromString(port), Scheme: corev1.URISchemeHTTP,
	}})
}

func grpcProbe(port int32) *corev1.Probe {
	return probe(corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: port, Service: ptr.To("")}})
}

// probe writes out the API server's probe defaults.
func probe(h corev1.ProbeHandler) *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler:     h,
		TimeoutSeconds:   1,
		PeriodSeconds:    10,
		SuccessThreshold: 1,
		FailureThreshold: 3,
	}
}

// stablePodLabels are podLabels plus LabelRolloutTrack=RolloutTrackStable
// (not in the selector: the stable Deployment's selector is immutable). A
// rollout candidate's Deployment (CandidateDeployment) relabels its copy
// RolloutTrackCandidate.
func stablePodLabels(ar *v1alpha1.AgentRuntime) map[string]string {
	l := podLabels(ar)
	l[LabelRolloutTrack] = RolloutTrackStable
	return l
}
