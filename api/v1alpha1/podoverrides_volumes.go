package v1alpha1

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DecodeExtraVolumes decodes po.extraVolumes, which the schema keeps as raw
// objects, into core/v1 Volumes. path is the field extraVolumes sits at
// (e.g. spec.podOverrides.extraVolumes). A value that is not a Volume, or a
// Volume without a name, is an error naming its field: the pod cannot be
// built from it, and dropping it while its mounts are kept would give the
// API server an invalid pod. Every builder of a pod with PodOverrides (the
// agent's Deployment, the Arena worker Job) decodes them here.
func DecodeExtraVolumes(po *PodOverrides, path *field.Path) ([]corev1.Volume, *field.Error) {
	if po == nil || len(po.ExtraVolumes) == 0 {
		return nil, nil
	}
	out := make([]corev1.Volume, 0, len(po.ExtraVolumes))
	for i, raw := range po.ExtraVolumes {
		p := path.Index(i)
		var v corev1.Volume
		if err := json.Unmarshal(raw.Raw, &v); err != nil {
			return nil, field.Invalid(p, string(raw.Raw), "not a core/v1 Volume: "+err.Error())
		}
		if v.Name == "" {
			return nil, field.Required(p.Child("name"), "every extra volume needs a name")
		}
		out = append(out, v)
	}
	return out, nil
}
