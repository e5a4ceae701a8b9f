package arenarun

import (
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/arena/queue"
)

// DefaultTTLSecondsAfterFinished is the worker Job's ttlSecondsAfterFinished
// when the template sets none (arenajob.md § ttlSecondsAfterFinished).
const DefaultTTLSecondsAfterFinished int32 = 3600

// QueueSecretKey is the key of <run>-queue-redis holding the Redis URL.
const QueueSecretKey = "url"

// Labels on the worker Job and its pods.
const (
	LabelRun = "arena.omnia.altairalabs.ai/run"
	LabelJob = "arena.omnia.altairalabs.ai/job"
)

// The worker pod's scratch volume: the root filesystem is read-only, so /tmp
// (where a scratch output goes, ScratchOutputDir) is an emptyDir.
const (
	WorkerTmpVolume = "arena-tmp"
	workerTmpPath   = "/tmp"
)

// QueueSecretName is the Secret the controller writes for a run's queue URL.
func QueueSecretName(run string) string { return run + "-queue-redis" }

// JobName is the worker Job's name: the run's.
func JobName(run *v1alpha1.ArenaRun) string { return run.Name }

// WorkerJob builds the run's worker Job: workers pods in parallel (the
// capped count, status.workers), each reading the queue from its Secret and
// the pinned source and output from the environment (docs/arena-queue.md §
// Worker environment). cv is what the pods mount from the workspace content
// claim (output.go).
//
// The pod runs hardened whatever podOverrides say (they cannot set a
// security context): non-root, seccomp RuntimeDefault, no privilege
// escalation, every capability dropped, a read-only root filesystem with an
// emptyDir at /tmp. podOverrides.extraVolumes are decoded and added with
// their mounts; one that is not a core/v1 Volume is an error naming its
// field, so no pod is built with a mount whose volume is missing.
func WorkerJob(run *v1alpha1.ArenaRun, image string, workers int32, cv ContentVolume) (*batchv1.Job, error) {
	t := &run.Spec.Template
	ttl := DefaultTTLSecondsAfterFinished
	if t.TTLSecondsAfterFinished != nil {
		ttl = *t.TTLSecondsAfterFinished
	}
	labels := map[string]string{LabelRun: run.Name, LabelJob: run.Spec.JobRef.Name}
	podLabels := map[string]string{}
	podAnn := map[string]string{}
	var po *v1alpha1.PodOverrides
	if t.Workers != nil {
		po = t.Workers.PodOverrides
	}
	if po != nil {
		for k, v := range po.Labels {
			podLabels[k] = v
		}
		for k, v := range po.Annotations {
			podAnn[k] = v
		}
	}
	for k, v := range labels {
		podLabels[k] = v
	}
	c := corev1.Container{
		Name:            "worker",
		Image:           image,
		ImagePullPolicy: corev1.PullIfNotPresent,
		Env:             workerEnv(run, cv),
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			RunAsNonRoot:             ptr.To(true),
			ReadOnlyRootFilesystem:   ptr.To(true),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
		VolumeMounts: []corev1.VolumeMount{{Name: WorkerTmpVolume, MountPath: workerTmpPath}},
	}
	spec := corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Containers:    []corev1.Container{c},
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot:   ptr.To(true),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		Volumes: []corev1.Volume{{Name: WorkerTmpVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
	}
	if out := t.Output; out != nil && out.Type == v1alpha1.ArenaJobOutputTypePVC && out.PVC != nil {
		spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "arena-output", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: out.PVC.ClaimName}}})
		spec.Containers[0].VolumeMounts = append(spec.Containers[0].VolumeMounts,
			corev1.VolumeMount{Name: "arena-output", MountPath: OutputMountPath, SubPath: out.PVC.SubPath})
	}
	if cv.Claim != "" {
		spec.Volumes = append(spec.Volumes, corev1.Volume{Name: ContentVolumeName, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: cv.Claim}}})
		if s := run.Status.Source; s != nil && s.ContentPath != "" {
			spec.Containers[0].VolumeMounts = append(spec.Containers[0].VolumeMounts,
				corev1.VolumeMount{Name: ContentVolumeName, MountPath: SourceMountPath, SubPath: s.ContentPath, ReadOnly: true})
		}
		if cv.Output && defaultOutput(t) {
			spec.Containers[0].VolumeMounts = append(spec.Containers[0].VolumeMounts,
				corev1.VolumeMount{Name: ContentVolumeName, MountPath: OutputMountPath, SubPath: OutputDir(run.Name)})
		}
	}
	if po != nil {
		extra, ferr := v1alpha1.DecodeExtraVolumes(po, field.NewPath("spec", "template", "workers", "podOverrides", "extraVolumes"))
		if ferr != nil {
			return nil, ferr
		}
		spec.Volumes = append(spec.Volumes, extra...)
		spec.ServiceAccountName = po.ServiceAccountName
		spec.PriorityClassName = po.PriorityClassName
		if po.RuntimeClassName != "" {
			spec.RuntimeClassName = ptr.To(po.RuntimeClassName)
		}
		spec.NodeSelector = po.NodeSelector
		spec.Tolerations = po.Tolerations
		spec.ImagePullSecrets = po.ImagePullSecrets
		spec.Containers[0].Env = append(spec.Containers[0].Env, po.ExtraEnv...)
		spec.Containers[0].EnvFrom = po.ExtraEnvFrom
		spec.Containers[0].VolumeMounts = append(spec.Containers[0].VolumeMounts, po.ExtraVolumeMounts...)
	}
	if spec.ServiceAccountName != "" {
		spec.AutomountServiceAccountToken = nil
	}
	return &batchv1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      JobName(run),
			Namespace: run.Namespace,
			Labels:    labels,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: v1alpha1.GroupVersion.String(), Kind: "ArenaRun", Name: run.Name, UID: run.UID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: batchv1.JobSpec{
			Parallelism:             ptr.To(workers),
			Completions:             ptr.To(workers),
			BackoffLimit:            ptr.To(workers * 2),
			TTLSecondsAfterFinished: ptr.To(ttl),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels, Annotations: podAnn},
				Spec:       spec,
			},
		},
	}, nil
}

