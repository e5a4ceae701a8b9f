package rules

import (
	"reflect"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func init() {
	Default.Register(Rule{
		ID:       "agentruntime/extra-volume-valid",
		Kinds:    agentRuntimeKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc: "each podOverrides.extraVolumes entry, which the schema keeps as a raw object, must be a core/v1 Volume the API server " +
			"accepts in a pod: it decodes as a Volume (the decoding the builder mounts), its name is a DNS-1123 label not used by " +
			"another runtime.volumes or extraVolumes entry, and it sets exactly one volume source. Otherwise the Deployment " +
			"could not be applied (DeploymentApplyFailed).",
		Spec:  "agentruntime.md#podoverrides",
		Check: checkAgentRuntimeExtraVolumes,
	})
}

func checkAgentRuntimeExtraVolumes(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil || ar.Spec.PodOverrides == nil {
		return nil
	}
	seen := map[string]bool{}
	if rt := ar.Spec.Runtime; rt != nil {
		for i := range rt.Volumes {
			seen[rt.Volumes[i].Name] = true
		}
	}
	var errs field.ErrorList
	for i, raw := range ar.Spec.PodOverrides.ExtraVolumes {
		p := agentRuntimeExtraVolumesPath.Index(i)
		v, err := v1alpha1.DecodeExtraVolume(raw.Raw, p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, agentRuntimeExtraVolumeErrors(p, v, seen)...)
		seen[v.Name] = true
	}
	return errs
}

// agentRuntimeExtraVolumeErrors judges one decoded extra volume: its name,
// unique among the names seen before it, and its one source.
func agentRuntimeExtraVolumeErrors(p *field.Path, v corev1.Volume, seen map[string]bool) field.ErrorList {
	var errs field.ErrorList
	switch {
	case v.Name == "":
		errs = append(errs, field.Required(p.Child("name"), "every extra volume needs a name"))
	case len(validation.IsDNS1123Label(v.Name)) > 0:
		errs = append(errs, field.Invalid(p.Child("name"), v.Name, strings.Join(validation.IsDNS1123Label(v.Name), "; ")))
	case seen[v.Name]:
		e := field.Duplicate(p.Child("name"), v.Name)
		e.Detail = "another volume of the pod (runtime.volumes or an earlier extraVolumes entry) has this name"
		errs = append(errs, e)
	}
	switch n := volumeSources(v.VolumeSource); {
	case n == 0:
		errs = append(errs, field.Required(p, "a volume needs exactly one source (e.g. configMap, secret, emptyDir, csi); it sets none"))
	case n > 1:
		errs = append(errs, field.Forbidden(p, "a volume sets exactly one source; it sets "+strconv.Itoa(n)))
	}
	return errs
}

// volumeSources counts the sources a VolumeSource sets (each is a pointer
// field; the API server allows exactly one).
func volumeSources(s corev1.VolumeSource) int {
	n := 0
	rv := reflect.ValueOf(s)
	for i := range rv.NumField() {
		if f := rv.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			n++
		}
	}
	return n
}
