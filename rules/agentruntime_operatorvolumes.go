package rules

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The operator's volumes in an agent's pod are named with this prefix
// (reconcile/agentruntime: the pack, /tmp, the media claim and the
// facade's ServiceAccount token). A user's mount naming one would give the
// tenant's runtime image what the operator mounts only in the facade, such
// as the facade's token, so the prefix is the operator's alone.
const agentRuntimeOperatorVolumePrefix = "omnia-"

// AgentRuntimeOperatorVolume reports whether name is an operator volume's
// name: a user's mount of it is refused at admission and dropped from the
// pod by the builder.
func AgentRuntimeOperatorVolume(name string) bool {
	return strings.HasPrefix(name, agentRuntimeOperatorVolumePrefix)
}

func init() {
	Default.Register(Rule{
		ID:       "agentruntime/operator-volume-mount",
		Kinds:    agentRuntimeKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc: "runtime.volumes, runtime.volumeMounts, podOverrides.extraVolumes and podOverrides.extraVolumeMounts must not name a volume " +
			"starting with omnia- (the operator's volumes: the pack, /tmp, the media claim and the facade's ServiceAccount token, which only the " +
			"facade container mounts); on update only an entry not already in the same list is refused. The operator drops such mounts from the pod.",
		Spec:  "agentruntime.md#podoverrides",
		Check: checkAgentRuntimeOperatorVolumes,
	})
}

// agentRuntimeNamedList is one list of named volume entries, its path, and
// the names of the same list on the stored object (nil on create).
type agentRuntimeNamedList struct {
	path  *field.Path
	names []string
	old   []string
}

func mountNames(m []corev1.VolumeMount) []string {
	out := make([]string, len(m))
	for i := range m {
		out[i] = m[i].Name
	}
	return out
}

func volumeNames(v []corev1.Volume) []string {
	out := make([]string, len(v))
	for i := range v {
		out[i] = v[i].Name
	}
	return out
}

func checkAgentRuntimeOperatorVolumes(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil {
		return nil
	}
	old := agentRuntimeOf(in.Old)
	var lists []agentRuntimeNamedList
	if rt := ar.Spec.Runtime; rt != nil {
		l1 := agentRuntimeNamedList{path: field.NewPath("spec", "runtime", "volumes"), names: volumeNames(rt.Volumes)}
		l2 := agentRuntimeNamedList{path: field.NewPath("spec", "runtime", "volumeMounts"), names: mountNames(rt.VolumeMounts)}
		if old != nil && old.Spec.Runtime != nil {
			l1.old, l2.old = volumeNames(old.Spec.Runtime.Volumes), mountNames(old.Spec.Runtime.VolumeMounts)
		}
		lists = append(lists, l1, l2)
	}
	if po := ar.Spec.PodOverrides; po != nil {
		l := agentRuntimeNamedList{path: field.NewPath("spec", "podOverrides", "extraVolumeMounts"), names: mountNames(po.ExtraVolumeMounts)}
		if old != nil && old.Spec.PodOverrides != nil {
			l.old = mountNames(old.Spec.PodOverrides.ExtraVolumeMounts)
		}
		lists = append(lists, l)
		// extraVolumes are raw; a value that does not decode is another
		// rule's finding (agentruntime/pod-security names its field).
		if vols, err := AgentRuntimeExtraVolumes(ar); err == nil {
			l := agentRuntimeNamedList{path: field.NewPath("spec", "podOverrides", "extraVolumes"), names: volumeNames(vols)}
			if old != nil {
				if ov, err := AgentRuntimeExtraVolumes(old); err == nil {
					l.old = volumeNames(ov)
				}
			}
			lists = append(lists, l)
		}
	}
	var errs field.ErrorList
	for _, l := range lists {
		for i, name := range l.names {
			if !AgentRuntimeOperatorVolume(name) || (old != nil && slices.Contains(l.old, name)) {
				continue
			}
			errs = append(errs, field.Forbidden(l.path.Index(i).Child("name"),
				name+" starts with "+agentRuntimeOperatorVolumePrefix+", the prefix of the operator's own volumes (the pack, /tmp, the media claim, "+
					"the facade's ServiceAccount token): name the volume otherwise, e.g. "+strings.TrimPrefix(name, agentRuntimeOperatorVolumePrefix)))
		}
	}
	return errs
}