// workerEnv names the queue, the source and the output to the workers. The
// Redis URL comes from the queue Secret by reference, never by value.
func workerEnv(run *v1alpha1.ArenaRun, cv ContentVolume) []corev1.EnvVar {
	t := &run.Spec.Template
	env := []corev1.EnvVar{
		{Name: "ARENA_RUN_NAME", Value: run.Name},
		{Name: "ARENA_RUN_NAMESPACE", Value: run.Namespace},
		{Name: "ARENA_JOB_NAME", Value: run.Spec.JobRef.Name},
		{Name: "ARENA_JOB_TYPE", Value: string(t.Type)},
		{Name: "ARENA_FILE", Value: t.ArenaFile},
		{Name: "ARENA_QUEUE_KEY_PREFIX", Value: queue.KeyPrefix(run.Namespace, run.Name)},
	}
	if q := run.Status.Queue; q != nil {
		secret, key := QueueSecretName(run.Name), QueueSecretKey
		if q.SecretRef != nil {
			secret, key = q.SecretRef.Name, q.SecretRef.Key
		}
		env = append(env,
			corev1.EnvVar{Name: "ARENA_QUEUE_SOURCE", Value: string(q.Source)},
			corev1.EnvVar{Name: "ARENA_QUEUE_REDIS_URL", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: key}}})
		if q.ServiceGroup != "" {
			env = append(env, corev1.EnvVar{Name: "ARENA_SERVICE_GROUP", Value: q.ServiceGroup})
		}
	}
	if s := run.Status.Source; s != nil {
		env = append(env,
			corev1.EnvVar{Name: "ARENA_SOURCE_REPOSITORY", Value: s.Repository},
			corev1.EnvVar{Name: "ARENA_SOURCE_REF", Value: s.Ref},
			corev1.EnvVar{Name: "ARENA_SOURCE_COMMIT", Value: s.Commit},
			corev1.EnvVar{Name: "ARENA_SOURCE_CONTENT_PATH", Value: s.ContentPath})
		if cv.Claim != "" && s.ContentPath != "" {
			env = append(env, corev1.EnvVar{Name: "ARENA_SOURCE_DIR", Value: SourceMountPath})
		}
	}
	if t.Trials != nil {
		env = append(env, corev1.EnvVar{Name: "ARENA_TRIALS", Value: strconv.Itoa(int(*t.Trials))})
	}
	if t.BudgetLimit != "" {
		env = append(env, corev1.EnvVar{Name: "ARENA_BUDGET_LIMIT", Value: t.BudgetLimit},
			corev1.EnvVar{Name: "ARENA_BUDGET_CURRENCY", Value: t.BudgetCurrency})
	}
	switch out := t.Output; {
	case out != nil && out.Type == v1alpha1.ArenaJobOutputTypePVC && out.PVC != nil:
		env = append(env, corev1.EnvVar{Name: "ARENA_OUTPUT_TYPE", Value: "pvc"},
			corev1.EnvVar{Name: "ARENA_OUTPUT_DIR", Value: OutputMountPath},
			corev1.EnvVar{Name: "ARENA_OUTPUT_PVC_CLAIM", Value: out.PVC.ClaimName},
			corev1.EnvVar{Name: "ARENA_OUTPUT_PVC_SUBPATH", Value: out.PVC.SubPath})
	case out != nil && out.Type == v1alpha1.ArenaJobOutputTypeS3 && out.S3 != nil:
		env = append(env, corev1.EnvVar{Name: "ARENA_OUTPUT_TYPE", Value: "s3"},
			corev1.EnvVar{Name: "ARENA_OUTPUT_S3_BUCKET", Value: out.S3.Bucket},
			corev1.EnvVar{Name: "ARENA_OUTPUT_S3_PREFIX", Value: out.S3.Prefix},
			corev1.EnvVar{Name: "ARENA_OUTPUT_S3_REGION", Value: out.S3.Region},
			corev1.EnvVar{Name: "ARENA_OUTPUT_S3_ENDPOINT", Value: out.S3.Endpoint})
	case cv.Claim != "" && cv.Output:
		env = append(env, corev1.EnvVar{Name: "ARENA_OUTPUT_TYPE", Value: "default"},
			corev1.EnvVar{Name: "ARENA_OUTPUT_DIR", Value: OutputMountPath})
	default:
		// Not on the content volume: gone with the pod.
		env = append(env, corev1.EnvVar{Name: "ARENA_OUTPUT_TYPE", Value: "scratch"},
			corev1.EnvVar{Name: "ARENA_OUTPUT_DIR", Value: ScratchOutputDir})
	}
	if t.Verbose {
		env = append(env, corev1.EnvVar{Name: "LOG_LEVEL", Value: "debug"}, corev1.EnvVar{Name: "ARENA_VERBOSE", Value: "true"})
	}
	return env
}
