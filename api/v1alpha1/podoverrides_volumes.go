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
		v, err := DecodeExtraVolume(raw.Raw, p)
		if err != nil {
			return nil, err
		}
		if v.Name == "" {
			return nil, field.Required(p.Child("name"), "every extra volume needs a name")
		}
		out = append(out, v)
	}
	return out, nil
}

// DecodeExtraVolume decodes one extraVolumes entry, at path p, as a core/v1
// Volume: the one decoding the builders mount and the rules judge
// (encoding/json, so a key spelled in another case is the same field for
// both).
func DecodeExtraVolume(raw []byte, p *field.Path) (corev1.Volume, *field.Error) {
	var v corev1.Volume
	if err := json.Unmarshal(raw, &v); err != nil {
		return corev1.Volume{}, field.Invalid(p, string(raw), "not a core/v1 Volume: "+err.Error())
	}
	return v, nil
}
