package rules

import (
	"encoding/json"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// PromptPack source rules: a published pack's ConfigMap exists in the pack's
// namespace, holds a pack.json that parses, and that pack.json names the
// pack and version the PromptPack declares. The PromptPack controller turns
// their findings into SourceValid, Ready and phase Invalid; an agent whose
// pack is Invalid fails with PromptPackInvalid (agentruntime.md#promptpackref).
//
// A live pack (spec.source.live) is compiled by the runtime from an Arena
// project at start: nothing here can check it, so these rules say nothing
// about it.

// PromptPackPackJSONKey is the ConfigMap key holding the pack.
const PromptPackPackJSONKey = "pack.json"

func init() {
	Default.Register(Rule{
		ID:        "promptpack/configmap-found",
		Kinds:     []string{kindPromptPack},
		Stage:     StageReconcile,
		Severity:  SeverityWarn,
		Condition: v1alpha1.PromptPackConditionSourceValid,
		Reason:    v1alpha1.PromptPackReasonConfigMapNotFound,
		Doc:       "The ConfigMap named by spec.source.configMapRef.name exists in the PromptPack's namespace.",
		Spec:      "agentruntime.md#promptpackref",
		Check:     checkPromptPackConfigMapFound,
	})
	Default.Register(Rule{
		ID:        "promptpack/pack-json-valid",
		Kinds:     []string{kindPromptPack},
		Stage:     StageReconcile,
		Severity:  SeverityWarn,
		Condition: v1alpha1.PromptPackConditionSourceValid,
		Reason:    v1alpha1.PromptPackReasonInvalidPackJSON,
		Doc:       "The source ConfigMap holds the key " + PromptPackPackJSONKey + " (data or binaryData) and its value parses as a JSON object.",
		Spec:      "agentruntime.md#promptpackref",
		Check:     checkPromptPackJSONValid,
	})
	Default.Register(Rule{
		ID:        "promptpack/pack-identity-matches",
		Kinds:     []string{kindPromptPack},
		Stage:     StageReconcile,
		Severity:  SeverityWarn,
		Condition: v1alpha1.PromptPackConditionSourceValid,
		Reason:    v1alpha1.PromptPackReasonPackIdentityMismatch,
		Doc: "The pack.json's id equals spec.packName and, when spec.version is set, its version equals spec.version " +
			"(compared as strings, build metadata included): an agent pinned to a name and version runs exactly that content.",
		Spec:  "agentruntime.md#promptpackref",
		Check: checkPromptPackIdentity,
	})
}

var promptPackConfigMapNamePath = field.NewPath("spec", "source", "configMapRef", "name")

// packString returns pack.json's top-level string field key: its value,
// whether it is present, and whether it is a string.
func packString(obj map[string]json.RawMessage, key string) (value string, present, isString bool) {
	raw, ok := obj[key]
	if !ok {
		return "", false, false
	}
	if err := json.Unmarshal(raw, &value); err != nil {
		return "", true, false
	}
	return value, true, true
}

// promptPackConfigMap returns the pack and its ConfigMap's name, or nil when
// the pack has no ConfigMap source.
func promptPackConfigMap(in Input) (*v1alpha1.PromptPack, string) {
	p, _ := in.Object.(*v1alpha1.PromptPack)
	if p == nil || p.Spec.Source.ConfigMapRef == nil || p.Spec.Source.ConfigMapRef.Name == "" {
		return nil, ""
	}
	return p, p.Spec.Source.ConfigMapRef.Name
}

// promptPackJSON returns the pack.json value and whether the ConfigMap and
// the key exist.
func promptPackJSON(in Input) (p *v1alpha1.PromptPack, name string, value []byte, hasKey, found bool) {
	p, name = promptPackConfigMap(in)
	if p == nil {
		return nil, "", nil, false, false
	}
	value, hasKey, found = in.Facts.ConfigMapValue(p.Namespace, name, PromptPackPackJSONKey)
	return p, name, value, hasKey, found
}

func checkPromptPackConfigMapFound(in Input) field.ErrorList {
	p, name, _, _, found := promptPackJSON(in)
	if p == nil || found {
		return nil
	}
	return field.ErrorList{field.Invalid(promptPackConfigMapNamePath, name,
		"ConfigMap "+strconv.Quote(name)+" named by spec.source.configMapRef.name does not exist in "+namespaceText(p.Namespace)+
			"; create it there with the pack in its "+PromptPackPackJSONKey+" key, or name an existing ConfigMap")}
}

func checkPromptPackJSONValid(in Input) field.ErrorList {
	p, name, value, hasKey, found := promptPackJSON(in)
	if p == nil || !found {
		return nil // promptpack/configmap-found reports a missing ConfigMap
	}
	if !hasKey {
		return field.ErrorList{field.Invalid(promptPackConfigMapNamePath, name,
			"ConfigMap "+strconv.Quote(name)+" has no key "+PromptPackPackJSONKey+"; put the pack's JSON under that key")}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(value, &obj); err != nil || obj == nil {
		detail := "it is not a JSON object"
		if err != nil {
			detail = err.Error()
		}
		return field.ErrorList{field.Invalid(promptPackConfigMapNamePath, name,
			"the "+PromptPackPackJSONKey+" key of ConfigMap "+strconv.Quote(name)+" does not parse as a JSON object: "+detail)}
	}
	return nil
}

func checkPromptPackIdentity(in Input) field.ErrorList {
	p, name, value, hasKey, _ := promptPackJSON(in)
	if p == nil || !hasKey {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(value, &obj); err != nil || obj == nil {
		return nil // promptpack/pack-json-valid reports it
	}
	where := "the " + PromptPackPackJSONKey + " of ConfigMap " + strconv.Quote(name)
	var errs field.ErrorList
	packNamePath := field.NewPath("spec", "packName")
	switch id, present, isString := packString(obj, "id"); {
	case !present:
		errs = append(errs, field.Invalid(packNamePath, p.Spec.PackName,
			where+" has no id; set its id to the spec.packName "+strconv.Quote(p.Spec.PackName)))
	case !isString:
		errs = append(errs, field.Invalid(packNamePath, p.Spec.PackName,
			where+" has an id that is not a string; set it to the spec.packName "+strconv.Quote(p.Spec.PackName)))
	case id != p.Spec.PackName:
		errs = append(errs, field.Invalid(packNamePath, p.Spec.PackName,
			where+" has id "+strconv.Quote(id)+" but spec.packName is "+strconv.Quote(p.Spec.PackName)+
				"; the ConfigMap holds another pack: name the right ConfigMap or correct spec.packName"))
	}
	if p.Spec.Version == "" {
		return errs // no version declared: nothing to compare
	}
	versionPath := field.NewPath("spec", "version")
	switch version, present, isString := packString(obj, "version"); {
	case !present:
		errs = append(errs, field.Invalid(versionPath, p.Spec.Version,
			where+" has no version; spec.version is "+strconv.Quote(p.Spec.Version)))
	case !isString:
		errs = append(errs, field.Invalid(versionPath, p.Spec.Version,
			where+" has a version that is not a string; spec.version is "+strconv.Quote(p.Spec.Version)))
	case version != p.Spec.Version:
		errs = append(errs, field.Invalid(versionPath, p.Spec.Version,
			where+" has version "+strconv.Quote(version)+" but spec.version is "+strconv.Quote(p.Spec.Version)+
				" (compared as strings, build metadata included); publish the content as its own version or correct spec.version"))
	}
	return errs
}
